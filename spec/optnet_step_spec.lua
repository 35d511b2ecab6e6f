-- optnet.trainStep: the whole training step planned. Each parameter is
-- updated as its gradient completes in backward and the gradients live in
-- the activation arena; the parameters must be the plain loop's
-- (forward, backward, optim.X over getParameters) after 10 steps: bitwise
-- where the arithmetic is the same, 1e-6 relative with clipping (the global
-- norm is summed per parameter).
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local models = require 'models'
local helpers = require 'spec.support.helpers'

local STEPS = 10
-- under ASan (make test-asan) googlenet's Lua planning is too slow: left out
local core = package.searchpath('torch.core', package.cpath)
local asan = core and core:find('asan', 1, true)

local function convnet()
  torch.manualSeed(7)
  local net = nn.Sequential()
    :add(nn.SpatialConvolution(3, 6, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(6)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.SpatialConvolution(6, 4, 3, 3)):add(nn.Tanh())
    :add(nn.View(4 * 2 * 2):setNumInputDims(3))
    :add(nn.Linear(16, 5)):add(nn.LogSoftMax())
  net:double()
  local x = torch.randn(6, 3, 8, 8)
  local y = torch.LongTensor(6):random(1, 5)
  return net, x, y, nn.ClassNLLCriterion():double()
end

-- two twins sharing weight and bias; grads shared (the zoo's siamese) or
-- not (clone('weight', 'bias'): one update with the summed gradient)
local function siamese(shareGrads)
  torch.manualSeed(3)
  local net, x
  if shareGrads then
    net, x = models.build('siamese', {batch = 4, type = 'double'})
  else
    local branch = nn.Sequential():add(nn.Linear(6, 5)):add(nn.Tanh()):add(nn.Linear(5, 3))
    net = nn.Sequential():add(nn.ParallelTable():add(branch):add(branch:clone('weight', 'bias')))
      :add(nn.PairwiseDistance(2))
    net:double()
    x = {torch.randn(4, 6), torch.randn(4, 6)}
  end
  return net, x, torch.rand(4):add(0.5), nn.MSECriterion():double()
end

local function copyTable(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- the plain loop on a copy of net; returns its parameters() after the steps
local function plainLoop(net, x, y, crit, method, config, steps, maxNorm)
  local ref = net:clone()
  local p, g = ref:getParameters()
  local state, cfg = {}, copyTable(config)
  -- the same dropout noise in both loops
  torch.manualSeed(11)
  for _ = 1, steps do
    optim[method](function()
      g:zero()
      local o = ref:forward(x)
      local l = crit:forward(o, y)
      ref:backward(x, crit:backward(o, y))
      if maxNorm then
        local n = g:norm()
        if n > maxNorm then g:mul(maxNorm / n) end
      end
      return l, g
    end, p, cfg, state)
  end
  return ref:parameters(), ref
end

local function stepLoop(net, x, y, crit, method, config, steps, opts)
  local o = copyTable(opts or {})
  o.method, o.config = optim[method], copyTable(config)
  local s = optnet.trainStep(net, crit, x, o)
  torch.manualSeed(11)
  local losses = {}
  for i = 1, steps do losses[i] = s:step(x, y) end
  return net:parameters(), s, losses
end

local function maxRel(pa, pb)
  assert.are.equal(#pa, #pb)
  local worst = 0
  for i = 1, #pa do
    local d = torch.abs(pa[i] - pb[i]):max()
    worst = math.max(worst, d / math.max(1e-12, torch.abs(pa[i]):max()))
  end
  return worst
end

local CONFIGS = {
  {'sgd', {learningRate = 0.05}},
  {'sgd', {learningRate = 0.05, weightDecay = 1e-3, momentum = 0.9, dampening = 0.5, learningRateDecay = 0.1}},
  {'sgd', {learningRate = 0.05, weightDecay = 1e-3, momentum = 0.9, dampening = 0, nesterov = true}},
  {'adam', {learningRate = 0.01, weightDecay = 1e-3, learningRateDecay = 0.05}},
  {'adamax', {learningRate = 0.01, weightDecay = 1e-3}},
  {'adagrad', {learningRate = 0.05, weightDecay = 1e-3, learningRateDecay = 0.05}},
  {'rmsprop', {learningRate = 0.01, weightDecay = 1e-3}},
  {'adadelta', {rho = 0.9, weightDecay = 1e-3}},
  {'nag', {learningRate = 0.05, momentum = 0.9, weightDecay = 1e-3, learningRateDecay = 0.1}},
}

local function describeConfig(c)
  local keys = {}
  for k in pairs(c[2]) do keys[#keys + 1] = k end
  table.sort(keys)
  return c[1] .. (#keys > 0 and ' (' .. table.concat(keys, ', ') .. ')' or '')
end

describe('optnet.trainStep equals the plain loop', function()
  for _, c in ipairs(CONFIGS) do
    it('on a conv net with batch norm: ' .. describeConfig(c), function()
      local net, x, y, crit = convnet()
      local pa, ref = plainLoop(net, x, y, crit, c[1], c[2], STEPS)
      local pb = stepLoop(net, x, y, crit, c[1], c[2], STEPS)
      assert.are.equal(0, maxRel(pa, pb))
      -- batch norm's running statistics went the same way
      assert.are.equal(0, (ref.modules[2].running_mean - net.modules[2].running_mean):abs():max())
    end)
  end
  for _, shareGrads in ipairs{true, false} do
    for _, c in ipairs(CONFIGS) do
      it(string.format('on a siamese net (%s): %s', shareGrads and 'gradients shared' or 'weights only shared',
        describeConfig(c)), function()
        local net, x, y, crit = siamese(shareGrads)
        local pa = plainLoop(net, x, y, crit, c[1], c[2], STEPS)
        local pb = stepLoop(net, x, y, crit, c[1], c[2], STEPS)
        assert.are.equal(0, maxRel(pa, pb))
        -- the twins still share their weights
        local a, b = net.modules[1].modules[1], net.modules[1].modules[2]
        assert.are.equal(0, (a:parameters()[1] - b:parameters()[1]):abs():max())
      end)
    end
  end

  -- googlenet at 224 costs 0.25 s a step: adam and nag (the look-ahead) by
  -- default, every method with OPTNET_STEP_FULL=1
  local full = os.getenv('OPTNET_STEP_FULL') == '1'
  for _, c in ipairs(CONFIGS) do
    if full or c[1] == 'adam' or c[1] == 'nag' then
      ;(asan and pending or it)('on googlenet (float, batch 1, three classifiers): ' .. describeConfig(c), function()
        torch.manualSeed(5)
        local net, x = models.build('googlenet', {batch = 1, type = 'float', nClasses = 10})
        local crit = nn.ParallelCriterion():add(nn.ClassNLLCriterion()):add(nn.ClassNLLCriterion(), 0.3)
          :add(nn.ClassNLLCriterion(), 0.3):float()
        local t = torch.LongTensor{4}
        local y = {t, t, t}
        local pa = plainLoop(net, x, y, crit, c[1], c[2], STEPS)
        local pb = stepLoop(net, x, y, crit, c[1], c[2], STEPS)
        assert.are.equal(0, maxRel(pa, pb))
      end)
    end
  end
end)

describe('optnet.trainStep gradients', function()
  it('live in the activation arena, each from its accumulation to its update', function()
    local net, x, y, crit = convnet()
    -- the plain net after one pass: everything allocated
    local o = net:forward(x)
    net:backward(x, crit:backward(o, y))
    local before = optnet.countUsedMemory(net)
    local s = optnet.trainStep(net, crit, x, {method = optim.adam})
    s:step(x, y)
    local st = optnet._state(net)
    local n = 0
    for _, e in ipairs(st.plan.entries) do
      if e.role == 'gradParam' then
        n = n + 1
        -- no weight is shared: accumulated and consumed at one gradient step
        assert.are.equal(e.first, e.last)
      end
    end
    assert.are.equal(8, n)     -- 3 convolutions/linear x 2, batch norm x 2
    local after = optnet.countUsedMemory(net)
    local gradBytes = 0
    for _, g in ipairs(select(2, net:parameters())) do gradBytes = gradBytes + g:nElement() * 8 end
    assert.are.equal(gradBytes, before.grads)
    -- adam's m and v (denom takes the gradient's memory)
    assert.are.equal(2 * gradBytes, after.optimState)
    -- gradients and activations share the arena: the net holds less than
    -- the plain one, whose gradients alone take gradBytes
    assert.is_true(after.total_size - after.optimState < before.total_size - gradBytes / 2)
  end)

  it('are clipped by global norm after backward (two passes), with the plain loop within 1e-6', function()
    for _, maxNorm in ipairs{0.05, 1e6} do
      local net, x, y, crit = convnet()
      local cfg = {learningRate = 0.05, momentum = 0.9}
      local pa = plainLoop(net, x, y, crit, 'sgd', cfg, STEPS, maxNorm)
      local pb, s = stepLoop(net, x, y, crit, 'sgd', cfg, STEPS, {maxNorm = maxNorm})
      if maxNorm < 1 then
        assert.is_true(s.lastNorm > maxNorm)
        assert.is_true(maxRel(pa, pb) < 1e-6)
      else
        assert.are.equal(0, maxRel(pa, pb))
      end
      -- every gradient lives to the end of the pass
      local st = optnet._state(net)
      for _, e in ipairs(st.plan.entries) do
        if e.role == 'gradParam' then assert.are.equal(st.nSteps, e.last) end
      end
    end
  end)

  it('hand each complete gradient to onGradReady before the update (a data-parallel reduce)', function()
    local net, x, y, crit = convnet()
    local pa = plainLoop(net, x, y, crit, 'adam', {}, 3)
    local calls = {}
    -- two identical workers: the reduce averages two equal gradients
    local s = optnet.trainStep(net, crit, x, {method = 'adam', onGradReady = function(i, grad, param)
      calls[#calls + 1] = i
      assert.is_true(grad:isSameSizeAs(param))
      grad:add(grad):div(2)
    end})
    for _ = 1, 3 do s:step(x, y) end
    assert.are.equal(3 * 8, #calls)
    assert.are.equal(0, maxRel(pa, (net:parameters())))
    -- backward order: the last layer's gradients come first, its bias
    -- before its weight (the reverse of net:parameters())
    assert.are.same({8, 7}, {calls[1], calls[2]})
  end)

  it('with twoPass stay alive until after backward: a bucketed reduce in onBackwardDone', function()
    local net, x, y, crit = convnet()
    local pa = plainLoop(net, x, y, crit, 'adam', {}, 3)
    local bucket, flushed = {}, 0
    local s = optnet.trainStep(net, crit, x, {method = 'adam', twoPass = true,
      onGradReady = function(_, grad) bucket[#bucket + 1] = grad end,
      onBackwardDone = function()
        for _, g in ipairs(bucket) do g:mul(2):div(2) end
        flushed = flushed + #bucket
        bucket = {}
      end})
    for _ = 1, 3 do s:step(x, y) end
    assert.are.equal(24, flushed)
    assert.are.equal(0, maxRel(pa, (net:parameters())))
    local st = optnet._state(net)
    for _, e in ipairs(st.plan.entries) do
      if e.role == 'gradParam' then assert.are.equal(st.nSteps, e.last) end
    end
  end)

  it('of a frozen module (accGradParameters a no-op) are zero: updated as the plain loop does', function()
    local net, x, y, crit = convnet()
    net.modules[1].accGradParameters = function() end
    local cfg = {learningRate = 0.01, weightDecay = 0.1}
    local pa = plainLoop(net, x, y, crit, 'adam', cfg, 3)
    local pb = stepLoop(net, x, y, crit, 'adam', cfg, 3)
    assert.are.equal(0, maxRel(pa, pb))
  end)

  it('work with recompute and with a new batch size (re-planned)', function()
    local net, x, y, crit = convnet()
    local pa, ref = plainLoop(net, x, y, crit, 'adam', {learningRate = 0.01}, 4)
    local s = optnet.trainStep(net, crit, x, {method = 'adam', config = {learningRate = 0.01}, recompute = 'cheap'})
    assert.are.equal('cheap', optnet._state(net).result.recompute)
    for _ = 1, 4 do s:step(x, y) end
    assert.are.equal(0, maxRel(pa, (net:parameters())))
    -- a smaller batch: planned again, the optimizer's state kept
    local x2, y2 = x:narrow(1, 1, 3), y:narrow(1, 1, 3)
    local refP, refG = ref:getParameters()
    local refState = {}
    -- the reference goes on with its own state: replay all 6 steps
    local pa2 = plainLoop(net:clone(), x, y, crit, 'adam', {}, 0)
    local _ = pa2
    local r = convnet()
    local rp, rg = r:getParameters()
    local cfg, rs = {learningRate = 0.01}, {}
    for i = 1, 6 do
      local xi, yi = i <= 4 and x or x2, i <= 4 and y or y2
      optim.adam(function()
        rg:zero()
        local o = r:forward(xi)
        local l = crit:forward(o, yi)
        r:backward(xi, crit:backward(o, yi))
        return l, rg
      end, rp, cfg, rs)
    end
    s:step(x2, y2)
    s:step(x2, y2)
    assert.are.equal(0, maxRel(r:parameters(), (net:parameters())))
    local _, _ = refP, refG, refState
  end)
end)

describe('optnet.trainStep seen', function()
  it('by countUsedMemory, report and timeline: grads and optimState; the step goes on', function()
    local net, x, y, crit = convnet()
    local pa = plainLoop(net, x, y, crit, 'adam', {}, 3)
    local s = optnet.trainStep(net, crit, x, {method = 'adam'})
    s:step(x, y)
    local c = optnet.countUsedMemory(net, x)
    local r = optnet.report(net, x, {print = false})
    assert.are.equal(c.grads, r.counts.grads)
    assert.are.equal(c.optimState, r.counts.optimState)
    assert.is_true(c.optimState > 0 and c.grads > 0)
    -- the bound counts the gradients once (they are in the activation arena)
    assert.is_true(c.lower_bound <= c.total_size)
    local t = optnet.timeline(net, x)
    -- before: every gradient held through the whole pass; after: in the arena
    assert.is_true(t.arena < t.before.allocated[t.nSteps])
    assert.is_true(optnet._state(net).opts.planGrads)
    s:step(x, y)
    s:step(x, y)
    assert.are.equal(0, maxRel(pa, (net:parameters())))
  end)
end)

describe('optnet.trainStep lifecycle', function()
  it('removeOptimization gives back the plain net: gradients private, zero, shared as before', function()
    for _, shareGrads in ipairs{true, false} do
      local net, x, y, crit = siamese(shareGrads)
      local before = optnet.countUsedMemory(net)
      local s = optnet.trainStep(net, crit, x, {method = 'sgd', config = {learningRate = 0.1}})
      s:step(x, y)
      local trained = net:clone()   -- a clone: planned again, as a training net
      optnet.removeOptimization(net)
      assert.is_false(optnet.isOptimized(net))
      local a, b = net.modules[1].modules[1], net.modules[1].modules[2]
      local ga, gb = select(2, a:parameters()), select(2, b:parameters())
      for i = 1, #ga do
        assert.are.equal(0, ga[i]:abs():max())
        assert.are.equal(shareGrads, ga[i]:_storageId() == gb[i]:_storageId())
      end
      net:forward(x)
      local after = optnet.countUsedMemory(net)
      assert.are.equal(before.params, after.params)
      assert.has_error(function() s:step(x, y) end)
      -- the clone trains with the plain loop like the net
      assert.is_true(optnet.isOptimized(trained))
      local pa = plainLoop(net, x, y, crit, 'sgd', {learningRate = 0.1}, 2)
      local pt = plainLoop(trained, x, y, crit, 'sgd', {learningRate = 0.1}, 2)
      assert.are.equal(0, maxRel(pa, pt))
    end
  end)

  it('a saved and loaded net is an optimized training net with zero gradients', function()
    local net, x, y, crit = convnet()
    local s = optnet.trainStep(net, crit, x, {method = 'adam'})
    s:step(x, y)
    local f = os.tmpname()
    finally(function() os.remove(f) end)
    torch.save(f, net)
    local loaded = torch.load(f)
    assert.is_true(optnet.isOptimized(loaded))
    for _, g in ipairs(select(2, loaded:parameters())) do assert.are.equal(0, g:abs():max()) end
    -- plain training works on it and matches the net's own copy
    local o = loaded:forward(x)
    loaded:backward(x, crit:backward(o, y))
    local ref = net:clone()
    optnet.removeOptimization(ref)
    ref:zeroGradParameters()
    local o2 = ref:forward(x)
    ref:backward(x, crit:backward(o2, y))
    assert.are.equal(0, maxRel(select(2, ref:parameters()), select(2, loaded:parameters())))
    -- and the step goes on
    s:step(x, y)
  end)

  it('refuses what would read planned gradients, and what it cannot do per parameter', function()
    local net, x, y, crit = convnet()
    local s = optnet.trainStep(net, crit, x, {method = 'adam'})
    helpers.fails({'backward', 'optnet.trainStep', 'step:step'}, function() net:backward(x, net:forward(x)) end)
    helpers.fails({'getParameters', 'optnet.removeOptimization'}, function() net:getParameters() end)
    s:step(x, y)
    local net2 = convnet()
    helpers.fails({'optnet.trainStep', 'optim.lbfgs', 'whole gradient'},
      function() optnet.trainStep(net2, crit, x, {method = optim.lbfgs}) end)
    helpers.fails({'optnet.trainStep', 'optim.cg'}, function() optnet.trainStep(net2, crit, x, {method = 'cg'}) end)
    helpers.fails({"option 'method'", 'optim.sgd'}, function() optnet.trainStep(net2, crit, x, {method = print}) end)
    helpers.fails({'learningRates'}, function()
      optnet.trainStep(net2, crit, x, {method = 'sgd', config = {learningRates = torch.ones(3)}})
    end)
    helpers.fails({'nn.Criterion expected as argument 2'}, function() optnet.trainStep(net2, {}, x) end)
    helpers.fails({"unknown option 'bogus'"}, function() optnet.trainStep(net2, crit, x, {bogus = 1}) end)
    helpers.fails({'maxNorm'}, function() optnet.trainStep(net2, crit, x, {maxNorm = -1}) end)
    helpers.fails({"mode = 'training'"}, function() optnet.trainStep(net2, crit, x, {mode = 'inference'}) end)
    -- a converted net: the step object refuses it
    local net3, x3, y3 = convnet()
    local s3 = optnet.trainStep(net3, crit, x3, {method = 'sgd'})
    net3:float()
    helpers.fails({'optnet.trainStep', 'no longer the tensor'}, function() s3:step(x3:float(), y3) end)
    helpers.fails({'planGrads', 'optnet.trainStep'},
      function() optnet.optimizeMemory(net2, x, {mode = 'training', planGrads = true}) end)
    -- refused constructions leave the net as it was
    assert.is_false(optnet.isOptimized(net2))
    -- optimizing the net again ends the step object
    optnet.optimizeMemory(net, x, {mode = 'training'})
    helpers.fails({'optnet.trainStep', 'make a new one'}, function() s:step(x, y) end)
  end)
  it('with deferUpdates leave each update to step:update, in parts with keys of their own', function()
    local net, x, y, crit = convnet()
    local pa = plainLoop(net, x, y, crit, 'adam', {learningRate = 0.01}, 3)
    local got = {}
    local s
    s = optnet.trainStep(net, crit, x, {method = 'adam', config = {learningRate = 0.01}, deferUpdates = true,
      onGradReady = function(i, grad) got[#got + 1] = {i, grad:clone()} end})
    for _ = 1, 3 do
      got = {}
      s:step(x, y)
      -- each parameter in two halves, each with its own state
      for _, e in ipairs(got) do
        local i, g = e[1], e[2]:view(-1)
        local p = s.groups[i].param:view(-1)
        local h = p:nElement() // 2
        if h > 0 then s:update(i, g:narrow(1, 1, h):clone(), p:narrow(1, 1, h), i .. 'a') end
        s:update(i, g:narrow(1, h + 1, p:nElement() - h):clone(), p:narrow(1, h + 1, p:nElement() - h), i .. 'b')
      end
    end
    assert.is_true(maxRel(pa, (net:parameters())) < 1e-12)
    helpers.fails({'step:update', 'gradient of 6 elements', '5 elements'}, function() s:update(2, torch.zeros(5)) end)
    helpers.fails({'step:update', 'parameter group'}, function() s:update(99, torch.zeros(5)) end)
    local net2, x2 = convnet()
    helpers.fails({'optnet.trainStep', 'deferUpdates', 'onGradReady'},
      function() optnet.trainStep(net2, crit, x2, {deferUpdates = true}) end)
  end)
end)
