-- Winograd F(2x2,3x3) path of nn.SpatialConvolution (src/nn/th_nn_winograd.c):
-- forward, gradInput and gradWeight against the im2col path and against a
-- direct loop, on random shapes (odd sizes, padding 0-2, batch 1, single
-- images, long rows cut into segments), float and double; finite
-- differences through it; the mode switch torch._C.nn.conv_winograd.
require 'torch'
require 'nn'
local helpers = require 'spec.support.helpers'
local C = torch._C.nn

-- forward, backward (gradInput, gradWeight, gradBias accumulated into
-- non-zero gradients with a scale) under one mode
local function run(mode, m, x, go, scale)
  local old = C.conv_winograd(mode)
  m.gradWeight:fill(0.5)
  if m.gradBias then m.gradBias:fill(-0.25) end
  local y = m:forward(x):clone()
  local gi = m:updateGradInput(x, go):clone()
  m:accGradParameters(x, go, scale)
  C.conv_winograd(old)
  return {y, gi, m.gradWeight:clone(), m.gradBias and m.gradBias:clone()}
end

-- largest difference over the largest magnitude of b (neither changed:
-- x:abs() works in place, as in Torch7)
local function relerr(a, b)
  local d = (a:double() - b:double()):abs():max()
  return d / math.max(torch.abs(b:double()):max(), 1e-300)
end

local function randomCase(T, rng)
  local B = rng(1, 3)
  local nIn, nOut = rng(1, 7), rng(1, 6)
  local pH, pW = rng(0, 2), rng(0, 2)
  local H, W = rng(math.max(1, 3 - 2 * pH), 12), rng(math.max(1, 3 - 2 * pW), 12)
  local m = nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, pW, pH):type(T)
  if rng(1, 4) == 1 then m:noBias() end
  local x = torch.randn(B, nIn, H, W):type(T)
  if rng(1, 4) == 1 then x = x[1] end  -- a single image (3D)
  local go = torch.randn(m:forward(x):size()):type(T)
  return m, x, go, string.format('%s B%d %d->%d %dx%d pad %d,%d', T, B, nIn, nOut, H, W, pH, pW)
end

describe('nn.SpatialConvolution Winograd F(2x2,3x3)', function()
  -- the direct 3x3 kernels (spec/nn_conv_direct_spec.lua) come first for
  -- float pad-1 convolutions: off here, so that float cases reach Winograd
  local oldDirect
  before_each(function() oldDirect = C.conv_direct('off') end)
  after_each(function()
    C.conv_winograd('auto')
    C.conv_direct(oldDirect)
  end)

  it('conv_winograd sets the mode and returns the previous one; a bad name errors', function()
    assert.are.equal('auto', C.conv_winograd())
    assert.are.equal('auto', C.conv_winograd('off'))
    assert.are.equal('off', C.conv_winograd('on'))
    assert.are.equal('on', C.conv_winograd('auto'))
    local msg = helpers.errmsg(C.conv_winograd, 'fast')
    assert.truthy(msg:find("invalid option 'fast'", 1, true), msg)
  end)

  it('matches the im2col path in double on random shapes (all three phases)', function()
    torch.manualSeed(21)
    local rng = function(a, b) return math.floor(torch.uniform(a, b + 1 - 1e-9)) end
    for _ = 1, 30 do
      local m, x, go, what = randomCase('torch.DoubleTensor', rng)
      local a, b = run('off', m, x, go, 0.7), run('on', m, x, go, 0.7)
      for i = 1, 4 do
        if a[i] then assert.is_true(relerr(b[i], a[i]) < 1e-12, what .. ' result ' .. i .. ': ' .. relerr(b[i], a[i])) end
      end
    end
  end)

  it('float32 stays within a measured bound of the double direct result', function()
    -- measured over these 30 shapes (all three results): at most 6.0e-7
    -- of the largest magnitude, the same as the im2col path's 6.0e-7;
    -- the bound leaves 3x room
    torch.manualSeed(22)
    local rng = function(a, b) return math.floor(torch.uniform(a, b + 1 - 1e-9)) end
    local worst = {0, 0}
    for _ = 1, 30 do
      local m, x, go, what = randomCase('torch.FloatTensor', rng)
      local md = m:clone():double()
      local ref = run('off', md, x:double(), go:double(), 0.7)
      for k, mode in ipairs({'off', 'on'}) do
        local r = run(mode, m, x, go, 0.7)
        for i = 1, 3 do
          local e = relerr(r[i], ref[i])
          worst[k] = math.max(worst[k], e)
          assert.is_true(e < 2e-6, what .. ' ' .. mode .. ' result ' .. i .. ': ' .. e)
        end
      end
    end
    assert.is_true(worst[2] > 0)  -- float arithmetic did happen on the Winograd side
  end)

  it('equals a direct loop (double, padding 1 and 2, odd output)', function()
    torch.manualSeed(23)
    for _, pad in ipairs({1, 2}) do
      local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, pad, pad):double()
      local x = torch.randn(2, 5, 7):double()
      local old = C.conv_winograd('on')
      local y = m:forward(x)
      C.conv_winograd(old)
      local w, bias = m.weight, m.bias
      for o = 1, 3 do
        for yy = 1, y:size(2) do
          for xx = 1, y:size(3) do
            local s = bias[o]
            for c = 1, 2 do for i = 1, 3 do for j = 1, 3 do
              local iy, ix = yy - 1 - pad + i, xx - 1 - pad + j
              if iy >= 1 and iy <= 5 and ix >= 1 and ix <= 7 then s = s + w[o][c][i][j] * x[c][iy][ix] end
            end end end
            assert.is_true(math.abs(y[o][yy][xx] - s) < 1e-12)
          end
        end
      end
    end
  end)

  it('passes finite-difference checks through the Winograd path (double)', function()
    torch.manualSeed(24)
    local old = C.conv_winograd('on')
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 2):double()
    local x = torch.randn(2, 2, 5, 4):double()
    assert.is_true(helpers.inputJacobianError(m, x) < 1e-6)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-6)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias) < 1e-6)
    C.conv_winograd(old)
  end)

  it('handles long rows cut into segments, several threads, a 2D weight and strided input', function()
    torch.manualSeed(25)
    -- a block holds at least 128 tiles (WINO_MIN_TILES): a 131-tile row is two segments
    local m = nn.SpatialConvolutionMM(64, 64, 3, 3, 1, 1, 1, 1):float()
    local big = torch.randn(5, 64, 5, 524):float()
    local x = big:narrow(4, 1, 262)  -- not contiguous
    local go = torch.randn(5, 64, 5, 262):float()
    local a, b = run('off', m, x, go, 1), run('on', m, x, go, 1)
    for i = 1, 4 do assert.is_true(relerr(b[i], a[i]) < 2e-6, 'result ' .. i .. ': ' .. relerr(b[i], a[i])) end
  end)

  it('conv_winogradChosen says which phases take Winograd under each mode', function()
    local m = nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 1, 1)
    local big, small = torch.randn(2, 8, 30, 30), torch.randn(2, 8, 8, 8)
    -- the tile side per phase: F(4x4) for forward and gradInput, F(2x2) for gradWeight
    assert.are.same({4, 4, 4}, {C.conv_winogradChosen(m, big)})
    assert.are.same({false, false, false}, {C.conv_winogradChosen(m, small)})
    assert.are.same({4, 4, false}, {C.conv_winogradChosen(m, torch.randn(8, 20, 20))})
    C.conv_winograd('on')
    assert.are.same({2, 2, 2}, {C.conv_winogradChosen(m, small)})
    -- neither 5x5, stride 2 nor padding 3 can
    for _, c in ipairs({nn.SpatialConvolution(8, 8, 5, 5, 1, 1, 2, 2), nn.SpatialConvolution(8, 8, 3, 3, 2, 2, 1, 1),
                        nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 3, 3)}) do
      assert.are.same({false, false, false}, {C.conv_winogradChosen(c, big)})
    end
    C.conv_winograd('off')
    assert.are.same({false, false, false}, {C.conv_winogradChosen(m, big)})
  end)

  it('takes 13x13 outputs from 65536 channel pairs (AlexNet), not with fewer', function()
    C.conv_winograd('auto')
    local wide = nn.SpatialConvolution(256, 256, 3, 3, 1, 1, 1, 1):float()
    local narrow = nn.SpatialConvolution(64, 64, 3, 3, 1, 1, 1, 1):float()
    assert.are.same({4, 4, 2}, {C.conv_winogradChosen(wide, torch.FloatTensor(2, 256, 13, 13))})
    assert.are.same({false, false, false}, {C.conv_winogradChosen(wide, torch.FloatTensor(2, 256, 12, 12))})
    assert.are.same({false, false, false}, {C.conv_winogradChosen(narrow, torch.FloatTensor(2, 64, 13, 13))})
    -- and its results there are those of the im2col path, to float rounding
    torch.manualSeed(13)
    local x = torch.FloatTensor(3, 256, 13, 13):uniform(-1, 1)
    local go = torch.FloatTensor(3, 256, 13, 13):uniform(-1, 1)
    -- (F(4x4)'s float error: docs/dev/wino4.md)
    local a, b = run('off', wide, x, go, 1), run('auto', wide, x, go, 1)
    for i = 1, 4 do assert.is_true(relerr(b[i], a[i]) < 4e-5, 'result ' .. i .. ': ' .. relerr(b[i], a[i])) end
    -- auto: F(4x4) for forward and gradInput, F(2x2) for gradWeight (65536 pairs)
    local c, d = run('on4', wide, x, go, 1), run('on', wide, x, go, 1)
    for i = 1, 4 do assert.are.equal(0, (b[i] - (i <= 2 and c or d)[i]):abs():max()) end
  end)

  it('the shape rule (auto) keeps results those of one of the two paths', function()
    torch.manualSeed(26)
    local m = nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 1, 1):double()
    local x, go = torch.randn(4, 8, 30, 30):double(), torch.randn(4, 8, 30, 30):double()
    local a, b = run('off', m, x, go, 1), run('auto', m, x, go, 1)
    for i = 1, 4 do assert.is_true(relerr(b[i], a[i]) < 1e-12) end
  end)
end)
