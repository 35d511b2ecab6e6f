-- optnet reorder (opts.reorder = true): the branches of a Concat may run in
-- another order; the planner keeps the order with the smallest arena, and the
-- numbers never change (Concat copies and sums in module order).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

-- branch B (first) ends in a big output, branch A has a big intermediate and a
-- small output: running A first keeps its intermediate away from B's output
local function twoBranch()
  local A = nn.Sequential():add(nn.SpatialConvolution(4, 64, 1, 1)):add(nn.ReLU())
    :add(nn.SpatialConvolution(64, 1, 1, 1))
  local B = nn.Sequential():add(nn.SpatialConvolution(4, 2, 1, 1)):add(nn.SpatialConvolution(2, 32, 1, 1))
  local net = nn.Sequential():add(nn.Concat(2):add(B):add(A)):add(nn.Tanh())
  return net:double(), torch.randn(2, 4, 8, 8)
end

local function arena(net)
  local n = 0
  for _, v in pairs(optnet._state(net).result.arena) do n = n + v end
  return n
end

local function maxdiff(a, b) return (a - b):abs():max() end

local CASES = {
  {'two-branch Concat', twoBranch},
  {'densenet', function()
    return models.build('densenet', {batch = 2, dataset = 'cifar10', depth = 10, growthRate = 4, type = 'double'})
  end},
}

for _, case in ipairs(CASES) do
  describe('optnet reorder on ' .. case[1], function()
    it('inference: same output, arena no larger than in module order', function()
      torch.manualSeed(1)
      local a, input = case[2]()
      local b, c = a:clone(), a:clone()
      for _, n in ipairs{a, b, c} do n:evaluate() end
      optnet.optimizeMemory(b, input, {reorder = true, verify = true})
      optnet.optimizeMemory(c, input)
      assert.are.equal(0, maxdiff(a:forward(input), b:forward(input)))
      assert(arena(b) <= arena(c))
      if case[1] == 'two-branch Concat' then
        assert(arena(b) < arena(c), string.format('%d not below %d', arena(b), arena(c)))
        assert.are_not.equal('module', optnet._state(b).result.reorder)
      end
    end)

    it('training: same outputs, gradInputs and gradParameters over two sgd steps', function()
      torch.manualSeed(2)
      local a, input = case[2]()
      local b = a:clone()
      a:training(); b:training()
      optnet.optimizeMemory(b, input, {mode = 'training', reorder = true, verify = true})
      local pa, ga = a:parameters()
      local pb, gb = b:parameters()
      for iter = 1, 2 do
        torch.manualSeed(iter)
        local oa = a:forward(input):clone()
        torch.manualSeed(iter)
        assert.are.equal(0, maxdiff(oa, b:forward(input)))
        local g = oa:clone():uniform(-1, 1)
        a:zeroGradParameters(); b:zeroGradParameters()
        assert.are.equal(0, maxdiff(a:backward(input, g), b:backward(input, g)))
        for i = 1, #ga do assert.are.equal(0, maxdiff(ga[i], gb[i])) end
        a:updateParameters(0.05); b:updateParameters(0.05)
        for i = 1, #pa do assert.are.equal(0, maxdiff(pa[i], pb[i])) end
      end
      optnet.removeOptimization(b)
      for _, m in ipairs(b:listModules()) do assert.is_nil(rawget(m, 'updateOutput')) end
    end)
  end)
end

describe('optnet reorder API', function()
  it('rejects a non-boolean reorder; a reordered Concat gives the same numbers by every backward method', function()
    local net, input = twoBranch()
    assert.has_error(function() optnet.optimizeMemory(net, input, {reorder = 'yes'}) end,
      "optnet.optimizeMemory: option 'reorder' must be a boolean, got string")
    net:training()
    local ref = net:clone()
    local C, R = net:get(1), ref:get(1)
    rawset(C, '_branchOrder', {2, 1})  -- what optnet reorder installs
    local out, rout = C:forward(input):clone(), R:forward(input)
    assert.are.equal(0, (out - rout):abs():max())
    local g = rout:clone():uniform(-1, 1)
    C:zeroGradParameters(); R:zeroGradParameters()
    assert.are.equal(0, (C:updateGradInput(input, g) - R:updateGradInput(input, g)):abs():max())
    C:accGradParameters(input, g); R:accGradParameters(input, g)
    local _, gc = C:parameters()
    local _, gr = R:parameters()
    for i = 1, #gc do assert.are.equal(0, (gc[i] - gr[i]):abs():max()) end
    rawset(C, '_branchOrder', nil)
    optnet.optimizeMemory(net, input, {mode = 'training', reorder = true})
    net:forward(input)
    optnet.removeOptimization(net)
    assert.is_nil(rawget(C, '_branchOrder'))
  end)
end)
