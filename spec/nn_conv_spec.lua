-- nn.SpatialConvolution, nn.SpatialConvolutionMM, nn.SpatialFullConvolution:
-- values against direct loops, gradients against finite differences (double),
-- float/double agreement, shapes, errors; a speed print (not asserted).
require 'torch'
require 'nn'

local function flat(t) return t:contiguous():view(t:nElement()) end

local function dot(a, b)
  local fa, fb, s = flat(a), flat(b), 0
  for i = 1, fa:nElement() do s = s + fa[i] * fb[i] end
  return s
end

local function maxdiff(a, b)
  assert.are.equal(a:nElement(), b:nElement())
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

-- gradient checks through the project's nn.Jacobian (full Jacobians by
-- central differences against backward; double)
local inputJacobianError = require('spec.support.helpers').inputJacobianError
local function paramJacobianError(m, x, param, gparam)
  return nn.Jacobian.testJacobianParameters(m, x, param, gparam)
end

-- direct convolution of one image (C x H x W), Torch7 semantics
local function naiveConv(x, w, b, dW, dH, padW, padH)
  local nOut, nIn, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4)
  local iH, iW = x:size(2), x:size(3)
  local oH, oW = (iH + 2 * padH - kH) // dH + 1, (iW + 2 * padW - kW) // dW + 1
  local out = torch.DoubleTensor(nOut, oH, oW)
  for o = 1, nOut do for y = 1, oH do for xx = 1, oW do
    local s = b and b[o] or 0
    for c = 1, nIn do for i = 1, kH do for j = 1, kW do
      local iy, ix = (y - 1) * dH - padH + i, (xx - 1) * dW - padW + j
      if iy >= 1 and iy <= iH and ix >= 1 and ix <= iW then s = s + w[o][c][i][j] * x[c][iy][ix] end
    end end end
    out[o][y][xx] = s
  end end end
  return out
end

-- direct transposed convolution: every input pixel scatters its kernel
local function naiveFullConv(x, w, b, dW, dH, padW, padH, adjW, adjH)
  local nIn, nOut, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4)
  local iH, iW = x:size(2), x:size(3)
  local oH, oW = (iH - 1) * dH - 2 * padH + kH + adjH, (iW - 1) * dW - 2 * padW + kW + adjW
  local out = torch.DoubleTensor(nOut, oH, oW):zero()
  for c = 1, nIn do for y = 1, iH do for xx = 1, iW do
    for o = 1, nOut do for i = 1, kH do for j = 1, kW do
      local oy, ox = (y - 1) * dH - padH + i, (xx - 1) * dW - padW + j
      if oy >= 1 and oy <= oH and ox >= 1 and ox <= oW then
        out[o][oy][ox] = out[o][oy][ox] + w[c][o][i][j] * x[c][y][xx]
      end
    end end end
  end end end
  if b then for o = 1, nOut do for y = 1, oH do for xx = 1, oW do out[o][y][xx] = out[o][y][xx] + b[o] end end end end
  return out
end

-- the error message without the 'file:line:' position Lua prepends
local errorOf = require('spec.support.helpers').errorOf

local configs = {  -- nIn, nOut, kW, kH, dW, dH, padW, padH
  {3, 4, 3, 3, 1, 1, 1, 1}, {2, 3, 3, 2, 2, 1, 0, 1}, {3, 2, 1, 1, 1, 1, 0, 0},
  {2, 2, 5, 5, 2, 2, 2, 2}, {2, 3, 1, 1, 2, 2, 0, 0}, {1, 2, 2, 3, 3, 2, 1, 0},
  {2, 3, 3, 3, 1, 2, 1, 1},
}

describe('nn.SpatialConvolution', function()
  before_each(function() torch.manualSeed(1234) end)

  it('constructs with Torch7 fields, defaults and printing', function()
    local m = nn.SpatialConvolution(3, 16, 5, 3)
    assert.are.equal(1, m.dW); assert.are.equal(1, m.dH)
    assert.are.equal(0, m.padW); assert.are.equal(0, m.padH)
    assert.are.same({16, 3, 3, 5}, m.weight:size():totable())
    assert.are.same({16}, m.bias:size():totable())
    assert.are.same({16, 3, 3, 5}, m.gradWeight:size():totable())
    assert.are.equal('nn.SpatialConvolution(3 -> 16, 5x3)', tostring(m))
    assert.are.equal('nn.SpatialConvolution(3 -> 16, 3x3, 2,2, 1,1)', tostring(nn.SpatialConvolution(3, 16, 3, 3, 2, 2, 1, 1)))
    assert.are.equal('nn.SpatialConvolution(3 -> 16, 3x3, 1,1, 1,1) without bias',
                     tostring(nn.SpatialConvolution(3, 16, 3, 3, 1, 1, 1):noBias()))
    -- padH defaults to padW, as Torch7
    assert.are.equal(2, nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 2).padH)
    -- weights drawn in +-1/sqrt(kW*kH*nIn)
    local stdv = 1 / math.sqrt(5 * 3 * 3)
    local w = flat(m.weight)
    for i = 1, w:nElement() do assert.is_true(math.abs(w[i]) <= stdv) end
  end)

  it('matches a direct convolution, single image and batch', function()
    for _, c in ipairs(configs) do
      local m = nn.SpatialConvolution(table.unpack(c))
      local x = torch.DoubleTensor(3, c[1], 7, 6):uniform(-1, 1)
      local y = m:forward(x)
      for b = 1, 3 do
        local ref = naiveConv(x[b], m.weight, m.bias, m.dW, m.dH, m.padW, m.padH)
        assert.are.same(ref:size():totable(), y[b]:size():totable())
        assert.is_true(maxdiff(ref, y[b]) < 1e-12, tostring(m))
      end
      local y1 = m:forward(x[2]):clone()
      assert.are.equal(3, y1:dim())
      assert.is_true(maxdiff(y1, naiveConv(x[2], m.weight, m.bias, m.dW, m.dH, m.padW, m.padH)) < 1e-12)
      m:noBias()
      assert.is_true(maxdiff(m:forward(x[1]), naiveConv(x[1], m.weight, nil, m.dW, m.dH, m.padW, m.padH)) < 1e-12)
    end
  end)

  it('has exact input and parameter gradients (finite differences, double)', function()
    for _, c in ipairs(configs) do
      local m = nn.SpatialConvolution(table.unpack(c))
      for _, x in ipairs{torch.DoubleTensor(c[1], 6, 5):uniform(-1, 1),
                         torch.DoubleTensor(2, c[1], 6, 5):uniform(-1, 1)} do
        assert.is_true(inputJacobianError(m, x) < 1e-5, tostring(m))
        assert.is_true(paramJacobianError(m, x, m.weight, m.gradWeight) < 1e-5, tostring(m))
        assert.is_true(paramJacobianError(m, x, m.bias, m.gradBias) < 1e-5, tostring(m))
      end
    end
  end)

  it('accumulates gradients with scale, also into non-contiguous views', function()
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1)
    local x = torch.DoubleTensor(4, 2, 5, 5):uniform(-1, 1)
    local go = m:forward(x):clone():uniform(-1, 1)
    m.gradWeight:zero(); m.gradBias:zero()
    m:accGradParameters(x, go, 1)
    local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
    m:accGradParameters(x, go, 0.5)
    local gw2 = flat(m.gradWeight)
    for i = 1, gw2:nElement() do assert.is_true(math.abs(gw2[i] - 1.5 * flat(gw)[i]) < 1e-12) end
    for i = 1, 3 do assert.is_true(math.abs(m.gradBias[i] - 1.5 * gb[i]) < 1e-12) end
    -- a wrongly shaped gradWeight is refused; a transposed (non-contiguous)
    -- view of the right shape gets the same sums
    m.gradWeight = torch.DoubleTensor(27, 2):zero():t()
    assert.is_false(pcall(function() m:accGradParameters(x, go, 1) end))
    m.gradWeight = torch.DoubleTensor(3, 2, 3, 3):zero():transpose(3, 4)
    m:accGradParameters(x, go, 1)
    assert.is_false(m.gradWeight:isContiguous())
    assert.is_true(maxdiff(m.gradWeight, gw) < 1e-12)
  end)

  it('accepts non-contiguous input and gradOutput', function()
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1)
    local x = torch.DoubleTensor(2, 2, 6, 6):uniform(-1, 1)
    local xt = x:transpose(3, 4)
    local y = m:forward(xt):clone()
    assert.is_true(maxdiff(y, m:forward(xt:contiguous())) < 1e-12)
    local go = torch.DoubleTensor(2, 3, 6, 6):uniform(-1, 1)
    local gi = m:updateGradInput(xt, go:transpose(3, 4)):clone()
    assert.is_true(maxdiff(gi, m:updateGradInput(xt, go:transpose(3, 4):contiguous())) < 1e-12)
  end)

  it('gives the same results on the parallel batch path as image by image', function()
    -- big enough for the images of the batch to be spread over threads; 16x16
    -- images are lowered a few at a time into one product (7: a last partial group)
    for _, B in ipairs{9, 7} do
    for _, m in ipairs{nn.SpatialConvolution(16, 16, 3, 3, 1, 1, 1, 1), nn.SpatialConvolution(16, 8, 1, 1),
                       nn.SpatialConvolution(16, 8, 3, 3, 2, 2, 1, 1),
                       nn.SpatialFullConvolution(16, 8, 3, 3, 2, 2, 1, 1, 1, 1)} do
      local x = torch.DoubleTensor(B, 16, 16, 16):uniform(-1, 1)
      local y = m:forward(x):clone()
      local go = y:clone():uniform(-1, 1)
      m:zeroGradParameters()
      local gi = m:backward(x, go):clone()
      local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
      -- the split of the images over threads is fixed: gradients repeat bit for bit
      m:zeroGradParameters()
      m:backward(x, go)
      assert.are.equal(0, maxdiff(m.gradWeight, gw))
      local sw, sb = gw:clone():zero(), gb:clone():zero()
      for b = 1, B do
        assert.is_true(maxdiff(m:forward(x[b]), y[b]) < 1e-10, tostring(m))
        m:zeroGradParameters()
        assert.is_true(maxdiff(m:backward(x[b], go[b]), gi[b]) < 1e-10, tostring(m))
        local fw, fsw = flat(m.gradWeight), flat(sw)
        for i = 1, fsw:nElement() do fsw[i] = fsw[i] + fw[i] end
        for i = 1, sb:nElement() do sb[i] = sb[i] + m.gradBias[i] end
      end
      assert.is_true(maxdiff(sw, gw) < 1e-9, tostring(m))
      assert.is_true(maxdiff(sb, gb) < 1e-9, tostring(m))
    end
    end
  end)

  it('is exact on images large enough to be lowered in several tiles', function()
    -- 70 output rows of 70 columns: the columns are built a band of rows at a time
    local m = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1)
    local x = torch.DoubleTensor(2, 70, 70):uniform(-1, 1)
    local y = m:forward(x)
    assert.is_true(maxdiff(y, naiveConv(x, m.weight, m.bias, 1, 1, 1, 1)) < 1e-12)
    -- backward by adjoint identities: <y - b, go> = <x, gradInput> = <weight, gradWeight>
    local go = y:clone():uniform(-1, 1)
    m:zeroGradParameters()
    local gi = m:backward(x, go)
    m:noBias()
    local lhs = dot(m:forward(x), go)
    assert.is_true(math.abs(lhs - dot(x, gi)) < 1e-9)
    assert.is_true(math.abs(lhs - dot(m.weight, m.gradWeight)) < 1e-9)
  end)

  it('agrees between float and double', function()
    local md = nn.SpatialConvolution(3, 5, 3, 3, 2, 2, 1, 1)
    local mf = nn.SpatialConvolution(3, 5, 3, 3, 2, 2, 1, 1):float()
    mf.weight:copy(md.weight); mf.bias:copy(md.bias)
    local x = torch.DoubleTensor(4, 3, 9, 9):uniform(-1, 1)
    local go = torch.DoubleTensor(4, 5, 5, 5):uniform(-1, 1)
    assert.is_true(maxdiff(md:forward(x), mf:forward(x:float()):double()) < 1e-5)
    md:zeroGradParameters(); mf:zeroGradParameters()
    assert.is_true(maxdiff(md:backward(x, go), mf:backward(x:float(), go:float()):double()) < 1e-5)
    assert.is_true(maxdiff(md.gradWeight, mf.gradWeight:double()) < 1e-4)
    assert.is_true(maxdiff(md.gradBias, mf.gradBias:double()) < 1e-4)
  end)

  it('keeps its output and gradInput objects and declares its buffers', function()
    local m = nn.SpatialConvolution(2, 2, 3, 3)
    local out, gin = m.output, m.gradInput
    m:forward(torch.Tensor(2, 5, 5):uniform())
    m:backward(torch.Tensor(2, 5, 5):uniform(), torch.Tensor(2, 3, 3):uniform())
    m:forward(torch.Tensor(3, 2, 6, 6):uniform())
    assert.are.equal(out, m.output); assert.are.equal(gin, m.gradInput)
    local tr = m:memoryTraits()
    assert.are.same({finput = 'forward', fgradInput = 'backward'}, tr.buffers)
    assert.is_true(tr.needsInput); assert.is_false(tr.needsOutput)
    assert.is_true(torch.isTensor(m.finput) and torch.isTensor(m.fgradInput))
  end)

  it('gives clear errors for wrong shapes and types', function()
    local m = nn.SpatialConvolution(3, 4, 3, 3)
    assert.are.equal('nn.SpatialConvolution:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 4D 2x4x8x8',
                     errorOf(function() m:forward(torch.Tensor(2, 4, 8, 8)) end))
    assert.are.equal('nn.SpatialConvolution:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 2D 8x8',
                     errorOf(function() m:forward(torch.Tensor(8, 8)) end))
    assert.are.equal('nn.SpatialConvolution:updateOutput: input 3x2x9 is smaller than the 3x3 kernel (with padding 0,0)',
                     errorOf(function() m:forward(torch.Tensor(3, 2, 9)) end))
    assert.are.equal("nn.SpatialConvolution:updateOutput: input must be a torch.DoubleTensor (the module's type), got torch.FloatTensor",
                     errorOf(function() m:forward(torch.FloatTensor(3, 8, 8)) end))
    assert.are.equal('nn.SpatialConvolution:updateOutput: input must be a tensor, got nil',
                     errorOf(function() m:forward(nil) end))
    local x = torch.Tensor(2, 3, 8, 8):uniform()
    m:forward(x)
    assert.are.equal('nn.SpatialConvolution:updateGradInput: gradOutput must be 2x4x6x6 (the output size), got 2x4x5x5',
                     errorOf(function() m:backward(x, torch.Tensor(2, 4, 5, 5)) end))
    assert.are.equal('nn.SpatialConvolutionMM:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 3D 1x8x8',
                     errorOf(function() nn.SpatialConvolutionMM(3, 4, 3, 3):forward(torch.Tensor(1, 8, 8)) end))
    assert.is_truthy(errorOf(function() nn.SpatialConvolution(3, 0, 3, 3) end)
                     :find('nn.SpatialConvolution: nOutputPlane must be an integer >= 1, got 0', 1, true))
  end)

  it('SpatialConvolutionMM keeps Torch7\'s 2D weight nOutputPlane x (nInputPlane*kH*kW)', function()
    local m = nn.SpatialConvolutionMM(2, 3, 3, 3, 1, 1, 1, 1)
    assert.is_true(torch.isTypeOf(m, 'nn.SpatialConvolution'))
    assert.are.same({3, 18}, m.weight:size():totable())
    assert.are.same({3, 18}, m.gradWeight:size():totable())
    assert.are.same({3}, m.bias:size():totable())
    assert.are.equal(1, m.padH)
    assert.are.equal('nn.SpatialConvolutionMM(2 -> 3, 3x3, 1,1, 1,1)', tostring(m))
    local x = torch.DoubleTensor(2, 5, 5):uniform(-1, 1)
    local w4 = m.weight:view(3, 2, 3, 3)
    assert.is_true(maxdiff(m:forward(x), naiveConv(x, w4, m.bias, 1, 1, 1, 1)) < 1e-12)
    -- the module's tensors stay the same objects with the same shape
    local weight, gradWeight = m.weight, m.gradWeight
    m:zeroGradParameters()
    m:backward(x, m.output:clone():fill(1))
    assert.are.equal(weight, m.weight)
    assert.are.equal(gradWeight, m.gradWeight)
    assert.are.same({3, 18}, m.gradWeight:size():totable())
    assert.is_true(m.gradWeight:abs():sum() > 0)
    assert.is_true(inputJacobianError(m, x) < 1e-5)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-5)
    -- a SpatialConvolution given an old-style 2D weight uses it through a view
    local old = nn.SpatialConvolution(2, 3, 3, 3)
    local w = old.weight:clone()
    old.weight = w:view(3, 18)
    old.gradWeight = old.gradWeight:view(3, 18)
    assert.is_true(maxdiff(old:forward(x), naiveConv(x, w, old.bias, 1, 1, 0, 0)) < 1e-12)
    assert.are.equal(2, old.weight:dim())
  end)

  it('round-trips through save/load (nn.Jacobian.testIO)', function()
    for _, m in ipairs{nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1), nn.SpatialConvolutionMM(2, 2, 1, 1),
                       nn.SpatialConvolution(2, 3, 3, 3, 2, 2, 1, 1):noBias()} do
      local errf, errb = nn.Jacobian.testIO(m, torch.DoubleTensor(2, 2, 5, 5):uniform())
      assert.are.equal(0, errf); assert.are.equal(0, errb)
    end
  end)

  it('prints forward/backward speed of a resnet-like layer (not asserted)', function()
    local m = nn.SpatialConvolution(16, 16, 3, 3, 1, 1, 1, 1):float()
    local x = torch.FloatTensor(64, 16, 32, 32):uniform(-1, 1)
    local go = torch.FloatTensor(64, 16, 32, 32):uniform(-1, 1)
    m:forward(x); m:backward(x, go)
    local n, t0 = 5, os.clock()
    local clock = torch.Timer and torch.Timer() or nil
    local function now() return clock and clock:time().real or os.clock() end
    t0 = now()
    for _ = 1, n do m:forward(x) end
    local tf = (now() - t0) / n
    t0 = now()
    for _ = 1, n do m:updateGradInput(x, go) end
    local tb = (now() - t0) / n
    t0 = now()
    for _ = 1, n do m:accGradParameters(x, go, 1) end
    local tg = (now() - t0) / n
    local gflop = 2 * 64 * 16 * 16 * 9 * 32 * 32 / 1e9
    print(string.format('\n  conv 16->16 3x3 on 64x16x32x32 float: forward %.1f ms (%.0f GFLOP/s), ' ..
                        'gradInput %.1f ms, gradParams %.1f ms', tf * 1e3, gflop / tf, tb * 1e3, tg * 1e3))
  end)
end)

describe('nn.SpatialFullConvolution', function()
  before_each(function() torch.manualSeed(99) end)

  local fconfigs = {  -- nIn, nOut, kW, kH, dW, dH, padW, padH, adjW, adjH
    {2, 3, 3, 3, 1, 1, 0, 0, 0, 0}, {3, 2, 3, 3, 2, 2, 1, 1, 1, 1}, {2, 2, 4, 3, 2, 3, 1, 0, 0, 2},
    {3, 2, 1, 1, 1, 1, 0, 0, 0, 0},
  }

  it('constructs, prints and checks adj', function()
    local m = nn.SpatialFullConvolution(3, 5, 4, 4, 2, 2, 1, 1, 1, 1)
    assert.are.same({3, 5, 4, 4}, m.weight:size():totable())
    assert.are.same({5}, m.bias:size():totable())
    assert.are.equal('nn.SpatialFullConvolution(3 -> 5, 4x4, 2,2, 1,1, 1,1)', tostring(m))
    assert.is_truthy(errorOf(function() nn.SpatialFullConvolution(1, 1, 3, 3, 1, 1, 0, 0, 1, 0) end)
                     :find('nn.SpatialFullConvolution: adjW and adjH must be smaller than dW and dH, got adj 1,0 for stride 1,1', 1, true))
  end)

  it('matches a direct transposed convolution and has exact gradients', function()
    for _, c in ipairs(fconfigs) do
      local m = nn.SpatialFullConvolution(table.unpack(c))
      local x = torch.DoubleTensor(2, c[1], 4, 3):uniform(-1, 1)
      local y = m:forward(x)
      for b = 1, 2 do
        local ref = naiveFullConv(x[b], m.weight, m.bias, m.dW, m.dH, m.padW, m.padH, m.adjW, m.adjH)
        assert.are.same(ref:size():totable(), y[b]:size():totable())
        assert.is_true(maxdiff(ref, y[b]) < 1e-12, tostring(m))
      end
      for _, xi in ipairs{x, x[1]:clone()} do
        assert.is_true(inputJacobianError(m, xi) < 1e-5, tostring(m))
        assert.is_true(paramJacobianError(m, xi, m.weight, m.gradWeight) < 1e-5, tostring(m))
        assert.is_true(paramJacobianError(m, xi, m.bias, m.gradBias) < 1e-5, tostring(m))
      end
    end
  end)

  it('is the adjoint of SpatialConvolution with the same weights', function()
    local conv = nn.SpatialConvolution(3, 2, 3, 3, 2, 2, 1, 1):noBias()
    local full = nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 0, 0):noBias()
    full.weight:copy(conv.weight)   -- conv: nOut(2) x nIn(3); full: nIn(2) x nOut(3)
    local x = torch.DoubleTensor(3, 7, 7):uniform(-1, 1)
    local y = torch.DoubleTensor(2, 4, 4):uniform(-1, 1)
    -- <conv(x), y> == <x, full(y)>
    assert.is_true(math.abs(dot(conv:forward(x), y) - dot(x, full:forward(y))) < 1e-12)
  end)

  it('round-trips through save/load (nn.Jacobian.testIO)', function()
    local errf, errb = nn.Jacobian.testIO(nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 1, 1),
                                          torch.DoubleTensor(2, 2, 4, 4):uniform())
    assert.are.equal(0, errf); assert.are.equal(0, errb)
  end)

  it('gives clear errors', function()
    local m = nn.SpatialFullConvolution(3, 4, 3, 3)
    assert.are.equal('nn.SpatialFullConvolution:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 3D 2x5x5',
                     errorOf(function() m:forward(torch.Tensor(2, 5, 5)) end))
    m:forward(torch.Tensor(3, 5, 5):uniform())
    assert.are.equal('nn.SpatialFullConvolution:updateGradInput: gradOutput must be 4x7x7 (the output size), got 4x5x5',
                     errorOf(function() m:updateGradInput(torch.Tensor(3, 5, 5), torch.Tensor(4, 5, 5)) end))
    local tr = m:memoryTraits()
    assert.are.same({finput = 'forward', fgradInput = 'backward'}, tr.buffers)
  end)
end)
