-- nn.SpatialCrossMapLRN: values against the direct formula, gradients
-- (finite differences, double), float/double agreement, errors.
require 'torch'
require 'nn'

local function flat(t) return t:contiguous():view(t:nElement()) end

local function maxdiff(a, b)
  assert.are.equal(a:nElement(), b:nElement())
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

-- gradient check through the project's nn.Jacobian (double)
local inputJacobianError = require('spec.support.helpers').inputJacobianError

local errorOf = require('spec.support.helpers').errorOf

-- one image C x H x W: channel c is normalized by channels c-pre .. c+post
local function naiveLRN(x, size, alpha, beta, k)
  local C, H, W = x:size(1), x:size(2), x:size(3)
  local pre = (size - 1) // 2
  local post = size - 1 - pre
  local out = torch.DoubleTensor(C, H, W)
  for c = 1, C do for i = 1, H do for j = 1, W do
    local s = 0
    for cc = math.max(1, c - pre), math.min(C, c + post) do s = s + x[cc][i][j] ^ 2 end
    out[c][i][j] = x[c][i][j] * (k + alpha / size * s) ^ (-beta)
  end end end
  return out
end

describe('nn.SpatialCrossMapLRN', function()
  before_each(function() torch.manualSeed(12) end)

  it('has Torch7 defaults', function()
    local m = nn.SpatialCrossMapLRN(5)
    assert.are.equal(5, m.size); assert.are.equal(0.0001, m.alpha)
    assert.are.equal(0.75, m.beta); assert.are.equal(1, m.k)
  end)

  it('matches the direct formula for odd and even sizes, batch and single image', function()
    for _, c in ipairs{{5, 0.0001, 0.75, 1}, {3, 0.5, 0.75, 2}, {4, 1, 0.5, 1}, {1, 2, 1, 1}, {7, 1, 0.9, 1.5}} do
      local m = nn.SpatialCrossMapLRN(table.unpack(c))
      local x = torch.DoubleTensor(2, 6, 3, 4):uniform(-2, 2)
      local y = m:forward(x)
      for b = 1, 2 do
        assert.is_true(maxdiff(y[b], naiveLRN(x[b], table.unpack(c))) < 1e-12)
      end
      local y1 = m:forward(x[2]):clone()
      assert.are.same({6, 3, 4}, y1:size():totable())
      assert.is_true(maxdiff(y1, naiveLRN(x[2], table.unpack(c))) < 1e-12)
    end
  end)

  it('has exact gradients (double)', function()
    for _, c in ipairs{{5, 0.5, 0.75, 1}, {4, 1, 0.5, 1}, {3, 2, 1.2, 2}} do
      local m = nn.SpatialCrossMapLRN(table.unpack(c))
      assert.is_true(inputJacobianError(m, torch.DoubleTensor(2, 5, 2, 3):uniform(-1, 1)) < 1e-5)
      assert.is_true(inputJacobianError(m, torch.DoubleTensor(6, 2, 2):uniform(-1, 1)) < 1e-5)
    end
  end)

  it('agrees between float and double and declares its buffers', function()
    local m, mf = nn.SpatialCrossMapLRN(5, 0.1), nn.SpatialCrossMapLRN(5, 0.1):float()
    local out, gin = m.output, m.gradInput
    local x = torch.DoubleTensor(4, 8, 5, 5):uniform(-2, 2)
    local go = torch.DoubleTensor(4, 8, 5, 5):uniform(-1, 1)
    assert.is_true(maxdiff(m:forward(x), mf:forward(x:float()):double()) < 1e-5)
    assert.is_true(maxdiff(m:backward(x, go), mf:backward(x:float(), go:float()):double()) < 1e-5)
    assert.are.equal(out, m.output); assert.are.equal(gin, m.gradInput)
    local tr = m:memoryTraits()
    assert.are.same({scale = 'both', paddedRatio = 'backward'}, tr.buffers)
    assert.is_true(tr.needsInput); assert.is_true(tr.needsOutput)
  end)

  it('round-trips through save/load (nn.Jacobian.testIO)', function()
    local errf, errb = nn.Jacobian.testIO(nn.SpatialCrossMapLRN(3, 0.5), torch.DoubleTensor(2, 4, 3, 3):uniform())
    assert.are.equal(0, errf); assert.are.equal(0, errb)
  end)

  it('gives clear errors', function()
    local m = nn.SpatialCrossMapLRN(3)
    assert.are.equal('nn.SpatialCrossMapLRN:updateOutput: input must be 3D or 4D (batch), got 2D 3x3',
                     errorOf(function() m:forward(torch.Tensor(3, 3)) end))
    assert.are.equal('nn.SpatialCrossMapLRN:updateGradInput: run forward first',
                     errorOf(function() nn.SpatialCrossMapLRN(3):backward(torch.Tensor(3, 3, 3), torch.Tensor(3, 3, 3)) end))
    assert.are.equal('nn.SpatialCrossMapLRN:updateGradInput: scale must be 3x3x3 (the input size; run forward first), got empty',
                     errorOf(function() m:backward(torch.Tensor(3, 3, 3), torch.Tensor(3, 3, 3)) end))
    assert.are.equal("nn.SpatialCrossMapLRN:updateOutput: input must be a torch.DoubleTensor (the module's type), got torch.FloatTensor",
                     errorOf(function() m:forward(torch.FloatTensor(2, 3, 3)) end))
    local x = torch.Tensor(2, 3, 3):uniform()
    m:forward(x)
    assert.are.equal('nn.SpatialCrossMapLRN:updateGradInput: gradOutput must be 2x3x3 (the input size), got 3x3x3',
                     errorOf(function() m:backward(x, torch.Tensor(3, 3, 3)) end))
    assert.is_truthy(errorOf(function() nn.SpatialCrossMapLRN(0) end)
                     :find('nn.SpatialCrossMapLRN: size must be a positive integer, got 0', 1, true))
  end)
end)
