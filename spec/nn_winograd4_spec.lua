-- Winograd F(4x4,3x3) path of nn.SpatialConvolution (src/nn/generic/winograd4.c;
-- forward, gradInput and gradWeight): against the im2col
-- path in double (tight) and a double reference in float (a measured bound),
-- on random shapes (odd sizes, padding 0-2, maps not a multiple of 4, batch
-- 1, single images, 1 and many planes, long rows cut into segments); a
-- direct loop; finite differences through it; the 'on4' mode and the shape
-- rule's tile choice (torch._C.nn.conv_winograd, conv_winogradChosen).
require 'torch'
require 'nn'
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

-- largest difference over the largest magnitude of b
local function relerr(a, b)
  local d = (a:double() - b:double()):abs():max()
  return d / math.max(torch.abs(b:double()):max(), 1e-300)
end

local function randomCase(T, rng, maxPlanes)
  local B = rng(1, 3)
  local nIn, nOut = rng(1, maxPlanes), rng(1, maxPlanes)
  local pH, pW = rng(0, 2), rng(0, 2)
  local H, W = rng(math.max(1, 3 - 2 * pH), 15), rng(math.max(1, 3 - 2 * pW), 15)
  local m = nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, pW, pH):type(T)
  if rng(1, 4) == 1 then m:noBias() end
  local x = torch.randn(B, nIn, H, W):type(T)
  if rng(1, 4) == 1 then x = x[1] end  -- a single image (3D)
  local go = torch.randn(m:forward(x):size()):type(T)
  return m, x, go, string.format('%s B%d %d->%d %dx%d pad %d,%d', T, B, nIn, nOut, H, W, pH, pW)
end

local rng = function(a, b) return math.floor(torch.uniform(a, b + 1 - 1e-9)) end

describe('nn.SpatialConvolution Winograd F(4x4,3x3)', function()
  -- the direct 3x3 kernels come first for float pad-1 convolutions: off
  -- here, so that float cases reach Winograd
  local oldDirect
  before_each(function() oldDirect = C.conv_direct('off') end)
  after_each(function()
    C.conv_winograd('auto')
    C.conv_direct(oldDirect)
  end)

  it("conv_winograd takes 'on4' and returns it as the previous mode", function()
    assert.are.equal('auto', C.conv_winograd('on4'))
    assert.are.equal('on4', C.conv_winograd('on'))
    assert.are.equal('on', C.conv_winograd('auto'))
  end)

  it('conv_winogradChosen gives the tile side per phase: 4 under on4, 2 under on', function()
    local m = nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 1, 1)
    local x = torch.randn(2, 8, 9, 9)
    C.conv_winograd('on4')
    assert.are.same({4, 4, 4}, {C.conv_winogradChosen(m, x)})
    C.conv_winograd('on')
    assert.are.same({2, 2, 2}, {C.conv_winogradChosen(m, x)})
    C.conv_winograd('on4')
    assert.are.same({false, false, false}, {C.conv_winogradChosen(nn.SpatialConvolution(8, 8, 3, 3, 2, 2, 1, 1), x)})
    assert.are.same({false, false, false}, {C.conv_winogradChosen(nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 3, 3), x)})
  end)

  it('matches the im2col path in double on random shapes (all three phases, gradBias)', function()
    torch.manualSeed(41)
    for _ = 1, 40 do
      local m, x, go, what = randomCase('torch.DoubleTensor', rng, 9)
      local a, b = run('off', m, x, go, 0.7), run('on4', m, x, go, 0.7)
      for i = 1, 4 do
        if a[i] then assert.is_true(relerr(b[i], a[i]) < 1e-12, what .. ' result ' .. i .. ': ' .. relerr(b[i], a[i])) end
      end
    end
  end)

  it('float32 stays within a measured bound of the double result, few and many planes', function()
    -- measured (all three results, of the largest magnitude): at most
    -- 4.1e-6 on these small shapes against F(2x2)'s 2.5e-7, and 1.9e-5 on
    -- the zoo's layers (512 planes; docs/dev/wino4.md); the bounds leave
    -- 2.5x room
    torch.manualSeed(42)
    local worst = 0
    for _ = 1, 30 do
      local m, x, go, what = randomCase('torch.FloatTensor', rng, 9)
      local ref = run('off', m:clone():double(), x:double(), go:double(), 0.7)
      local r = run('on4', m, x, go, 0.7)
      for i = 1, 3 do
        local e = relerr(r[i], ref[i])
        worst = math.max(worst, e)
        assert.is_true(e < 1e-5, what .. ' result ' .. i .. ': ' .. e)
      end
    end
    assert.is_true(worst > 1e-7)  -- float arithmetic did happen
    -- 256 -> 320 planes on a 10x11 map: the sums over many planes
    local m = nn.SpatialConvolution(256, 320, 3, 3, 1, 1, 1, 1):float()
    local x, go = torch.randn(2, 256, 10, 11):float(), torch.randn(2, 320, 10, 11):float()
    local ref = run('off', m:clone():double(), x:double(), go:double(), 1)
    local r = run('on4', m, x, go, 1)
    for i = 1, 3 do assert.is_true(relerr(r[i], ref[i]) < 5e-5, 'wide result ' .. i .. ': ' .. relerr(r[i], ref[i])) end
  end)

  it('equals a direct loop (double, padding 0, 1 and 2, 1 plane in, output not a multiple of 4)', function()
    torch.manualSeed(43)
    for _, pad in ipairs({0, 1, 2}) do
      local m = nn.SpatialConvolution(1, 3, 3, 3, 1, 1, pad, pad):double()
      local x = torch.randn(1, 7, 9):double()
      local old = C.conv_winograd('on4')
      local y = m:forward(x)
      C.conv_winograd(old)
      local w, bias = m.weight, m.bias
      for o = 1, 3 do
        for yy = 1, y:size(2) do
          for xx = 1, y:size(3) do
            local s = bias[o]
            for i = 1, 3 do for j = 1, 3 do
              local iy, ix = yy - 1 - pad + i, xx - 1 - pad + j
              if iy >= 1 and iy <= 7 and ix >= 1 and ix <= 9 then s = s + w[o][1][i][j] * x[1][iy][ix] end
            end end
            assert.is_true(math.abs(y[o][yy][xx] - s) < 1e-12, 'pad ' .. pad)
          end
        end
      end
    end
  end)

  it('passes finite-difference checks through the F(4x4) path (double)', function()
    torch.manualSeed(44)
    local old = C.conv_winograd('on4')
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 2):double()
    local x = torch.randn(2, 2, 6, 9):double()
    assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-6)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-6)
    C.conv_winograd(old)
  end)

  it('the shape rule takes F(4x4) where Winograd was taken, on 7x7 maps from 262144 plane pairs, gradWeight up to 4 L2 of accumulators', function()
    C.conv_winograd('auto')
    local function chosen(nIn, nOut, H) return {C.conv_winogradChosen(nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1), torch.FloatTensor(2, nIn, H, H))} end
    assert.are.same({4, 4, 4}, chosen(64, 64, 56))
    -- gradWeight: F(4x4) while its 36 K x C float sums fit in 4 L2 sizes (on
    -- Zen 5's 1 MB: 112 x 224 pairs take it, 256 x 256 not)
    local maxPairs = 4 * torch.cpuInfo().l2 / (36 * 4)
    assert.are.same({4, 4, 112 * 224 <= maxPairs and 4 or 2}, chosen(112, 224, 14))
    assert.are.same({4, 4, 256 * 256 <= maxPairs and 4 or 2}, chosen(256, 256, 28))
    if torch.cpuInfo().l2 == 1048576 then assert.are.same({4, 4, 2}, chosen(256, 256, 28)) end
    assert.are.same({4, 4, 2}, chosen(256, 256, 13))
    assert.are.same({4, 4, false}, chosen(512, 512, 7))
    assert.are.same({false, false, false}, chosen(256, 256, 7))
    assert.are.same({false, false, false}, chosen(64, 64, 8))
    assert.are.same({false, false, false}, chosen(512, 512, 6))
  end)

  it('handles long rows cut into segments, two threads and strided input', function()
    torch.manualSeed(45)
    -- a block holds at least 64 tiles (WINO4_MIN_TILES): a 66-tile row is two segments
    local m = nn.SpatialConvolutionMM(64, 64, 3, 3, 1, 1, 1, 1):float()
    local big = torch.randn(3, 64, 6, 524):float()
    local x = big:narrow(4, 1, 262)  -- not contiguous
    local go = torch.randn(3, 64, 6, 262):float()
    local nt = torch.getnumthreads()
    torch.setnumthreads(2)
    local ref = run('off', m:clone():double(), x:double(), go:double(), 1)
    local b = run('on4', m, x, go, 1)
    torch.setnumthreads(nt)
    for i = 1, 4 do assert.is_true(relerr(b[i], ref[i]) < 1e-5, 'result ' .. i .. ': ' .. relerr(b[i], ref[i])) end
  end)
end)
