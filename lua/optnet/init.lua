-- optnet: trace-based memory optimizer for nn nets (OptNet's API, extended).
--   optnet.optimizeMemory(net, input, opts)   opts: inplace, mode, reuseBuffers,
--       removeGradParams, shareInput, reuse, planner, budgetMs, verbose,
--       smallTrace, recompute, reorder, verify
--   optnet.removeOptimization(net)
--   optnet.countUsedMemory(net[, input[, opts]])
-- How: optnet.optimize plans (optnet.trace runs one pass recording storage
-- lifetimes, optnet.inplace picks in-place modules, optnet.plan asks the C
-- planner for arena offsets, optnet.apply rebinds the tensors); this file
-- checks the options and puts a plan in force (its hooks) or takes it off.
-- docs/dev/optnet-internals.md, "Where the code is", maps the files.
require 'torch'
require 'nn'
local walk = require 'optnet.walk'
local trace = require 'optnet.trace'
local apply = require 'optnet.apply'
local recompute = require 'optnet.recompute'
local record = require 'optnet.record'
local inplace = require 'optnet.inplace'
local optimization = require 'optnet.optimize'
local undo = require 'optnet.undo'
local view = require 'optnet.view'

local optnet = {}
-- nn hands optnet a module carrying its records when the module is loaded,
-- cloned or retyped (nn.utils.onDerived): the plan is put back in force
nn.utils.onDerived('optnet', {'_optnet', '_optnetSlots', '_optnetFold'},
                   function(m, how, deep) optnet._derived(m, how, deep) end)
-- net -> optimization state (what this process holds: the arenas, the
-- bindings, the hooks). What must survive the net's copies is on the
-- net itself as plain data (optnet.record).
local active = setmetatable({}, {__mode = 'k'})
-- module -> the optimized net it belongs to
local owner = setmetatable({}, {__mode = 'k'})

local DEFAULTS = {inplace = true, mode = 'inference', reuseBuffers = true,
                  removeGradParams = true, shareInput = false, reuse = true,
                  planner = 'best', verbose = false, smallTrace = true, recompute = 'none',
                  verify = false, reorder = false, planGrads = false, clipGrads = false,
                  foldBatchNorm = false}

local PLANNER_LIST = "'best', 'greedy_size', 'greedy_conflict', 'greedy_lifetime', 'peak' or 'sets'"
local PLANNERS = {}
for name in PLANNER_LIST:gmatch("'([%w_]+)'") do PLANNERS[name] = true end

local fail, checkNet = view.fail, view.checkNet

-- as view.checkInput, but an empty table passes (as it always has here)
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
  local rc = o.recompute
  if not (rc == 'none' or rc == 'cheap' or rc == 'sqrt' or (math.type(rc) == 'integer' and rc > 0)) then
    fail(fname, "recompute must be 'none', 'cheap', 'sqrt' or a byte budget (a positive integer), got %s",
      tostring(rc))
  end
  if o.planGrads and o.mode ~= 'training' then
    fail(fname, "planGrads needs mode = 'training', got mode = '%s'", o.mode)
  end
  if o.foldBatchNorm and o.mode ~= 'inference' then
    fail(fname, "foldBatchNorm needs mode = 'inference' (training updates the batch norm), got mode = '%s'", o.mode)
  end
  if rc ~= 'none' and o.mode ~= 'training' then
    fail(fname, "recompute needs mode = 'training' (inference keeps no activation for backward), got mode = '%s'",
      o.mode)
  end
  return o
end

local BLOCKED = {'updateGradInput', 'accGradParameters', 'backward', 'accUpdateGradParameters',
                 'getParameters', 'updateParameters'}

-- hooks (Module:hook) refusing every gradient method of the modules;
-- returns their handles (unhook)
local function blockBackward(modules)
  local handles = {}
  for _, m in ipairs(modules) do
    for _, k in ipairs(BLOCKED) do
      handles[#handles + 1] = m:hook(k, function()
        error(string.format('%s:%s: the net is optimized for inference by optnet (gradients removed); '
          .. 'call optnet.removeOptimization(net) first', torch.type(m), k), 2)
      end)
    end
  end
  return handles
end

local function unhook(handles)
  for i = #handles, 1, -1 do handles[i]:remove() end
end

-- In training mode the plan follows backward's order: each module's
-- gradient step comes with its derivative step. A whole-net updateGradInput
-- followed by accGradParameters would run every derivative step first, and
-- the gradInputs would overwrite activations the parameter gradients still
-- read. So on the optimized net itself these two are refused outside its own
-- backward (updateGradInput alone, for input gradients, is fine).
local GUARDED = {'accGradParameters', 'accUpdateGradParameters'}

local function guardTraining(net)
  local depth = 0
  local leave = setmetatable({}, {__close = function() depth = depth - 1 end})
  local handles = {net:hook('backward', function(nextf, self, ...)
    depth = depth + 1
    local _ <close> = leave
    return nextf(self, ...)
  end)}
  for _, k in ipairs(GUARDED) do
    handles[#handles + 1] = net:hook(k, function(nextf, self, ...)
      if depth == 0 then
        error(string.format('%s:%s: the net is optimized by optnet for training, where parameter gradients '
          .. 'must be taken in backward order; call net:backward(input, gradOutput) (or '
          .. 'optnet.removeOptimization(net) first)', torch.type(self), k), 2)
      end
      return nextf(self, ...)
    end)
  end
  return handles
end

local install, settle
-- set while a forward re-plans (removeOptimization then optimize): a
-- training step's object stays with its net
local replanning = false

-- plans the net (optnet.optimize) and puts the plan in force
local function optimize(net, input, o)
  local state, rec = optimization.run(net, input, o)
  -- a whole training step (optnet.trainStep): the updates as gradients
  -- complete. Its hooks go on first, under install's: a parameter's
  -- update belongs to its last gradient step, so verify's hook must see
  -- it inside that step (it fills the gradient's dead slot with NaN once
  -- the step returns)
  if o.planGrads then require('optnet.step').attach(net, state, rec) end
  install(net, state)
  -- the traces' tensors are garbage now: collect them and hand the heap
  -- pages they held back to the system, so the arenas are not stacked on
  -- top of memory the process no longer uses
  collectgarbage()
  if torch._C.mallocTrim then torch._C.mallocTrim() end
  return state
end

-- the hooks that make a state the net's: inference blocks backward,
-- training guards the order of parameter gradients, forward re-plans for
-- a new input shape (or, pending, plans for the first time) and gives the
-- slots back after clearState; clearState lets the arenas go
install = function(net, state)
  local o = state.opts
  local pending = state.pending
  if o.mode == 'inference' and not pending then state.blocked = blockBackward(state.modules) end
  if o.verify and not pending then
    state.verify = apply.verifier(state.traced or state.modules, state.plan, state.arenas, state.nSteps)
  end
  if o.mode == 'training' and not pending then state.guarded = guardTraining(net) end
  state.hooks = {}
  state.hooks[1] = net:hook('updateOutput', function(nextf, self, x)
    local st = active[self]
    if st and (st.pending or optimization.signature(x) ~= st.signature) then
      -- a folded net in training mode refuses, as at its planned input;
      -- folded again after the re-plan's undo (optnet.fold)
      require('optnet.fold').check(walk.modules(self))
      if st.opts.verbose then
        io.stderr:write(st.pending and 'optnet: planning the derived net for its first input\n'
          or 'optnet: input shape changed, re-planning\n')
      end
      local opts = st.opts
      replanning = true
      local ok, err = pcall(optnet.removeOptimization, self)
      replanning = false
      if not ok then error(err, 0) end
      if opts.foldBatchNorm then require('optnet.fold').apply(self) end
      optimize(self, x, opts)
      return self:updateOutput(x)
    end
    if st and st.cleared then settle(st, true) end
    if st and st.verify then st.verify.step = 0 end
    return nextf(self, x)
  end)
  state.hooks[2] = net:hook('clearState', function(nextf, self, ...)
    local r = nextf(self, ...)
    local st = active[self]
    if st and not st.pending then
      -- what clearState emptied lets go of its slot; the arenas go when
      -- nothing views them, and come back at the next forward
      settle(st, false)
      st.cleared = true
    end
    return r
  end)
  state.net = net
  active[net] = state
  for _, m in ipairs(state.modules) do owner[m] = net end
end

-- the state's arenas and bindings found again from the records (after
-- type or clearState); allocate: give emptied tensors their slots again
settle = function(st, allocate)
  local r = rawget(st.net, '_optnet')
  local arenas, placed = record.settle(record.bindings(st.modules), allocate and r.arena or nil, allocate)
  record.isolate(st.modules, arenas, placed)
  local p, result = record.plan(r, arenas)
  if allocate or next(arenas) then
    st.plan.entries, st.plan.pools = p.entries, p.pools
    st.result.arena, st.result.lowerBound = result.arena, result.lowerBound
  end
  st.arenas = arenas
  st.bindings = record.stateBindings(placed, st.plan)
  if allocate then st.cleared = false end
end

-- the branch orders optnet.reorder chose ('_branchOrder', a field only
-- optnet sets), when the root record r says it chose any
local function clearBranchOrders(modules, r)
  if type(r) == 'table' and r.reorder then
    for _, m in ipairs(modules) do rawset(m, '_branchOrder', nil) end
  end
end

-- a derived net or piece back to its unoptimized form from its records
-- alone (no state: a clone of a part, a net whose records cannot be put
-- back in force). keep: give the arena tensors private copies (contents
-- kept); otherwise they are emptied (the next forward fills them)
local function strip(net, modules, keep)
  local r = rawget(net, '_optnet')
  local bindings = record.bindings(modules)
  local _, placed = record.settle(bindings, nil, false)
  if keep then
    local fake = {}
    for i, b in ipairs(placed) do
      -- one private storage per planned storage (the slot's entry), not per
      -- offset: storages the plan put at one offset at different times (a
      -- convolution's finput, a later gradInput) are two in a plain net
      local e = math.type(b.slot.e) == 'integer' and 'e' .. b.slot.e or 'at' .. b.slot.at
      fake[i] = {t = b.t, rel = b.slot.rel, entry = {id = b.slot.pool .. ':' .. e, pool = b.slot.pool,
        bytes = b.slot.n * record.ESIZE[torch.typename(b.t)], dtype = torch.typename(b.t)}}
    end
    apply.unbind(fake, nil)
  else
    for _, b in ipairs(placed) do b.t:set() end
  end
  for _, b in ipairs(bindings) do b.t:_setLimit(0) end
  apply.restoreGradParams(modules)
  -- a Linear a training step made in row blocks (optnet.step) holds one block
  require('optnet.step').wholeGrads(modules)
  inplace.undoRecords(modules)
  for _, m in ipairs(modules) do rawset(m, '_optnetShadow', nil) end
  clearBranchOrders(modules, r)
  record.clear(modules, net)
end

local function copyOpts(o)
  local c = {}
  for k, v in pairs(o) do if DEFAULTS[k] ~= nil or k == 'budgetMs' then c[k] = v end end
  return c
end

-- puts a root record back in force on a net that has no state (a clone, a
-- loaded net): finds the arenas, sets the slots' limits, installs the
-- hooks. Recompute's hooks hold its segments, which are not data: a
-- net optimized with recompute is stripped and planned again at its first
-- forward (pending), as is one whose record was written pending.
local function attach(net)
  local r = record.check(rawget(net, '_optnet'))
  local modules = walk.modules(net)
  local opts = copyOpts(r.opts)
  if opts.planGrads then
    -- a training step's gradients are planned for its optimizer, which is
    -- no data: the derived net is an optimized training net, planned at
    -- its first forward, its gradients private and zero again
    strip(net, modules, true)
    for _, m in ipairs(modules) do
      for _, f in ipairs{'gradWeight', 'gradBias'} do
        local g = rawget(m, f)
        if torch.isTensor(g) and g:nElement() > 0 then g:zero() end
      end
    end
    opts.planGrads, opts.clipGrads = false, false
    rawset(net, '_optnet', {version = 1, pending = true, opts = opts, signature = r.signature,
                            entries = {}, arena = {}, recompute = 'none'})
    install(net, {pending = true, opts = opts, modules = modules, signature = r.signature})
    return active[net]
  end
  if r.pending or r.recompute ~= 'none' then
    strip(net, modules, false)
    rawset(net, '_optnet', {version = 1, pending = true, opts = opts, signature = r.signature,
                            entries = {}, arena = {}, recompute = 'none'})
    install(net, {pending = true, opts = opts, modules = modules, signature = r.signature})
    return active[net]
  end
  local arenas, placed = record.settle(record.bindings(modules), r.arena, true)
  record.isolate(modules, arenas, placed)
  local p, result = record.plan(r, arenas)
  local st = {opts = opts, modules = modules, arenas = arenas, bindings = record.stateBindings(placed, p),
              plan = p, result = result, signature = r.signature, nSteps = r.nSteps, nForward = r.nForward,
              net = net}
  install(net, st)
  return st
end

-- nn tells optnet when a module carrying records was loaded, cloned or
-- retyped (nn.utils.derived): the plan is put back in force
function optnet._derived(m, how, deep)
  local mods = deep and walk.modules(m) or {m}
  -- folded batch norms refuse training (optnet.fold); before attach, whose hooks go on top
  require('optnet.fold').guardAll(mods)
  local roots, covered = {}, {}
  for _, x in ipairs(mods) do
    if rawget(x, '_optnet') ~= nil and not covered[x] then
      roots[#roots + 1] = x
      for _, y in ipairs(walk.modules(x)) do covered[y] = true end
    end
  end
  for _, root in ipairs(roots) do
    local st = active[root]
    if st then
      if not st.pending then settle(st, true) end
    else
      attach(root)
    end
  end
  local rest = {}
  for _, x in ipairs(mods) do if not covered[x] then rest[#rest + 1] = x end end
  if #rest > 0 then
    -- a part has no training step: a Linear it made in row blocks is whole again
    require('optnet.step').wholeGrads(rest)
    record.limit(rest)
  end
end

local function remove(net, state)
  active[net] = nil
  for _, m in ipairs(state.modules) do if owner[m] == net then owner[m] = nil end end
  -- undone in the reverse order of install's hooks
  if state.guarded then unhook(state.guarded) end
  if state.verify then trace.unwrap(state.verify.saved) end
  unhook(state.hooks)
  if state.blocked then unhook(state.blocked) end
  -- the training step's hooks went on first, under install's: off last
  if state.step then require('optnet.step').detach(net, state) end
  local modules = walk.modules(net)
  if not state.pending then
    apply.restoreGradParams(modules)
    apply.unbind(state.bindings, state.arenas, modules)
    for _, b in ipairs(record.bindings(modules)) do b.t:_setLimit(0) end
    inplace.undoRecords(modules)
    if state.recompute then recompute.uninstall(state.recompute) end
    clearBranchOrders(modules, rawget(net, '_optnet'))
    -- planned gradients held other tensors' data: zero, as a fresh net's
    if state.opts.planGrads then require('optnet.step').zeroGrads(net) end
  end
  record.clear(modules, net)
  state.arenas = nil
  collectgarbage()
end

function optnet.optimizeMemory(net, input, opts)
  checkNet('optimizeMemory', net)
  checkInput('optimizeMemory', input)
  local o = options('optimizeMemory', opts)
  -- planned gradients belong to a training step's optimizer: refused
  -- before anything of the net changes
  if o.planGrads and not require('optnet.step').has(net) then
    fail('optimizeMemory', 'planGrads plans the gradients of optnet.trainStep: make one with '
      .. 'optnet.trainStep(net, input, optimizer, config), which plans them itself')
  end
  if owner[net] and owner[net] ~= net then
    fail('optimizeMemory', 'this module is part of a net optimized by optnet; '
      .. 'call optnet.removeOptimization on that net first')
  end
  local modules = walk.modules(net)
  local restore = undo.snapshot(net, optimization.snapshotState)
  local ok, err = pcall(function()
    if active[net] then
      remove(net, active[net])
      require('optnet.fold').undo(net)
    end
    -- a net optimized on its own inside this one (or a part of one) gives
    -- its optimization up first: one plan per net
    for _, m in ipairs(modules) do
      if m ~= net and active[m] then remove(m, active[m]) end
    end
    if record.carries(walk.modules(net)) then strip(net, walk.modules(net), true) end
    -- batch norm folded into convolutions first (optnet/fold.lua), so
    -- that the plan sees the net that runs
    if o.foldBatchNorm then require('optnet.fold').apply(net) end
    local state = optimize(net, input, o)
    if o.verbose then
      local arena, lb = 0, 0
      for _, v in pairs(state.result.arena) do arena = arena + v end
      for _, v in pairs(state.result.lowerBound) do lb = lb + v end
      print(string.format('optnet: %d storages planned in %d steps: arena %.2f MiB, lower bound %.2f MiB',
        #state.plan.entries, state.nSteps, arena / 2^20, lb / 2^20))
    end
  end)
  if not ok then
    -- the net as it was: what the attempt registered goes, the fields and
    -- tensors come back, and an optimization it had is in force again
    for _, m in ipairs(modules) do
      active[m] = nil
      owner[m] = nil
    end
    if o.foldBatchNorm then require('optnet.fold').undo(net) end
    restore()
    if record.carries(modules) then optnet._derived(net, 'clone', true) end
    error(err, 0)
  end
  return net
end

-- the state of a net optimized here or derived from one (attached on the
-- way if its records were not put in force yet: a plain deep copy)
local function stateOf(net)
  local st = active[net]
  if not st and rawget(net, '_optnet') ~= nil and not owner[net] then st = attach(net) end
  return st
end

function optnet.removeOptimization(net)
  checkNet('removeOptimization', net)
  if owner[net] and owner[net] ~= net then
    fail('removeOptimization', 'this module is part of a net optimized by optnet; '
      .. 'call optnet.removeOptimization on that net')
  end
  local state = stateOf(net)
  if state then
    remove(net, state)
    if not replanning then require('optnet.step').forget(net) end
    require('optnet.fold').undo(net)
  elseif record.carries(walk.modules(net)) then
    -- a part of an optimized net, cloned or loaded on its own
    strip(net, walk.modules(net), true)
    require('optnet.fold').undo(net)
  else
    error('optnet.removeOptimization: this net is not optimized (call optnet.optimizeMemory first)', 2)
  end
  return net
end

-- true for a net optimized here, a clone or loaded copy of one, and a part
-- of one cloned or loaded on its own (its memory is still planned); false
-- for a module inside a net optimized as a whole
function optnet.isOptimized(net)
  if type(net) ~= 'table' or not torch.isTypeOf(net, 'nn.Module') then return false end
  if stateOf(net) then return true end
  if owner[net] then return false end
  return record.carries(walk.modules(net))
end


local count = require 'optnet.count'
function optnet.countUsedMemory(net, input, opts)
  checkNet('countUsedMemory', net)
  if input ~= nil then checkInput('countUsedMemory', input) end
  local o = options('countUsedMemory', opts)
  local st = stateOf(net)
  if st and st.pending then st = nil end
  return count.usedMemory(net, input, o, st)
end
function optnet._state(net) return stateOf(net) end

-- seeing memory (docs/optnet.md): graphgen.lua, timeline.lua and report.lua
optnet._snapshotState = optimization.snapshotState
optnet._signature = optimization.signature
function optnet._isOption(k) return DEFAULTS[k] ~= nil or k == 'budgetMs' end
function optnet.graphgen(...) return require('optnet.graphgen')(...) end
function optnet.dot(...) return require('optnet.graphgen').dot(...) end
function optnet.timeline(...) return require('optnet.timeline')(...) end
function optnet.report(...) return require('optnet.report')(...) end
-- OptNet's suite over its own test nets (optnet.models); OptNet's tests.lua may replace it
function optnet.test(tests, opts) return require('optnet.tests')(tests, opts) end
-- runs f with a training step's object kept by its net across
-- removeOptimization and optimizeMemory (optnet.timeline re-plans it)
function optnet._keepStep(f)
  local prev = replanning
  replanning = true
  local ok, r = pcall(f)
  replanning = prev
  if not ok then error(r, 0) end
  return r
end
-- the whole training step planned (docs/optnet.md, "Planning the training step")
function optnet.trainStep(net, criterion, input, opts)
  return require('optnet.step').new(optnet, net, criterion, input, opts)
end

return optnet
