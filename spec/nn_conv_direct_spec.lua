-- The direct AVX-512 path of nn.SpatialConvolution for stride-1 float
-- convolutions with odd kernels up to 7x7 and "same" padding
-- (src/nn/th_nn_convdirect.c): forward, gradInput
-- and gradWeight against the double im2col path on random shapes (odd
-- sizes, planes narrower than a vector, batch 1, single images, many
-- channels so that the kernel is cut into groups), accumulation with a
-- scale, non-contiguous operands, several threads; the mode switch
-- torch._C.nn.conv_direct. On a CPU without AVX-512 the path is never
-- taken and the comparisons check the fallback.
require 'torch'
require 'nn'
local helpers = require 'spec.support.helpers'
local C = torch._C.nn

-- forward, backward (gradInput, gradWeight and gradBias accumulated into
-- non-zero gradients with a scale) under one mode
local function run(mode, m, x, go, scale)
  local old = C.conv_direct(mode)
  m.gradWeight:fill(0.5)
  if m.gradBias then m.gradBias:fill(-0.25) end
  local y = m:forward(x):clone()
  local gi = m:updateGradInput(x, go):clone()
  m:accGradParameters(x, go, scale)
  C.conv_direct(old)
  return {y, gi, m.gradWeight:clone(), m.gradBias and m.gradBias:clone()}
end

local function relerr(a, b)
  local d = (a:double() - b:double()):abs():max()
  return d / math.max(torch.abs(b:double()):max(), 1e-300)
end

-- every result of the float module under 'mode' against the double
-- module's im2col results; returns the worst error
local function compare(m, x, go, scale, what, bound)
  local md = m:clone():double()
  local oldW = C.conv_winograd('off')
  local ref = run('off', md, x:double(), go:double(), scale)
  local r = run('on', m, x, go, scale)
  C.conv_winograd(oldW)
  local worst = 0
  for i = 1, 4 do
    if ref[i] then
      assert.are.same(ref[i]:size():totable(), r[i]:size():totable())
      local e = relerr(r[i], ref[i])
      worst = math.max(worst, e)
      assert.is_true(e < bound, what .. ' result ' .. i .. ': ' .. e)
    end
  end
  return worst
end

describe('nn.SpatialConvolution direct kernels', function()
  local oldThreads
  before_each(function() oldThreads = torch.getnumthreads() end)
  after_each(function()
    C.conv_direct('auto')
    torch.setnumthreads(oldThreads)
  end)

  it('conv_direct sets the mode, returns the previous one and whether the CPU can', function()
    local mode, can = C.conv_direct()
    assert.are.equal('auto', mode)
    assert.are.equal('boolean', type(can))
    assert.are.equal('auto', (C.conv_direct('off')))
    assert.are.equal('off', (C.conv_direct('on')))
    assert.are.equal('on', (C.conv_direct('auto')))
    local msg = helpers.errmsg(C.conv_direct, 'fast')
    assert.truthy(msg:find("invalid option 'fast'", 1, true), msg)
  end)

  it('matches the double im2col path on random shapes (all three phases)', function()
    -- measured over these 40 shapes: at most 1.1e-6 of the largest
    -- magnitude (the im2col float path: 6e-7); the bound leaves 3x room
    torch.manualSeed(31)
    local rng = function(a, b) return math.floor(torch.uniform(a, b + 1 - 1e-9)) end
    local worst = 0
    for _ = 1, 40 do
      local B, nIn, nOut = rng(1, 4), rng(1, 9), rng(1, 11)
      local H, W = rng(1, 21), rng(1, 21)
      local m = nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1):float()
      if rng(1, 4) == 1 then m:noBias() end
      local x = torch.randn(B, nIn, H, W):float()
      if rng(1, 4) == 1 then x = x[1] end
      local go = torch.randn(m:forward(x):size()):float()
      local what = string.format('B%d %d->%d %dx%d', B, nIn, nOut, H, W)
      worst = math.max(worst, compare(m, x, go, 0.7, what, 3e-6))
    end
    assert.is_true(worst > 0)
  end)

  it('handles ResNet shapes, many channels (the kernel in groups) and one image on two threads', function()
    torch.manualSeed(32)
    local cases = {{2, 16, 16, 32, 32}, {3, 32, 32, 16, 16}, {4, 64, 64, 8, 8}, {1, 200, 40, 5, 5},
                   {1, 24, 20, 7, 9}, {2, 3, 16, 17, 31}}
    torch.setnumthreads(2)
    for _, c in ipairs(cases) do
      local B, nIn, nOut, H, W = table.unpack(c)
      local m = nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1):float()
      local x, go = torch.randn(B, nIn, H, W):float(), torch.randn(B, nOut, H, W):float()
      compare(m, x, go, 1, table.concat(c, 'x'), 3e-6)
    end
  end)

  it('handles odd kernels up to 7x7, square or not, with same padding', function()
    torch.manualSeed(37)
    local cases = {{2, 3, 5, 7, 9, 5, 5}, {2, 4, 6, 9, 11, 7, 7}, {1, 3, 2, 5, 4, 1, 3}, {2, 3, 3, 6, 8, 3, 1},
                   {3, 5, 7, 13, 6, 3, 5}, {2, 16, 32, 14, 14, 5, 5}, {1, 2, 2, 2, 2, 7, 7}, {2, 40, 36, 6, 7, 5, 5}}
    for _, c in ipairs(cases) do
      local B, nIn, nOut, H, W, kW, kH = table.unpack(c)
      local m = nn.SpatialConvolution(nIn, nOut, kW, kH, 1, 1, (kW - 1) / 2, (kH - 1) / 2):float()
      local x, go = torch.randn(B, nIn, H, W):float(), torch.randn(B, nOut, H, W):float()
      compare(m, x, go, 0.9, table.concat(c, 'x'), 3e-6)
    end
  end)

  it('takes non-contiguous input, gradOutput and gradWeight', function()
    torch.manualSeed(33)
    local m = nn.SpatialConvolution(5, 6, 3, 3, 1, 1, 1, 1):float()
    local x = torch.randn(3, 5, 9, 22):float():narrow(4, 2, 11)
    local go = torch.randn(3, 6, 11, 9):float():transpose(3, 4)
    assert.is_false(x:isContiguous())
    assert.is_false(go:isContiguous())
    compare(m, x, go, 0.5, 'strided', 3e-6)
    -- gradWeight itself a strided view: accumulated through a copy
    local big = torch.zeros(6, 5, 3, 6):float()
    local old = C.conv_direct('on')
    m.gradWeight = big:narrow(4, 2, 3)
    m:forward(x)
    m:backward(x, go)
    C.conv_direct(old)
    local ref = nn.SpatialConvolution(5, 6, 3, 3, 1, 1, 1, 1):double()
    ref.weight:copy(m.weight)
    ref.bias:copy(m.bias)
    ref:zeroGradParameters()
    ref:forward(x:double())
    ref:backward(x:double(), go:double())
    assert.is_true(relerr(m.gradWeight, ref.gradWeight) < 3e-6)
    assert.are.equal(0, big:narrow(4, 1, 1):abs():max())
  end)

  it('equals a direct loop on one image', function()
    torch.manualSeed(34)
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1):float()
    local x = torch.randn(2, 5, 7):float()
    local old = C.conv_direct('on')
    local y = m:forward(x)
    C.conv_direct(old)
    local w, bias = m.weight:double(), m.bias:double()
    local xd = x:double()
    for o = 1, 3 do
      for yy = 1, 5 do
        for xx = 1, 7 do
          local s = bias[o]
          for c = 1, 2 do for i = 1, 3 do for j = 1, 3 do
            local iy, ix = yy - 2 + i, xx - 2 + j
            if iy >= 1 and iy <= 5 and ix >= 1 and ix <= 7 then s = s + w[o][c][i][j] * xd[c][iy][ix] end
          end end end
          assert.is_true(math.abs(y[o][yy][xx] - s) < 1e-5, o .. ' ' .. yy .. ' ' .. xx)
        end
      end
    end
  end)

  it('leaves double, other paddings and strides to the other paths', function()
    torch.manualSeed(35)
    -- 3x3 with stride 3 (stride 2: nn_conv_direct_strided_spec.lua),
    -- padding 0 or 2, or padding only along one side
    for _, c in ipairs({{1, 1, 0, 0}, {3, 3, 1, 1}, {1, 1, 2, 2}, {1, 1, 1, 0}}) do
      local m = nn.SpatialConvolution(3, 4, 3, 3, c[1], c[2], c[3], c[4]):float()
      local x = torch.randn(2, 3, 9, 8):float()
      local go = torch.randn(m:forward(x):size()):float()
      local a, b = run('off', m, x, go, 1), run('on', m, x, go, 1)
      for i = 1, 4 do assert.are.equal(0, (a[i] - b[i]):abs():max()) end
    end
  end)

  it('runs inside a whole net and through optnet without changing its results', function()
    torch.manualSeed(36)
    local net = nn.Sequential()
      :add(nn.SpatialConvolution(3, 8, 3, 3, 1, 1, 1, 1))
      :add(nn.SpatialBatchNormalization(8))
      :add(nn.ReLU(true))
      :add(nn.SpatialConvolution(8, 8, 3, 3, 1, 1, 1, 1))
      :add(nn.View(-1):setNumInputDims(3))
      :add(nn.Linear(8 * 6 * 6, 4))
    net:float()
    local x = torch.randn(3, 3, 6, 6):float()
    local go = torch.randn(3, 4):float()
    local outs = {}
    for _, mode in ipairs({'off', 'on'}) do
      local old = C.conv_direct(mode)
      net:zeroGradParameters()
      local y = net:forward(x):clone()
      local gi = net:backward(x, go):clone()
      local _, gp = net:getParameters()
      outs[mode] = {y, gi, gp:clone()}
      C.conv_direct(old)
    end
    for i = 1, 3 do assert.is_true(relerr(outs.on[i], outs.off[i]) < 1e-5, 'result ' .. i) end
  end)
end)
