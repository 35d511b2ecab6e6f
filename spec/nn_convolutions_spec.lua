-- temporal and spatial convolutions of Torch7's wider module set: the
-- modcheck harness per module and code path, values against Torch7's
-- formulas computed by hand, and error messages for bad input
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

-- a by-definition 1D convolution: out[t][o] = b[o] + sum_k,i w[o][k*F+i] x[(t-1)*dW+k][i]
local function temporalRef(x, w, b, kW, dW)
  local T, F = x:size(1), x:size(2)
  local nOut = (T - kW) // dW + 1
  local y = torch.Tensor(nOut, w:size(1))
  for t = 1, nOut do
    for o = 1, w:size(1) do
      local s = b[o]
      for k = 1, kW do
        for i = 1, F do s = s + w[o][(k - 1) * F + i] * x[(t - 1) * dW + k][i] end
      end
      y[t][o] = s
    end
  end
  return y
end

local function errorOf(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return tostring(err)
end

describe('nn.TemporalConvolution', function()
  mc.module(it, {name = 'TemporalConvolution 2D',
                 make = function() return nn.TemporalConvolution(3, 4, 3, 2) end,
                 input = function() return torch.randn(9, 3) end,
                 tostring = 'nn.TemporalConvolution'})
  mc.module(it, {name = 'TemporalConvolution 2D, stride over kW (frames skipped)',
                 make = function() return nn.TemporalConvolution(2, 2, 2, 3) end,
                 input = function() return torch.randn(9, 2) end})
  mc.module(it, {name = 'TemporalConvolution batch',
                 make = function() return nn.TemporalConvolution(2, 3, 2) end,
                 input = function() return torch.randn(2, 6, 2) end,
                 input2 = function() return torch.randn(3, 6, 2) end})

  it('matches the definition, single and batch', function()
    torch.manualSeed(1)
    local m = nn.TemporalConvolution(3, 2, 3, 2)
    local x = torch.randn(4, 8, 3)
    local y = m:forward(x)
    assert.are.same({4, 3, 2}, y:size():totable())
    for b = 1, 4 do
      local r = temporalRef(x[b], m.weight, m.bias, 3, 2)
      assert.is_true((y[b] - r):abs():max() < 1e-12)
    end
    local y1 = m:forward(x[2]):clone()
    assert.is_true((y1 - temporalRef(x[2], m.weight, m.bias, 3, 2)):abs():max() < 1e-12)
  end)

  it('computes a small case by hand', function()
    local m = nn.TemporalConvolution(1, 1, 2, 1)
    m.weight:copy(torch.Tensor({{1, 10}}))
    m.bias:fill(0.5)
    local y = m:forward(torch.Tensor({{1}, {2}, {3}}))
    assert.are.same({{21.5}, {32.5}}, y:totable())
    m:zeroGradParameters()
    local gi = m:backward(torch.Tensor({{1}, {2}, {3}}), torch.Tensor({{1}, {1}}))
    assert.are.same({{1}, {11}, {10}}, gi:totable())
    assert.are.same({{3, 5}}, m.gradWeight:totable())
    assert.are.same({2}, m.gradBias:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.TemporalConvolution(3, 2, 3)
    local e = errorOf(function() m:forward(torch.randn(5)) end)
    assert.truthy(e:find('nn.TemporalConvolution:updateOutput: input must be 2D', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(5, 4)) end)
    assert.truthy(e:find('3 features per frame (inputFrameSize), got 2D 5x4', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 3)) end)
    assert.truthy(e:find('input has 2 frames, fewer than kW = 3', 1, true), e)
    m:forward(torch.randn(5, 3))
    e = errorOf(function() m:backward(torch.randn(5, 3), torch.randn(2, 2)) end)
    assert.truthy(e:find('nn.TemporalConvolution:updateGradInput: gradOutput must be 3x2', 1, true), e)
    e = errorOf(function() m:forward(torch.FloatTensor(5, 3)) end)
    assert.truthy(e:find("nn.TemporalConvolution:updateOutput: input must be a torch.DoubleTensor (the module's type), got torch.FloatTensor", 1, true), e)
    e = errorOf(function() m:backward(torch.randn(5, 3), torch.FloatTensor(3, 2)) end)
    assert.truthy(e:find("gradOutput must be a torch.DoubleTensor (the input's type), got torch.FloatTensor", 1, true), e)
    e = errorOf(function() nn.TemporalConvolution(3, 0, 2) end)
    assert.truthy(e:find('nn.TemporalConvolution: outputFrameSize must be an integer >= 1, got 0', 1, true), e)
  end)
end)

describe('nn.SpatialSubSampling', function()
  mc.module(it, {name = 'SpatialSubSampling 3D',
                 make = function() return nn.SpatialSubSampling(2, 3, 2, 2, 1) end,
                 input = function() return torch.randn(2, 5, 7) end,
                 tostring = 'nn.SpatialSubSampling'})
  mc.module(it, {name = 'SpatialSubSampling batch',
                 make = function() return nn.SpatialSubSampling(3, 2, 2) end,
                 input = function() return torch.randn(2, 3, 4, 5) end,
                 input2 = function() return torch.randn(4, 3, 4, 5) end})

  it('sums each window times the plane weight plus bias (by hand)', function()
    local m = nn.SpatialSubSampling(2, 2, 2, 2, 2)
    m.weight:copy(torch.Tensor({1, -2}))
    m.bias:copy(torch.Tensor({0.5, 1}))
    local x = torch.range(1, 32):view(2, 4, 4)
    local y = m:forward(x)
    -- plane 1 windows: 1+2+5+6 = 14, 3+4+7+8 = 22, 9+10+13+14 = 46, 54
    assert.are.same({{{14.5, 22.5}, {46.5, 54.5}}, {{-155, -171}, {-219, -235}}}, y:totable())
    m:zeroGradParameters()
    local gi = m:backward(x, torch.ones(2, 2, 2))
    assert.are.same(torch.Tensor(2, 4, 4):fill(1):narrow(1, 2, 1):fill(-2):totable()[1],
                    gi[2]:totable())
    assert.are.same({136, 392}, m.gradWeight:totable())  -- all of plane 1: 1..16, plane 2: 17..32
    assert.are.same({4, 4}, m.gradBias:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.SpatialSubSampling(3, 2, 2)
    local e = errorOf(function() m:forward(torch.randn(3, 4)) end)
    assert.truthy(e:find('nn.SpatialSubSampling:updateOutput: input must be 3D (nInputPlane x H x W) or 4D (batch), got 2D 3x4', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 4, 4)) end)
    assert.truthy(e:find('input must have 3 planes (nInputPlane) in dimension 1, got 3D 2x4x4', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(3, 1, 4)) end)
    assert.truthy(e:find('smaller than the 2x2 window', 1, true), e)
  end)
end)

describe('nn.TemporalMaxPooling', function()
  mc.module(it, {name = 'TemporalMaxPooling 2D, windows apart',
                 make = function() return nn.TemporalMaxPooling(2) end,
                 input = function() return torch.randn(7, 3) end,
                 tostring = 'nn.TemporalMaxPooling'})
  mc.module(it, {name = 'TemporalMaxPooling 2D, stride over kW (frames skipped)',
                 make = function() return nn.TemporalMaxPooling(2, 3) end,
                 input = function() return torch.randn(9, 2) end})
  mc.module(it, {name = 'TemporalMaxPooling batch, overlapping windows',
                 make = function() return nn.TemporalMaxPooling(3, 1) end,
                 input = function() return torch.randn(2, 6, 3) end,
                 input2 = function() return torch.randn(3, 6, 3) end})

  it('takes the first maximum of each window; indices 0-based offsets (by hand)', function()
    local m = nn.TemporalMaxPooling(3, 2)
    local x = torch.Tensor({{1, 5}, {4, 5}, {2, 0}, {4, 9}, {3, 1}})
    local y = m:forward(x)
    assert.are.same({{4, 5}, {4, 9}}, y:totable())
    assert.are.same({{1, 0}, {1, 1}}, m.indices:totable())
    assert.are.equal('torch.LongTensor', torch.type(m.indices))
    local gi = m:backward(x, torch.Tensor({{1, 2}, {10, 20}}))
    assert.are.same({{0, 2}, {1, 0}, {0, 0}, {10, 20}, {0, 0}}, gi:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.TemporalMaxPooling(3)
    local e = errorOf(function() m:forward(torch.randn(2, 2, 2, 2)) end)
    assert.truthy(e:find('nn.TemporalMaxPooling:updateOutput: input must be 2D (nInputFrame x frameSize) or 3D (batch), got 4D 2x2x2x2', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 4)) end)
    assert.truthy(e:find('input has 2 frames, fewer than kW = 3', 1, true), e)
    m:forward(torch.randn(6, 2))
    e = errorOf(function() m:backward(torch.randn(6, 2), torch.randn(3, 2)) end)
    assert.truthy(e:find('nn.TemporalMaxPooling:updateGradInput: gradOutput must be 2x2 (the output size), got 2D 3x2', 1, true), e)
  end)
end)

describe('nn.TemporalSubSampling', function()
  mc.module(it, {name = 'TemporalSubSampling 2D',
                 make = function() return nn.TemporalSubSampling(3, 3, 2) end,
                 input = function() return torch.randn(8, 3) end,
                 tostring = 'nn.TemporalSubSampling'})
  mc.module(it, {name = 'TemporalSubSampling batch',
                 make = function() return nn.TemporalSubSampling(2, 2) end,
                 input = function() return torch.randn(2, 5, 2) end,
                 input2 = function() return torch.randn(3, 5, 2) end})

  it('sums each window times the feature weight plus bias (by hand)', function()
    local m = nn.TemporalSubSampling(2, 2, 1)
    m.weight:copy(torch.Tensor({1, 10}))
    m.bias:copy(torch.Tensor({0, 1}))
    local x = torch.Tensor({{1, 2}, {3, 4}, {5, 6}})
    assert.are.same({{4, 61}, {8, 101}}, m:forward(x):totable())
    m:zeroGradParameters()
    local gi = m:backward(x, torch.Tensor({{1, 1}, {1, 2}}))
    assert.are.same({{1, 10}, {2, 30}, {1, 20}}, gi:totable())
    assert.are.same({4 + 8, 6 + 2 * 10}, m.gradWeight:totable())
    assert.are.same({2, 3}, m.gradBias:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.TemporalSubSampling(2, 3)
    local e = errorOf(function() m:forward(torch.randn(4, 3)) end)
    assert.truthy(e:find('nn.TemporalSubSampling:updateOutput: input must have 2 features per frame (inputFrameSize), got 2D 4x3', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 2)) end)
    assert.truthy(e:find('input has 2 frames, fewer than kW = 3', 1, true), e)
  end)
end)

-- by-definition 2D correlation of one image (nIn x H x W) with weight
-- nOut x nIn x kH x kW, stride, zero padding and dilation
local function spatialRef(x, w, b, dW, dH, padW, padH, dilW, dilH)
  local nOut, nIn, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4)
  local H, W = x:size(2), x:size(3)
  local oH = (H + 2 * padH - (dilH * (kH - 1) + 1)) // dH + 1
  local oW = (W + 2 * padW - (dilW * (kW - 1) + 1)) // dW + 1
  local y = torch.Tensor(nOut, oH, oW)
  for o = 1, nOut do
    for r = 1, oH do
      for c = 1, oW do
        local s = b and b[o] or 0
        for p = 1, nIn do
          for i = 1, kH do
            for j = 1, kW do
              local yy = (r - 1) * dH - padH + (i - 1) * dilH + 1
              local xx = (c - 1) * dW - padW + (j - 1) * dilW + 1
              if yy >= 1 and yy <= H and xx >= 1 and xx <= W then
                s = s + w[o][p][i][j] * x[p][yy][xx]
              end
            end
          end
        end
        y[o][r][c] = s
      end
    end
  end
  return y
end

describe('nn.SpatialDilatedConvolution', function()
  mc.module(it, {name = 'SpatialDilatedConvolution 3D',
                 make = function() return nn.SpatialDilatedConvolution(2, 3, 3, 2, 1, 2, 1, 0, 2, 1) end,
                 input = function() return torch.randn(2, 6, 7) end,
                 tostring = 'nn.SpatialDilatedConvolution(2 -> 3, 3x2, 1,2, 1,0, 2,1)'})
  mc.module(it, {name = 'SpatialDilatedConvolution batch, no bias',
                 make = function() return nn.SpatialDilatedConvolution(2, 2, 2, 2, 1, 1, 0, 0, 2, 2):noBias() end,
                 input = function() return torch.randn(2, 2, 5, 5) end,
                 input2 = function() return torch.randn(3, 2, 5, 5) end,
                 tostring = 'nn.SpatialDilatedConvolution(2 -> 2, 2x2, 2,2) without bias'})

  it('matches the definition (dilation, stride, padding)', function()
    torch.manualSeed(2)
    local m = nn.SpatialDilatedConvolution(2, 3, 3, 2, 2, 1, 1, 2, 2, 3)
    local x = torch.randn(2, 2, 9, 8)
    local y = m:forward(x)
    assert.are.same({2, 3, 10, 3}, y:size():totable())
    for b = 1, 2 do
      local r = spatialRef(x[b], m.weight, m.bias, 2, 1, 1, 2, 2, 3)
      assert.is_true((y[b] - r):abs():max() < 1e-12)
    end
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.SpatialDilatedConvolution(2, 3, 3, 3, 1, 1, 0, 0, 2, 2)
    local e = errorOf(function() m:forward(torch.randn(2, 4, 4)) end)
    assert.truthy(e:find('nn.SpatialDilatedConvolution:updateOutput: input 2x4x4 is smaller than the 3x3 kernel (dilated to 5x5, padding 0,0)', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(3, 6, 6)) end)
    assert.truthy(e:find('input must be 3D or 4D (batch) with 2 input planes, got 3D 3x6x6', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 6, 6):float()) end)
    assert.truthy(e:find('input must be a torch.DoubleTensor', 1, true), e)
    m:forward(torch.randn(2, 6, 6))
    e = errorOf(function() m:backward(torch.randn(2, 6, 6), torch.randn(3, 3, 3)) end)
    assert.truthy(e:find('nn.SpatialDilatedConvolution:updateGradInput: gradOutput', 1, true), e)
  end)
end)

describe('nn.tables', function()
  it('builds full, oneToOne and random connection tables as Torch7', function()
    assert.are.same({{1, 1}, {2, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 3}}, nn.tables.full(2, 3):totable())
    assert.are.same({{1, 1}, {2, 2}, {3, 3}}, nn.tables.oneToOne(3):totable())
    torch.manualSeed(5)
    local t = nn.tables.random(5, 4, 2)
    assert.are.same({8, 2}, t:size():totable())
    for j = 1, 4 do
      local a, b = t[2 * j - 1], t[2 * j]
      assert.are.equal(j, a[2]); assert.are.equal(j, b[2])
      assert.are_not.equal(a[1], b[1])
      assert.is_true(a[1] >= 1 and a[1] <= 5 and b[1] >= 1 and b[1] <= 5)
    end
  end)
end)

describe('nn.SpatialConvolutionMap', function()
  local tbl = torch.Tensor({{1, 1}, {3, 1}, {2, 2}, {3, 2}, {1, 3}})
  mc.module(it, {name = 'SpatialConvolutionMap 3D',
                 make = function() return nn.SpatialConvolutionMap(tbl, 3, 2, 1, 2) end,
                 input = function() return torch.randn(3, 6, 5) end,
                 tostring = 'nn.SpatialConvolutionMap'})
  mc.module(it, {name = 'SpatialConvolutionMap batch, extra input planes',
                 make = function() return nn.SpatialConvolutionMap(torch.Tensor({{2, 1}, {1, 2}}), 2, 2) end,
                 input = function() return torch.randn(2, 3, 4, 4) end,
                 input2 = function() return torch.randn(3, 3, 4, 4) end})

  it('equals a SpatialConvolution whose unconnected kernels are zero', function()
    torch.manualSeed(3)
    local m = nn.SpatialConvolutionMap(tbl, 3, 2, 1, 2)
    local ref = nn.SpatialConvolution(3, 3, 3, 2, 1, 2)
    ref.weight:zero()
    for k = 1, tbl:size(1) do ref.weight[tbl[k][2]][tbl[k][1]]:copy(m.weight[k]) end
    ref.bias:copy(m.bias)
    local x = torch.randn(2, 3, 7, 6)
    assert.is_true((m:forward(x) - ref:forward(x)):abs():max() < 1e-12)
    local go = torch.randn(ref.output:size())
    m:zeroGradParameters(); ref:zeroGradParameters()
    assert.is_true((m:backward(x, go) - ref:backward(x, go)):abs():max() < 1e-12)
    for k = 1, tbl:size(1) do
      assert.is_true((m.gradWeight[k] - ref.gradWeight[tbl[k][2]][tbl[k][1]]):abs():max() < 1e-12)
    end
    assert.is_true((m.gradBias - ref.gradBias):abs():max() < 1e-12)
  end)

  it('gives zero gradient to input planes the table does not use', function()
    local m = nn.SpatialConvolutionMap(torch.Tensor({{1, 1}}), 2, 2)
    local gi = m:backward(torch.randn(3, 4, 4), torch.ones(1, 3, 3))
    assert.are.same({3, 4, 4}, gi:size():totable())
    assert.are.equal(0, gi:narrow(1, 2, 2):abs():max())
  end)

  it('names the class, method, expected and got on bad input', function()
    local e = errorOf(function() nn.SpatialConvolutionMap(torch.Tensor(3, 3), 2, 2) end)
    assert.truthy(e:find('nn.SpatialConvolutionMap: connTable must be a nConnections x 2 tensor, got 2D 3x3', 1, true), e)
    local m = nn.SpatialConvolutionMap(tbl, 3, 3)
    e = errorOf(function() m:forward(torch.randn(2, 5, 5)) end)
    assert.truthy(e:find('nn.SpatialConvolutionMap:updateOutput: input must have at least 3 planes (nInputPlane) in dimension 1, got 3D 2x5x5', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(3, 2, 5)) end)
    assert.truthy(e:find('smaller than the 3x3 kernel', 1, true), e)
  end)
end)

describe('nn.SpatialFullConvolutionMap', function()
  local tbl = torch.Tensor({{1, 1}, {2, 1}, {2, 2}})
  mc.module(it, {name = 'SpatialFullConvolutionMap 3D',
                 make = function() return nn.SpatialFullConvolutionMap(tbl, 3, 2, 2, 1) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 tostring = 'nn.SpatialFullConvolutionMap'})
  mc.module(it, {name = 'SpatialFullConvolutionMap batch',
                 make = function() return nn.SpatialFullConvolutionMap(tbl, 2, 2, 2, 2) end,
                 input = function() return torch.randn(2, 2, 3, 3) end,
                 input2 = function() return torch.randn(1, 2, 3, 3) end})

  it('spreads each input pixel through its kernel (by hand)', function()
    local m = nn.SpatialFullConvolutionMap(torch.Tensor({{1, 1}}), 2, 2, 2, 2)
    m.weight[1]:copy(torch.Tensor({{1, 2}, {3, 4}}))
    m.bias:fill(0)
    local y = m:forward(torch.Tensor({{{1, 10}}}))
    assert.are.same({{{1, 2, 10, 20}, {3, 4, 30, 40}}}, y:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.SpatialFullConvolutionMap(tbl, 2, 2)
    local e = errorOf(function() m:forward(torch.randn(4, 4)) end)
    assert.truthy(e:find('nn.SpatialFullConvolutionMap:updateOutput: input must be 3D (nInputPlane x H x W) or 4D (batch), got 2D 4x4', 1, true), e)
  end)
end)

describe('nn.SpatialFullConvolution with {input, target}', function()
  mc.module(it, {name = 'SpatialFullConvolution table input 3D',
                 make = function() return nn.SpatialFullConvolution(2, 3, 3, 2, 2, 2, 1, 0) end,
                 input = function() return {torch.randn(2, 3, 4), torch.zeros(6, 8)} end,
                 tostring = 'nn.SpatialFullConvolution(2 -> 3, 3x2, 2,2, 1,0)'})
  mc.module(it, {name = 'SpatialFullConvolution table input batch',
                 make = function() return nn.SpatialFullConvolution(2, 2, 3, 3, 2, 2) end,
                 input = function() return {torch.randn(2, 2, 3, 3), torch.zeros(2, 2, 8, 7)} end,
                 input2 = function() return {torch.randn(3, 2, 3, 3), torch.zeros(3, 2, 8, 7)} end})

  it('takes the output size from the target, as the same module with adj', function()
    torch.manualSeed(4)
    local m = nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1)
    local ref = nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 1, 0)
    ref.weight:copy(m.weight); ref.bias:copy(m.bias)
    local x = torch.randn(2, 4, 4)
    local y = m:forward({x, torch.zeros(7, 8)})
    assert.are.same({3, 7, 8}, y:size():totable())
    assert.are.equal(0, (y - ref:forward(x)):abs():max())
    local go = torch.randn(3, 7, 8)
    local gi = m:backward({x, torch.zeros(7, 8)}, go)
    assert.are.equal(0, (gi[1] - ref:backward(x, go)):abs():max())
    assert.are.same({7, 8}, gi[2]:size():totable())
    assert.are.equal(0, gi[2]:abs():max())
    -- back to a tensor input: gradInput is the same tensor object again
    local t = gi[1]
    assert.are.equal(t, m:backward(x, torch.randn(3, 7, 7)))
    assert.are.equal(0, m.adjW); assert.are.equal(0, m.adjH)
  end)

  it('names the class, method, expected and got on a bad table', function()
    local m = nn.SpatialFullConvolution(2, 3, 3, 3)
    local e = errorOf(function() m:forward({torch.randn(2, 4, 4), torch.zeros(3)}) end)
    assert.truthy(e:find('nn.SpatialFullConvolution:updateOutput: table input must be {input, target} with a target of at least 2D, got {3D 2x4x4, 1D 3}', 1, true), e)
  end)
end)

describe('nn.TemporalDynamicKMaxPooling', function()
  mc.module(it, {name = 'TemporalDynamicKMaxPooling 2D',
                 make = function() return nn.TemporalDynamicKMaxPooling(2, 0.5) end,
                 input = function() return torch.randn(7, 3) end,
                 tostring = 'nn.TemporalDynamicKMaxPooling'})
  mc.module(it, {name = 'TemporalDynamicKMaxPooling batch',
                 make = function() return nn.TemporalDynamicKMaxPooling(3) end,
                 input = function() return torch.randn(2, 5, 3) end,
                 input2 = function() return torch.randn(4, 5, 3) end})

  it('keeps the k largest per feature in sequence order (by hand)', function()
    local m = nn.TemporalDynamicKMaxPooling(2, 0.5)  -- k = max(2, ceil(0.5 * 5)) = 3
    local x = torch.Tensor({{5, 0}, {1, 9}, {4, 8}, {2, 7}, {3, 1}})
    assert.are.same({{5, 9}, {4, 8}, {3, 7}}, m:forward(x):totable())
    assert.are.same({{1, 2}, {3, 3}, {5, 4}}, m.indices:totable())
    local gi = m:backward(x, torch.Tensor({{1, 2}, {3, 4}, {5, 6}}))
    assert.are.same({{1, 0}, {0, 2}, {3, 4}, {0, 6}, {5, 0}}, gi:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.TemporalDynamicKMaxPooling(4)
    local e = errorOf(function() m:forward(torch.randn(3, 2)) end)
    assert.truthy(e:find('nn.TemporalDynamicKMaxPooling:updateOutput: input sequence length (3) too small for k = 4', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(5)) end)
    assert.truthy(e:find('input must be 2D (seqLen x features) or 3D (batch), got 1D 5', 1, true), e)
  end)
end)

describe('nn.SpatialDepthWiseConvolution', function()
  mc.module(it, {name = 'SpatialDepthWiseConvolution 3D',
                 make = function() return nn.SpatialDepthWiseConvolution(2, 3, 3, 2, 1, 2, 1, 0) end,
                 input = function() return torch.randn(2, 5, 6) end,
                 tostring = 'nn.SpatialDepthWiseConvolution(2 -> 3, 3x2, 1,2, 1,0)'})
  mc.module(it, {name = 'SpatialDepthWiseConvolution batch, no bias',
                 make = function() return nn.SpatialDepthWiseConvolution(3, 2, 2, 2):noBias() end,
                 input = function() return torch.randn(2, 3, 4, 5) end,
                 input2 = function() return torch.randn(3, 3, 4, 5) end,
                 tostring = 'nn.SpatialDepthWiseConvolution(3 -> 2, 2x2) without bias'})

  it('equals one SpatialConvolution per input plane (Torch7 test.lua\'s reference)', function()
    torch.manualSeed(6)
    local n, mult, k = 3, 4, 3
    local m = nn.SpatialDepthWiseConvolution(n, mult, k, k, 2, 1, 1, 2)
    local x = torch.randn(2, n, 9, 8)
    local y = m:forward(x)
    local go = torch.randn(y:size())
    m:zeroGradParameters()
    local gi = m:backward(x, go)
    local w4 = m.weight:view(mult, n, k, k)
    local gw4 = m.gradWeight:view(mult, n, k, k)
    for i = 1, n do
      local c = nn.SpatialConvolution(1, mult, k, k, 2, 1, 1, 2)
      c.weight:copy(w4:narrow(2, i, 1)); c.bias:copy(m.bias:select(2, i))
      c:zeroGradParameters()
      local xi = x:narrow(2, i, 1):contiguous()
      local yi = c:forward(xi)
      assert.is_true((y:narrow(2, (i - 1) * mult + 1, mult) - yi):abs():max() < 1e-12)
      local goi = go:narrow(2, (i - 1) * mult + 1, mult):contiguous()
      local gii = c:backward(xi, goi)
      assert.is_true((gi:narrow(2, i, 1) - gii):abs():max() < 1e-12)
      assert.is_true((gw4:narrow(2, i, 1) - c.gradWeight):abs():max() < 1e-12)
      assert.is_true((m.gradBias:select(2, i) - c.gradBias):abs():max() < 1e-12)
    end
  end)

  it('reads a 4D weight as Torch7 does', function()
    local m = nn.SpatialDepthWiseConvolution(2, 3, 2, 2)
    local y1 = m:forward(torch.ones(2, 3, 3)):clone()
    m.weight = m.weight:view(3, 2, 2, 2):clone()
    assert.are.equal(0, (m:forward(torch.ones(2, 3, 3)) - y1):abs():max())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.SpatialDepthWiseConvolution(2, 3, 3, 3)
    local e = errorOf(function() m:forward(torch.randn(3, 5, 5)) end)
    assert.truthy(e:find('nn.SpatialDepthWiseConvolution:updateOutput: input must be 3D or 4D (batch) with 2 input planes, got 3D 3x5x5', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(2, 2, 5)) end)
    assert.truthy(e:find('input 2x2x5 is smaller than the 3x3 kernel (with padding 0,0)', 1, true), e)
    m:forward(torch.randn(2, 5, 5))
    e = errorOf(function() m:backward(torch.randn(2, 5, 5), torch.randn(3, 3, 3)) end)
    assert.truthy(e:find('nn.SpatialDepthWiseConvolution:updateGradInput: gradOutput must be 6x3x3', 1, true), e)
    m.bias = torch.randn(5)
    e = errorOf(function() m:forward(torch.randn(2, 5, 5)) end)
    assert.truthy(e:find('bias must have 6 elements (nOutputPlane x nInputPlane), got 5', 1, true), e)
  end)
end)

describe('nn.SpatialConvolutionLocal', function()
  mc.module(it, {name = 'SpatialConvolutionLocal 3D, padded',
                 make = function() return nn.SpatialConvolutionLocal(2, 3, 5, 4, 3, 2, 2, 1, 1, 1) end,
                 input = function() return torch.randn(2, 4, 5) end,
                 tostring = 'nn.SpatialConvolutionLocal(2 -> 3, 5x4, 3x2, 2,1, 1,1)'})
  mc.module(it, {name = 'SpatialConvolutionLocal batch',
                 make = function() return nn.SpatialConvolutionLocal(2, 2, 4, 4, 2, 2) end,
                 input = function() return torch.randn(2, 2, 4, 4) end,
                 input2 = function() return torch.randn(3, 2, 4, 4) end,
                 tostring = 'nn.SpatialConvolutionLocal(2 -> 2, 4x4, 2x2)'})

  it('uses its own kernel and bias at each output position (definition)', function()
    torch.manualSeed(7)
    local m = nn.SpatialConvolutionLocal(2, 3, 6, 5, 3, 2, 2, 1, 1, 0)
    local x = torch.randn(2, 2, 5, 6)
    local y = m:forward(x)
    assert.are.same({2, 3, m.oH, m.oW}, y:size():totable())
    for b = 1, 2 do
      for r = 1, m.oH do
        for c = 1, m.oW do
          -- the position's kernel as a 1-position convolution of the window
          local w = m.weight[r][c]
          local ref = spatialRef(x[b], w, m.bias:select(2, r):select(2, c), 2, 1, 1, 0, 1, 1)
          for o = 1, 3 do
            assert.is_true(math.abs(y[b][o][r][c] - ref[o][r][c]) < 1e-12)
          end
        end
      end
    end
  end)

  it('names the class, method, expected and got on bad input', function()
    local e = errorOf(function() nn.SpatialConvolutionLocal(1, 1, 2, 2, 3, 3) end)
    assert.truthy(e:find('nn.SpatialConvolutionLocal: illegal configuration: output width or height less than 1', 1, true), e)
    local m = nn.SpatialConvolutionLocal(2, 3, 5, 4, 3, 3)
    e = errorOf(function() m:forward(torch.randn(2, 5, 5)) end)
    assert.truthy(e:find('nn.SpatialConvolutionLocal:updateOutput: input must be 2x4x5 (nInputPlane x iH x iW), got 3D 2x5x5', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(3, 2, 5, 5)) end)
    assert.truthy(e:find('input must be 2x4x5 (nInputPlane x iH x iW) per sample, got 4D 3x2x5x5', 1, true), e)
  end)
end)

describe('nn.TemporalRowConvolution', function()
  mc.module(it, {name = 'TemporalRowConvolution 2D',
                 make = function() return nn.TemporalRowConvolution(3, 3, 2) end,
                 input = function() return torch.randn(8, 3) end,
                 tostring = 'nn.TemporalRowConvolution(3, 3, 2)'})
  mc.module(it, {name = 'TemporalRowConvolution batch, featFirst, no bias',
                 make = function() return nn.TemporalRowConvolution(2, 2, 1, true):noBias() end,
                 input = function() return torch.randn(2, 2, 5) end,
                 input2 = function() return torch.randn(3, 2, 5) end,
                 tostring = 'nn.TemporalRowConvolution(2, 2) without bias'})
  mc.module(it, {name = 'TemporalRowConvolution batch',
                 make = function() return nn.TemporalRowConvolution(2, 3) end,
                 input = function() return torch.randn(2, 6, 2) end,
                 input2 = function() return torch.randn(1, 6, 2) end})

  it('convolves each feature row with its own kernel (by hand)', function()
    local m = nn.TemporalRowConvolution(2, 2)
    m.weight:copy(torch.Tensor({{{1, 10}}, {{2, -1}}}))
    m.bias:copy(torch.Tensor({0, 100}))
    local x = torch.Tensor({{1, 4}, {2, 5}, {3, 6}})
    assert.are.same({{21, 103}, {32, 104}}, m:forward(x):totable())
    local mf = nn.TemporalRowConvolution(2, 2, 1, true)
    mf.weight:copy(m.weight); mf.bias:copy(m.bias)
    assert.are.same({{21, 32}, {103, 104}}, mf:forward(x:t()):totable())
    m:zeroGradParameters()
    local gi = m:backward(x, torch.Tensor({{1, 1}, {1, 0}}))
    assert.are.same({{1, 2}, {11, -1}, {10, 0}}, gi:totable())
    assert.are.same({{{3, 5}}, {{4, 5}}}, m.gradWeight:totable())
    assert.are.same({2, 1}, m.gradBias:totable())
  end)

  it('names the class, method, expected and got on bad input', function()
    local m = nn.TemporalRowConvolution(3, 2)
    local e = errorOf(function() m:forward(torch.randn(4, 2)) end)
    assert.truthy(e:find('nn.TemporalRowConvolution:updateOutput: input must have 3 features (inputFrameSize) in dimension 2, got 2D 4x2', 1, true), e)
    e = errorOf(function() m:forward(torch.randn(1, 3)) end)
    assert.truthy(e:find('input has 1 frames, fewer than kW = 2', 1, true), e)
  end)
end)

describe('dilated and depthwise kernels on batches', function()
  -- large enough for the images to be spread over threads (when there are
  -- several): each image must match its own single-image pass, and the
  -- gradients the sum of the per-image ones
  local function batchMatchesImages(m, x)
    m:zeroGradParameters()
    local y = m:forward(x):clone()
    local go = torch.randn(y:size())
    local gi = m:backward(x, go):clone()
    local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
    m:zeroGradParameters()
    for b = 1, x:size(1) do
      assert.is_true((m:forward(x[b]) - y[b]):abs():max() < 1e-12)
      assert.is_true((m:backward(x[b], go[b]) - gi[b]):abs():max() < 1e-12)
    end
    assert.is_true((m.gradWeight - gw):abs():max() < 1e-9)
    assert.is_true((m.gradBias - gb):abs():max() < 1e-9)
  end

  it('SpatialDilatedConvolution', function()
    torch.manualSeed(8)
    batchMatchesImages(nn.SpatialDilatedConvolution(8, 8, 3, 3, 1, 1, 2, 2, 2, 2), torch.randn(8, 8, 24, 24))
  end)

  it('SpatialDepthWiseConvolution', function()
    torch.manualSeed(9)
    batchMatchesImages(nn.SpatialDepthWiseConvolution(16, 2, 3, 3, 1, 1, 1, 1), torch.randn(8, 16, 40, 40))
  end)
end)
