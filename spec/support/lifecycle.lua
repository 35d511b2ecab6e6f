-- Support for spec/optnet_lifecycle_spec.lua: an optimized net over its whole
-- life (clone, retype, clearState, save/load, new batches) against the plain
-- nn net it was copied from. Also loaded by spec/support/lifecycle_child.lua,
-- which runs the same steps on a net loaded in a fresh bin/th process.
--
-- The pieces:
--   life.NETS[name]   how to build a net and its inputs, at which batches
--                     and spatial sizes to run it
--   life.prepare      builds it twice over: the reference (a clone taken
--                     before optimizeMemory) and the optimized net
--   life.derive       applies a sequence of operations (life.OPS) to a net
--   life.steps        what is run on the derived net and on the reference,
--                     step by step, and what is checked on the derived one
--   life.lockstep     runs the steps on both and compares after each step
--   life.runSteps / life.compareRecords   the same, split between a child
--                     process (derived) and this one (reference)
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

local life = {}

-- a failed expectation: a busted failure (luassert, loaded only where the
-- specs run, not in the child process, which only records)
local function fail(msg)
  require('luassert')(false, msg)
end

-- --- nets ------------------------------------------------------------------

local function mlp()
  return nn.Sequential()
    :add(nn.Linear(10, 16)):add(nn.ReLU())
    :add(nn.Linear(16, 16)):add(nn.Tanh())
    :add(nn.Linear(16, 5))
end

local function convnet()
  return nn.Sequential()
    :add(nn.SpatialConvolution(3, 6, 3, 3)):add(nn.ReLU())
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.View(6 * 5 * 5):setNumInputDims(3))
    :add(nn.Linear(6 * 5 * 5, 12)):add(nn.ReLU())
    :add(nn.Linear(12, 4))
end

local function concatnet()
  return nn.Sequential()
    :add(nn.Concat(2)
      :add(nn.Sequential():add(nn.Linear(10, 8)):add(nn.ReLU()))
      :add(nn.Sequential():add(nn.Linear(10, 6)):add(nn.Tanh()))
      :add(nn.Identity()))
    :add(nn.Linear(24, 4))
end

local function concattablenet()
  return nn.Sequential()
    :add(nn.Linear(10, 12)):add(nn.Tanh())
    :add(nn.ConcatTable()
      :add(nn.Sequential():add(nn.Linear(12, 8)):add(nn.ReLU()))
      :add(nn.Sequential():add(nn.Linear(12, 8)):add(nn.Tanh())))
    :add(nn.CAddTable())
    :add(nn.Linear(8, 3))
end

local function paralleltablenet()
  return nn.Sequential()
    :add(nn.ParallelTable()
      :add(nn.Sequential():add(nn.Linear(10, 8)):add(nn.ReLU()))
      :add(nn.Sequential():add(nn.Linear(6, 8)):add(nn.Tanh())))
    :add(nn.JoinTable(2))
    :add(nn.Linear(16, 4))
end

-- the output is a table of three tensors
local function tableoutnet()
  return nn.Sequential()
    :add(nn.Linear(10, 12)):add(nn.ReLU())
    :add(nn.ConcatTable()
      :add(nn.Linear(12, 4))
      :add(nn.Sequential():add(nn.Linear(12, 6)):add(nn.Tanh()))
      :add(nn.Identity()))
end

-- two branches sharing weight, bias, gradWeight and gradBias in a ParallelTable
local function siamesenet()
  local branch = nn.Sequential()
    :add(nn.SpatialConvolution(1, 4, 3, 3)):add(nn.ReLU())
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.View(4 * 5 * 5):setNumInputDims(3))
    :add(nn.Linear(4 * 5 * 5, 8)):add(nn.Tanh())
  local twin = branch:clone('weight', 'bias', 'gradWeight', 'gradBias')
  return nn.Sequential()
    :add(nn.ParallelTable():add(branch):add(twin))
    :add(nn.PairwiseDistance(2))
end

local function plain(shape)
  return function(batch) return torch.randn(batch, table.unpack(shape)) end
end
local function image(channels)
  return function(batch, side) return torch.randn(batch, channels, side, side) end
end

-- build() gives the net (double, but googlenet); input(batch, side) a double
-- input; batches: the traced one, then a larger (beyond the small traces of
-- optimizeMemory at 2 threads: 4, 5, 6) and a smaller one; sides: the traced
-- spatial size, then another one (conv nets: 12x12 and 13x13 both pool to
-- 5x5); twins(net): the two branches that share parameters
life.NETS = {
  mlp = {build = mlp, input = plain{10}, batches = {4, 7, 2}},
  conv = {build = convnet, input = image(3), batches = {4, 7, 2}, sides = {12, 13}},
  concat = {build = concatnet, input = plain{10}, batches = {4, 7, 2}},
  concattable = {build = concattablenet, input = plain{10}, batches = {4, 7, 2}},
  paralleltable = {build = paralleltablenet, batches = {4, 7, 2},
                   input = function(batch) return {torch.randn(batch, 10), torch.randn(batch, 6)} end},
  tableoutput = {build = tableoutnet, input = plain{10}, batches = {4, 7, 2}},
  siamese = {build = siamesenet, batches = {4, 7, 2}, sides = {12, 13},
             input = function(batch, side)
               return {torch.randn(batch, 1, side, side), torch.randn(batch, 1, side, side)}
             end,
             twins = function(net) return net:get(1):get(1), net:get(1):get(2) end},
  -- cifar resnet-20: 32x32, or 29..31 (the last stage is 8x8 either way)
  resnet = {build = function() return (models.build('resnet', {dataset = 'cifar10', depth = 20, type = 'double'})) end,
            input = image(3), batches = {4, 7, 2}, sides = {32, 30}},
  -- googlenet takes 224x224 only (its Views are fixed); aux classifiers:
  -- a table output; float, for time; quick: after removeOptimization it
  -- trains at the larger batch only (with one spatial size, that sizes every
  -- storage as the reference's sweep did)
  googlenet = {build = function() return (models.build('googlenet', {nClasses = 10})) end,
               input = image(3), batches = {2, 3, 1}, sides = {224}, quick = true},
}
for name, spec in pairs(life.NETS) do spec.name = name end

-- the sizes a life runs at: the traced one, a larger and a smaller batch,
-- then the other spatial size at the traced batch
function life.sizes(spec)
  local side = spec.sides and spec.sides[1]
  local list = {}
  for _, b in ipairs(spec.batches) do
    list[#list + 1] = {batch = b, side = side, label = 'batch ' .. b}
  end
  if spec.sides and spec.sides[2] then
    local s = spec.sides[2]
    list[#list + 1] = {batch = spec.batches[1], side = s,
                       label = string.format('batch %d, %dx%d', spec.batches[1], s, s)}
  end
  return list
end

local function totype(v, tname)
  if torch.isTensor(v) then return v:type(tname) end
  local r = {}
  for k, x in pairs(v) do r[k] = totype(x, tname) end
  return r
end

-- the same input for every net and process: seeded by its size
function life.input(spec, size, tname)
  torch.manualSeed(1000 + 31 * size.batch + (size.side or 0))
  return totype(spec.input(size.batch, size.side), tname)
end

function life.gradOutput(out, seed)
  seed = seed or 4242
  torch.manualSeed(seed)
  if torch.isTensor(out) then return out:clone():uniform(-1, 1) end
  local g = {}
  for k, v in pairs(out) do g[k] = life.gradOutput(v, seed + k) end
  return g
end

-- the net, built with a fixed seed, in the mode's state (evaluate for inference)
function life.build(spec, mode)
  torch.manualSeed(1)
  local net = spec.build()
  if mode == 'inference' then net:evaluate() else net:training() end
  return net
end

-- the net optimized for mode at the traced size, its reference (a clone
-- taken before optimizing) and the traced input
function life.prepare(spec, mode)
  local net = life.build(spec, mode)
  local ref = net:clone()
  local sizes = life.sizes(spec)
  local input = life.input(spec, sizes[1], net:type())
  optnet.optimizeMemory(net, input, {mode = mode})
  return net, ref, input
end

-- --- operations ---------------------------------------------------------------

-- runs f with io.stderr captured into the list warnings
function life.capture(warnings, f, ...)
  local stderr = io.stderr
  io.stderr = {write = function(self, ...)
    for _, s in ipairs{...} do warnings[#warnings + 1] = tostring(s) end
    return self
  end}
  local res = table.pack(pcall(f, ...))
  io.stderr = stderr
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

local function saveLoad(format)
  return function(net, env)
    local file = os.tmpname()
    local ok, loaded = pcall(function()
      life.capture(env.warnings, torch.save, file, net, format)
      return torch.load(file, format)
    end)
    os.remove(file)
    if not ok then error(loaded, 0) end
    return loaded
  end
end

local function serialize(format)
  return function(net, env)
    return torch.deserialize(life.capture(env.warnings, torch.serialize, net, format), format)
  end
end

-- each op(net, env) returns the derived net; env: role ('ref' or 'derived'),
-- mode, spec, warnings (what torch.save wrote to stderr)
life.OPS = {
  ['clone'] = function(net) return net:clone() end,
  [':float()'] = function(net) return net:float() end,
  [':double()'] = function(net) return net:double() end,
  [":type('torch.FloatTensor')"] = function(net) return net:type('torch.FloatTensor') end,
  [':clearState()'] = function(net) return net:clearState() end,
  ['save/load binary'] = saveLoad('binary'),
  ['save/load ascii'] = saveLoad('ascii'),
  ['serialize/deserialize'] = serialize('binary'),
  ['serialize/deserialize ascii'] = serialize('ascii'),
  -- the derived net is optimized again at the traced size; the reference stays plain
  ['optimizeMemory again'] = function(net, env)
    if env.role == 'derived' then
      local size = life.sizes(env.spec)[1]
      optnet.optimizeMemory(net, life.input(env.spec, size, net:type()), {mode = env.mode})
    end
    return net
  end,
}

function life.derive(net, ops, env)
  for _, name in ipairs(ops) do
    local op = assert(life.OPS[name], 'unknown operation ' .. name)
    net = op(net, env)
  end
  return net
end

-- --- steps ----------------------------------------------------------------------

-- Each step is run on the reference and on the derived net, one after the
-- other, and the values it returns (tables of tensors, numbers, booleans)
-- are compared: run(net) -> values. A step with check(net, role) instead is
-- a property of the derived net alone (or of both, with both = true): it
-- returns nil when it holds, else what is wrong.

local inputs = setmetatable({}, {__mode = 'k'})  -- net -> the input of its last forward

-- step names read "<phase>: forward at batch 7"
local function forward(phase, spec, size, suffix)
  return {name = string.format('%s: forward at %s%s', phase, size.label, suffix or ''), run = function(net)
    local x = life.input(spec, size, net:type())
    inputs[net] = x
    torch.manualSeed(77)  -- Dropout (googlenet) draws the same mask
    return {output = net:forward(x)}
  end}
end

-- gradParams after zeroGradParameters: this backward's gradients only
local function backward(phase, size)
  return {name = string.format('%s: backward at %s', phase, size.label), run = function(net)
    net:zeroGradParameters()
    local gradInput = net:backward(inputs[net], life.gradOutput(net.output))
    local _, gradParams = net:parameters()
    return {gradInput = gradInput, gradParams = gradParams}
  end}
end

local function update(phase, spec, size)
  return {name = string.format('%s: training step (forward, backward, updateParameters) at %s', phase, size.label),
          run = function(net)
    local x = life.input(spec, size, net:type())
    net:zeroGradParameters()
    torch.manualSeed(78)
    net:forward(x)
    net:backward(x, life.gradOutput(net.output, 4343))
    net:updateParameters(0.01)
    local params, gradParams = net:parameters()
    return {params = params, gradParams = gradParams}
  end}
end

-- forward (and in training backward) at each size; in training then a
-- training step at the traced size and a forward with the new parameters
local function sweep(steps, spec, mode, phase, sizes)
  for _, size in ipairs(sizes) do
    steps[#steps + 1] = forward(phase, spec, size)
    if mode == 'training' then steps[#steps + 1] = backward(phase, size) end
  end
  if mode == 'training' then
    local traced = life.sizes(spec)[1]
    steps[#steps + 1] = update(phase, spec, traced)
    steps[#steps + 1] = forward(phase, spec, traced, ' after the step')
  end
end

-- writes into each shared tensor of one branch and reads it in the other
local function twinsShare(spec, grads)
  local fields = grads and {'weight', 'bias', 'gradWeight', 'gradBias'} or {'weight', 'bias'}
  return function(net)
    local a, b = spec.twins(net)
    local ma, mb = a:listModules(), b:listModules()
    for i, m in ipairs(ma) do
      for _, f in ipairs(fields) do
        local ta, tb = rawget(m, f), rawget(mb[i], f)
        if torch.isTensor(ta) then
          if not torch.isTensor(tb) or ta:nElement() == 0 or ta:nElement() ~= tb:nElement() then
            return string.format('module %d (%s): %s is not shared (%s elements in one branch, %s in the other)',
              i, torch.type(m), f, ta:nElement(), torch.isTensor(tb) and tb:nElement() or 'none')
          end
          local saved = ta:clone()
          local seen = true
          for _, v in ipairs{0.5, -0.25} do
            ta:fill(v)
            seen = seen and (tb:double() - v):abs():max() == 0
          end
          ta:copy(saved)
          if not seen then
            return string.format('module %d (%s): %s is not shared: a write to one branch is not seen in the other',
              i, torch.type(m), f)
          end
        end
      end
    end
  end
end

-- The life of a derived net: while optimized (or, with opts.optimized =
-- false, while plain), a sweep over the sizes in its mode; it is still
-- optimized and, for inference, refuses backward; removeOptimization; then
-- it trains (forward, backward, a training step) at every size (spec.quick:
-- at the larger batch only) and holds as much memory as the reference: the
-- same storages, each grown to the most any size needed. The reference's
-- grew over both sweeps, the derived net's (new at removeOptimization) over
-- the second, so the second covers every size: resnet's convolution scratch
-- is largest at 30x30, not at 32x32. The twins' sharing is checked at the
-- start and at the end.
function life.steps(spec, mode, opts)
  local optimized = not (opts and opts.optimized == false)
  local sizes = life.sizes(spec)
  local phase = optimized and 'optimized for ' .. mode or 'plain, ' .. mode
  local steps = {}
  local function check(name, f, both) steps[#steps + 1] = {name = name, check = f, both = both} end
  if spec.twins then
    check(phase .. ': the twins share weight and bias' .. (mode == 'training' and ' and their gradients' or ''),
      twinsShare(spec, mode == 'training'), true)
  end
  sweep(steps, spec, mode, phase, sizes)
  check(phase .. ': optnet.isOptimized', function(net)
    if optnet.isOptimized(net) ~= optimized then return 'optnet.isOptimized(net) is ' .. tostring(not optimized) end
  end)
  if optimized and mode == 'inference' then
    check(phase .. ': backward is refused with an error naming optnet', function(net)
      local ok, err = pcall(net.backward, net, inputs[net], life.gradOutput(net.output))
      if ok then return 'backward ran' end
      if not tostring(err):find('optnet', 1, true) then return 'the error does not name optnet: ' .. tostring(err) end
    end)
  end
  if optimized then
    check('optnet.removeOptimization', function(net)
      local ok, err = pcall(optnet.removeOptimization, net)
      if not ok then return tostring(err) end
      if optnet.isOptimized(net) then return 'still optimized after removeOptimization' end
    end)
    phase = 'after removeOptimization'
  end
  if mode == 'inference' then steps[#steps + 1] = forward(phase .. ', inference', spec, sizes[1]) end
  life.trainingSteps(spec, phase, steps)
  return steps
end

-- the plain net's part of a life: net:training(), forward, backward and a
-- training step at the sizes, the twins' sharing, countUsedMemory; appended
-- to steps (or a new list), named after phase
function life.trainingSteps(spec, phase, steps)
  steps = steps or {}
  local sizes = life.sizes(spec)
  steps[#steps + 1] = {name = phase .. ': net:training()', run = function(net) net:training(); return {} end}
  sweep(steps, spec, 'training', phase .. ', training', spec.quick and {sizes[2]} or sizes)
  if spec.twins then
    steps[#steps + 1] = {name = phase .. ': the twins share weight, bias and their gradients',
                         check = twinsShare(spec, true), both = true}
  end
  steps[#steps + 1] = {name = phase .. ': countUsedMemory', run = function(net)
    return {total_size = optnet.countUsedMemory(net).total_size}
  end}
  return steps
end

-- --- comparing ----------------------------------------------------------------

-- float: a tight tolerance scaled by the values; double: exact
local function tolerance(want)
  if torch.type(want) == 'torch.FloatTensor' then return 1e-5 * (1 + want:clone():abs():max()) end
  return 0
end

function life.compare(want, got, where)
  if torch.isTensor(want) then
    if not torch.isTensor(got) then fail(string.format('%s: a %s, expected a tensor', where, type(got))) end
    if torch.type(want) ~= torch.type(got) then
      fail(string.format('%s: a %s, expected a %s', where, torch.type(got), torch.type(want)))
    end
    local ws, gs = want:size():totable(), got:size():totable()
    if table.concat(ws, 'x') ~= table.concat(gs, 'x') then
      fail(string.format('%s: size %s, expected %s', where, table.concat(gs, 'x'), table.concat(ws, 'x')))
    end
    if want:nElement() == 0 then return end
    local d = (want:double() - got:double()):abs():max()
    local tol = tolerance(want)
    if not (d <= tol) then
      fail(string.format('%s differs by %g from the reference (tolerance %g)', where, d, tol))
    end
  elseif type(want) == 'table' then
    if type(got) ~= 'table' then fail(string.format('%s: a %s, expected a table', where, type(got))) end
    for k, v in pairs(want) do life.compare(v, got[k], where .. '.' .. tostring(k)) end
    for k in pairs(got) do
      if want[k] == nil then fail(string.format('%s.%s: not in the reference', where, tostring(k))) end
    end
  elseif want ~= got then
    fail(string.format('%s is %s, the reference %s', where, tostring(got), tostring(want)))
  end
end

local function checkRef(step, ref, label)
  if step.both then
    local problem = step.check(ref, 'ref')
    if problem then fail(string.format('%s: the reference fails "%s": %s', label, step.name, problem)) end
  end
end

local function context(label, step)
  return function(err) return string.format('%s: %s: %s', label, step.name, tostring(err)) end
end

-- runs the steps on the reference and on the derived net, step by step
function life.lockstep(ref, net, steps, label)
  for _, step in ipairs(steps) do
    if step.check then
      checkRef(step, ref, label)
      local ok, problem = xpcall(step.check, context(label, step), net, 'derived')
      if not ok then error(problem, 0) end
      if problem then fail(string.format('%s: %s: %s', label, step.name, problem)) end
    else
      local want = step.run(ref)
      local ok, got = xpcall(step.run, context(label, step), net)
      if not ok then error(got, 0) end
      life.compare(want, got, label .. ': ' .. step.name)
    end
  end
end

local function deepClone(v)
  if torch.isTensor(v) then return v:clone() end
  if type(v) ~= 'table' then return v end
  local r = {}
  for k, x in pairs(v) do r[k] = deepClone(x) end
  return r
end

-- the derived half, in another process: one record per step, {values} or
-- {problem}; it stops at the first step that fails
function life.runSteps(net, steps)
  local records = {}
  for i, step in ipairs(steps) do
    local ok, res = pcall(step.check or step.run, net, 'derived')
    if not ok then records[i] = {problem = 'raised ' .. tostring(res)}; break end
    if step.check then
      records[i] = {problem = res}
      if res then break end
    else
      records[i] = {values = deepClone(res)}
    end
  end
  return records
end

-- the reference half, against the records of life.runSteps
function life.compareRecords(ref, steps, records, label)
  for i, step in ipairs(steps) do
    local rec = records[i]
    if not rec then fail(string.format('%s: %s: no result from the child process', label, step.name)) end
    if rec.problem then fail(string.format('%s: %s: %s', label, step.name, rec.problem)) end
    if step.check then
      checkRef(step, ref, label)
    else
      life.compare(step.run(ref), rec.values, string.format('%s: %s', label, step.name))
    end
  end
end

return life
