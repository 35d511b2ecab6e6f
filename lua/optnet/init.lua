-- optnet: trace-based memory optimizer for nn nets (OptNet's API, extended).
--   optnet.optimizeMemory(net, input, opts)   opts: inplace, mode, reuseBuffers,
--       removeGradParams, shareInput, reuse, planner, budgetMs, verbose,
--       smallTrace, recompute, reorder, verify
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
local recompute = require 'optnet.recompute'
local reorder = require 'optnet.reorder'
local record = require 'optnet.record'
local undo = require 'optnet.undo'
local view = require 'optnet.view'

local optnet = {}
-- net -> optimization state (what this process holds: the arenas, the
-- bindings, the wrappers). What must survive the net's copies is on the
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

local function fail(fname, fmt, ...)
  error(string.format('optnet.%s: ' .. fmt, fname, ...), view.callerLevel())
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
  -- a field holding another module's activation is no state (walk.holdings)
  local acts = walk.activationIds(modules)
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role)
      if role == 'state' and t:nElement() > 0 and not acts[t:_storageId()] then saved[#saved + 1] = {t, t:clone()} end
    end)
  end
  local rng = torch.getRNGState and torch.getRNGState()
  return function()
    for _, s in ipairs(saved) do
      -- an undeclared scratch the pass resized (a custom module's own)
      if not s[1]:isSameSizeAs(s[2]) then s[1]:resizeAs(s[2]) end
      s[1]:copy(s[2])
    end
    if rng then torch.setRNGState(rng) end
  end
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

-- a module that can run in place may, when it says so and nothing else can
-- see what it overwrites. The module decides whether it can: its
-- memoryTraits().inplace names the flag and its inplaceAllowed() answers
-- from its own invariants (Threshold(0, 1e-6) says no: value above
-- threshold); this only decides where it is safe. In place it writes twice:
-- forward its output over its input, and backward (training) its gradInput
-- over its gradOutput, unless its traits say writesGradOutput = false (it
-- only hands the gradOutput storage itself on as gradInput, so that what is
-- upstream in backward writes there: AddConstant, CAddTable).
-- Each switch makes two storages one (input and output; gradOutput and
-- gradInput), and a chain of in-place modules shares one storage, which
-- each of them overwrites in turn. So per candidate, in forward order, the
-- storage it would merge into is checked as a whole: for every in-place
-- module writing it (the ones chosen before, the user's own, and this one),
-- after its write no other module may use a storage of the class that is not
-- downstream of that write (its output or gradInput, and what in-place
-- modules after it turned that into). Its own backward reading its
-- overwritten input is fine, until a later in-place module overwrites that
-- again (Threshold(1, 0.9) then Dropout: 0.9 scaled to 1.8 would pass).
-- This is what breaks when two branches get one gradOutput (ConcatTable +
-- CAddTable in place) and the first one to run backward writes it. And every
-- storage of the class must be movable: not the user's input, nor the user's
-- gradOutput, which the net without optnet leaves intact.
-- Uses are per storage, so two disjoint views of one storage (Concat's
-- gradOutput slices) count as one: careful, never wrong. A module whose
-- input (training: gradOutput too) has elements that alias one another
-- (walk.nonOverlapping: nn.Replicate's stride-0 output) stays out of place.
-- Returns the list of {module, flag} to switch; with verbose, says on
-- stderr why each candidate was or was not switched.
local function chooseInplace(rec, p, verbose)
  local movable = {}
  for _, e in ipairs(p.entries) do movable[e.id] = true end
  local paths = verbose and walk.paths(rec.modules[1])
  local function who(m)
    local path = paths[m] or '?'
    return (path == '' and '' or path .. ' ') .. torch.type(m)
  end

  local function push(t, k, v)
    local l = t[k]
    if not l then l = {}; t[k] = l end
    l[#l + 1] = v
  end
  local function both(a, b)
    local u = {}
    for id in pairs(a) do u[id] = true end
    for id in pairs(b) do u[id] = true end
    return u
  end
  local function intersects(ids, set)
    for id in pairs(ids) do if set[id] then return true end end
    return false
  end

  -- per module, its forward steps (of the forward pass) and derivative steps
  local fwdSteps, derSteps = {}, {}
  for s = 1, rec.nSteps do
    local st = rec.steps[s]
    if st.kind == 'forward' and s <= rec.nForward then push(fwdSteps, st.module, s)
    elseif st.kind == 'derivative' then push(derSteps, st.module, s) end
  end
  -- per storage, the steps using it: any use counts for activations (as
  -- ever), only reads for gradients
  local users, readers = {}, {}
  for s = 1, rec.nSteps do
    local u = rec.uses[s]
    if u then
      local st = rec.steps[s]
      local m = st.module
      local read = u
      -- a container's own backward step: what it reads, its traits say
      -- (nn's containers read no number of their gradOutput there: the
      -- children got it; ConcatTable and Concat read the children's
      -- gradInputs, routers nothing)
      if st.kind == 'backward' and not rec.traits[m].readsGradOutput then
        read = {}
        if rec.traits[m].childGradInputs then
          for _, c in ipairs(m.modules) do walk.storageIds(c.gradInput, read) end
        end
      end
      for id in pairs(u) do
        push(users, id, s)
        if read[id] then push(readers, id, s) end
      end
    end
  end

  -- storages made one by in-place modules (union-find with member lists)
  local parent, members = {}, {}
  local function find(id)
    while parent[id] do id = parent[id] end
    return id
  end
  local function classOf(ids)
    local set = {}
    for id in pairs(ids) do
      local r = find(id)
      for _, x in ipairs(members[r] or {r}) do set[x] = true end
    end
    return set
  end
  local function union(ids)
    local root
    for id in pairs(ids) do
      local r = find(id)
      if not root then
        root = r
        members[root] = members[root] or {root}
      elseif r ~= root then
        parent[r] = root
        for _, x in ipairs(members[r] or {r}) do table.insert(members[root], x) end
        members[r] = nil
      end
    end
  end

  -- the writes of in-place modules: {module, step, inIds, outIds, uses}, the
  -- forward ones (input -> output, checked against users) and the backward
  -- ones (gradOutput -> gradInput, checked against readers)
  local forwardOf = function(m)
    local f = fwdSteps[m]
    if not f or #f ~= 1 then return nil end
    local inIds, outIds = rec.steps[f[1]].inputIds, walk.storageIds(m.output)
    -- in place already, the input storage written is the output's (CAddTable
    -- writes only its first input); otherwise any input may be
    local written = {}
    for id in pairs(inIds) do if outIds[id] then written[id] = true end end
    if not next(written) then written = inIds end
    return {module = m, step = f[1], inIds = written, outIds = outIds, uses = users}
  end
  -- the forward steps that re-run m (optnet.recompute) write in place too,
  -- over the re-run's own storages (the shadows): each is one more write
  local rerunsOf = function(m)
    local list = {}
    for s = rec.nForward + 1, rec.nSteps do
      local st = rec.steps[s]
      if st.module == m and st.kind == 'forward' then
        local written = {}
        for id in pairs(st.inputIds) do if st.outputIds[id] then written[id] = true end end
        if not next(written) then written = st.inputIds end
        list[#list + 1] = {module = m, step = s, inIds = written, outIds = st.outputIds, uses = users}
      end
    end
    return list
  end
  local backwardOf = function(m)
    local d = derSteps[m]
    if not d or #d ~= 1 then return nil end
    local st = rec.steps[d[1]]
    return {module = m, step = d[1], inIds = st.gradOutputIds, outIds = st.gradInputIds, uses = readers,
            aliasOnly = not rec.traits[m].writesGradOutput}
  end
  -- whether m in place writes its input back in backward (AddConstant and
  -- MulConstant undo their forward write there): a module that reads its
  -- input in backward only when in place reads what it wrote over, and is
  -- taken to write it too (careful: never wrong)
  local function restoresInput(m, flag)
    local was = m[flag]
    m[flag] = true
    local on = walk.traits(m).needsInput
    m[flag] = false
    local off = walk.traits(m).needsInput
    m[flag] = was
    return on and not off
  end
  -- the user's own in-place modules (their input and output, gradOutput and
  -- gradInput, are one storage in the trace already)
  local writers = {}
  for _, m in ipairs(rec.modules) do
    local flag = rec.traits[m].inplace
    if flag and m[flag] == true then
      local fw, bw = forwardOf(m), backwardOf(m)
      if fw and bw and restoresInput(m, flag) then fw.restoreStep = bw.step end
      writers[#writers + 1] = fw
      writers[#writers + 1] = bw
    end
  end

  -- whether, after w's write, only w itself and what is downstream of the
  -- write (through the in-place modules ws after it) use the class cls;
  -- if not, false and the step that uses it
  local function writeSafe(w, ws, cls)
    if w.aliasOnly then return true end
    local down = {}
    for id in pairs(w.outIds) do down[id] = true end
    local grown = true
    while grown do
      grown = false
      for _, v in ipairs(ws) do
        if v.step > w.step and v.uses == w.uses and intersects(v.inIds, down) then
          for id in pairs(v.outIds) do
            if not down[id] then down[id] = true; grown = true end
          end
        end
      end
    end
    for id in pairs(cls) do
      if not down[id] then
        for _, s in ipairs(w.uses[id] or {}) do
          local st = rec.steps[s]
          -- a forward step after the forward pass re-computes (optnet.recompute)
          -- from this very input, even when it is this module's own
          if s > w.step and (st.module ~= w.module or (s > rec.nForward and st.kind == 'forward')) then
            return false, s
          end
        end
      end
    end
    return true
  end
  -- whether the class that w's write merges is movable and written safely
  -- by every in-place module in it; if not, false and why
  local function safe(w)
    local pass = w.uses == users and 'forward' or 'backward'
    if not next(w.inIds) then return false, pass .. ': nothing to write over' end
    local cls = classOf(both(w.inIds, w.outIds))
    for id in pairs(cls) do
      if not movable[id] then
        return false, pass .. ": it would overwrite a storage the plan does not own (the user's input or gradOutput)"
      end
    end
    local ws = {w}
    for _, v in ipairs(writers) do
      if v.uses == w.uses and intersects(v.inIds, cls) then ws[#ws + 1] = v end
    end
    for _, v in ipairs(ws) do
      local ok, s = writeSafe(v, ws, cls)
      if not ok then
        return false, verbose and string.format('%s: %s still uses the storage %s overwrites (%s step %d)', pass,
          who(rec.steps[s].module), v.module == w.module and 'it' or who(v.module), rec.steps[s].kind, s)
      end
    end
    -- a module that writes its input back in backward (restoreStep) turns
    -- the class into its input again: nothing else may read the class
    -- after that. Its input's readers may not anyway (writeSafe), and its
    -- output's read before in a Sequential, but not in a gModule, whose
    -- gradient steps all come after every derivative step (a Linear after
    -- an AddConstant would take its gradWeight from the restored input)
    if pass == 'forward' then
      for _, v in ipairs(ws) do
        local r = v.restoreStep
        if r then
          for id in pairs(cls) do
            for _, s in ipairs(users[id] or {}) do
              if s > r and rec.steps[s].module ~= v.module then
                return false, verbose and string.format('forward: %s uses the storage after %s writes its input '
                  .. 'back in backward (%s step %d)', who(rec.steps[s].module),
                  v.module == w.module and 'it' or who(v.module), rec.steps[s].kind, s)
              end
            end
          end
        end
      end
    end
    return true
  end

  -- verbose on a big net: xlua's bar (when loaded, and only on a terminal)
  -- shows the walk, and the notes wait until it is drawn to the end
  local xlua = package.loaded.xlua
  local bar = verbose and rec.nForward >= 200 and type(xlua) == 'table' and xlua.progress
  local notes = {}
  local function tell(m, fmt, ...)
    if not verbose then return end
    local line = string.format('optnet: %s ' .. fmt .. '\n', who(m), ...)
    if bar then notes[#notes + 1] = line else io.stderr:write(line) end
  end
  local switched = {}
  for step = 1, rec.nForward do
    if bar then bar(step, rec.nForward) end
    local m = rec.steps[step].module
    local flag = rec.traits[m].inplace
    local allowed, reason = false, nil
    if flag and m[flag] == false then
      if m.inplaceAllowed then allowed, reason = m:inplaceAllowed() else reason = 'no inplaceAllowed' end
      if not allowed then tell(m, 'stays out of place (it says: %s)', tostring(reason)) end
    end
    if allowed then
      -- a module run twice in one pass is left alone
      local fw = forwardOf(m)
      local bw = fw and derSteps[m] and backwardOf(m)
      -- in place, some modules' backward also reads (and restores) the input,
      -- which the trace (not in place) did not record
      local extra = {}
      local needsInput, restores = false, false
      if bw then
        m[flag] = true
        needsInput = walk.traits(m).needsInput
        m[flag] = false
        if needsInput then
          for id in pairs(fw.inIds) do
            push(users, id, bw.step)
            extra[#extra + 1] = users[id]
          end
        end
        -- read in place only: to put it back (AddConstant, MulConstant)
        restores = restoresInput(m, flag)
        if restores then fw.restoreStep = bw.step end
      end
      local ok, why = fw ~= nil, 'it runs more than once in a pass'
      -- in place it writes each element once: over a view whose elements
      -- alias one another (a stride-0 expansion: nn.Replicate) it would
      -- write one location once per alias
      if ok and rec.steps[fw.step].inputOverlaps then
        ok, why = false, 'forward: its input is a view whose elements overlap (a stride-0 expansion or overlapping strides)'
      end
      if ok and bw and rec.steps[bw.step].gradOutputOverlaps then
        ok, why = false, 'backward: its gradOutput is a view whose elements overlap (a stride-0 expansion or overlapping strides)'
      end
      -- in place its gradInput is its gradOutput, of the gradOutput's size
      if ok and bw and rec.steps[bw.step].gradOutputMisshaped then
        ok, why = false, "backward: its gradOutput's size is not its input's (in place the gradInput would take it)"
      end
      if ok then ok, why = safe(fw) end
      local reruns = fw and rerunsOf(m) or {}
      for _, r in ipairs(reruns) do
        if ok then ok, why = safe(r) end
        if not ok then break end
      end
      -- such a backward puts the input back (safe() checks the class of
      -- its forward write against that, restoreStep); a module re-run by
      -- optnet.recompute puts back the re-run's copy, whose class is
      -- checked here
      if ok and restores then
        for _, w in ipairs({fw, table.unpack(reruns)}) do
          for id in pairs(classOf(both(w.inIds, w.outIds))) do
            for _, s in ipairs(users[id] or {}) do
              if ok and s > bw.step and rec.steps[s].module ~= m then
                ok, why = false, verbose and string.format('backward: %s uses the storage after it puts its input back (%s step %d)',
                  who(rec.steps[s].module), rec.steps[s].kind, s)
              end
            end
          end
        end
      end
      if ok and derSteps[m] then
        if bw then ok, why = safe(bw) else ok, why = false, 'its backward runs more than once in a pass' end
      end
      if ok then
        tell(m, 'runs in place')
        switched[#switched + 1] = {module = m, flag = flag}
        union(both(fw.inIds, fw.outIds))
        writers[#writers + 1] = fw
        for _, r in ipairs(reruns) do
          union(both(r.inIds, r.outIds))
          writers[#writers + 1] = r
        end
        if bw then
          union(both(bw.inIds, bw.outIds))
          writers[#writers + 1] = bw
        end
      else
        tell(m, 'stays out of place (%s)', why)
        for _, l in ipairs(extra) do l[#l] = nil end
      end
    end
  end
  if #notes > 0 then io.stderr:write(table.concat(notes)) end
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

-- bytes each storage needs: the furthest a module tensor reaches into it
-- now, or reached during the trace (a buffer's memory is released after
-- its last step: trace.lua)
local function traceNeeds(rec, modules)
  local needs = plan.needs(modules)
  for id, b in pairs(rec.extents) do
    if b > (needs[id] or 0) then needs[id] = b end
  end
  return needs
end

-- whether two traces ran the same steps and the planned storages (those a
-- module still holds: keys of needs) in the same order with the same
-- lifetimes; temporaries (a fresh storage at each pass) are not compared,
-- nor is the trace's own gradOutput, which scaledTrace leaves out of needs
local function sameOrder(r1, r2, needs1, needs2)
  if r1.nSteps ~= r2.nSteps then return false end
  local function planned(r, needs)
    local l = {}
    for _, s in ipairs(r.order) do if needs[s.id] then l[#l + 1] = s end end
    return l
  end
  local o1, o2 = planned(r1, needs1), planned(r2, needs2)
  if #o1 ~= #o2 then return false end
  for i, s in ipairs(o1) do
    if o2[i].id ~= s.id or o2[i].first ~= s.first or o2[i].last ~= s.last then return false end
  end
  return true
end

-- traces at batches b0, b0 + 1, b0 + 2 and predicts each storage's size at
-- batch B from the three sizes: flat (batch norm statistics, and the
-- kernels' per-thread scratch, which they size by layer geometry and the
-- thread count only: th_nn_scratch_threads) stays; affine (n3 - n2 = n2 -
-- n1 > 0) is extrapolated. Anything else, or a changed order of steps or
-- storages, gives nil: the caller then traces at full size rather than guess.
local function scaledTrace(net, modules, input, o, restoreState, B, b0)
  local recs, needs = {}, {}
  for i = 1, 3 do
    -- every trace from emptied buffers, as in a fresh net: otherwise the
    -- first (on a fresh net) and the others (on one that ran) disagree on
    -- when lazily allocated buffers are first used (trace.emptyBuffers)
    trace.emptyBuffers(modules)
    recs[i] = trace.run(net, narrowInput(input, b0 + i - 1), o.mode, o.planGrads)
    needs[i] = traceNeeds(recs[i], modules)
    -- the trace's gradOutput, made fresh by each trace, has a new id at
    -- each batch; a module may hold it (FlattenTable's gradInput is made
    -- of gradOutput's tensors: googlenet's aux outputs), but at run time
    -- it is the caller's, and the plan never places it (plan.intervals:
    -- external). So it is neither compared (sameOrder) nor predicted;
    -- every storage the plan places still is.
    for id in pairs(recs[i].gradOutputIds or {}) do needs[i][id] = nil end
    restoreState()
  end
  if not (sameOrder(recs[1], recs[2], needs[1], needs[2]) and sameOrder(recs[2], recs[3], needs[2], needs[3])) then
    if o.verbose then
      io.stderr:write(string.format('optnet: the order of steps or storages changes between batches %d..%d\n', b0, b0 + 2))
    end
    return nil
  end
  local predicted = {}
  for id, n3 in pairs(needs[3]) do
    local n1, n2 = needs[1][id], needs[2][id]
    if n1 and n1 == n3 and n2 == n3 then
      predicted[id] = n3
    elseif n1 and n2 and n2 > n1 and n3 - n2 == n2 - n1 then
      predicted[id] = n1 + (n2 - n1) * (B - b0)
    else
      if o.verbose then
        local where = '?'
        for _, m in ipairs(modules) do
          walk.moduleTensors(m, function(t, _, field)
            if t:_storageId() == id then where = torch.type(m) .. '.' .. tostring(field) end
          end)
        end
        io.stderr:write(string.format('optnet: %s holds %s / %s / %s bytes at batches %d..%d: not affine\n',
          where, tostring(n1), tostring(n2), tostring(n3), b0, b0 + 2))
      end
      return nil
    end
  end
  return recs[3], predicted
end

-- traces the pass. With a batched input of B samples the net runs at three
-- small batches only and each storage's size at batch B is predicted from
-- them (see scaledTrace), so optimizing never runs the unoptimized net at
-- full size and the process peak stays at the optimized footprint. The
-- small batches start at twice the thread count T, where every kernel has
-- settled on its batch strategy; when the sizes do not follow the rules
-- there, batches two and four times as far are tried; failing that (or a
-- small or unbatched input) the trace runs at full size.
local function tracePass(net, modules, input, o, restoreState)
  local B = batchOf(input)
  if o.smallTrace ~= false and B then
    local T = math.max(1, torch.getnumthreads and torch.getnumthreads() or 1)
    for _, b0 in ipairs{2 * T, 4 * T, 8 * T} do
      if B > b0 + 2 then
        local ok, rec, needs = pcall(scaledTrace, net, modules, input, o, restoreState, B, b0)
        if ok and rec then return rec, needs, true end
        if not ok then
          restoreState()
          if o.verbose then io.stderr:write('optnet: small trace failed: ' .. tostring(rec) .. '\n') end
        end
      end
    end
    if o.verbose and B > 2 * T + 2 then
      io.stderr:write('optnet: sizes are not affine in the batch; tracing at full size\n')
    end
  end
  -- from emptied buffers too, so the plan does not depend on whether
  -- small traces (or the caller) ran the net before
  trace.emptyBuffers(modules)
  local rec = trace.run(net, input, o.mode, o.planGrads)
  local needs = traceNeeds(rec, modules)
  restoreState()
  return rec, needs, false
end

-- traces, chooses in-place modules, traces again if it did, and plans
local function planPass(net, modules, input, o, restoreState)
  local rec, needs, scaled = tracePass(net, modules, input, o, restoreState)
  local p = plan.intervals(rec, net, input, o, needs)
  local inplaced = {}
  if o.inplace and o.reuse then
    inplaced = chooseInplace(rec, p, o.verbose)
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
  if o.verbose then
    for _, note in ipairs(p.unplanned) do io.stderr:write('optnet: ' .. note .. '\n') end
  end
  local t0 = torch._C.clock()
  local result = plan.solve(p, o)
  result.planSeconds = torch._C.clock() - t0
  result.scaled = scaled
  return rec, p, result, inplaced
end

-- a module switched back from in place wrote its output over its input and
-- (after a backward) its gradInput over its gradOutput: both get private
-- memory again, with their contents
local function privateAgain(m)
  for _, f in ipairs{'output', 'gradInput'} do
    local t = rawget(m, f)
    if torch.isTensor(t) and t:_storageId() then t:set(t:clone()) end
  end
end

local function undoInplace(inplaced)
  for _, s in ipairs(inplaced) do
    s.module[s.flag] = false
    privateAgain(s.module)
  end
end

local function arenaBytes(result)
  local n = 0
  for _, v in pairs(result.arena) do n = n + v end
  return n
end

-- planPass, and with opts.reorder the branch orders of optnet.reorder: the
-- all-at-once strategies, then the per-container flips on top of the best,
-- each traced and planned; an order is kept only if its arena is smaller
-- (and no in-place module in it writes across branches), and the winner is
-- planned again. Returns rec, p, result, inplaced, and the reorder undo state (or nil)
local function planOrdered(net, input, o, restoreState)
  local modules = walk.modules(net)
  local rec, p, result, inplaced = planPass(net, modules, input, o, restoreState)
  result.reorder = 'module'
  if not o.reorder then return rec, p, result, inplaced end
  local t0 = torch._C.clock()
  local list, all = {}, reorder.containers(net)
  local cross = reorder.crossWrites(all, rec)
  for _, C in ipairs(all) do
    if not cross[C] then list[#list + 1] = C end
  end
  local bytes = reorder.branchBytes(list, rec, p)
  local best, bestPerms, bestArena = 'module', {}, arenaBytes(result)
  local tried, seen, plans, flipped = {module = bestArena}, {[''] = 'module'}, 0, 0
  -- plans one set of orders; nil when an in-place choice made for it writes
  -- across branches (the order could change a number there)
  local function try(perms)
    plans = plans + 1
    undoInplace(inplaced)
    inplaced = {}
    local undo = reorder.install(perms)
    local rec2, _, r2, inp2 = planPass(net, modules, input, o, restoreState)
    local n = arenaBytes(r2)
    if next(reorder.crossWrites(list, rec2)) then n = nil end
    undoInplace(inp2)
    reorder.uninstall(undo)
    return n
  end
  for _, strategy in ipairs(reorder.STRATEGIES) do
    local perms = reorder.perms(list, strategy, bytes)
    local key = reorder.key(list, perms)
    if seen[key] then
      tried[strategy] = tried[seen[key]]
    else
      seen[key] = strategy
      tried[strategy] = try(perms)
      if tried[strategy] and tried[strategy] < bestArena then best, bestPerms, bestArena = strategy, perms, tried[strategy] end
    end
  end
  for _, f in ipairs(reorder.flips(list, bestPerms, bytes)) do
    local perms = {}
    for C, perm in pairs(bestPerms) do perms[C] = perm end
    perms[f[1]] = f[2]
    local key = reorder.key(list, perms)
    if not seen[key] then
      seen[key] = 'greedy'
      local n = try(perms)
      if n and n < bestArena then bestPerms, bestArena, flipped = perms, n, flipped + 1 end
    end
  end
  tried.greedy = bestArena
  if flipped > 0 then best = 'greedy' end
  local undo
  if next(bestPerms) then undo = reorder.install(bestPerms) end
  if plans > 0 then
    -- the candidates undid the first plan's in-place choices: plan the winner again
    rec, p, result, inplaced = planPass(net, modules, input, o, restoreState)
  end
  result.reorder, result.reorderTried = best, tried
  result.reorderPlans, result.reorderFlips = plans, flipped
  result.reorderContainers = #list
  result.reorderSeconds = torch._C.clock() - t0
  return rec, p, result, inplaced, undo
end

-- recompute = <bytes>: the cheapest plan whose activation arena fits the
-- budget, in the order none, the budget segmentation of optnet.recompute
-- (its model, from the trace without recompute, is corrected by the
-- planned arena and tried again, a few times; it takes the cheap modules
-- first, so 'cheap' needs no try of its own), sqrt
local BUDGET_TRIES = 5

local install, settle
-- set while a forward re-plans (removeOptimization then optimize): a
-- training step's object stays with its net
local replanning = false

-- the modules the trace saw run, in net order: a module made during the
-- trace (nn.Convert builds its converter at its first forward) was not
-- counted in the steps, so the verifier must not count it either
local function tracedModules(rec)
  local seen, list = {}, {}
  for _, st in ipairs(rec.steps) do
    if st.module and not seen[st.module] then
      seen[st.module] = true
      list[#list + 1] = st.module
    end
  end
  return list
end

local function optimize(net, input, o)
  local modules = walk.modules(net)
  local restoreState = snapshotState(modules)
  local rc, undoRc, undoRo = o.recompute, nil, nil
  local rec, p, result, inplaced
  local tried = {}
  -- inference: gradient parameters go first, before the traces and the
  -- arenas, so neither stacks on them (they come back if planning fails)
  local gradParams
  if o.mode == 'inference' and o.removeGradParams then
    gradParams = apply.dropGradParams(modules)
    collectgarbage()
    if torch._C.mallocTrim then torch._C.mallocTrim() end
  end
  -- plans with one segmentation; true when it is the one to keep
  local function try(how, label)
    if how ~= 'none' then undoRc = recompute.install(net, how, o.verbose) end
    modules = walk.modules(net)
    rec, p, result, inplaced, undoRo = planOrdered(net, input, o, restoreState)
    -- segments whose re-run in-place modules would spoil go, and the rest is planned again
    for _ = 1, 8 do
      if not undoRc then break end
      local keep, why = recompute.unsafe(undoRc, rec, inplaced)
      if not keep then break end
      if o.verbose then recompute.tellUnsafe(net, why) end
      if undoRo then reorder.uninstall(undoRo) end
      undoRo = nil
      undoInplace(inplaced)
      recompute.uninstall(undoRc)
      undoRc = recompute.install(net, keep, o.verbose)
      modules = walk.modules(net)
      rec, p, result, inplaced, undoRo = planOrdered(net, input, o, restoreState)
    end
    result.recompute = label or how
    local bytes = arenaBytes(result)
    tried[#tried + 1] = string.format('%s: %d', label or how, bytes)
    return type(rc) ~= 'number' or bytes <= rc, bytes
  end
  local function untry()
    if undoRo then reorder.uninstall(undoRo) end
    undoRo = nil
    undoInplace(inplaced)
    if undoRc then recompute.uninstall(undoRc) end
    undoRc = nil
  end
  local ok, err = pcall(function()
    if type(rc) ~= 'number' then
      try(rc)
      -- never worse than before: shadows that add more than re-computing saves
      if plan.grows(result) then untry(); try('none') end
      return
    end
    local fits, noneBytes = try('none')
    if fits then return end
    local recNone, pNone = rec, p
    untry()
    -- the model counts long-lived bytes only: what else the arena holds
    -- (gradients, temporaries) comes off the target
    local _, info = recompute.budget(net, recNone, pNone, math.huge)
    local target = rc - (noneBytes - info.total)
    -- the model is corrected by each planned arena: down when the plan
    -- missed the budget, up (for less re-run work) when it fell well short
    -- (a plan already planned is not planned again: its arena is known,
    -- and the target moves on from it)
    -- (the best plan so far stays installed until another is tried, so
    -- the last one tried need not be planned again when it wins)
    local best, seen, plans, installed, floor = nil, {}, 0, nil, false
    local fitAt, missAt
    -- a miss the model's next target answers with the same plan again
    -- (it missed by less than one unit's bytes) is answered by a target
    -- lowered twice as far each time
    local push = 1
    for _ = 1, 4 * BUDGET_TRIES do
      local segs, fig = recompute.budget(net, recNone, pNone, target)
      if #segs == 0 then break end
      local key = fig.work .. ':' .. fig.kept
      local bytes = seen[key]
      if bytes and bytes > rc then push = push * 2 else push = 1 end
      if not bytes then
        if plans == BUDGET_TRIES then break end
        plans = plans + 1
        if installed then untry() end
        local fitsB
        fitsB, bytes = try(segs, 'budget')
        installed = key
        seen[key] = bytes
        if fitsB and (not best or fig.work < best.fig.work) then best = {segs = segs, fig = fig, key = key} end
        if fitsB and bytes >= 0.97 * rc then break end
      end
      -- below the model's floor a lower target gives the same plans: stop
      if not fig.fits and floor then break end
      floor = not fig.fits
      -- the next target: corrected by this plan's miss, and once a target
      -- that fits and one that misses are known, halfway between them
      if bytes <= rc then fitAt = math.max(fitAt or -math.huge, target)
      else missAt = math.min(missAt or math.huge, target) end
      if fitAt and missAt then
        if missAt - fitAt < rc / 200 then break end
        target = (fitAt + missAt) / 2
      else
        target = target + push * (rc - bytes)
      end
      if target <= 0 then break end
    end
    if best then
      if installed ~= best.key then
        if installed then untry() end
        try(best.segs, 'budget')
      end
      result.recomputeWork = best.fig.workFraction
      return
    end
    if installed then untry() end
    if try('sqrt') then return end
    untry()
    error(string.format('optnet.optimizeMemory: no segmentation fits the recompute budget of %d bytes '
      .. '(planned activation bytes: %s)', rc, table.concat(tried, ', ')), 0)
  end)
  if not ok then
    if undoRc then pcall(recompute.uninstall, undoRc) end
    if gradParams then apply.restoreGradParams(modules) end
    error(err, 0)
  end
  modules = walk.modules(net)
  local arenas, bindings = apply.rebind(modules, p, result)
  local state = {opts = o, modules = modules, arenas = arenas, bindings = bindings, plan = p,
                 result = result, signature = signature(input), nSteps = rec.nSteps, recompute = undoRc,
                 nForward = rec.nForward, traced = tracedModules(rec)}
  for _, s in ipairs(inplaced) do rawset(s.module, '_optnetInplace', s.flag) end
  record.writeRoot(net, state)
  -- a whole training step (optnet.trainStep): the updates as gradients
  -- complete. Its wrappers go on first, under install's: a parameter's
  -- update belongs to its last gradient step, so verify's wrapper must see
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

-- the wrappers that make a state the net's: inference blocks backward,
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
    if st and (st.pending or signature(x) ~= st.signature) then
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

-- undoes the in-place switches written on the modules
local function undoInplaceRecords(modules)
  for _, m in ipairs(modules) do
    local flag = rawget(m, '_optnetInplace')
    if type(flag) == 'string' and m[flag] == true then
      m[flag] = false
      privateAgain(m)
    end
  end
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
  undoInplaceRecords(modules)
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
-- wrappers. Recompute's wrappers hold its segments, which are not data: a
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
  -- folded batch norms refuse training (optnet.fold); before attach, whose wrappers go on top
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
  -- undone in the reverse order of install's wrappers
  if state.guarded then unhook(state.guarded) end
  if state.verify then trace.unwrap(state.verify.saved) end
  unhook(state.hooks)
  if state.blocked then unhook(state.blocked) end
  -- the training step's wrappers went on first, under install's: off last
  if state.step then require('optnet.step').detach(net, state) end
  local modules = walk.modules(net)
  if not state.pending then
    apply.restoreGradParams(modules)
    apply.unbind(state.bindings, state.arenas, modules)
    for _, b in ipairs(record.bindings(modules)) do b.t:_setLimit(0) end
    undoInplaceRecords(modules)
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
  local restore = undo.snapshot(net, snapshotState)
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
  local r = count.used(walk.modules(net), st)
  -- a training step's optimizer state (optnet.trainStep) is part of what it holds
  r.optimState = require('optnet.step').stateBytes(net)
  r.total_size = r.total_size + r.optimState
  if input ~= nil then
    -- the least the activations could need: the most bytes alive at one step
    local lb, lbGrads
    if st and st.signature == signature(input) and st.opts.mode == o.mode then
      lbGrads = st.opts.planGrads
      lb = 0
      for _, v in pairs(st.result.lowerBound) do lb = lb + v end
    else
      local modules = walk.modules(net)
      local restoreState = snapshotState(modules)
      local rec = trace.run(net, input, o.mode, o.planGrads)
      restoreState()
      local p = plan.intervals(rec, net, input, o)
      lbGrads = o.planGrads
      lb = 0
      for _, v in pairs(plan.lowerBound(p.entries)) do lb = lb + v end
    end
    r.lower_bound_activations = lb
    -- gradients planned with the activations (trainStep) are in lb already
    local grads = lbGrads and r.grads or 0
    r.lower_bound = lb + r.params - grads + r.state + r.optimState
  end
  return r
end
function optnet._state(net) return stateOf(net) end

-- seeing memory (docs/optnet.md): graphgen.lua, timeline.lua and report.lua
optnet._snapshotState = snapshotState
optnet._signature = signature
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
