-- optnet.plan: from a trace to a memory plan.
-- Chooses the storages that may move (module outputs, gradInputs and
-- declared buffers that nothing outside the activations refers to; a field
-- of another module holding one does not stop it), gives
-- each a lifetime interval, and asks the C planner (src/plan) for offsets in
-- one arena per pool. Pools are per element type (a tensor can only view a
-- storage of its own type): parameters, state and the input are never pooled
-- unless opts.shareInput puts the input in the activation pool.
local walk = require 'optnet.walk'

local plan = {}

-- storage ids that must not move, and the ids of planned roles. A 'state'
-- field holding another module's output, gradInput or buffer (walk.holdings:
-- a custom module keeping an earlier module's output) is no state: the
-- storage is planned as the activation it is, and the trace kept it alive
-- until its holder's last step. State holding nothing else's (batch norm's
-- statistics, a module's own undeclared scratch, a view of its own output
-- that may carry data from one pass to the next) stays where it is, and so
-- does what a module may read from the last pass (rec.heldEarly).
local function classify(rec, net, input, opts)
  local external, movable, roleOf = {}, {}, {}
  if not opts.shareInput then walk.storageIds(input, external) end
  for id in pairs(rec.gradOutputIds or {}) do external[id] = true end
  local owners = walk.activationIds(rec.modules)
  local early = rec.heldEarly or {}
  -- whether module m holds, in a state field, what another module owns
  local function heldFromOther(id, m)
    for o in pairs(owners[id] or {}) do
      if o ~= m then return true end
    end
    return false
  end
  for _, m in ipairs(rec.modules) do
    walk.moduleTensors(m, function(t, role)
      local id = t:_storageId()
      if not id then return end
      if role == 'output' or role == 'gradInput' or role == 'buffer' then
        movable[id] = true
        roleOf[id] = roleOf[id] or role
      elseif not (role == 'state' and heldFromOther(id, m)) then
        external[id] = true
      end
    end)
  end
  for id in pairs(early) do external[id] = true end
  return external, movable, roleOf
end

-- bytes each storage needs now: the furthest any module tensor reaches into
-- it (a storage may be larger than its views need, after a bigger batch)
function plan.needs(modules)
  local needs = {}
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t)
      local id = t:_storageId()
      if id then
        local b = t:_extentBytes()
        if b > (needs[id] or 0) then needs[id] = b end
      end
    end)
  end
  return needs
end

-- returns {entries = {...}, pools = {dtype = poolId}, nSteps}
-- each entry: {id, bytes, dtype, first, last, pool, role}; needs (optional)
-- gives the bytes per storage id
function plan.intervals(rec, net, input, opts, needs)
  local external, movable, roleOf = classify(rec, net, input, opts)
  -- what the caller reads after the pass lives to the end
  local keep = walk.storageIds(net.output)
  if opts.mode == 'training' then walk.storageIds(net.gradInput, keep) end
  local entries, pools, npools = {}, {}, 0
  for _, s in ipairs(rec.order) do
    local bytes = needs and needs[s.id] or s.bytes
    if movable[s.id] and not external[s.id] and bytes > 0 then
      local pool = pools[s.dtype]
      if not pool then
        npools = npools + 1
        pool = npools
        pools[s.dtype] = pool
      end
      local last = keep[s.id] and rec.nSteps or s.last
      entries[#entries + 1] = {id = s.id, bytes = bytes, dtype = s.dtype, first = s.first,
                               last = last, pool = pool, role = roleOf[s.id]}
    end
  end
  return {entries = entries, pools = pools, nSteps = rec.nSteps}
end

-- the most bytes alive at one step, per pool (a sweep over the intervals)
local function lowerBound(entries)
  local events = {}
  for _, e in ipairs(entries) do
    events[#events + 1] = {e.first, e.bytes, e.pool}
    events[#events + 1] = {e.last + 1, -e.bytes, e.pool}
  end
  table.sort(events, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  local live, best = {}, {}
  for _, ev in ipairs(events) do
    live[ev[3]] = (live[ev[3]] or 0) + ev[2]
    if live[ev[3]] > (best[ev[3]] or 0) then best[ev[3]] = live[ev[3]] end
  end
  return best
end
plan.lowerBound = lowerBound

local function align(n, a) return (n + a - 1) // a * a end

-- fallback when the C planner is not built: greedy by size, best fit
local function greedy(entries, alignment)
  local idx = {}
  for i = 1, #entries do idx[i] = i end
  table.sort(idx, function(a, b)
    local ea, eb = entries[a], entries[b]
    if ea.bytes ~= eb.bytes then return ea.bytes > eb.bytes end
    return a < b
  end)
  local placed, offsets, arena = {}, {}, {}
  for _, i in ipairs(idx) do
    local e = entries[i]
    local size = align(e.bytes, alignment)
    local busy = {}
    for _, j in ipairs(placed) do
      local p = entries[j]
      if p.pool == e.pool and p.first <= e.last and e.first <= p.last then
        busy[#busy + 1] = {offsets[j], offsets[j] + align(p.bytes, alignment)}
      end
    end
    table.sort(busy, function(a, b) return a[1] < b[1] end)
    local best, bestGap, cursor = nil, math.huge, 0
    for _, r in ipairs(busy) do
      if r[1] - cursor >= size and r[1] - cursor < bestGap then best, bestGap = cursor, r[1] - cursor end
      if r[2] > cursor then cursor = r[2] end
    end
    offsets[i] = best or cursor
    placed[#placed + 1] = i
    arena[e.pool] = math.max(arena[e.pool] or 0, offsets[i] + size)
  end
  return offsets, arena
end

-- fills e.offset for every entry; returns {arena = {pool=bytes}, lowerBound = {pool=bytes}}
function plan.solve(p, opts)
  local alignment = 64
  local entries = p.entries
  local offsets, arena
  local C = torch._C
  if opts.reuse == false then
    -- every storage its own slot: the trace and report without any sharing
    offsets, arena = {}, {}
    for i, e in ipairs(entries) do
      offsets[i] = arena[e.pool] or 0
      arena[e.pool] = offsets[i] + align(e.bytes, alignment)
    end
  elseif C.plan then
    local ivs = {}
    for i, e in ipairs(entries) do ivs[i] = {first = e.first, last = e.last, bytes = e.bytes, pool = e.pool} end
    local r = C.plan(ivs, {planner = opts.planner or 'best', budget_ms = opts.budgetMs, alignment = alignment})
    offsets, arena = r.offsets, r.arena
  else
    offsets, arena = greedy(entries, alignment)
  end
  for i, e in ipairs(entries) do e.offset = offsets[i] end
  local lb = lowerBound(entries)
  return {arena = arena, lowerBound = lb}
end

return plan
