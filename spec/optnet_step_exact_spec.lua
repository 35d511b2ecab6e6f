-- optnet.trainStep is the plain loop, bitwise (double): the parameters
-- after a few steps equal those of optim.X(feval, params, config, state)
-- over getParameters on a copy of the net, for every method trainStep
-- supports, at the traced batch and at another one, on a conv net with
-- batch norm and on recurrent nets (whose time-step clones are made during
-- forward: trainStep made before the first forward, a longer sequence than
-- any seen before). A copy of a net trainStep drove (clone, save/load,
-- removeOptimization on it) trains as the plain net does and shares no
-- memory a plain net does not; verify and blockBytes keep the step's numbers
-- and its net savable.
require 'torch'
require 'nn'
require 'thrnn'
require 'optim'
local optnet = require 'optnet'
local walk = require 'optnet.walk'

local function convnet(B)
  local net = nn.Sequential()
    :add(nn.SpatialConvolution(3, 6, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(6)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.SpatialConvolution(6, 4, 1, 1)):add(nn.Tanh())
    :add(nn.SpatialConvolution(4, 4, 3, 3)):add(nn.ReLU())
    :add(nn.View(4 * 2 * 2):setNumInputDims(3))
    :add(nn.Linear(16, 5)):add(nn.LogSoftMax())
  return net:double(), nn.ClassNLLCriterion():double()
end

-- a residual net of the zoo (3 blocks)
local function resnet()
  return require('models').build('resnet', {dataset = 'cifar10', depth = 8, batch = 16, type = 'double'})
end

local function convData(B, seed)
  torch.manualSeed(seed)
  return torch.randn(B, 3, 8, 8), torch.LongTensor(B):random(1, 5)
end

-- a recurrent layer, the last time step's state, a Linear
local function rnn(layer)
  return function()
    local net = nn.Sequential():add(layer()):add(nn.Select(2, -1)):add(nn.Linear(4, 2))
    return net:double(), nn.MSECriterion():double()
  end
end
local LSTM = rnn(function() return thrnn.LSTM(3, 4) end)
local GRU = rnn(function() return thrnn.GRU(3, 4) end)
-- thrnn.Recurrence over a step of one state: s' = tanh(W [x, s])
local RECURRENCE = rnn(function()
  local step = nn.Sequential():add(nn.JoinTable(2)):add(nn.Linear(7, 4)):add(nn.Tanh())
  return thrnn.Recurrence(step, 1, 4)
end)

local function seqData(T, B)
  return function(b, seed)
    torch.manualSeed(seed)
    return torch.randn(b or B, T, 3), torch.randn(b or B, 2)
  end
end

local function build(make, seed)
  torch.manualSeed(seed or 1)
  return make()
end

local function copyTable(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- the plain loop: optim.X over getParameters, one (input, target) per step
local function plainLoop(net, method, config, batches)
  local crit = batches.crit
  local p, g = net:getParameters()
  local state, cfg = {}, copyTable(config)
  for _, b in ipairs(batches) do
    optim[method](function()
      g:zero()
      local o = net:forward(b[1])
      local l = crit:forward(o, b[2])
      net:backward(b[1], crit:backward(o, b[2]))
      return l, g
    end, p, cfg, state)
  end
  return net:parameters()
end

local function stepLoop(net, method, config, batches, traceInput, opts)
  local o = copyTable(opts or {})
  o.method, o.config = optim[method], copyTable(config)
  local s = optnet.trainStep(net, batches.crit, traceInput or batches[1][1], o)
  for _, b in ipairs(batches) do s:step(b[1], b[2]) end
  return net:parameters(), s
end

local function assertSame(pa, pb, what)
  assert.are.equal(#pa, #pb)
  for i = 1, #pa do
    local d = (pa[i] - pb[i]):abs():max()
    assert.are.equal(0, d, string.format('%s: parameter %d differs by %g', what, i, d))
  end
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

-- three steps: at the traced batch, at another batch (planned again), at the first
local function batches(data, crit, B1, B2)
  local x1, y1 = data(B1, 11)
  local x2, y2 = data(B2, 12)
  return {{x1, y1}, {x2, y2}, {x1, y1}, crit = crit}
end

describe('optnet.trainStep equals the plain loop bitwise', function()
  local NETS = {
    {'a conv net with batch norm', convnet, convData, 6, 4},
    {'an LSTM net', LSTM, seqData(5, 3), 3, 2},
  }
  for _, n in ipairs(NETS) do
    for _, c in ipairs(CONFIGS) do
      it('on ' .. n[1] .. ', at the traced batch and another: ' .. describeConfig(c), function()
        local _, crit = build(n[2])
        local bs = batches(n[3], crit, n[4], n[5])
        local pa = plainLoop(build(n[2]), c[1], c[2], bs)
        local pb = stepLoop(build(n[2]), c[1], c[2], bs)
        assertSame(pa, pb, n[1] .. ', ' .. c[1])
      end)
    end
  end
end)

describe('optnet.trainStep on recurrent nets', function()
  local RNNS = {{'thrnn.LSTM', LSTM}, {'thrnn.GRU', GRU}, {'thrnn.Recurrence', RECURRENCE}}
  local cfg = {learningRate = 0.1, momentum = 0.9}
  for _, r in ipairs(RNNS) do
    it(r[1] .. ': made before the first forward (time-step clones made while it plans)', function()
      local _, crit = build(r[2])
      local x, y = seqData(5, 3)(nil, 11)
      local bs = {{x, y}, {x, y}, {x, y}, crit = crit}
      local pa = plainLoop(build(r[2]), 'sgd', cfg, bs)
      local pb = stepLoop(build(r[2]), 'sgd', cfg, bs)
      assertSame(pa, pb, r[1])
    end)

    it(r[1] .. ': a longer sequence than any seen before (clones made at a re-plan)', function()
      local _, crit = build(r[2])
      local xs, ys = seqData(3, 3)(nil, 11)
      local xl, yl = seqData(6, 3)(nil, 12)
      local bs = {{xs, ys}, {xl, yl}, {xl, yl}, crit = crit}
      local pa = plainLoop(build(r[2]), 'adam', {learningRate = 0.01}, bs)
      -- the net ran a short sequence before the step object was made
      local net = build(r[2])
      net:forward(xs)
      local pb = stepLoop(net, 'adam', {learningRate = 0.01}, bs)
      assertSame(pa, pb, r[1])
    end)
  end

  it('nn.MapTable: a clone per input made in forward (gradients shared), more inputs later', function()
    local function make()
      return nn.Sequential():add(nn.MapTable(nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh())))
        :add(nn.CAddTable()):add(nn.Linear(4, 2)):double()
    end
    local crit = nn.MSECriterion():double()
    torch.manualSeed(2)
    local x3 = {torch.randn(3, 3), torch.randn(3, 3), torch.randn(3, 3)}
    local x4 = {torch.randn(3, 3), torch.randn(3, 3), torch.randn(3, 3), torch.randn(3, 3)}
    local y = torch.randn(3, 2)
    local bs = {{x3, y}, {x4, y}, {x4, y}, crit = crit}
    for _, method in ipairs{'sgd', 'adam'} do
      local pa = plainLoop(build(make), method, {learningRate = 0.01}, bs)
      local pb = stepLoop(build(make), method, {learningRate = 0.01}, bs)
      assertSame(pa, pb, 'MapTable, ' .. method)
    end
  end)

  it('clearState between steps (the time-step clones dropped, made again: planned again)', function()
    for _, make in ipairs{LSTM, convnet} do
      local _, crit = build(make)
      local data = make == LSTM and seqData(5, 3) or convData
      local x, y = data(make == LSTM and 3 or 6, 11)
      local ref, net = build(make), build(make)
      local p, g = ref:getParameters()
      local st, cfg = {}, {learningRate = 0.1, momentum = 0.9}
      local s = optnet.trainStep(net, crit, x, {config = copyTable(cfg)})
      for _ = 1, 3 do
        optim.sgd(function()
          g:zero()
          local o = ref:forward(x)
          local l = crit:forward(o, y)
          ref:backward(x, crit:backward(o, y))
          return l, g
        end, p, cfg, st)
        s:step(x, y)
        net:clearState()
      end
      assertSame(ref:parameters(), net:parameters(), torch.type(net.modules[1]))
    end
  end)

  it('a clone made in forward holding a weight but a gradient of its own is refused, naming the fix', function()
    -- a module that makes a twin sharing its weight only, at its first forward
    local Twin, parent = torch.class('nn.OptnetStepSpecTwin', 'nn.Container')
    function Twin:__init(m) parent.__init(self); self.modules = {m} end
    function Twin:updateOutput(x)
      if not self.modules[2] then self.modules[2] = self.modules[1]:clone('weight', 'bias') end
      self.output = self.modules[2]:updateOutput(self.modules[1]:updateOutput(x))
      return self.output
    end
    function Twin:updateGradInput(x, g)
      self.gradInput = self.modules[1]:updateGradInput(x, self.modules[2]:updateGradInput(self.modules[1].output, g))
      return self.gradInput
    end
    function Twin:accGradParameters(x, g, scale)
      self.modules[2]:accGradParameters(self.modules[1].output, g, scale)
      self.modules[1]:accGradParameters(x, self.modules[2].gradInput, scale)
    end
    torch.manualSeed(1)
    local net = nn.Sequential():add(Twin(nn.Linear(3, 3))):double()
    local ok, err = pcall(optnet.trainStep, net, nn.MSECriterion():double(), torch.randn(2, 3))
    assert.is_false(ok)
    assert.matches("nn.Linear.weight is another module's weight but has a gradient of its own", err, 1, true)
    assert.is_false(optnet.isOptimized(net))
  end)
end)

-- the storages shared by two tensor fields of a net's modules (parameters
-- and their gradients left out), as strings naming the fields
local function sharing(net)
  local by = {}
  for i, m in ipairs(walk.modules(net)) do
    walk.moduleTensors(m, function(t, role, name)
      local id = t:_storageId()
      if id and role ~= 'param' and role ~= 'gradParam' and t:nElement() > 0 then
        by[id] = by[id] or {}
        table.insert(by[id], i .. ':' .. torch.type(m) .. '.' .. tostring(name))
      end
    end)
  end
  local set = {}
  for _, l in pairs(by) do
    if #l > 1 then
      table.sort(l)
      set[table.concat(l, ' ')] = true
    end
  end
  return set
end

local function extraSharing(plain, copy)
  local a, extra = sharing(plain), {}
  for k in pairs(sharing(copy)) do if not a[k] then extra[#extra + 1] = k end end
  return table.concat(extra, '; ')
end

describe('a copy of a net optnet.trainStep drove', function()
  local HOW = {
    clone = function(net) return net:clone() end,
    ['torch.save/torch.load'] = function(net)
      local f = os.tmpname()
      torch.save(f, net)
      local c = torch.load(f)
      os.remove(f)
      return c
    end,
    [':float():double()'] = function(net) return net:clone():float():double() end,
  }
  local NETS = {{'a conv net', convnet, convData, 16, 5}, {'an LSTM net', LSTM, seqData(4, 8), 8, 3}}
  for _, n in ipairs(NETS) do
    for how, copy in pairs(HOW) do
      for _, remove in ipairs{false, true} do
        it(string.format('%s, %s%s: trains as the plain net at the traced batch and another', n[1], how,
          remove and ', then removeOptimization' or ''), function()
          local _, crit = build(n[2])
          local x1, y1 = n[3](n[4], 11)
          local net = build(n[2])
          local s = optnet.trainStep(net, crit, x1, {method = optim.adam, config = {learningRate = 0.01}})
          s:step(x1, y1)
          s:step(x1, y1)
          -- the plain net with the same weights
          local ref = build(n[2])
          for i, p in ipairs(ref:parameters()) do p:copy(net:parameters()[i]) end
          -- (a copy through float has the weights rounded to float)
          if how:find('float') then ref:float():double() end
          for _, B in ipairs{n[4], n[5]} do
            local c = copy(net)
            if remove then optnet.removeOptimization(c) end
            local bs = batches(n[3], crit, B, B)
            local pa = plainLoop(ref:clone(), 'sgd', {learningRate = 0.1, momentum = 0.9}, bs)
            local pb = plainLoop(c, 'sgd', {learningRate = 0.1, momentum = 0.9}, bs)
            assertSame(pa, pb, string.format('%s, batch %d', how, B))
            -- a copy trained by trainStep too, at that batch
            local c2 = copy(net)
            if remove then optnet.removeOptimization(c2) end
            local pc = stepLoop(c2, 'sgd', {learningRate = 0.1, momentum = 0.9}, bs)
            assertSame(pa, pc, string.format('%s, then trainStep, batch %d', how, B))
          end
        end)
      end
    end
  end

  it('a residual net, cloned: trains as the plain net (its planned slots were shared by offset)', function()
    local crit = nn.ClassNLLCriterion():double()
    torch.manualSeed(3)
    local x, y = torch.randn(16, 3, 32, 32), torch.LongTensor(16):random(1, 10)
    local net = build(resnet)
    optnet.trainStep(net, crit, x, {method = optim.sgd, config = {learningRate = 0.1}}):step(x, y)
    local ref = build(resnet)
    for i, p in ipairs(ref:parameters()) do p:copy(net:parameters()[i]) end
    local bs = {{x, y}, {x, y}, crit = crit}
    assertSame(plainLoop(ref, 'sgd', {learningRate = 0.1}, bs), plainLoop(net:clone(), 'sgd', {learningRate = 0.1}, bs),
      'the clone')
  end)

  it('after removeOptimization shares no memory a plain net lacks (clone, load, :float())', function()
    local _, crit = build(convnet)
    local x, y = convData(16, 11)
    local plain = build(convnet)
    plain:forward(x)
    crit:forward(plain.output, y)
    plain:backward(x, crit:backward(plain.output, y))
    local net = build(convnet)
    optnet.trainStep(net, crit, x, {method = optim.sgd}):step(x, y)
    local copies = {
      clone = net:clone(),
      load = HOW['torch.save/torch.load'](net),
      float = net:clone():float():double(),
    }
    for how, c in pairs(copies) do
      optnet.removeOptimization(c)
      c:forward(x)
      crit:forward(c.output, y)
      c:backward(x, crit:backward(c.output, y))
      assert.are.equal('', extraSharing(plain, c), how .. ', after a pass')
    end
  end)
end)

describe('optnet.trainStep with verify', function()
  local NETS = {
    ['a 1x1 convolution'] = function() return nn.SpatialConvolution(4, 4, 1, 1):double() end,
    ['a 1x1 convolution in a Sequential'] = function()
      return nn.Sequential():add(nn.SpatialConvolution(4, 4, 1, 1)):double()
    end,
    ['ReLU, 1x1 convolution'] = function()
      return nn.Sequential():add(nn.ReLU()):add(nn.SpatialConvolution(4, 4, 1, 1)):double()
    end,
  }
  for name, make in pairs(NETS) do
    it('updates with the gradient before verify marks it dead: ' .. name, function()
      local crit = nn.MSECriterion():double()
      torch.manualSeed(4)
      local x, y = torch.randn(8, 4, 5, 5), torch.randn(8, 4, 5, 5)
      local bs = {{x, y}, {x, y}, crit = crit}
      for _, method in ipairs{'sgd', 'adam'} do
        local pa = plainLoop(build(make), method, {learningRate = 0.1}, bs)
        local net = build(make)
        local pb = stepLoop(net, method, {learningRate = 0.1}, bs, nil, {verify = true})
        assertSame(pa, pb, name .. ', ' .. method)
        -- every wrapper off again (the step's went on under verify's)
        optnet.removeOptimization(net)
        for _, m in ipairs(net:listModules()) do
          for _, k in ipairs{'updateOutput', 'updateGradInput', 'accGradParameters', 'backward', 'getParameters'} do
            assert.is_nil(rawget(m, k), name .. ': ' .. torch.type(m) .. '.' .. k)
          end
        end
      end
    end)
  end
end)

describe('optnet.trainStep with blockBytes', function()
  it('leaves a net that torch.save and torch.load take, with the whole gradient back', function()
    local function make()
      return nn.Sequential():add(nn.Linear(4, 10)):add(nn.Tanh()):add(nn.Linear(10, 3)):double()
    end
    local crit = nn.MSECriterion():double()
    torch.manualSeed(2)
    local x, y = torch.randn(5, 4), torch.randn(5, 3)
    local net = build(make)
    -- 8 rows of 4 doubles: the first Linear's 10x4 gradient in two blocks
    local s = optnet.trainStep(net, crit, x, {blockBytes = 8 * 4 * 8, config = {learningRate = 0.1}})
    s:step(x, y)
    assert.are.same({8, 4}, net.modules[1].gradWeight:size():totable())
    local f = os.tmpname()
    torch.save(f, net)
    local loaded = torch.load(f)
    os.remove(f)
    for _, c in ipairs{loaded, net:clone()} do
      assert.are.same({10, 4}, c.modules[1].gradWeight:size():totable())
      assert.is_nil(rawget(c.modules[1], '_optnetRows'))
      -- it trains as the plain net with the same weights
      local ref = build(make)
      for i, p in ipairs(ref:parameters()) do p:copy(net:parameters()[i]) end
      local bs = {{x, y}, {x, y}, crit = crit}
      assertSame(plainLoop(ref, 'sgd', {learningRate = 0.1}, bs), plainLoop(c, 'sgd', {learningRate = 0.1}, bs),
        'the loaded net')
    end
    -- a clone of the blocked Linear alone (a part: no step drives it) is whole too
    local part = net.modules[1]:clone()
    assert.are.same({10, 4}, part.gradWeight:size():totable())
    local ref = nn.Linear(4, 10):double()
    ref.weight:copy(part.weight)
    ref.bias:copy(part.bias)
    for _, m in ipairs{part, ref} do
      m:zeroGradParameters()
      m:forward(x)
      m:backward(x, torch.ones(5, 10))
    end
    assert.are.equal(0, (part.gradWeight - ref.gradWeight):abs():max())
    -- the net itself goes on stepping; removeOptimization makes it whole
    s:step(x, y)
    optnet.removeOptimization(net)
    assert.are.same({10, 4}, net.modules[1].gradWeight:size():totable())
    assert.is_nil(rawget(net.modules[1], '_optnetRows'))
  end)

  it('leaves the weights of time-step clones whole (made in forward, after the step object)', function()
    local function make()
      return nn.Sequential():add(thrnn.LSTM(3, 16)):add(nn.Select(2, -1)):add(nn.Linear(16, 20)):double()
    end
    local crit = nn.MSECriterion():double()
    torch.manualSeed(2)
    local x, y = torch.randn(4, 5, 3), torch.randn(4, 20)
    local bs = {{x, y}, {x, y}, {x, y}, crit = crit}
    local pa = plainLoop(build(make), 'sgd', {learningRate = 0.1}, bs)
    local net = build(make)
    -- 2 rows of 16 doubles: the last Linear in 10 blocks, the LSTM's whole
    local pb, s = stepLoop(net, 'sgd', {learningRate = 0.1}, bs, nil, {blockBytes = 256})
    assert.are.equal(1, #s.blocked)
    assert.are.equal(net.modules[3], s.blocked[1].module)
    -- each element the same sum in the same order here
    assertSame(pa, pb, 'LSTM with blocks')
  end)

  it('with time-step clones and weights shared without their gradients: tied, then untied', function()
    local function make()
      local lin = nn.Linear(4, 4)
      return nn.Sequential():add(thrnn.LSTM(3, 4)):add(nn.Select(2, -1))
        :add(nn.ConcatTable():add(lin):add(lin:clone('weight', 'bias'))):add(nn.CAddTable())
        :add(nn.Linear(4, 20)):double()
    end
    local crit = nn.MSECriterion():double()
    torch.manualSeed(2)
    local x, y = torch.randn(4, 5, 3), torch.randn(4, 20)
    local bs = {{x, y}, {x, y}, {x, y}, crit = crit}
    local pa = plainLoop(build(make), 'adam', {learningRate = 0.01}, bs)
    local net = build(make)
    local pb, s = stepLoop(net, 'adam', {learningRate = 0.01}, bs, nil, {blockBytes = 256})
    assert.are.equal(net.modules[5], s.blocked[1].module)
    assertSame(pa, pb, 'LSTM, shared weights, blocks')
    optnet.removeOptimization(net)
    local a, b = net.modules[3].modules[1], net.modules[3].modules[2]
    assert.are_not.equal(a.gradWeight:_storageId(), b.gradWeight:_storageId())
    assert.are.equal(a.weight:_storageId(), b.weight:_storageId())
  end)

  it('works on a net that cannot run two samples (a View of a fixed batch)', function()
    local function make()
      return nn.Sequential():add(nn.Linear(4, 10)):add(nn.View(5, 10)):add(nn.Linear(10, 3)):double()
    end
    local crit = nn.MSECriterion():double()
    torch.manualSeed(2)
    local x, y = torch.randn(5, 4), torch.randn(5, 3)
    local bs = {{x, y}, {x, y}, {x, y}, crit = crit}
    local pa = plainLoop(build(make), 'sgd', {learningRate = 0.1}, bs)
    local pb, s = stepLoop(build(make), 'sgd', {learningRate = 0.1}, bs, nil, {blockBytes = 64})
    assert.are.equal(2, #s.blocked)
    assertSame(pa, pb, 'fixed batch')
  end)

  it('torch.load still refuses a gradient of the wrong size that no step made', function()
    local net = nn.Sequential():add(nn.Linear(4, 10)):double()
    net.modules[1].gradWeight = torch.DoubleTensor(8, 4)
    local f = os.tmpname()
    torch.save(f, net)
    local ok, err = pcall(torch.load, f)
    os.remove(f)
    assert.is_false(ok)
    assert.matches('the gradient of parameter 1 has size 8x4, the parameter 10x4', err, 1, true)
  end)
end)
