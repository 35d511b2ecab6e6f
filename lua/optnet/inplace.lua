-- optnet.inplace: which modules run in place (optimizeMemory's inplace
-- option). inplace.choose(rec, p, verbose) walks the forward steps of a
-- trace and returns the {module, flag} to switch on; the checks it makes
-- are the functions below, each callable on its own (a context 'ctx' made
-- by inplace.context holds what they share).
--
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
local walk = require 'optnet.walk'

local inplace = {}

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
function inplace.stepsOf(rec)
  local fwdSteps, derSteps = {}, {}
  for s = 1, rec.nSteps do
    local st = rec.steps[s]
    if st.kind == 'forward' and s <= rec.nForward then push(fwdSteps, st.module, s)
    elseif st.kind == 'derivative' then push(derSteps, st.module, s) end
  end
  return fwdSteps, derSteps
end

-- per storage, the steps using it: any use counts for activations (as
-- ever), only reads for gradients
function inplace.usesOf(rec)
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
  return users, readers
end

-- storages made one by in-place modules: a union-find with member lists
local Classes = {}
Classes.__index = Classes

function inplace.classes()
  return setmetatable({parent = {}, members = {}}, Classes)
end

function Classes:find(id)
  local parent = self.parent
  while parent[id] do id = parent[id] end
  return id
end

-- every storage made one with any of ids, as a set
function Classes:classOf(ids)
  local set = {}
  for id in pairs(ids) do
    local r = self:find(id)
    for _, x in ipairs(self.members[r] or {r}) do set[x] = true end
  end
  return set
end

function Classes:union(ids)
  local members, root = self.members, nil
  for id in pairs(ids) do
    local r = self:find(id)
    if not root then
      root = r
      members[root] = members[root] or {root}
    elseif r ~= root then
      self.parent[r] = root
      for _, x in ipairs(members[r] or {r}) do table.insert(members[root], x) end
      members[r] = nil
    end
  end
end

-- The writes of in-place modules: {module, step, inIds, outIds, uses}, the
-- forward ones (input -> output, checked against users) and the backward
-- ones (gradOutput -> gradInput, checked against readers).

-- the input storages a forward in place writes: in place already, the
-- output's (CAddTable writes only its first input); otherwise any input may be
local function writtenIds(inIds, outIds)
  local written = {}
  for id in pairs(inIds) do if outIds[id] then written[id] = true end end
  if not next(written) then return inIds end
  return written
end

-- m's forward write, or nil when m runs more than once in the pass
function inplace.forwardWrite(ctx, m)
  local f = ctx.fwdSteps[m]
  if not f or #f ~= 1 then return nil end
  local outIds = walk.storageIds(m.output)
  return {module = m, step = f[1], inIds = writtenIds(ctx.rec.steps[f[1]].inputIds, outIds), outIds = outIds,
          uses = ctx.users}
end

-- the forward steps that re-run m (optnet.recompute) write in place too,
-- over the re-run's own storages (the shadows): each is one more write
function inplace.rerunWrites(ctx, m)
  local rec, list = ctx.rec, {}
  for s = rec.nForward + 1, rec.nSteps do
    local st = rec.steps[s]
    if st.module == m and st.kind == 'forward' then
      list[#list + 1] = {module = m, step = s, inIds = writtenIds(st.inputIds, st.outputIds), outIds = st.outputIds,
                         uses = ctx.users}
    end
  end
  return list
end

-- m's backward write, or nil when its backward runs more than once
function inplace.backwardWrite(ctx, m)
  local d = ctx.derSteps[m]
  if not d or #d ~= 1 then return nil end
  local st = ctx.rec.steps[d[1]]
  return {module = m, step = d[1], inIds = st.gradOutputIds, outIds = st.gradInputIds, uses = ctx.readers,
          aliasOnly = not ctx.rec.traits[m].writesGradOutput}
end

-- whether m in place writes its input back in backward (AddConstant and
-- MulConstant undo their forward write there): a module that reads its
-- input in backward only when in place reads what it wrote over, and is
-- taken to write it too (careful: never wrong)
function inplace.restoresInput(m, flag)
  local was = m[flag]
  m[flag] = true
  local on = walk.traits(m).needsInput
  m[flag] = false
  local off = walk.traits(m).needsInput
  m[flag] = was
  return on and not off
end

-- what the checks share: the trace, the storages the plan owns (movable),
-- the uses, the classes and the writes of in-place modules so far (the
-- user's own to begin with: their input and output, gradOutput and
-- gradInput, are one storage in the trace already)
function inplace.context(rec, p, verbose)
  local ctx = {rec = rec, verbose = verbose, movable = {}, classes = inplace.classes(), writers = {}}
  for _, e in ipairs(p.entries) do ctx.movable[e.id] = true end
  ctx.fwdSteps, ctx.derSteps = inplace.stepsOf(rec)
  ctx.users, ctx.readers = inplace.usesOf(rec)
  local paths = verbose and walk.paths(rec.modules[1])
  ctx.who = function(m)
    local path = paths[m] or '?'
    return (path == '' and '' or path .. ' ') .. torch.type(m)
  end
  for _, m in ipairs(rec.modules) do
    local flag = rec.traits[m].inplace
    if flag and m[flag] == true then
      local fw, bw = inplace.forwardWrite(ctx, m), inplace.backwardWrite(ctx, m)
      if fw and bw and inplace.restoresInput(m, flag) then fw.restoreStep = bw.step end
      ctx.writers[#ctx.writers + 1] = fw
      ctx.writers[#ctx.writers + 1] = bw
    end
  end
  return ctx
end

-- whether, after w's write, only w itself and what is downstream of the
-- write (through the in-place modules ws after it) use the class cls;
-- if not, false and the step that uses it
function inplace.writeSafe(ctx, w, ws, cls)
  if w.aliasOnly then return true end
  local rec = ctx.rec
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

-- a module that writes its input back in backward (restoreStep) turns
-- the class into its input again: nothing else may read the class
-- after that. Its input's readers may not anyway (writeSafe), and its
-- output's read before in a Sequential, but not in a gModule, whose
-- gradient steps all come after every derivative step (a Linear after
-- an AddConstant would take its gradWeight from the restored input)
local function restoredSafe(ctx, w, ws, cls)
  local rec, who = ctx.rec, ctx.who
  for _, v in ipairs(ws) do
    local r = v.restoreStep
    if r then
      for id in pairs(cls) do
        for _, s in ipairs(ctx.users[id] or {}) do
          if s > r and rec.steps[s].module ~= v.module then
            return false, ctx.verbose and string.format('forward: %s uses the storage after %s writes its input '
              .. 'back in backward (%s step %d)', who(rec.steps[s].module),
              v.module == w.module and 'it' or who(v.module), rec.steps[s].kind, s)
          end
        end
      end
    end
  end
  return true
end

-- whether the class that w's write merges is movable and written safely
-- by every in-place module in it; if not, false and why
function inplace.safe(ctx, w)
  local rec, who = ctx.rec, ctx.who
  local pass = w.uses == ctx.users and 'forward' or 'backward'
  if not next(w.inIds) then return false, pass .. ': nothing to write over' end
  local cls = ctx.classes:classOf(both(w.inIds, w.outIds))
  for id in pairs(cls) do
    if not ctx.movable[id] then
      return false, pass .. ": it would overwrite a storage the plan does not own (the user's input or gradOutput)"
    end
  end
  local ws = {w}
  for _, v in ipairs(ctx.writers) do
    if v.uses == w.uses and intersects(v.inIds, cls) then ws[#ws + 1] = v end
  end
  for _, v in ipairs(ws) do
    local ok, s = inplace.writeSafe(ctx, v, ws, cls)
    if not ok then
      return false, ctx.verbose and string.format('%s: %s still uses the storage %s overwrites (%s step %d)', pass,
        who(rec.steps[s].module), v.module == w.module and 'it' or who(v.module), rec.steps[s].kind, s)
    end
  end
  if pass == 'forward' then return restoredSafe(ctx, w, ws, cls) end
  return true
end

-- the writes m would make in place: {fw, bw, reruns, restores, extra}.
-- In place, some modules' backward also reads (and restores) the input,
-- which the trace (not in place) did not record: those reads are added to
-- the users ('extra': taken off again if m stays out of place)
function inplace.candidate(ctx, m, flag)
  -- a module run twice in one pass is left alone
  local fw = inplace.forwardWrite(ctx, m)
  local bw = fw and ctx.derSteps[m] and inplace.backwardWrite(ctx, m)
  local c = {fw = fw, bw = bw, extra = {}, restores = false, reruns = fw and inplace.rerunWrites(ctx, m) or {}}
  if bw then
    m[flag] = true
    local needsInput = walk.traits(m).needsInput
    m[flag] = false
    if needsInput then
      for id in pairs(fw.inIds) do
        push(ctx.users, id, bw.step)
        c.extra[#c.extra + 1] = ctx.users[id]
      end
    end
    -- read in place only: to put it back (AddConstant, MulConstant)
    c.restores = inplace.restoresInput(m, flag)
    if c.restores then fw.restoreStep = bw.step end
  end
  return c
end

-- such a backward puts the input back (safe() checks the class of its
-- forward write against that, restoreStep); a module re-run by
-- optnet.recompute puts back the re-run's copy, whose class is checked here
local function putBackSafe(ctx, m, c)
  local rec = ctx.rec
  for _, w in ipairs({c.fw, table.unpack(c.reruns)}) do
    for id in pairs(ctx.classes:classOf(both(w.inIds, w.outIds))) do
      for _, s in ipairs(ctx.users[id] or {}) do
        if s > c.bw.step and rec.steps[s].module ~= m then
          return false, ctx.verbose and string.format('backward: %s uses the storage after it puts its input back (%s step %d)',
            ctx.who(rec.steps[s].module), rec.steps[s].kind, s)
        end
      end
    end
  end
  return true
end

-- whether m may run in place given the candidate c; if not, false and why
function inplace.check(ctx, m, c)
  local rec, fw, bw = ctx.rec, c.fw, c.bw
  if fw == nil then return false, 'it runs more than once in a pass' end
  -- in place it writes each element once: over a view whose elements
  -- alias one another (a stride-0 expansion: nn.Replicate) it would
  -- write one location once per alias
  if rec.steps[fw.step].inputOverlaps then
    return false, 'forward: its input is a view whose elements overlap (a stride-0 expansion or overlapping strides)'
  end
  if bw and rec.steps[bw.step].gradOutputOverlaps then
    return false, 'backward: its gradOutput is a view whose elements overlap (a stride-0 expansion or overlapping strides)'
  end
  -- in place its gradInput is its gradOutput, of the gradOutput's size
  if bw and rec.steps[bw.step].gradOutputMisshaped then
    return false, "backward: its gradOutput's size is not its input's (in place the gradInput would take it)"
  end
  local ok, why = inplace.safe(ctx, fw)
  if not ok then return false, why end
  for _, r in ipairs(c.reruns) do
    ok, why = inplace.safe(ctx, r)
    if not ok then return false, why end
  end
  if c.restores then
    ok, why = putBackSafe(ctx, m, c)
    if not ok then return false, why end
  end
  if ctx.derSteps[m] then
    if bw then return inplace.safe(ctx, bw) end
    return false, 'its backward runs more than once in a pass'
  end
  return true
end

-- the candidate's writes join the classes and the writers
local function accept(ctx, c)
  for _, w in ipairs({c.fw, table.unpack(c.reruns)}) do
    ctx.classes:union(both(w.inIds, w.outIds))
    ctx.writers[#ctx.writers + 1] = w
  end
  if c.bw then
    ctx.classes:union(both(c.bw.inIds, c.bw.outIds))
    ctx.writers[#ctx.writers + 1] = c.bw
  end
end

-- Returns the list of {module, flag} to switch; with verbose, says on
-- stderr why each candidate was or was not switched.
function inplace.choose(rec, p, verbose)
  local ctx = inplace.context(rec, p, verbose)
  -- verbose on a big net: xlua's bar (when loaded, and only on a terminal)
  -- shows the walk, and the notes wait until it is drawn to the end
  local xlua = package.loaded.xlua
  local bar = verbose and rec.nForward >= 200 and type(xlua) == 'table' and xlua.progress
  local notes = {}
  local function tell(m, fmt, ...)
    if not verbose then return end
    local line = string.format('optnet: %s ' .. fmt .. '\n', ctx.who(m), ...)
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
      local c = inplace.candidate(ctx, m, flag)
      local ok, why = inplace.check(ctx, m, c)
      if ok then
        tell(m, 'runs in place')
        switched[#switched + 1] = {module = m, flag = flag}
        accept(ctx, c)
      else
        tell(m, 'stays out of place (%s)', why)
        for _, l in ipairs(c.extra) do l[#l] = nil end
      end
    end
  end
  if #notes > 0 then io.stderr:write(table.concat(notes)) end
  return switched
end

-- a module switched back from in place wrote its output over its input and
-- (after a backward) its gradInput over its gradOutput: both get private
-- memory again, with their contents
function inplace.privateAgain(m)
  for _, f in ipairs{'output', 'gradInput'} do
    local t = rawget(m, f)
    if torch.isTensor(t) and t:_storageId() then t:set(t:clone()) end
  end
end

-- switches the modules of a choose() list back out of place
function inplace.undo(inplaced)
  for _, s in ipairs(inplaced) do
    s.module[s.flag] = false
    inplace.privateAgain(s.module)
  end
end

-- undoes the in-place switches written on the modules ('_optnetInplace')
function inplace.undoRecords(modules)
  for _, m in ipairs(modules) do
    local flag = rawget(m, '_optnetInplace')
    if type(flag) == 'string' and m[flag] == true then
      m[flag] = false
      inplace.privateAgain(m)
    end
  end
end

return inplace
