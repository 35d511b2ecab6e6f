-- optnet.optimizeMemory's foldBatchNorm (lua/optnet/fold.lua): batch norm
-- folded into the preceding convolution in inference, the output unchanged
-- but for rounding, removeOptimization putting back every weight bit for bit
-- and the batch norm module itself; options checked.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'

local function net(bias)
  local function conv(a, b)
    local c = nn.SpatialConvolution(a, b, 3, 3, 1, 1, 1, 1)
    if not bias then c:noBias() end
    return c
  end
  local n = nn.Sequential()
    :add(conv(3, 4)):add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(true))
    :add(nn.Sequential():add(conv(4, 5)):add(nn.SpatialBatchNormalization(5, 1e-3, 0.1, false)))
    :add(conv(5, 6)):add(nn.SpatialBatchNormalization(6))
  -- batch norms with statistics and affine parameters away from the defaults
  for _, m in ipairs(n:findModules('nn.SpatialBatchNormalization')) do
    m.running_mean:uniform(-1, 1)
    m.running_var:uniform(0.5, 2)
    if m.weight then m.weight:uniform(0.5, 1.5); m.bias:uniform(-1, 1) end
  end
  return n:double():evaluate()
end

describe('optnet foldBatchNorm', function()
  it('folds conv + batch norm in inference, same output; removeOptimization restores it exactly', function()
    for _, bias in ipairs({true, false}) do
      torch.manualSeed(5)
      local n = net(bias)
      local x = torch.randn(2, 3, 7, 6):double()
      local y = n:forward(x):clone()
      local before = {}
      for i, p in ipairs(n:parameters()) do before[i] = p:clone() end
      local nModules = #n:listModules()
      optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
      assert.are.equal(0, #n:findModules('nn.SpatialBatchNormalization'))
      assert.are.equal(nModules - 3, #n:listModules())
      assert.is_true((n:forward(x) - y):abs():max() < 1e-12)
      optnet.removeOptimization(n)
      assert.are.equal(3, #n:findModules('nn.SpatialBatchNormalization'))
      assert.are.equal(nModules, #n:listModules())
      local after = n:parameters()
      assert.are.equal(#before, #after)
      helpers.identical(after, before, "parameters after removeOptimization")
      for _, c in ipairs(n:findModules('nn.SpatialConvolution')) do assert.are.equal(bias, c.bias ~= nil) end
      assert.is_true((n:forward(x) - y):abs():max() == 0)
    end
  end)

  it('folds in float within rounding of the float net', function()
    torch.manualSeed(6)
    local n = net(true):float()
    local x = torch.randn(2, 3, 9, 9):float()
    local y = n:forward(x):clone()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    assert.is_true((n:forward(x) - y):abs():max() < 1e-5 * math.max(1, torch.abs(y):max()))
    optnet.removeOptimization(n)
  end)

  it('leaves a batch norm in training mode, and one after another module, alone', function()
    local n = nn.Sequential():add(nn.SpatialConvolution(2, 2, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialBatchNormalization(2)):double():evaluate()
    local x = torch.randn(1, 2, 3, 3):double()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    assert.are.equal(1, #n:findModules('nn.SpatialBatchNormalization'))
    optnet.removeOptimization(n)
  end)

  it('refuses foldBatchNorm in training mode and a non-boolean value', function()
    local n = net(true)
    local x = torch.randn(1, 3, 4, 4):double()
    local msg = helpers.errmsg(optnet.optimizeMemory, n, x, {mode = 'training', foldBatchNorm = true})
    assert.truthy(msg:find("foldBatchNorm needs mode = 'inference'", 1, true), msg)
    msg = helpers.errmsg(optnet.optimizeMemory, n, x, {foldBatchNorm = 1})
    assert.truthy(msg:find("option 'foldBatchNorm' must be a boolean", 1, true), msg)
    assert.are.equal(3, #n:findModules('nn.SpatialBatchNormalization'))
  end)
end)
