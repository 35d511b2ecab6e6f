-- The stride-2 direct AVX-512 path of nn.SpatialConvolution
-- (src/nn/th_nn_convdirect.c, docs/dev/strided.md): forward over the
-- input's four phase planes, gradInput as four stride-1 correlations of
-- gradOutput merged, gradWeight reading the padded input with stride 2.
-- Forward and gradWeight equal the stride-1 direct kernels bit for bit
-- (same taps in the same order), all phases match the double im2col path
-- on odd sizes, paddings, batch 1, 1 and many planes, kernels 1x3 to 7x7;
-- 1 and 2 threads; which shapes take it (strides 1 and 3, 1x1, paddings
-- that do not give a ceil(n / 2) output stay on the other paths); the
-- finite-difference jacobian of strided modules in double. On a CPU
-- without AVX-512 the path is never taken and the comparisons check the
-- fallback.
require 'torch'
require 'nn'
local C = torch._C.nn

local function relerr(a, b)
  local d = (a:double() - b:double()):abs():max()
  return d / math.max(torch.abs(b:double()):max(), 1e-300)
end

-- output, gradInput, gradWeight, gradBias (accumulated with 'scale' into
-- gradients that start at 0.5 / -0.25) under a mode of the direct kernels
local function run(mode, m, x, go, scale)
  local old = C.conv_direct(mode)
  m.gradWeight:fill(0.5)
  if m.gradBias then m.gradBias:fill(-0.25) end
  local y = m:forward(x):clone()
  local gi = m:updateGradInput(x, go):clone()
  m:accGradParameters(x, go, scale or 1)
  C.conv_direct(old)
  return {y, gi, m.gradWeight:clone(), m.gradBias and m.gradBias:clone()}
end

-- the float module under 'on' against the double module's im2col path
local function compare(m, x, go, what)
  local ref = run('off', m:clone():double(), x:double(), go:double(), 0.7)
  local r = run('on', m, x, go, 0.7)
  for i = 1, 4 do
    if ref[i] then
      assert.are.same(ref[i]:size():totable(), r[i]:size():totable())
      local e = relerr(r[i], ref[i])
      assert.is_true(e < 3e-6, what .. ' result ' .. i .. ': ' .. e)
    end
  end
end

local _, can = C.conv_direct()

describe('nn.SpatialConvolution stride-2 direct kernels', function()
  local oldThreads
  before_each(function() oldThreads = torch.getnumthreads() end)
  after_each(function()
    C.conv_direct('auto')
    torch.setnumthreads(oldThreads)
  end)

  it('take stride-2 windows whose output is ceil(n / 2), and only those', function()
    local function chosen(nIn, nOut, k, d, pad, H, W, kH, padH)
      local m = nn.SpatialConvolution(nIn, nOut, k, kH or k, d, d, pad, padH or pad):float()
      return {C.conv_directChosen(m, torch.FloatTensor(2, nIn, H, W))}
    end
    local old = C.conv_direct('on')
    local yes, no = {true, true, true}, {false, false, false}
    if not can then yes = no end
    assert.are.same(yes, chosen(4, 8, 3, 2, 1, 9, 8))      -- odd and even sides
    assert.are.same(yes, chosen(3, 8, 7, 2, 3, 23, 22))    -- a stem
    assert.are.same(yes, chosen(3, 8, 3, 2, 1, 9, 8, 1, 0)) -- 3x1, no vertical padding
    assert.are.same(yes, chosen(3, 8, 2, 2, 0, 8, 8))      -- even kernel, no padding
    assert.are.same(no, chosen(4, 8, 3, 2, 0, 9, 9))       -- 4x4 out of 9x9: not ceil(9 / 2)
    assert.are.same(no, chosen(4, 8, 3, 2, 2, 9, 9))       -- padding 2: 6x6
    assert.are.same(no, chosen(4, 8, 1, 2, 0, 9, 9))       -- 1x1: the gemm path
    assert.are.same(no, chosen(4, 8, 3, 3, 1, 9, 9))       -- stride 3
    assert.are.same(no, chosen(4, 8, 9, 2, 4, 20, 20))     -- wider than 7
    local m = nn.SpatialConvolution(4, 8, 3, 3, 2, 2, 1, 1):double()
    assert.are.same(no, {C.conv_directChosen(m, torch.DoubleTensor(2, 4, 9, 8))})
    C.conv_direct('off')
    assert.are.same(no, chosen(4, 8, 3, 2, 1, 9, 8))
    C.conv_direct(old)
  end)

  it('chooses per phase on the zoo shapes under auto (the shape rule)', function()
    if not can then return end
    local function chosen(B, nIn, H, nOut, k, pad)
      local m = nn.SpatialConvolution(nIn, nOut, k, k, 2, 2, pad, pad):float()
      return {C.conv_directChosen(m, torch.FloatTensor(B, nIn, H, H))}
    end
    assert.are.same({true, false, false}, chosen(16, 3, 224, 64, 7, 3))      -- stem
    assert.are.same({true, false, true}, chosen(16, 64, 56, 128, 3, 1))      -- ResNet-18
    assert.are.same({false, false, true}, chosen(16, 128, 28, 256, 3, 1))
    assert.are.same({false, false, false}, chosen(16, 256, 14, 512, 3, 1))
    assert.are.same({true, true, true}, chosen(16, 128, 56, 128, 3, 1))      -- ResNet-50
    assert.are.same({false, false, true}, chosen(16, 256, 28, 256, 3, 1))
    assert.are.same({true, true, true}, chosen(64, 16, 32, 32, 3, 1))        -- cifar
    assert.are.same({true, true, true}, chosen(64, 32, 16, 64, 3, 1))
  end)

  it('forward equals the stride-1 direct output at even positions, bit for bit', function()
    torch.manualSeed(41)
    -- B, nIn, nOut, H, W, k
    for _, c in ipairs({{2, 3, 5, 9, 8, 3}, {1, 20, 9, 13, 17, 3}, {3, 3, 6, 15, 14, 7}, {2, 4, 4, 11, 6, 5},
                        {1, 1, 1, 7, 7, 3}, {1, 70, 36, 8, 10, 3}}) do
      local B, nIn, nOut, H, W, k = table.unpack(c)
      local p = (k - 1) // 2
      local m2 = nn.SpatialConvolution(nIn, nOut, k, k, 2, 2, p, p):float()
      local m1 = nn.SpatialConvolution(nIn, nOut, k, k, 1, 1, p, p):float()
      m1.weight:copy(m2.weight)
      m1.bias:copy(m2.bias)
      local x = torch.randn(B, nIn, H, W):float()
      local old = C.conv_direct('on')
      local y2 = m2:forward(x)
      local y1 = m1:forward(x)
      C.conv_direct(old)
      local sub = y1:index(3, torch.range(1, H, 2):long()):index(4, torch.range(1, W, 2):long())
      assert.are.same(sub:size():totable(), y2:size():totable())
      assert.are.equal(0, (sub - y2):abs():max(), table.concat(c, 'x'))
    end
  end)

  it('gradWeight equals the stride-1 direct one of the gradOutput spread out with zeros, bit for bit', function()
    torch.manualSeed(42)
    for _, c in ipairs({{2, 3, 5, 9, 8, 3}, {3, 17, 20, 12, 13, 3}, {2, 3, 6, 15, 14, 7}, {1, 5, 40, 10, 9, 5}}) do
      local B, nIn, nOut, H, W, k = table.unpack(c)
      local p = (k - 1) // 2
      local m2 = nn.SpatialConvolution(nIn, nOut, k, k, 2, 2, p, p):float()
      local m1 = nn.SpatialConvolution(nIn, nOut, k, k, 1, 1, p, p):float()
      local x = torch.randn(B, nIn, H, W):float()
      local go = torch.randn(B, nOut, (H + 1) // 2, (W + 1) // 2):float()
      local wide = torch.zeros(B, nOut, H, W):float()
      for y = 1, go:size(3) do
        for xx = 1, go:size(4) do wide[{{}, {}, 2 * y - 1, 2 * xx - 1}]:copy(go[{{}, {}, y, xx}]) end
      end
      local old = C.conv_direct('on')
      m2:zeroGradParameters()
      m1:zeroGradParameters()
      m2:accGradParameters(x, go, 0.5)
      m1:accGradParameters(x, wide, 0.5)
      C.conv_direct(old)
      assert.are.equal(0, (m1.gradWeight - m2.gradWeight):abs():max(), table.concat(c, 'x'))
    end
  end)

  it('matches the double im2col path (all phases) on odd sizes, paddings and plane counts', function()
    torch.manualSeed(43)
    -- B, nIn, nOut, H, W, kW, kH, padW, padH
    local cases = {
      {2, 3, 5, 9, 8, 3, 3, 1, 1}, {1, 1, 1, 7, 9, 3, 3, 1, 1}, {3, 1, 40, 12, 11, 3, 3, 1, 1},
      {2, 40, 1, 10, 10, 3, 3, 1, 1}, {1, 70, 90, 9, 7, 3, 3, 1, 1}, {2, 3, 64, 23, 22, 7, 7, 3, 3},
      {2, 4, 6, 11, 14, 5, 5, 2, 2}, {1, 2, 3, 13, 12, 5, 3, 2, 1}, {2, 3, 4, 9, 7, 3, 1, 1, 0},
      {2, 3, 4, 8, 9, 1, 3, 0, 1}, {2, 3, 4, 8, 8, 2, 2, 0, 0}, {1, 5, 7, 2, 2, 3, 3, 1, 1},
      {1, 3, 4, 1, 1, 3, 3, 1, 1}, {3, 16, 32, 32, 32, 3, 3, 1, 1}, {2, 6, 5, 12, 10, 7, 5, 3, 2},
      {2, 5, 6, 10, 12, 4, 4, 1, 1}, {1, 4, 4, 10, 10, 6, 6, 2, 2},
    }
    for _, c in ipairs(cases) do
      local B, nIn, nOut, H, W, kW, kH, padW, padH = table.unpack(c)
      local m = nn.SpatialConvolution(nIn, nOut, kW, kH, 2, 2, padW, padH):float()
      local x = torch.randn(B, nIn, H, W):float()
      local go = torch.randn(m:forward(x):size()):float()
      compare(m, x, go, table.concat(c, 'x'))
      if can then
        local old = C.conv_direct('on')
        assert.are.same({true, true, true}, {C.conv_directChosen(m, x)}, table.concat(c, 'x'))
        C.conv_direct(old)
      end
    end
  end)

  it('matches it without bias, on one image (3D), non-contiguous operands', function()
    torch.manualSeed(44)
    local m = nn.SpatialConvolution(5, 6, 3, 3, 2, 2, 1, 1):float():noBias()
    compare(m, torch.randn(5, 9, 11):float(), torch.randn(6, 5, 6):float(), 'single image')
    m = nn.SpatialConvolution(5, 6, 3, 3, 2, 2, 1, 1):float()
    local x = torch.randn(3, 5, 9, 22):float():narrow(4, 2, 11)
    local go = torch.randn(3, 6, 6, 5):float():transpose(3, 4)
    assert.is_false(x:isContiguous())
    assert.is_false(go:isContiguous())
    compare(m, x, go, 'non-contiguous')
  end)

  it('gives the same forward and gradInput on 1 and 2 threads, gradWeight within rounding', function()
    -- gradWeight's images are split between the threads: partial sums
    -- added after (measured: 1.2e-6 of the largest magnitude)
    torch.manualSeed(45)
    for _, c in ipairs({{4, 16, 32, 16, 16, 3, 1}, {3, 3, 16, 30, 31, 7, 3}, {1, 32, 24, 9, 9, 3, 1}}) do
      local B, nIn, nOut, H, W, k, p = table.unpack(c)
      local m = nn.SpatialConvolution(nIn, nOut, k, k, 2, 2, p, p):float()
      local x = torch.randn(B, nIn, H, W):float()
      local go = torch.randn(m:forward(x):size()):float()
      torch.setnumthreads(1)
      local a = run('on', m, x, go, 1)
      torch.setnumthreads(2)
      local b = run('on', m, x, go, 1)
      assert.are.equal(0, (a[1] - b[1]):abs():max())
      assert.are.equal(0, (a[2] - b[2]):abs():max())
      assert.is_true(relerr(b[3], a[3]) < 1e-5)
      assert.is_true(relerr(b[4], a[4]) < 1e-5)
    end
  end)

  it('runs inside a net with the shape rule and leaves its results within rounding', function()
    torch.manualSeed(46)
    local net = nn.Sequential()
      :add(nn.SpatialConvolution(3, 16, 7, 7, 2, 2, 3, 3))
      :add(nn.ReLU(true))
      :add(nn.SpatialConvolution(16, 32, 3, 3, 2, 2, 1, 1))
      :add(nn.SpatialBatchNormalization(32))
      :add(nn.View(-1):setNumInputDims(3))
      :add(nn.Linear(32 * 5 * 5, 4))
    net:float()
    local x = torch.randn(3, 3, 19, 20):float()
    local go = torch.randn(3, 4):float()
    local outs = {}
    for _, mode in ipairs({'off', 'auto', 'on'}) do
      local old = C.conv_direct(mode)
      net:zeroGradParameters()
      local y = net:forward(x):clone()
      local gi = net:backward(x, go):clone()
      local _, gp = net:getParameters()
      outs[mode] = {y, gi, gp:clone()}
      C.conv_direct(old)
    end
    for _, mode in ipairs({'auto', 'on'}) do
      for i = 1, 3 do assert.is_true(relerr(outs[mode][i], outs.off[i]) < 1e-5, mode .. ' result ' .. i) end
    end
  end)

  it('has the finite-difference jacobian in double (strides 2 and 3, paddings, odd sizes)', function()
    torch.manualSeed(47)
    for _, c in ipairs({{2, 3, 3, 3, 2, 1, 7, 6}, {2, 2, 7, 7, 2, 3, 9, 8}, {2, 3, 3, 3, 3, 1, 8, 7},
                        {1, 2, 5, 5, 3, 0, 9, 10}, {2, 2, 1, 1, 2, 0, 5, 5}}) do
      local nIn, nOut, kW, kH, d, p, H, W = table.unpack(c)
      local m = nn.SpatialConvolution(nIn, nOut, kW, kH, d, d, p, p):double()
      local x = torch.randn(2, nIn, H, W)
      assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-6, 'input ' .. table.concat(c, 'x'))
      assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-6,
                     'weight ' .. table.concat(c, 'x'))
      assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias) < 1e-6,
                     'bias ' .. table.concat(c, 'x'))
    end
  end)
end)
