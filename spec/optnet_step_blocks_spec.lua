-- optnet.trainStep with blockBytes: a Linear's weight gradient made and
-- applied a block of rows at a time (rows r0..r1 of gradWeight are
-- gradOutput[:, r0..r1]^T x input, the same dot products over the batch).
-- BLAS may round a narrower product differently in the last bit, so the
-- parameters must equal the plain loop's within 1e-6 relative in double
-- after 10 steps; the gradient must never exist whole (countUsedMemory).
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'

local STEPS = 10

-- the first Linear's 30 rows in blocks of 8 (the last one of 6); the
-- second's 7 rows of 30 fit one block: left whole
local BLOCK = 8 * 40 * 8

local function mlp()
  torch.manualSeed(5)
  local net = nn.Sequential():add(nn.Linear(40, 30)):add(nn.Tanh()):add(nn.Linear(30, 7)):add(nn.LogSoftMax())
  net:double()
  local x = torch.randn(6, 40)
  local y = torch.LongTensor(6):random(1, 7)
  return net, x, y, nn.ClassNLLCriterion():double()
end

local function copyTable(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function plainLoop(net, x, y, crit, method, config, steps)
  local ref = net:clone()
  local p, g = ref:getParameters()
  local state, cfg = {}, copyTable(config)
  for _ = 1, steps do
    optim[method](function()
      g:zero()
      local o = ref:forward(x)
      local l = crit:forward(o, y)
      ref:backward(x, crit:backward(o, y))
      return l, g
    end, p, cfg, state)
  end
  return ref:parameters()
end

local function maxRel(pa, pb)
  assert.are.equal(#pa, #pb)
  local worst = 0
  for i = 1, #pa do
    assert.are.same(pa[i]:size():totable(), pb[i]:size():totable())
    local d = torch.abs(pa[i] - pb[i]):max()
    worst = math.max(worst, d / math.max(1e-12, torch.abs(pa[i]):max()))
  end
  return worst
end

local CONFIGS = {
  {'sgd', {learningRate = 0.05, weightDecay = 1e-3, momentum = 0.9, dampening = 0.5, learningRateDecay = 0.1}},
  {'adam', {learningRate = 0.01, weightDecay = 1e-3}},
  {'nag', {learningRate = 0.05, momentum = 0.9, weightDecay = 1e-3}},
  {'adagrad', {learningRate = 0.05, weightDecay = 1e-3}},
  {'rmsprop', {learningRate = 0.01}},
  {'adadelta', {rho = 0.9}},
  {'adamax', {learningRate = 0.01}},
}

describe('optnet.trainStep with blockBytes', function()
  for _, c in ipairs(CONFIGS) do
    it('equals the plain loop over ' .. STEPS .. ' steps: ' .. c[1], function()
      local net, x, y, crit = mlp()
      local ref = plainLoop(net, x, y, crit, c[1], c[2], STEPS)
      local s = optnet.trainStep(net, crit, x, {method = c[1], config = copyTable(c[2]), blockBytes = BLOCK})
      assert.are.same({8, 40}, net.modules[1].gradWeight:size():totable())
      assert.are.same({7, 30}, net.modules[3].gradWeight:size():totable())
      for _ = 1, STEPS do s:step(x, y) end
      assert(maxRel(ref, net:parameters()) <= 1e-6)
      -- the optimizer's state is whole, one table per parameter
      local st = s.states[1]
      for _, v in pairs(st) do
        if torch.isTensor(v) then assert.are.same({30, 40}, v:size():totable()) end
      end
      if c[1] == 'adam' then assert.are.equal(STEPS, st.t) end
    end)
  end

  it('holds one block of a Linear\'s gradient: the arena falls by the rest', function()
    local function build()
      torch.manualSeed(2)
      local net = nn.Sequential():add(nn.Linear(50, 400)):add(nn.ReLU()):add(nn.Linear(400, 3)):add(nn.LogSoftMax())
      net:double()
      return net, torch.randn(2, 50), torch.LongTensor(2):random(1, 3), nn.ClassNLLCriterion():double()
    end
    local net, x, y, crit = build()
    local whole = optnet.trainStep(net, crit, x, {method = 'adam'})
    whole:step(x, y)
    local before = optnet.countUsedMemory(net)
    local net2 = build()
    local blocked = optnet.trainStep(net2, crit, x, {method = 'adam', blockBytes = 16 * 50 * 8})
    blocked:step(x, y)
    local after = optnet.countUsedMemory(net2)
    -- 400 rows of 50 doubles whole, 16 in a block (the freed bytes may
    -- hold the second Linear's gradient, 400 x 3)
    local saved = (400 - 16) * 50 * 8 - 400 * 3 * 8
    assert(before.grads - after.grads >= saved, string.format('grads %d -> %d', before.grads, after.grads))
    assert(before.total_size - after.total_size >= saved,
      string.format('total %d -> %d', before.total_size, after.total_size))
    -- the same optimizer state
    assert.are.equal(before.optimState, after.optimState)
  end)

  it('leaves shared weights whole, and works at a new batch size (planned again)', function()
    torch.manualSeed(3)
    local branch = nn.Sequential():add(nn.Linear(6, 40)):add(nn.Tanh()):add(nn.Linear(40, 3))
    local net = nn.Sequential():add(nn.ParallelTable():add(branch):add(branch:clone('weight', 'bias')))
      :add(nn.PairwiseDistance(2))
    net:double()
    local x = {torch.randn(4, 6), torch.randn(4, 6)}
    local y, crit = torch.rand(4):add(0.5), nn.MSECriterion():double()
    local ref = plainLoop(net, x, y, crit, 'sgd', {learningRate = 0.05}, 3)
    local s = optnet.trainStep(net, crit, x, {method = 'sgd', config = {learningRate = 0.05}, blockBytes = 64})
    assert.are.same({40, 6}, branch.modules[1].gradWeight:size():totable())
    for _ = 1, 3 do s:step(x, y) end
    assert.are.equal(0, maxRel(ref, net:parameters()))

    local net2, x2, y2, crit2 = mlp()
    local x3, y3 = torch.randn(3, 40), torch.LongTensor(3):random(1, 7)
    local ref2 = net2:clone()
    local p, g = ref2:getParameters()
    local state = {}
    local s2 = optnet.trainStep(net2, crit2, x2, {method = 'adam', blockBytes = BLOCK})
    for _, xy in ipairs{{x2, y2}, {x3, y3}, {x2, y2}} do
      optim.adam(function()
        g:zero()
        local o = ref2:forward(xy[1])
        local l = crit2:forward(o, xy[2])
        ref2:backward(xy[1], crit2:backward(o, xy[2]))
        return l, g
      end, p, {}, state)
      s2:step(xy[1], xy[2])
    end
    assert(maxRel(ref2:parameters(), net2:parameters()) <= 1e-6)
    assert.are.same({8, 40}, net2.modules[1].gradWeight:size():totable())
  end)

  it('removeOptimization, a clone and a new trainStep give the Linear its whole gradient back', function()
    local net, x, y, crit = mlp()
    local s = optnet.trainStep(net, crit, x, {method = 'sgd', config = {learningRate = 0.1}, blockBytes = BLOCK})
    s:step(x, y)
    -- a clone is an optimized training net with whole, zero gradients
    local cl = net:clone()
    assert.is_true(optnet.isOptimized(cl))
    assert.are.same({30, 40}, cl.modules[1].gradWeight:size():totable())
    assert.are.equal(0, cl.modules[1].gradWeight:abs():max())
    -- trained again by a new step object without blocks
    local s2 = optnet.trainStep(net, crit, x, {method = 'sgd', config = {learningRate = 0.1}})
    assert.are.same({30, 40}, net.modules[1].gradWeight:size():totable())
    s2:step(x, y)
    assert.has_error(function() s:step(x, y) end)
    optnet.removeOptimization(net)
    local m = net.modules[1]
    assert.is_nil(rawget(m, 'accGradParameters'))
    assert.are.same({30, 40}, m.gradWeight:size():totable())
    assert.are.equal(0, m.gradWeight:abs():max())
    -- the plain net trains as before: its gradient is the definition's
    local o = net:forward(x)
    net.modules[2]:keepGradInputs(true)   -- (read below; backward releases it)
    net:backward(x, crit:backward(o, y))
    local expect = net.modules[2].gradInput:t() * x   -- Linear 1's gradOutput^T x input
    assert(torch.abs(m.gradWeight - expect):max() < 1e-12)
  end)

  it('refuses what needs the whole gradient, and a bad blockBytes', function()
    local net, x, _, crit = mlp()
    for _, o in ipairs{{twoPass = true}, {maxNorm = 1}, {onGradReady = function() end}} do
      o.blockBytes = BLOCK
      helpers.fails({'optnet.trainStep', "'blockBytes'", 'need each gradient whole'},
        function() optnet.trainStep(net, crit, x, o) end)
    end
    for _, v in ipairs{0, -3, 1.5, 'big'} do
      helpers.fails({"optnet.trainStep: option 'blockBytes' must be a positive integer or false, got " .. tostring(v)},
        function() optnet.trainStep(net, crit, x, {blockBytes = v}) end)
    end
    assert.is_false(optnet.isOptimized(net))
    assert.are.same({30, 40}, net.modules[1].gradWeight:size():totable())
  end)
end)
