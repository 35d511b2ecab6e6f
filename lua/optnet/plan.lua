-- optnet.plan: from a trace to a memory plan.
-- Chooses the storages that may move (module outputs, gradInputs and
-- declared buffers that nothing outside the activations refers to; a field
-- of another module holding one does not stop it), gives
-- each a lifetime interval, and asks the C planner (src/plan) for offsets in
-- one arena per pool, never larger than the storages it replaces (64-byte
-- slots, or element-aligned where that is smaller: plan.solve). Pools are
-- per element type (a tensor can only view a storage of its own type):
-- parameters, state and the input are never pooled unless opts.shareInput
-- puts the input in the activation pool.
local walk = require 'optnet.walk'
local apply = require 'optnet.apply'

local plan = {}

-- one role per storage, the same whatever order the fields are walked in:
-- a module's output viewing its own buffer (nn.Contiguous) is an output
local RANK = {output = 1, gradInput = 2, buffer = 3, gradParam = 4}

-- storage ids that must not move, the ids of planned roles, and the ids
-- that only recompute shadows view (storages optnet added: optnet.recompute).
-- A 'state' field holding another module's output, gradInput or buffer
-- (walk.holdings: a custom module keeping an earlier module's output) is no
-- state: the storage is planned as the activation it is, and the trace kept
-- it alive until its holder's last step. State holding nothing else's (batch
-- norm's statistics, a module's own undeclared scratch, a view of its own
-- output that may carry data from one pass to the next) stays where it is,
-- and so does what a module may read from the last pass (rec.heldEarly).
local function classify(rec, net, input, opts)
  local external, movable, roleOf, shadow, viewedBy = {}, {}, {}, {}, {}
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
    walk.moduleTensors(m, function(t, role, field)
      local id = t:_storageId()
      if not id then return end
      -- reuseBuffers = false (OptNet's option) keeps every buffer in a
      -- storage of its own
      if role == 'output' or role == 'gradInput' or (role == 'buffer' and opts.reuseBuffers ~= false)
         or (role == 'gradParam' and opts.planGrads) then
        movable[id] = true
        if not roleOf[id] or RANK[role] < RANK[roleOf[id]] then roleOf[id] = role end
      elseif not (role == 'state' and heldFromOther(id, m)) then
        external[id] = true
        -- a field of its own that views its output, gradInput or buffer
        if role == 'state' and owners[id] and owners[id][m] then
          viewedBy[id] = viewedBy[id] or string.format('%s.%s', torch.type(m), tostring(field))
        end
      end
      local isShadow = field == '_optnetShadow'
      if shadow[id] == nil or not isShadow then shadow[id] = isShadow end
    end)
  end
  for id in pairs(early) do external[id] = true end
  return external, movable, roleOf, shadow, viewedBy
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

-- returns {entries = {...}, pools = {dtype = poolId}, nSteps, unplanned}
-- each entry: {id, bytes, dtype, first, last, pool, role, shadow}; needs (optional)
-- gives the bytes per storage id; unplanned: the notes on activations left
-- where they are because a module's own state field views them
function plan.intervals(rec, net, input, opts, needs)
  local external, movable, roleOf, shadow, viewedBy = classify(rec, net, input, opts)
  local unplanned = {}
  -- what the caller reads after the pass lives to the end
  local keep = walk.storageIds(net.output)
  if opts.mode == 'training' then walk.storageIds(net.gradInput, keep) end
  local entries, pools, npools = {}, {}, 0
  for _, s in ipairs(rec.order) do
    local bytes = needs and needs[s.id] or s.bytes
    if movable[s.id] and external[s.id] and viewedBy[s.id] and bytes > 0 then
      unplanned[#unplanned + 1] = string.format('%s views its own %s (%d bytes): not shared (a state field may carry '
        .. 'data from one pass to the next)', viewedBy[s.id], roleOf[s.id], bytes)
    end
    if movable[s.id] and not external[s.id] and bytes > 0 then
      local pool = pools[s.dtype]
      if not pool then
        npools = npools + 1
        pool = npools
        pools[s.dtype] = pool
      end
      local last = keep[s.id] and rec.nSteps or s.last
      -- clipping by global norm updates after the pass: every gradient
      -- lives to its end (optnet.step)
      if opts.clipGrads and roleOf[s.id] == 'gradParam' then last = rec.nSteps end
      entries[#entries + 1] = {id = s.id, bytes = bytes, dtype = s.dtype, first = s.first,
                               last = last, pool = pool, role = roleOf[s.id],
                               shadow = shadow[s.id] or nil}
    end
  end
  return {entries = entries, pools = pools, nSteps = rec.nSteps, unplanned = unplanned}
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

-- slots start at multiples of 64 bytes (a cache line) unless that costs
-- more than sharing saves (plan.solve)
local ALIGNMENT = 64

-- the offset for entry e (size bytes, aligned) beside the placed entries
-- (indices into entries, offsets[j] set) of its pool: the smallest gap
-- between those alive with it that holds it, else above them all
local function fit(entries, placed, offsets, e, size, alignOf)
  local busy = {}
  for _, j in ipairs(placed) do
    local p = entries[j]
    if p.pool == e.pool and p.first <= e.last and e.first <= p.last then
      busy[#busy + 1] = {offsets[j], offsets[j] + align(p.bytes, alignOf[p.pool])}
    end
  end
  table.sort(busy, function(a, b) return a[1] < b[1] end)
  local best, bestGap, cursor = nil, math.huge, 0
  for _, r in ipairs(busy) do
    if r[1] - cursor >= size and r[1] - cursor < bestGap then best, bestGap = cursor, r[1] - cursor end
    if r[2] > cursor then cursor = r[2] end
  end
  return best or cursor
end

-- largest first (ties in entry order)
local function bySize(entries, idx)
  table.sort(idx, function(a, b)
    local ea, eb = entries[a], entries[b]
    if ea.bytes ~= eb.bytes then return ea.bytes > eb.bytes end
    return a < b
  end)
  return idx
end

-- fallback when the C planner is not built: greedy by size, best fit;
-- alignOf[pool] is each pool's alignment
local function greedy(entries, alignOf)
  local idx = {}
  for i = 1, #entries do idx[i] = i end
  local placed, offsets, arena = {}, {}, {}
  for _, i in ipairs(bySize(entries, idx)) do
    local e = entries[i]
    local size = align(e.bytes, alignOf[e.pool])
    offsets[i] = fit(entries, placed, offsets, e, size, alignOf)
    placed[#placed + 1] = i
    arena[e.pool] = math.max(arena[e.pool] or 0, offsets[i] + size)
  end
  return offsets, arena
end

-- offsets (per entry) and arena bytes (per pool) for entries, each pool
-- with the alignment alignOf[pool]; pools are planned independently
local function place(entries, opts, alignOf)
  if opts.reuse == false then
    -- every storage its own slot: the trace and report without any sharing
    local offsets, arena = {}, {}
    for i, e in ipairs(entries) do
      offsets[i] = arena[e.pool] or 0
      arena[e.pool] = offsets[i] + align(e.bytes, alignOf[e.pool])
    end
    return offsets, arena
  elseif torch._C.plan then
    local ivs = {}
    for i, e in ipairs(entries) do
      ivs[i] = {first = e.first, last = e.last, bytes = e.bytes, pool = e.pool, align = alignOf[e.pool]}
    end
    local r = torch._C.plan(ivs, {planner = opts.planner or 'best', budget_ms = opts.budgetMs,
                                  alignment = ALIGNMENT})
    return r.offsets, r.arena
  end
  return greedy(entries, alignOf)
end

-- bytes per pool that the planned storages hold as storages of their own:
-- each the furthest its tensors reach at this input, so no more than it
-- held once the net ran the pass unoptimized. This is what the pool's
-- arena replaces in countUsedMemory's total (storages once, arenas whole).
-- A recompute shadow (optnet.recompute) is a storage the net did not have
-- before: not counted.
function plan.held(entries)
  local held = {}
  for _, e in ipairs(entries) do
    held[e.pool] = (held[e.pool] or 0) + (e.shadow and 0 or e.bytes)
  end
  return held
end

-- whether the arenas, all pools together, are larger than the storages
-- they replace: only recompute shadows can make them so (plan.solve keeps
-- every pool without shadows within its storages), when the bytes they
-- add are more than re-computing saves (optimize then plans without)
function plan.grows(result)
  local arena, held = 0, 0
  for pool, bytes in pairs(result.arena) do
    arena, held = arena + bytes, held + (result.held[pool] or 0)
  end
  return arena > held
end

-- the last resort for one pool: every storage the net had in a slot of its
-- own (the arena is then exactly plan.held), and each recompute shadow in
-- the smallest gap of that layout where nothing alive with it sits (its
-- home is dead while it lives: that is what re-computing is for), or on
-- top. Fills offsets[i] for the pool's entries; returns the arena bytes.
local function unshared(entries, pool, alignOf, offsets)
  local top, placed, shadows = 0, {}, {}
  for i, e in ipairs(entries) do
    if e.pool == pool then
      if e.shadow then
        shadows[#shadows + 1] = i
      else
        offsets[i] = top
        top = top + align(e.bytes, alignOf[pool])
        placed[#placed + 1] = i
      end
    end
  end
  for _, i in ipairs(bySize(entries, shadows)) do
    local size = align(entries[i].bytes, alignOf[pool])
    offsets[i] = fit(entries, placed, offsets, entries[i], size, alignOf)
    placed[#placed + 1] = i
    top = math.max(top, offsets[i] + size)
  end
  return top
end

-- fills e.offset for every entry; returns {arena = {pool=bytes},
-- lowerBound = {pool=bytes}, held = {pool=bytes} (plan.held), alignment =
-- {pool=bytes}, fallback = {pool='element'|'unshared'} for the pools below}.
-- Never worse than before: a pool's arena is not larger than the storages
-- it replaces (plan.held). Slots are aligned to 64 bytes; a pool whose
-- arena that leaves no smaller than its storages (small tensors, little to
-- share: the padding costs more than sharing saves) is planned again with
-- slots aligned to its element size only, kept when smaller. Should that
-- still be larger, each storage gets a slot of its own (unshared above),
-- kept when smaller: without recompute shadows, exactly the storages.
function plan.solve(p, opts)
  local entries = p.entries
  local esize, alignOf = {}, {}
  for dtype, pool in pairs(p.pools) do
    esize[pool] = apply.ESIZE[dtype]
    alignOf[pool] = ALIGNMENT
  end
  local offsets, arena = place(entries, opts, alignOf)
  local held = plan.held(entries)
  local fallback, narrow, sub, at = {}, {}, {}, {}
  for pool, bytes in pairs(held) do
    if arena[pool] >= bytes and esize[pool] < ALIGNMENT then narrow[pool] = esize[pool] end
  end
  for i, e in ipairs(entries) do
    if narrow[e.pool] then sub[#sub + 1] = e; at[#sub] = i end
  end
  if #sub > 0 then
    local o2, a2 = place(sub, opts, narrow)
    for pool, es in pairs(narrow) do
      if a2[pool] < arena[pool] then
        arena[pool], alignOf[pool], fallback[pool] = a2[pool], es, 'element'
      end
    end
    for k, e in ipairs(sub) do
      if fallback[e.pool] then offsets[at[k]] = o2[k] end
    end
  end
  for pool, bytes in pairs(held) do
    -- (reuse = false shares nothing, not even a shadow with its home)
    if arena[pool] > bytes and opts.reuse ~= false then
      local o3, narrowOf = {}, {[pool] = esize[pool]}
      local a3 = unshared(entries, pool, narrowOf, o3)
      if a3 < arena[pool] then
        for i in pairs(o3) do offsets[i] = o3[i] end
        arena[pool], alignOf[pool], fallback[pool] = a3, esize[pool], 'unshared'
      end
    end
  end
  for i, e in ipairs(entries) do e.offset = offsets[i] end
  return {arena = arena, lowerBound = lowerBound(entries), held = held, alignment = alignOf, fallback = fallback}
end

return plan
