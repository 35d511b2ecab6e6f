-- optnet.count: memory a net holds, per category, each byte counted once.
-- Categories follow OptNet: outputs, gradInputs, buffers (declared buffers
-- and other module state), params (weights, biases and their gradients),
-- and grads (the gradients alone: a slot each when optnet.trainStep plans
-- them in the arena).
-- A tensor in a private storage counts the whole storage; a tensor planned
-- into an arena counts its slot, so categories sharing an arena each show
-- the bytes they use, and total_size counts every arena once, whole.
-- In a plain net, a gradInput its container released after backward counts
-- the bytes it held (OptNet compares a plain net as Torch7 holds it: every
-- gradInput); an optimized net counts what it holds.
local walk = require 'optnet.walk'
local apply = require 'optnet.apply'
local gradrelease = require 'nn.gradrelease'

local count = {}

local CATEGORY = {output = 'outputs', gradInput = 'gradInputs', buffer = 'buffers', state = 'buffers',
                  param = 'params', gradParam = 'params'}

-- adds [lo, hi) of storage id to a range set; returns nothing
local function addRange(set, id, lo, hi)
  local r = set[id]
  if not r then r = {}; set[id] = r end
  r[#r + 1] = {lo, hi}
end

-- the union of [lo, hi) byte ranges per storage id, in bytes
function count.unionBytes(set)
  local total = 0
  for _, ranges in pairs(set) do
    table.sort(ranges, function(a, b) return a[1] < b[1] end)
    local lo, hi = nil, nil
    for _, r in ipairs(ranges) do
      if not lo then lo, hi = r[1], r[2]
      elseif r[1] <= hi then if r[2] > hi then hi = r[2] end
      else total = total + (hi - lo); lo, hi = r[1], r[2] end
    end
    if lo then total = total + (hi - lo) end
  end
  return total
end

function count.used(modules, state)
  local slotOf = {}   -- tensor -> {lo, hi} in its arena (bytes)
  if state then
    for _, b in ipairs(state.bindings) do
      slotOf[b.t] = {b.entry.offset, b.entry.offset + b.entry.bytes}
    end
  end
  local sets = {outputs = {}, gradInputs = {}, buffers = {}, params = {}, state = {}, grads = {}}
  local wholeStorage, isArena = {}, {}
  for _, s in pairs(state and state.arenas or {}) do isArena[torch.pointer(s)] = true end
  for _, it in ipairs(apply.allTensors(modules)) do
    local t = it.t
    local id = t:_storageId()
    -- a plain net's gradInput its container released after backward
    -- (nn/gradrelease.lua): counted at the size it had, as Torch7, which
    -- kept it, holds it. An optimized net (state) is counted as it is
    local rkey, rbytes
    if it.role == 'gradInput' and not state then rkey, rbytes = gradrelease.releasedBytes(t) end
    if rkey then
      addRange(sets.gradInputs, rkey, 0, rbytes)
      wholeStorage[rkey] = rbytes
    elseif id then
      local cat = CATEGORY[it.role]
      local slot = slotOf[t]
      if slot then
        addRange(sets[cat], id, slot[1], slot[2])
        if it.role == 'gradParam' then addRange(sets.grads, id, slot[1], slot[2]) end
      elseif isArena[id] then
        -- a view a module made into an arena during a pass: the bytes it
        -- spans (the arena itself is counted once, below)
        local es = t:_storageBytes() // math.max(1, t:storage():size())
        addRange(sets[cat], id, (t:storageOffset() - 1) * es, t:_extentBytes())
        if it.role == 'gradParam' then addRange(sets.grads, id, (t:storageOffset() - 1) * es, t:_extentBytes()) end
      else
        local bytes = t:_storageBytes()
        addRange(sets[cat], id, 0, bytes)
        if it.role == 'state' then addRange(sets.state, id, 0, bytes) end
        if it.role == 'gradParam' then addRange(sets.grads, id, 0, bytes) end
        wholeStorage[id] = bytes
      end
    end
  end
  local r = {}
  for _, k in ipairs{'outputs', 'gradInputs', 'buffers', 'params', 'grads'} do r[k] = count.unionBytes(sets[k]) end
  -- total: every storage once, arenas whole
  local total = 0
  for _, bytes in pairs(wholeStorage) do
    total = total + bytes
  end
  if state then
    for _, s in pairs(state.arenas) do
      local dt = torch.typename(s):gsub('Storage$', 'Tensor')
      total = total + s:size() * apply.ESIZE[dt]
    end
  end
  -- module state (running statistics) that no plan moves
  r.state = count.unionBytes(sets.state)
  r.total_size = total
  return r
end

-- optnet.countUsedMemory's figures: count.used, the optimizer state of a
-- training step and, with an input, the lower bounds (from the state's
-- plan when it is for this input and mode, else from a trace). o: the
-- checked options; st: the net's state in force, or nil
function count.usedMemory(net, input, o, st)
  local trace = require 'optnet.trace'
  local plan = require 'optnet.plan'
  local optimize = require 'optnet.optimize'
  local r = count.used(walk.modules(net), st)
  -- a training step's optimizer state (optnet.trainStep) is part of what it holds
  r.optimState = require('optnet.step').stateBytes(net)
  r.total_size = r.total_size + r.optimState
  if input ~= nil then
    -- the least the activations could need: the most bytes alive at one step
    local lb, lbGrads
    if st and st.signature == optimize.signature(input) and st.opts.mode == o.mode then
      lbGrads = st.opts.planGrads
      lb = 0
      for _, v in pairs(st.result.lowerBound) do lb = lb + v end
    else
      local modules = walk.modules(net)
      local restoreState = optimize.snapshotState(modules)
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

return count
