-- optnet recompute ('sqrt', 'cheap', a byte budget) on nets holding
-- recurrent layers (thrnn.LSTM, thrnn.GRU, thrnn.Recurrence), which make their
-- time-step clones during forward, after recompute is installed: a segment
-- re-running such a layer gives its clones shadows like every other module
-- (recompute.lua failed with "attempt to index a nil value (local
-- 'holder')"), re-runs re-use the same clones, and a longer sequence grows
-- new ones. Outputs, gradInputs and gradParameters equal the unoptimized
-- net's at the traced input, a longer sequence and another batch, and
-- optnet.trainStep's parameters after 3 steps equal the plain optim loop's.
-- Also: a re-run rewinds the random generator whatever module draws from
-- it (an RReLU re-run drew other slopes).
require 'torch'
require 'nn'
require 'thrnn'
require 'optim'
local optnet = require 'optnet'

-- s' = tanh(W [x, s]): a thrnn.Recurrence of one state
local function recurrence(i, h)
  local step = nn.Sequential():add(nn.JoinTable(2)):add(nn.Linear(i + h, h)):add(nn.Tanh())
  return thrnn.Recurrence(step, 1, h)
end

-- each: a net and its input size (batch first, time second for 3D)
local NETS = {
  -- the issue's net
  lstm = function() return nn.Sequential():add(thrnn.LSTM(3, 16)):add(nn.Select(2, -1)):add(nn.Linear(16, 20)), {2, 5, 3} end,
  -- a chain of recurrent layers: 'sqrt' re-runs two of them
  chain = function()
    return nn.Sequential():add(thrnn.LSTM(3, 4)):add(thrnn.GRU(4, 4)):add(thrnn.LSTM(4, 4)):add(nn.Select(2, -1))
      :add(nn.Linear(4, 2)), {2, 4, 3}
  end,
  chainRecurrence = function()
    return nn.Sequential():add(recurrence(3, 4)):add(recurrence(4, 4)):add(recurrence(4, 4)):add(nn.Tanh())
      :add(nn.Select(2, -1)):add(nn.Linear(4, 2)), {2, 4, 3}
  end,
  gru = function()
    return nn.Sequential():add(thrnn.GRU(3, 8)):add(nn.Tanh()):add(thrnn.GRU(8, 6)):add(nn.Select(2, -1))
      :add(nn.Linear(6, 4)), {2, 5, 3}
  end,
  concat = function()
    local c = nn.Concat(3):add(thrnn.LSTM(3, 4)):add(nn.Sequential():add(thrnn.GRU(3, 4)):add(nn.Tanh()))
    return nn.Sequential():add(c):add(nn.ReLU()):add(nn.Select(2, -1)):add(nn.Linear(8, 3)), {2, 4, 3}
  end,
  concatTable = function()
    local c = nn.ConcatTable():add(nn.Sequential():add(thrnn.LSTM(3, 4)):add(nn.Tanh()):add(thrnn.LSTM(4, 4)))
      :add(recurrence(3, 4))
    return nn.Sequential():add(nn.MulConstant(0.5)):add(c):add(nn.CAddTable()):add(nn.Select(2, -1)):add(nn.Tanh())
      :add(nn.Linear(4, 3)), {2, 4, 3}
  end,
  temporalConv = function()
    return nn.Sequential():add(nn.TemporalConvolution(3, 6, 2)):add(nn.ReLU()):add(thrnn.LSTM(6, 5)):add(nn.Tanh())
      :add(nn.Select(2, -1)):add(nn.Linear(5, 2)), {2, 5, 3}
  end,
  spatialConv = function()
    return nn.Sequential():add(nn.SpatialConvolution(1, 2, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.Select(2, 1))
      :add(thrnn.GRU(3, 5)):add(nn.Tanh()):add(nn.Select(2, -1)):add(nn.Linear(5, 2)), {2, 1, 4, 3}
  end,
  -- the fuzzer's net (its time axis: the Parallel's 5 outputs)
  fuzz = function()
    local par = nn.Parallel(2, 2)
    for _ = 1, 5 do par:add(nn.Identity()) end
    return nn.Sequential():add(nn.SpatialConvolution(2, 1, 2, 2, 2, 2, 2, 2)):add(par)
      :add(nn.Sequential():add(thrnn.LSTM(5, 1, 2)):add(nn.Identity()):add(nn.Identity())):add(nn.Identity()), {1, 2, 1, 6}
  end,
  -- View and Contiguous copy the stride-0 Replicate into a buffer their
  -- output views; 'sqrt' re-runs the Tanh from it in backward (segment 3..4)
  viewBuffer = function()
    return nn.Sequential():add(nn.Replicate(2)):add(nn.View(1, -1)):add(nn.Tanh()):add(nn.Identity()), {1, 1}
  end,
  contiguousBuffer = function()
    return nn.Sequential():add(nn.Replicate(2)):add(nn.Contiguous()):add(nn.Tanh()):add(nn.Identity()), {2, 1}
  end,
  -- an in-place AddConstant re-run by 'sqrt' (segment 4..6) writes over the
  -- net's output; its backward puts that back in the plain net only
  addConstantOutput = function()
    return nn.Sequential():add(nn.Identity()):add(nn.Identity()):add(nn.Identity()):add(nn.Linear(1, 1, false))
      :add(nn.AddConstant(0.5, true)):add(nn.Identity()), {1}
  end,
  -- an RReLU re-run by 'sqrt' (segment 1..3)
  rrelu = function()
    return nn.Sequential():add(nn.Linear(4, 6)):add(nn.RReLU()):add(nn.Linear(6, 6)):add(nn.Tanh()):add(nn.Linear(6, 2)),
      {5, 4}
  end,
}

local function build(name)
  torch.manualSeed(1)
  local net, size = NETS[name]()
  net:double():training()
  return net, size
end

-- the size with dT more time steps and dB more samples
local function resized(size, dT, dB)
  local s = {table.unpack(size)}
  s[1] = s[1] + dB
  if #s == 3 then s[2] = s[2] + dT end
  return s
end

local function maxdiff(a, b)
  assert.are.same(a:size():totable(), b:size():totable())
  return (a - b):abs():max()
end

-- whether a segment installed on net re-runs a module that is a kind
local function reruns(net, kind)
  local st = optnet._state(net)
  for _, seg in ipairs(st.recompute and st.recompute.segments or {}) do
    for k = seg.from, seg.inclusive and seg.to or seg.to - 1 do
      for _, m in ipairs(seg.seq.modules[k]:listModules()) do
        if torch.isTypeOf(m, kind) then return true end
      end
    end
  end
  return false
end

-- the activation bytes optnet plans for name without recompute, times f
local function budget(name, f, inplace)
  local net, size = build(name)
  torch.manualSeed(5)
  optnet.optimizeMemory(net, torch.randn(table.unpack(size)), {mode = 'training', inplace = inplace})
  local n = 0
  for _, v in pairs(optnet._state(net).result.arena) do n = n + v end
  return math.floor(n * f)
end

-- optimizeMemory in training mode against an unoptimized copy: at the
-- traced input, a longer sequence, another batch, the traced size again
-- (sizes: other changes of the sequence length and batch)
local function compare(name, opts, kind, sizes)
  local a, size = build(name)
  local b = build(name)
  torch.manualSeed(5)
  optnet.optimizeMemory(b, torch.randn(table.unpack(size)), opts)
  if kind then assert.is_true(reruns(b, kind), name .. ': no segment re-runs a ' .. kind) end
  local _, ga = a:parameters()
  local _, gb = b:parameters()
  local list = {size}
  for _, d in ipairs(sizes or {{2, 0}, {0, 1}, {0, 0}}) do list[#list + 1] = resized(size, d[1], d[2]) end
  for it, s in ipairs(list) do
    torch.manualSeed(20 + it)
    local x = torch.randn(table.unpack(s))
    torch.manualSeed(40 + it)
    local oa = a:forward(x):clone()
    torch.manualSeed(40 + it)
    local ob = b:forward(x)
    assert.are.equal(0, maxdiff(oa, ob), name .. ' output at input ' .. it)
    local g = oa:clone():uniform(-1, 1)
    a:zeroGradParameters(); b:zeroGradParameters()
    local gia = a:backward(x, g):clone()
    local gib = b:backward(x, g)
    assert.are.equal(0, maxdiff(gia, gib), name .. ' gradInput at input ' .. it)
    for i = 1, #ga do assert.are.equal(0, maxdiff(ga[i], gb[i]), name .. ' gradParameters[' .. i .. '] at input ' .. it) end
  end
end

-- trainStep against the plain optim loop over getParameters of a second
-- build: 3 steps (the third a longer sequence), the generator seeded alike
-- before each step
local function compareStep(name, opts, method, config, kind)
  local a, size = build(name)
  local crit = nn.MSECriterion():double()
  local batches = {}
  for i, s in ipairs{size, size, resized(size, 1, 0)} do
    torch.manualSeed(30 + i)
    local x = torch.randn(table.unpack(s))
    batches[i] = {x, a:forward(x):clone():normal()}
  end
  a = build(name)
  local p, g = a:getParameters()
  local state, cfg, outs = {}, {}, {}
  for k, v in pairs(config) do cfg[k] = v end
  for i, bt in ipairs(batches) do
    torch.manualSeed(70 + i)
    optim[method](function()
      g:zero()
      local o = a:forward(bt[1])
      local l = crit:forward(o, bt[2])
      a:backward(bt[1], crit:backward(o, bt[2]))
      return l, g
    end, p, cfg, state)
    -- the output as the caller sees it after the step
    outs[i] = a.output:clone()
  end
  local b = build(name)
  local o = {method = optim[method], config = {}}
  for k, v in pairs(opts) do o[k] = v end
  for k, v in pairs(config) do o.config[k] = v end
  local s = optnet.trainStep(b, crit, batches[1][1], o)
  for i, bt in ipairs(batches) do
    torch.manualSeed(70 + i)
    local _, out = s:step(bt[1], bt[2])
    assert.are.equal(0, maxdiff(outs[i], out), string.format('%s %s: output of step %d', name, method, i))
    if i == 1 and kind then assert.is_true(reruns(b, kind), name .. ': no segment re-runs a ' .. kind) end
  end
  local pa, pb = a:parameters(), b:parameters()
  assert.are.equal(#pa, #pb)
  for i = 1, #pa do
    assert.are.equal(0, maxdiff(pa[i], pb[i]), string.format('%s %s: parameters[%d] after 3 steps', name, method, i))
  end
end

-- (an in-place module that its backward puts back, re-run where the
-- forward's copy is read after its backward, here the net's output: the
-- segment is left out, verbose says why)
local SGD = {'sgd', {learningRate = 0.05, momentum = 0.9}}
local ADAM = {'adam', {learningRate = 0.01}}

describe('optnet recompute with recurrent layers', function()
  it("plans the issue's LSTM net with 'sqrt' (no chain: nothing re-run) and stays exact", function()
    compare('lstm', {mode = 'training', recompute = 'sqrt'})
  end)

  for _, inplace in ipairs{true, false} do
    local tag = inplace and '' or ' (inplace off)'
    it("'sqrt' re-runs LSTM, GRU and Recurrence layers exactly" .. tag, function()
      for _, name in ipairs{'chain', 'chainRecurrence', 'gru'} do
        compare(name, {mode = 'training', recompute = 'sqrt', inplace = inplace}, 'thrnn.Recurrence')
      end
    end)

    it("'sqrt' and 'cheap' stay exact with recurrent layers in a Concat, a ConcatTable, after convolutions" .. tag,
       function()
      for _, name in ipairs{'concat', 'concatTable', 'temporalConv', 'spatialConv', 'fuzz'} do
        for _, how in ipairs{'sqrt', 'cheap'} do compare(name, {mode = 'training', recompute = how, inplace = inplace}) end
      end
      compare('fuzz', {mode = 'training', recompute = 'sqrt', inplace = inplace}, 'thrnn.LSTM')
    end)

    -- (a budget fitting the traced input does not fit a longer sequence:
    -- shorter ones and another batch then)
    it('a byte budget re-runs recurrent layers exactly' .. tag, function()
      local sizes = {{-1, 0}, {0, -1}, {-2, 1}, {0, 0}}
      compare('chain', {mode = 'training', recompute = budget('chain', 0.85, inplace), inplace = inplace}, 'thrnn.Recurrence',
              sizes)
      compare('concat', {mode = 'training', recompute = budget('concat', 0.97, inplace), inplace = inplace}, 'thrnn.GRU',
              sizes)
    end)
  end

  it("re-runs an RReLU with the slopes of its forward ('sqrt')", function()
    compare('rrelu', {mode = 'training', recompute = 'sqrt'}, 'nn.RReLU')
  end)

  -- (the trace released such a buffer after the module's forward step: its
  -- interval ended there, and the re-run read a slot given to another storage)
  it('re-runs a module reading an output that views its module\'s buffer (View, Contiguous)', function()
    for _, inplace in ipairs{true, false} do
      compare('viewBuffer', {mode = 'training', recompute = 'sqrt', inplace = inplace}, 'nn.Tanh', {{0, 0}})
      compare('contiguousBuffer', {mode = 'training', recompute = 'sqrt', inplace = inplace}, 'nn.Tanh', {{0, 1}, {0, 0}})
      compare('contiguousBuffer', {mode = 'training', recompute = 'sqrt', inplace = inplace, verify = true}, 'nn.Tanh')
    end
  end)

  it('optnet.trainStep with sgd (momentum) and adam equals the plain optim loop', function()
    for _, m in ipairs{SGD, ADAM} do
      compareStep('chain', {recompute = 'sqrt'}, m[1], m[2], 'thrnn.Recurrence')
      compareStep('chainRecurrence', {recompute = 'sqrt', inplace = false}, m[1], m[2], 'thrnn.Recurrence')
      compareStep('concatTable', {recompute = 'cheap'}, m[1], m[2])
      compareStep('fuzz', {recompute = 'sqrt'}, m[1], m[2], 'thrnn.LSTM')
      compareStep('chain', {recompute = budget('chain', 0.85, true)}, m[1], m[2], 'thrnn.Recurrence')
      compareStep('rrelu', {recompute = 'sqrt'}, m[1], m[2], 'nn.RReLU')
      compareStep('addConstantOutput', {recompute = 'sqrt'}, m[1], m[2])
    end
  end)
end)
