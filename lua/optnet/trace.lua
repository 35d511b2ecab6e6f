-- optnet.trace: one forward (and, in training mode, one backward) pass
-- with every module's methods temporarily wrapped, recording for every
-- storage the first step that defines it and the last step that uses it.
--
-- Steps follow the execution order. In training mode each leaf module
-- contributes a forward step, a gradient step (accGradParameters) and a
-- derivative step (updateGradInput), nntrainer's three-way order; a
-- container's step comes after its children's (post-order), because that is
-- when it reads their results (Concat copies them, ConcatTable sums their
-- gradInputs). What a step uses follows the module's memoryTraits():
-- backward reads the input or output only when the module says it needs it.
-- What a module holds in its fields beyond its own tensors (walk.holdings:
-- another module's output kept in a field, or a module kept to read its
-- output or indices later) is used at each of its steps.
local walk = require 'optnet.walk'

local trace = {}
local releaseBuffers

local WHEN = {
  forward = {forward = true, both = true, temp = true},
  backward = {backward = true, both = true, temp = true},
}

-- the record being filled
local function newRecord()
  return {steps = {}, storages = {}, order = {}, uses = {}, extents = {}}
end

local function touchTensor(rec, t, step)
  local id = t:_storageId()
  if not id then return end
  local u = rec.uses[step]
  if not u then u = {}; rec.uses[step] = u end
  u[id] = true
  local bytes = t:_storageBytes()
  if bytes == 0 then return end
  -- the furthest a tensor reached into it: what the plan must give it
  -- (buffers are released after their step, see releaseBuffers)
  local ext = t:_extentBytes()
  if ext > (rec.extents[id] or 0) then rec.extents[id] = ext end
  local s = rec.storages[id]
  if not s then
    s = {id = id, bytes = bytes, dtype = torch.typename(t), first = step, last = step}
    rec.storages[id] = s
    rec.order[#rec.order + 1] = s
  else
    if bytes > s.bytes then s.bytes = bytes end
    if step > s.last then s.last = step end
  end
end

local function touch(rec, v, step)
  walk.tensors(v, function(t) touchTensor(rec, t, step) end)
end

-- a buffer with no element holds nothing the step could read: it is not
-- used there, whatever its storage still holds (see trace.emptyBuffers)
local function touchBuffers(rec, m, traits, when, step)
  for name, w in pairs(traits.buffers) do
    if WHEN[when][w] and m[name] ~= nil then
      walk.tensors(m[name], function(t)
        if t:nElement() > 0 then touchTensor(rec, t, step) end
      end)
    end
  end
end

-- the buffers a container touched at its step (recorded when its method
-- returned) are alive from the step its method began at: a child may not
-- take their memory meanwhile
local function widenBuffers(rec, m, from, step, kind)
  local u = rec.uses[step]
  if not u then return end
  local function widen(v)
    walk.tensors(v, function(t)
      local id = t:_storageId()
      local st = id and u[id] and rec.storages[id]
      if st and st.first > from then st.first = from end
    end)
  end
  local tr = rec.traits[m]
  for name in pairs(tr.buffers) do
    if m[name] ~= nil then widen(m[name]) end
  end
  if tr.outputEarly then
    if kind == 'forward' then widen(m.output) elseif kind == 'derivative' then widen(m.gradInput) end
  end
end

-- a storage defined earlier in the pass that m holds in a field (walk.holdings)
-- is used at each step of m: it stays alive until m's last step, and no
-- in-place module may overwrite it before (optnet's chooseInplace reads uses).
-- Only storages defined already count: what m's fields still hold from the
-- last pass (a held module's gradInput, at m's forward) is not read as
-- data of this pass (see heldEarly in trace.run).
local function touchHoldings(rec, m, step)
  local u
  walk.holdings(m, function(t)
    local id = t:_storageId()
    local s = id and rec.storages[id]
    if s then
      u = u or rec.uses[step]
      if not u then u = {}; rec.uses[step] = u end
      u[id] = true
      if step > s.last then s.last = step end
    end
  end)
end

-- records one step of module m; kind: 'forward', 'derivative', 'gradient', 'backward'
local function record(rec, m, kind, input, gradOutput)
  local step = #rec.steps + 1
  -- a whole-step plan (optnet.trainStep): a parameter gradient is used at
  -- the gradient steps that accumulate into it, and nowhere else
  if kind == 'gradient' and rec.grads then
    for _, f in ipairs{'gradWeight', 'gradBias'} do
      local g = rawget(m, f)
      if torch.isTensor(g) and g:nElement() > 0 then touchTensor(rec, g, step) end
    end
  end
  rec.steps[step] = {module = m, kind = kind, inputIds = kind == 'forward' and walk.storageIds(input) or nil}
  -- whether what the step would write over in place (its input forward,
  -- its gradOutput backward) has elements that alias one another: such a
  -- module is never switched to in place (walk.nonOverlapping)
  if kind == 'forward' then rec.steps[step].inputOverlaps = walk.overlaps(input) end
  if kind == 'derivative' then
    rec.steps[step].gradOutputOverlaps = walk.overlaps(gradOutput)
    -- (a table input summed into one gradOutput, CAddTable's: each of its
    -- tensors against it)
    local shaped = walk.sameShapes(gradOutput, input)
    if not shaped and torch.isTensor(gradOutput) and type(input) == 'table' then
      shaped = true
      walk.tensors(input, function(t) shaped = shaped and t:isSameSizeAs(gradOutput) end)
    end
    rec.steps[step].gradOutputMisshaped = not shaped
    -- which storage the gradient came in and went out in: an in-place
    -- module's backward writes its gradInput over its gradOutput
    -- (optnet's chooseInplace)
    rec.steps[step].gradOutputIds = walk.storageIds(gradOutput)
    rec.steps[step].gradInputIds = walk.storageIds(m.gradInput)
  end
  local tr = rec.traits[m]
  if kind == 'forward' then
    -- the output's size, for optnet.recompute's cost model
    local n = 0
    walk.tensors(m.output, function(t) n = n + t:nElement() end)
    rec.steps[step].outElements = n
    rec.steps[step].outputIds = walk.storageIds(m.output)
    touch(rec, input, step)
    touch(rec, m.output, step)
    touchBuffers(rec, m, tr, 'forward', step)
    if tr.childOutputs and m.modules then
      for _, c in ipairs(m.modules) do touch(rec, c.output, step) end
    end
  else
    touch(rec, gradOutput, step)
    if kind ~= 'gradient' then touch(rec, m.gradInput, step) end
    if kind ~= 'backward' then
      if tr.needsInput then touch(rec, input, step) end
      if tr.needsOutput then touch(rec, m.output, step) end
      touchBuffers(rec, m, tr, 'backward', step)
    end
    if kind ~= 'gradient' and tr.childGradInputs and m.modules then
      for _, c in ipairs(m.modules) do touch(rec, c.gradInput, step) end
    end
  end
  touchHoldings(rec, m, step)
end

-- storages a module holds (walk.holdings: as its own field, or as a held
-- module's output) that the pass defines only after that module's first
-- step: the module may read what the last pass left there (a feedback
-- loop), which no interval of one pass can keep. plan.intervals leaves them
-- unplanned. Judged on the fields as the pass leaves them, which are the
-- same whether or not the net ran before the trace. A held module's
-- gradInput and buffers are not counted: a module runs its backward after
-- those of the modules after it, so it holds their gradInputs as data of
-- the pass.
local function heldEarly(rec)
  local firstStep, early = {}, {}
  for i, st in ipairs(rec.steps) do firstStep[st.module] = firstStep[st.module] or i end
  for _, m in ipairs(rec.modules) do
    local f = firstStep[m]
    if f then
      walk.holdings(m, function(t, role)
        local id = t:_storageId()
        local s = id and rec.storages[id]
        if s and s.first > f and (role == 'state' or role == 'output') then early[id] = true end
      end)
    end
  end
  return early
end

-- hooks the methods of every module so that onStep(m, kind, input,
-- gradOutput) runs right after each call, kind as in record(); returns the
-- hooks' handles for trace.unwrap. Also used by opts.verify, which must
-- count steps exactly as the trace numbered them.
-- onEnter(m, kind), when given, runs as a container's method starts
-- (its step is recorded when it returns, after its children's)
function trace.wrap(modules, onStep, onEnter)
  local handles = {}
  local function hook(m, method, fn) handles[#handles + 1] = m:hook(method, fn) end
  for _, m in ipairs(modules) do
    local isContainer = type(m.modules) == 'table'
    local enter = isContainer and onEnter or function() end
    hook(m, 'updateOutput', function(nextf, self, input)
      enter(self, 'forward')
      local out = nextf(self, input)
      onStep(self, 'forward', input)
      return out
    end)
    hook(m, 'updateGradInput', function(nextf, self, input, gradOutput, ...)
      enter(self, 'derivative')
      local gi = nextf(self, input, gradOutput, ...)
      onStep(self, 'derivative', input, gradOutput)
      return gi
    end)
    hook(m, 'accGradParameters', function(nextf, self, input, gradOutput, scale)
      enter(self, 'gradient')
      nextf(self, input, gradOutput, scale)
      onStep(self, 'gradient', input, gradOutput)
    end)
    if isContainer then
      hook(m, 'backward', function(nextf, self, input, gradOutput, scale)
        enter(self, 'backward')
        local gi = nextf(self, input, gradOutput, scale)
        onStep(self, 'backward', input, gradOutput)
        return gi
      end)
    end
  end
  return handles
end

-- removes what trace.wrap hooked
function trace.unwrap(handles)
  for i = #handles, 1, -1 do handles[i]:remove() end
end

-- empties every declared buffer (memoryTraits().buffers) of the modules,
-- so that the next trace sees them as a fresh net does. A trace records a
-- buffer at each step of its module that finds it holding bytes, not when
-- the kernel reads it: a buffer that a backward kernel allocates lazily is
-- then first seen at the step that allocates it in a fresh net, but one
-- step earlier in a net that ran before, where it still holds the last
-- pass's bytes (a 1x1 SpatialConvolution's fgradInput: its updateGradInput
-- needs no scratch, its accGradParameters does). Traces that must agree
-- (optnet's small traces at three batches) start from emptied buffers and
-- then record the steps that fill them. The storage is kept (a resize to
-- no element): its id stays, so traces at different batches can be matched
-- storage by storage. Safe because a planned buffer holds nothing between
-- passes (the plan lets other storages overwrite it): every module sizes
-- and fills it again. Only for a net that is not optimized (a planned slot
-- keeps its size).
function trace.emptyBuffers(modules)
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role)
      if role == 'buffer' and t:nElement() > 0 then t:resize(0) end
    end)  -- recompute's shadow buffers too
  end
end

-- A traced net is not optimized yet: every module holds its own buffers,
-- and the kernels size their per-thread scratch by layer geometry, not by
-- the batch (so that small traces predict it). Kept all at once, a hundred
-- convolutions' scratch would make tracing at batch 4 cost more than the
-- optimized net at full size. So a buffer's memory is given back right
-- after the step that last uses it in the pass: forward-only buffers after
-- the forward step, backward-only ones after the gradient step (the last
-- backward step of a leaf). The storage object stays (its id identifies it
-- across traces); the module sizes it again when it next runs; the trace
-- has recorded its bytes and extent by then. Only storages a buffer owns
-- whole are released (never a view into something else), and only when no
-- other tensor views them: a module may return a view of its buffer as its
-- output (nn.Contiguous, nn.View of a non-contiguous input copy it into a
-- forward-only buffer), which its consumers read after the step. The
-- storage's references are the buffer tensor's and its Lua object's (one,
-- cached); any more is another view, so the storage stays whole (a view the
-- collector has not reclaimed yet keeps it too: memory only, never data).
local RELEASE = {forward = {forward = true, temp = true}, gradient = {backward = true, temp = true}}

local function release(t)
  local st = t:storage()
  if st and st:_refcount() <= 2 and t:storageOffset() == 1 and t:_extentBytes() == t:_storageBytes() then
    t:resize(0)
    st:resize(0)
  end
end

-- A buffer that the module's output (gradInput) views is that output, not
-- scratch (nn.View and nn.Contiguous copy a non-contiguous input into one):
-- it is not released, so the steps that read the output keep it alive
-- (released, the next module's read found no bytes and its interval ended
-- at the forward step; a recompute re-run reading it in backward read a
-- slot given to another storage).
releaseBuffers = function(rec, m, kind)
  local which = RELEASE[kind]
  if not which then return end
  local viewed
  for name, w in pairs(rec.traits[m].buffers) do
    local t = rawget(m, name)
    -- (the buffer tensor itself handed on as the output or gradInput is in
    -- use, and so is one they view: release() also keeps any storage
    -- another tensor views)
    if which[w] and torch.isTensor(t) and t:nElement() > 0 and t ~= rawget(m, 'output')
       and t ~= rawget(m, 'gradInput') then
      viewed = viewed or walk.storageIds(kind == 'forward' and m.output or m.gradInput)
      if not viewed[t:_storageId()] then release(t) end
    end
  end
end

-- a gradOutput shaped like the output, with finite values
local function makeGradOutput(out)
  if torch.isTensor(out) then
    local g = out:clone()
    g:fill(1 / math.max(1, out:nElement()))
    return g
  elseif type(out) == 'table' then
    local g = {}
    for k, v in pairs(out) do g[k] = makeGradOutput(v) end
    return g
  end
  error('optnet: net output must be a tensor or a table of tensors, got ' .. type(out), 0)
end

-- runs the pass; returns the record:
--   steps[i] = {module=, kind=, inputIds and inputOverlaps (forward),
--   gradOutputIds, gradInputIds, gradOutputOverlaps and gradOutputMisshaped
--   (derivative)},
--   storages[id] = {id, bytes, dtype, first, last},
--   order = storages in first-use order, nForward = steps of the forward pass,
--   heldEarly = storage ids a module may read from the last pass (not planned)
local runOnce

-- A module may make children during its forward (nn.Convert its converter,
-- thrnn.Recurrence a step clone per time step of a longer sequence): those
-- were not wrapped, so the pass did not see them. The pass runs again once
-- they exist, until it sees every module.
-- grads: the parameter gradients are recorded too (optnet.trainStep)
function trace.run(net, input, mode, grads)
  local rec
  for _ = 1, 4 do
    local before = #walk.modules(net)
    rec = runOnce(net, input, mode, grads)
    if #walk.modules(net) == before then return rec end
  end
  error('optnet: the net keeps making new modules at each forward; it cannot be traced', 0)
end

-- how many traces are running (optnet.step lets their backward through)
trace.active = 0

runOnce = function(net, input, mode, grads)
  local rec = newRecord()
  rec.grads = grads and mode == 'training' or nil
  rec.modules = walk.modules(net)
  rec.traits = {}
  for _, m in ipairs(rec.modules) do rec.traits[m] = walk.traits(m) end
  -- a container may write its own buffers before its children run (a
  -- Decorator-style module): those live from where its method began
  local entered = {}
  local saved = trace.wrap(rec.modules, function(m, kind, input, gradOutput)
    record(rec, m, kind, input, gradOutput)
    local from = entered[m] and table.remove(entered[m])
    if from then widenBuffers(rec, m, from, #rec.steps, kind) end
    releaseBuffers(rec, m, kind)
  end, function(m)
    entered[m] = entered[m] or {}
    table.insert(entered[m], #rec.steps + 1)
  end)
  -- a module in place may write into the caller's input (an in-place ReLU
  -- on a SplitTable's view of it): the pass must leave it as it was, or
  -- the caller's next forward (or the one a re-plan runs right after the
  -- trace) would see it written twice
  local inputSaved
  for _, m in ipairs(rec.modules) do
    local flag = rec.traits[m].inplace
    if flag and m[flag] == true then inputSaved = {} break end
  end
  if inputSaved then
    walk.tensors(input, function(t)
      if t:nElement() > 0 then inputSaved[#inputSaved + 1] = {t, t:clone()} end
    end)
  end
  trace.active = trace.active + 1
  local ok, err = pcall(function()
    -- the input exists before the first step
    touch(rec, input, 0)
    local out = net:forward(input)
    rec.nForward = #rec.steps
    if mode == 'training' then
      local gradOutput = makeGradOutput(out)
      rec.gradOutputIds = walk.storageIds(gradOutput)
      -- scale 0: the trace must not change the accumulated parameter gradients
      net:backward(input, gradOutput, 0)
    end
  end)
  trace.active = trace.active - 1
  trace.unwrap(saved)
  for _, it in ipairs(inputSaved or {}) do
    if it[1]:nElement() == it[2]:nElement() then it[1]:copy(it[2]) end
  end
  if not ok then error(err, 0) end
  rec.nSteps = #rec.steps
  rec.heldEarly = heldEarly(rec)
  return rec
end

return trace
