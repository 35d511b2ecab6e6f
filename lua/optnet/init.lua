-- optnet: trace-based memory optimizer for nn nets (OptNet's API, extended).
--   optnet.optimizeMemory(net, input, opts)   opts: inplace, mode, reuseBuffers,
--       removeGradParams, shareInput, reuse, planner, verbose
--   optnet.removeOptimization(net)
--   optnet.countUsedMemory(net[, input[, opts]])
-- How: optnet.trace runs one pass recording storage lifetimes, optnet.plan
-- asks the C planner for arena offsets, optnet.apply rebinds the tensors.
require 'torch'
require 'nn'
local walk = require 'optnet.walk'
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'
local apply = require 'optnet.apply'

local optnet = {}
local active = setmetatable({}, {__mode = 'k'})  -- net -> optimization state

local DEFAULTS = {inplace = true, mode = 'inference', reuseBuffers = true,
                  removeGradParams = true, shareInput = false, reuse = true,
                  planner = 'best', verbose = false, smallTrace = true}

local PLANNER_LIST = "'best', 'greedy_size', 'greedy_conflict', 'greedy_lifetime', 'peak' or 'sets'"
local PLANNERS = {}
for name in PLANNER_LIST:gmatch("'([%w_]+)'") do PLANNERS[name] = true end

local function fail(fname, fmt, ...)
  error(string.format('optnet.%s: ' .. fmt, fname, ...), 3)
end

local function checkNet(fname, net)
  if type(net) ~= 'table' or not torch.isTypeOf(net, 'nn.Module') then
    fail(fname, 'nn.Module expected as argument 1, got %s', torch.type(net))
  end
end

local function checkInput(fname, input)
  local ok = torch.isTensor(input)
  if not ok and type(input) == 'table' and not torch.typename(input) then
    ok = true
    walk.tensors(input, function() end)
  end
  if not ok then fail(fname, 'input (a tensor or a table of tensors) expected as argument 2, got %s', torch.type(input)) end
end

local function options(fname, opts)
  if opts ~= nil and type(opts) ~= 'table' then fail(fname, 'options table expected as argument 3, got %s', type(opts)) end
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  for k, v in pairs(opts or {}) do
    if DEFAULTS[k] == nil and k ~= 'budgetMs' then fail(fname, "unknown option '%s'", tostring(k)) end
    o[k] = v
  end
  if o.mode ~= 'inference' and o.mode ~= 'training' then
    fail(fname, "mode must be 'inference' or 'training', got %s", tostring(o.mode))
  end
  for k, v in pairs(DEFAULTS) do
    if type(v) == 'boolean' and type(o[k]) ~= 'boolean' then
      fail(fname, "option '%s' must be a boolean, got %s", k, torch.type(o[k]))
    end
  end
  if not PLANNERS[o.planner] then
    fail(fname, "option 'planner' must be one of %s, got %s", PLANNER_LIST, tostring(o.planner))
  end
  if o.budgetMs ~= nil and (type(o.budgetMs) ~= 'number' or not (o.budgetMs >= 0)) then
    fail(fname, "option 'budgetMs' must be a number >= 0, got %s", tostring(o.budgetMs))
  end
  return o
end

-- the sizes of every tensor of an input, as one string (re-planning key)
local function signature(input)
  local parts = {}
  walk.tensors(input, function(t)
    local s = {}
    for d = 1, t:dim() do s[d] = t:size(d) end
    parts[#parts + 1] = torch.typename(t) .. ':' .. table.concat(s, 'x')
  end)
  return table.concat(parts, ',')
end

-- tensors that a pass changes but that are not activations (batch norm's running
-- statistics): saved before the trace, restored after, so optimizing changes no number
local function snapshotState(modules)
  local saved = {}
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role)
      if role == 'state' and t:nElement() > 0 then saved[#saved + 1] = {t, t:clone()} end
    end)
  end
  local rng = torch.getRNGState and torch.getRNGState()
  return function()
    for _, s in ipairs(saved) do s[1]:copy(s[2]) end
    if rng then torch.setRNGState(rng) end
  end
end

local BLOCKED = {'updateGradInput', 'accGradParameters', 'backward', 'accUpdateGradParameters',
                 'getParameters', 'updateParameters'}

local function blockBackward(modules)
  local saved = {}
  for _, m in ipairs(modules) do
    local s = {}
    for _, k in ipairs(BLOCKED) do
      s[k] = rawget(m, k)
      m[k] = function()
        error(string.format('%s:%s: the net is optimized for inference by optnet (gradients removed); '
          .. 'call optnet.removeOptimization(net) first', torch.type(m), k), 2)
      end
    end
    saved[m] = s
  end
  return saved
end

local function unblock(saved)
  for m, s in pairs(saved) do
    for _, k in ipairs(BLOCKED) do rawset(m, k, s[k]) end
  end
end

-- a module that can run in place may, when each storage of its input has no
-- use after its forward step by anyone else (forward or backward)
local function chooseInplace(rec, p)
  local movable = {}
  for _, e in ipairs(p.entries) do movable[e.id] = true end
  local switched = {}
  for step = 1, rec.nForward do
    local st = rec.steps[step]
    local m = st.module
    local flag = rec.traits[m].inplace
    if st.kind == 'forward' and flag and m[flag] == false and next(st.inputIds) then
      local ok = true
      for id in pairs(st.inputIds) do
        if not movable[id] then ok = false break end
        for s2 = step + 1, rec.nSteps do
          if rec.steps[s2].module ~= m and rec.uses[s2] and rec.uses[s2][id] then ok = false break end
        end
        if not ok then break end
      end
      if ok then switched[#switched + 1] = {module = m, flag = flag} end
    end
  end
  return switched
end

-- the common batch size of a batched input (every tensor 2D or more, same
-- first size), or nil
local function batchOf(input)
  local B, ok = nil, true
  walk.tensors(input, function(t)
    if t:dim() < 2 then ok = false return end
    if B == nil then B = t:size(1) elseif B ~= t:size(1) then ok = false end
  end)
  return ok and B or nil
end

local function narrowInput(input, b)
  if torch.isTensor(input) then return input:narrow(1, 1, b) end
  local r = {}
  for k, v in pairs(input) do r[k] = narrowInput(v, b) end
  return r
end

local function sameOrder(r1, r2)
  if #r1.order ~= #r2.order or r1.nSteps ~= r2.nSteps then return false end
  for i, s in ipairs(r1.order) do
    if r2.order[i].id ~= s.id or r2.order[i].first ~= s.first or r2.order[i].last ~= s.last then return false end
  end
  return true
end

-- traces the pass. With a batched input of B > 3 samples the net runs at
-- batch 1, 2 and 3 only, and each storage's size at batch B is predicted
-- from them (sizes must be affine in the batch: checked on the third point;
-- batch norm statistics, constant, fit too). So optimizing never runs the
-- unoptimized net at full size, and the process peak stays at the
-- optimized footprint. Anything else traces at full size.
local function tracePass(net, modules, input, o, restoreState)
  local B = batchOf(input)
  if o.smallTrace ~= false and B and B > 3 then
    local ok, rec, needs = pcall(function()
      local recs, needs = {}, {}
      for b = 1, 3 do
        recs[b] = trace.run(net, narrowInput(input, b), o.mode)
        needs[b] = plan.needs(modules)
        restoreState()
      end
      if not (sameOrder(recs[1], recs[2]) and sameOrder(recs[2], recs[3])) then return nil end
      local predicted = {}
      for id, n3 in pairs(needs[3]) do
        local n1, n2 = needs[1][id], needs[2][id]
        if not n1 or not n2 or n3 - n2 ~= n2 - n1 or n2 < n1 then return nil end
        predicted[id] = n1 + (n2 - n1) * (B - 1)
      end
      return recs[3], predicted
    end)
    if ok and rec then return rec, needs, true end
    if o.verbose then
      io.stderr:write('optnet: sizes are not affine in the batch; tracing at full size\n')
    end
  end
  local rec = trace.run(net, input, o.mode)
  local needs = plan.needs(modules)
  restoreState()
  return rec, needs, false
end

local function optimize(net, input, o)
  local modules = walk.modules(net)
  local restoreState = snapshotState(modules)
  local rec, needs, scaled = tracePass(net, modules, input, o, restoreState)
  local p = plan.intervals(rec, net, input, o, needs)
  local inplaced = {}
  if o.inplace and o.reuse then
    inplaced = chooseInplace(rec, p)
    if #inplaced > 0 then
      for _, s in ipairs(inplaced) do
        s.module[s.flag] = true
        -- its own output storage is no longer needed
        s.module.output:set()
      end
      rec, needs, scaled = tracePass(net, modules, input, o, restoreState)
      p = plan.intervals(rec, net, input, o, needs)
    end
  end
  local result = plan.solve(p, o)
  result.scaled = scaled
  local arenas, bindings = apply.rebind(modules, p, result)
  local state = {opts = o, modules = modules, arenas = arenas, bindings = bindings, plan = p, inplaced = inplaced,
                 result = result, signature = signature(input), nSteps = rec.nSteps}
  if o.mode == 'inference' then
    if o.removeGradParams then state.gradParams = apply.dropGradParams(modules) end
    state.blocked = blockBackward(modules)
  end
  -- a new input shape re-plans before running (never wrong numbers)
  local rawUpdateOutput = rawget(net, 'updateOutput')
  state.rawUpdateOutput = rawUpdateOutput
  local classUpdateOutput = net.updateOutput
  net.updateOutput = function(self, x)
    local st = active[self]
    if st and signature(x) ~= st.signature then
      if st.opts.verbose then io.stderr:write('optnet: input shape changed, re-planning\n') end
      optnet.removeOptimization(self)
      optimize(self, x, st.opts)
      return self:updateOutput(x)
    end
    return classUpdateOutput(self, x)
  end
  active[net] = state
  collectgarbage()
  return state
end

function optnet.optimizeMemory(net, input, opts)
  checkNet('optimizeMemory', net)
  checkInput('optimizeMemory', input)
  local o = options('optimizeMemory', opts)
  if active[net] then optnet.removeOptimization(net) end
  local state = optimize(net, input, o)
  if o.verbose then
    local arena, lb = 0, 0
    for _, v in pairs(state.result.arena) do arena = arena + v end
    for _, v in pairs(state.result.lowerBound) do lb = lb + v end
    print(string.format('optnet: %d storages planned in %d steps: arena %.2f MiB, lower bound %.2f MiB',
      #state.plan.entries, state.nSteps, arena / 2^20, lb / 2^20))
  end
  return net
end

function optnet.removeOptimization(net)
  checkNet('removeOptimization', net)
  local state = active[net]
  if not state then
    error('optnet.removeOptimization: this net is not optimized (call optnet.optimizeMemory first)', 2)
  end
  active[net] = nil
  rawset(net, 'updateOutput', state.rawUpdateOutput)
  if state.blocked then unblock(state.blocked) end
  if state.gradParams then apply.restoreGradParams(state.gradParams) end
  apply.unbind(state.bindings)
  for _, s in ipairs(state.inplaced) do
    s.module[s.flag] = false
    -- it wrote into its input; give it a private output again
    s.module.output:set(s.module.output:clone())
  end
  state.arenas = nil
  collectgarbage()
  return net
end

function optnet.isOptimized(net) return active[net] ~= nil end

local count = require 'optnet.count'
function optnet.countUsedMemory(net, input, opts)
  checkNet('countUsedMemory', net)
  if input ~= nil then checkInput('countUsedMemory', input) end
  local o = options('countUsedMemory', opts)
  local r = count.used(walk.modules(net), active[net])
  if input ~= nil then
    -- the least the activations could need: the most bytes alive at one step
    local st = active[net]
    local lb
    if st and st.signature == signature(input) and st.opts.mode == o.mode then
      lb = 0
      for _, v in pairs(st.result.lowerBound) do lb = lb + v end
    else
      local modules = walk.modules(net)
      local restoreState = snapshotState(modules)
      local rec = trace.run(net, input, o.mode)
      restoreState()
      local p = plan.intervals(rec, net, input, o)
      lb = 0
      for _, v in pairs(plan.lowerBound(p.entries)) do lb = lb + v end
    end
    r.lower_bound_activations = lb
    r.lower_bound = lb + r.params + r.state
  end
  return r
end
function optnet._state(net) return active[net] end

return optnet
