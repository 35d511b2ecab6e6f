-- optnet reorder (opts.reorder = true): the branches of a Concat,
-- ConcatTable, ParallelTable or Parallel may run in another order; the
-- planner keeps the order with the smallest arena, and the numbers never
-- change (the containers place outputs and sum gradInputs in module order).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local reorder = require 'optnet.reorder'
local models = require 'models'
local H = require 'spec.support.helpers'

-- branch B (first) ends in a big output, branch A has a big intermediate and a
-- small output: running A first keeps its intermediate away from B's output
local function branches()
  local A = nn.Sequential():add(nn.SpatialConvolution(4, 64, 1, 1)):add(nn.ReLU())
    :add(nn.SpatialConvolution(64, 1, 1, 1))
  local B = nn.Sequential():add(nn.SpatialConvolution(4, 2, 1, 1)):add(nn.SpatialConvolution(2, 32, 1, 1))
  return B, A
end

local function twoBranch()
  local B, A = branches()
  local net = nn.Sequential():add(nn.Concat(2):add(B):add(A)):add(nn.Tanh())
  return net:double(), torch.randn(2, 4, 8, 8)
end

local function twoBranchConcatTable()
  local B, A = branches()
  local net = nn.Sequential():add(nn.ConcatTable():add(B):add(A)):add(nn.JoinTable(2)):add(nn.Tanh())
  return net:double(), torch.randn(2, 4, 8, 8)
end

local function twoBranchParallelTable()
  local B, A = branches()
  local net = nn.Sequential():add(nn.ParallelTable():add(B):add(A)):add(nn.JoinTable(2)):add(nn.Tanh())
  return net:double(), {torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8)}
end

-- nn.Parallel(2, 2): branch i gets input:select(2, i)
local function twoBranchParallel()
  local B, A = branches()
  local net = nn.Sequential():add(nn.Parallel(2, 2):add(B):add(A)):add(nn.Tanh())
  return net:double(), torch.randn(2, 2, 4, 8, 8)
end

local function arena(net)
  local n = 0
  for _, v in pairs(optnet._state(net).result.arena) do n = n + v end
  return n
end

-- the largest difference between two tensors or (nested) tables of tensors
local function maxdiff(a, b)
  if torch.isTensor(a) then return (a - b):abs():max() end
  local m = 0
  for k, v in pairs(a) do m = math.max(m, maxdiff(v, b[k])) end
  return m
end

local function gradLike(out)
  if torch.isTensor(out) then return out:clone():uniform(-1, 1) end
  local g = {}
  for k, v in pairs(out) do g[k] = gradLike(v) end
  return g
end

local function noBranchOrder(net)
  for _, m in ipairs(net:listModules()) do assert.is_nil(rawget(m, '_branchOrder')) end
end

-- {name, builder, the arena must drop}
local CASES = {
  {'two-branch Concat', twoBranch, true},
  {'two-branch ConcatTable', twoBranchConcatTable, true},
  {'two-branch ParallelTable', twoBranchParallelTable, true},
  {'two-branch Parallel', twoBranchParallel, true},
  {'densenet (Concat)', function()
    return models.build('densenet', {batch = 2, dataset = 'cifar10', depth = 10, growthRate = 4, type = 'double'})
  end},
  {'resnet (ConcatTable)', function()
    return models.build('resnet', {batch = 2, dataset = 'cifar10', depth = 8, type = 'double'})
  end},
  {'resnet imagenet shortcut B (ConcatTable)', function()
    return models.build('resnet', {batch = 2, dataset = 'imagenet', depth = 18, imageSize = 32, type = 'double'})
  end},
  {'paralleljoin (ParallelTable)', function() return models.build('paralleljoin', {batch = 2, type = 'double'}) end},
  {'multioutput (ConcatTable heads)', function() return models.build('multioutput', {batch = 2, type = 'double'}) end},
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
      local r = optnet._state(b).result
      assert(r.reorderContainers > 0)
      if case[3] then
        assert(arena(b) < arena(c), string.format('%d not below %d', arena(b), arena(c)))
        assert.are_not.equal('module', r.reorder)
      end
      optnet.removeOptimization(b)
      noBranchOrder(b)
      assert.are.equal(0, maxdiff(a:forward(input), b:forward(input)))
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
        local oa = H.clone(a:forward(input))
        torch.manualSeed(iter)
        assert.are.equal(0, maxdiff(oa, b:forward(input)))
        local g = gradLike(oa)
        a:zeroGradParameters(); b:zeroGradParameters()
        assert.are.equal(0, maxdiff(a:backward(input, g), b:backward(input, g)))
        for i = 1, #ga do assert.are.equal(0, maxdiff(ga[i], gb[i])) end
        a:updateParameters(0.05); b:updateParameters(0.05)
        for i = 1, #pa do assert.are.equal(0, maxdiff(pa[i], pb[i])) end
      end
      optnet.removeOptimization(b)
      noBranchOrder(b)
      for _, m in ipairs(b:listModules()) do assert.is_nil(rawget(m, 'updateOutput')) end
    end)
  end)
end

describe('optnet reorder API', function()
  it('rejects a non-boolean reorder', function()
    local net, input = twoBranch()
    assert.has_error(function() optnet.optimizeMemory(net, input, {reorder = 'yes'}) end,
      "optnet.optimizeMemory: option 'reorder' must be a boolean, got string")
  end)

  -- what optnet reorder installs, set by hand on each branching container:
  -- every method gives bit-identical numbers
  for _, case in ipairs{{'Concat', twoBranch}, {'ConcatTable', twoBranchConcatTable},
                        {'ParallelTable', twoBranchParallelTable}, {'Parallel', twoBranchParallel}} do
    it('a reordered ' .. case[1] .. ' gives the same numbers by every forward and backward method', function()
      torch.manualSeed(3)
      local net, input = case[2]()
      net:training()
      local ref = net:clone()
      local C, R = net:get(1), ref:get(1)
      rawset(C, '_branchOrder', {2, 1})
      local out, rout = H.clone(C:forward(input)), R:forward(input)
      assert.are.equal(0, maxdiff(out, rout))
      local g = gradLike(rout)
      local _, gc = C:parameters()
      local _, gr = R:parameters()
      C:zeroGradParameters(); R:zeroGradParameters()
      assert.are.equal(0, maxdiff(C:updateGradInput(input, g), R:updateGradInput(input, g)))
      C:accGradParameters(input, g, 0.5); R:accGradParameters(input, g, 0.5)
      for i = 1, #gc do assert.are.equal(0, maxdiff(gc[i], gr[i])) end
      assert.are.equal(0, maxdiff(C:backward(input, g), R:backward(input, g)))
      for i = 1, #gc do assert.are.equal(0, maxdiff(gc[i], gr[i])) end
      -- (backward released the children's gradInputs, which accUpdateGradParameters
      -- reads after an updateGradInput, as in Torch7)
      C:updateGradInput(input, g); R:updateGradInput(input, g)
      C:accUpdateGradParameters(input, g, 0.1); R:accUpdateGradParameters(input, g, 0.1)
      local pc = C:parameters()
      local pr = R:parameters()
      for i = 1, #pc do assert.are.equal(0, maxdiff(pc[i], pr[i])) end
      rawset(C, '_branchOrder', nil)
      optnet.optimizeMemory(net, input, {mode = 'training', reorder = true})
      assert.are_not.equal('module', optnet._state(net).result.reorder)
      assert.is_not_nil(rawget(C, '_branchOrder'))
      net:forward(input)
      optnet.removeOptimization(net)
      noBranchOrder(net)
    end)
  end

  it('the order is honoured: the children run in _branchOrder', function()
    local seen = {}
    local function probe(name)
      local m = nn.Identity()
      local uo, ugi = m.updateOutput, m.updateGradInput
      m.updateOutput = function(self, x) seen[#seen + 1] = name; return uo(self, x) end
      m.updateGradInput = function(self, x, g) seen[#seen + 1] = name; return ugi(self, x, g) end
      return m
    end
    local x = torch.randn(2, 3)
    for _, C in ipairs{nn.ConcatTable(), nn.ParallelTable(), nn.Concat(2), nn.Parallel(1, 1)} do
      C:add(probe('a')):add(probe('b')):add(probe('c'))
      local input = torch.isTypeOf(C, 'nn.ParallelTable') and {x, x, x} or
                    torch.isTypeOf(C, 'nn.Parallel') and torch.randn(3, 2) or x
      rawset(C, '_branchOrder', {3, 1, 2})
      seen = {}
      local out = C:forward(input)
      C:updateGradInput(input, H.clone(out))
      assert.are.same({'c', 'a', 'b', 'c', 'a', 'b'}, seen, torch.type(C))
    end
  end)

  it('the per-container pass (GREEDY_PLANS > 0) keeps a flip only if the arena drops; same numbers', function()
    torch.manualSeed(5)
    local a, input = models.build('densenet', {batch = 2, dataset = 'cifar10', depth = 10, growthRate = 4,
                                               type = 'double'})
    local b, c = a:clone(), a:clone()
    for _, n in ipairs{a, b, c} do n:training() end
    optnet.optimizeMemory(c, input, {mode = 'training', reorder = true})
    local saved = reorder.GREEDY_PLANS
    reorder.GREEDY_PLANS = 4
    local ok, err = pcall(optnet.optimizeMemory, b, input, {mode = 'training', reorder = true})
    reorder.GREEDY_PLANS = saved
    assert(ok, err)
    local rb, rc = optnet._state(b).result, optnet._state(c).result
    assert(arena(b) <= arena(c))
    assert(rb.reorderPlans > rc.reorderPlans)
    assert.are.equal(rb.reorderFlips > 0, rb.reorder == 'greedy')
    local oa = a:forward(input):clone()
    assert.are.equal(0, maxdiff(oa, b:forward(input)))
    local g = gradLike(oa)
    assert.are.equal(0, maxdiff(a:backward(input, g), b:backward(input, g)))
    optnet.removeOptimization(b)
    noBranchOrder(b)
  end)

  it('leaves in module order the containers where the order could change a number', function()
    -- the siamese twins share weight, bias and their gradients (accumulated in turn)
    local net, input = models.build('siamese', {batch = 2, type = 'double'})
    assert.are.equal(0, #reorder.containers(net))
    -- two branches that draw random numbers
    local drop = nn.ConcatTable():add(nn.Dropout(0.5)):add(nn.Dropout(0.5))
    assert.are.equal(0, #reorder.containers(nn.Sequential():add(drop)))
    local one = nn.ConcatTable():add(nn.Dropout(0.5)):add(nn.Identity())
    assert.are.equal(1, #reorder.containers(nn.Sequential():add(one)))
    -- an in-place ReLU writing into the container's input, which the other branch reads
    torch.manualSeed(4)
    local a = nn.Sequential():add(nn.Linear(5, 5))
      :add(nn.ConcatTable():add(nn.Linear(5, 5)):add(nn.ReLU(true))):add(nn.JoinTable(2)):double()
    local x = torch.randn(3, 5)
    local b = a:clone()
    a:evaluate(); b:evaluate()
    optnet.optimizeMemory(b, x, {reorder = true})
    assert.are.equal(0, optnet._state(b).result.reorderContainers)
    assert.are.equal(0, maxdiff(a:forward(x), b:forward(x)))
  end)
end)
