-- optnet.record: an optimization as plain data on the net, so that it travels
-- with it. What optnet holds in its own tables (bindings, hooks) is lost
-- when a net is cloned, retyped, saved and loaded; what makes an optimized
-- net correct must not be. So the plan is written onto the modules as plain
-- tables, which torch.save, torch.serialize, clone and type carry like any
-- other field (and which Torch7 loads and ignores):
--
--   net._optnet            on the net optimized: options, the input signature
--                          planned for, the entries (slots) of each pool and
--                          the arena sizes, steps, what was applied
--   m._optnetSlots         on every module with a tensor in an arena: per
--                          tensor (by its path of keys from the module), its
--                          slot: pool, start and length (elements of the
--                          arena) and its own offset in the slot
--   m._optnetInplace       the in-place flag optnet switched on
--   m._optnetGradParams    inference: the gradient fields dropped, with
--                          their layout and sharing group
--
-- Units are elements, not bytes, so that a plan survives :float()/:double()
-- (type keeps every storage's element layout). From the records and the live
-- tensors, settle() finds each pool's arena again, puts back the size limit
-- of every slot (a tensor may not grow past its slot: an error, never an
-- overlap) and gives emptied tensors (clearState, a retyped buffer) their
-- slot again.
local walk = require 'optnet.walk'

local record = {}

-- bytes per element of each tensor type, from the C core's one list
local ESIZE = {}
for _, n in ipairs(torch._typenames) do ESIZE['torch.' .. n .. 'Tensor'] = torch._C.dtypeSizes[n] end
record.ESIZE = ESIZE

-- the record fields, in the order removal clears them
record.FIELDS = {'_optnetSlots', '_optnetInplace', '_optnetGradParams'}

local function storageCtor(tname)
  return torch[tname:match('^torch%.(%a+)Tensor$') .. 'Storage']
end
record.storageCtor = storageCtor

-- calls f(t, path) for every tensor module m holds in a string-keyed field
-- (not its children), path being the keys from m down to t
function record.tensorPaths(m, f)
  local seen = {}
  local function visit(v, path)
    if torch.isTensor(v) then return f(v, path) end
    if type(v) ~= 'table' or torch.typename(v) or seen[v] then return end
    seen[v] = true
    for k, x in pairs(v) do
      if type(k) == 'string' or math.type(k) == 'integer' then
        local p = {table.unpack(path)}
        p[#p + 1] = k
        visit(x, p)
      end
    end
  end
  for k, v in pairs(m) do
    if type(k) == 'string' and k ~= 'modules' then visit(v, {k}) end
  end
end

-- the value at path below m, or nil
local function resolve(m, path)
  local v = m
  for _, k in ipairs(path) do
    if type(v) ~= 'table' then return nil end
    v = rawget(v, k)
  end
  return v
end

-- the tensors of the net's modules that views a planned storage, written as
-- slot records; entries: the plan's entries (bytes, offset), es per dtype
function record.writeSlots(modules, byId)
  for _, m in ipairs(modules) do
    local slots = {}
    record.tensorPaths(m, function(t, path)
      local id = t:_storageId()
      local e = id and byId[id]
      if e then
        local es = ESIZE[e.dtype]
        slots[#slots + 1] = {path = path, e = e.index, pool = e.pool, at = e.offset // es,
                             n = e.bytes // es, rel = t:storageOffset() - 1}
      end
    end)
    rawset(m, '_optnetSlots', #slots > 0 and slots or nil)
  end
end

-- every tensor that a slot record names, each once: {t, module, slot}
function record.bindings(modules)
  local list, seen = {}, {}
  for _, m in ipairs(modules) do
    local slots = rawget(m, '_optnetSlots')
    if type(slots) == 'table' then
      for _, s in ipairs(slots) do
        local t = type(s) == 'table' and type(s.path) == 'table' and resolve(m, s.path)
        if torch.isTensor(t) and not seen[t] and math.type(s.at) == 'integer' and math.type(s.n) == 'integer'
            and math.type(s.rel) == 'integer' then
          seen[t] = true
          list[#list + 1] = {t = t, module = m, slot = s}
        end
      end
    end
  end
  return list
end

-- whether tensor t views storage sid inside its slot
local function inSlot(t, sid, s)
  if t:_storageId() ~= sid or t:storageOffset() - 1 ~= s.at + s.rel then return false end
  local es = ESIZE[torch.typename(t)]
  return es ~= nil and t:_extentBytes() <= (s.at + s.n) * es
end

-- Finds each pool's arena among the tensors (the storage of a tensor that
-- still sits where its slot says), checks every tensor against it, sets
-- the size limits, and (allocate) gives a tensor with no storage its slot
-- again, allocating an arena for a pool none of whose tensors holds one.
-- arenaElems: pool -> elements (the record's), or nil (then the largest
-- slot end). Returns arenas (pool -> storage) and the bindings that are in
-- their arenas ({t, module, slot}); a tensor elsewhere (a private storage,
-- another tensor's memory) is left as it is, without a limit.
function record.settle(bindings, arenaElems, allocate)
  local pools, order = {}, {}
  for _, b in ipairs(bindings) do
    local p = b.slot.pool
    if not pools[p] then pools[p] = {}; order[#order + 1] = p end
    table.insert(pools[p], b)
  end
  local arenas, placed = {}, {}
  for _, p in ipairs(order) do
    local list = pools[p]
    local tname = torch.typename(list[1].t)
    local need = arenaElems and arenaElems[p] or 0
    for _, b in ipairs(list) do
      if b.slot.at + b.slot.n > need then need = b.slot.at + b.slot.n end
    end
    local arena, sid
    for _, b in ipairs(list) do
      local id = b.t:_storageId()
      if id and torch.typename(b.t) == tname and inSlot(b.t, id, b.slot) and b.t:storage():size() >= need then
        arena, sid = b.t:storage(), id
        break
      end
    end
    if not arena and allocate and ESIZE[tname] then
      arena = storageCtor(tname)(math.max(1, need))
      sid = torch.pointer(arena)
    end
    if arena then
      arenas[p] = arena
      for _, b in ipairs(list) do
        local t, s = b.t, b.slot
        if torch.typename(t) == tname then
          if not t:_storageId() and allocate then
            -- emptied (clearState) or made anew (type): its slot, empty
            t:set(arena, s.at + s.rel + 1, torch.LongStorage(), torch.LongStorage())
          end
          if inSlot(t, sid, s) then
            t:_setLimit(s.at + s.n)
            placed[#placed + 1] = b
          end
        end
      end
    end
  end
  return arenas, placed
end

-- A tensor in an arena that no slot record covers (a view a module made
-- after the plan was written, a damaged record) has no limit, so it could
-- grow over its neighbours: it gets private memory (a copy) instead.
function record.isolate(modules, arenas, placed)
  local arenaIds, ok = {}, {}
  for _, st in pairs(arenas) do arenaIds[torch.pointer(st)] = true end
  if not next(arenaIds) then return end
  for _, b in ipairs(placed) do ok[b.t] = true end
  for _, m in ipairs(modules) do
    record.tensorPaths(m, function(t)
      local id = t:_storageId()
      if id and arenaIds[id] and not ok[t] then
        t:set(t:clone())
        ok[t] = true
      end
    end)
  end
end

-- limits only, for a module on its own (a loaded or cloned part of an
-- optimized net): every tensor that still sits in its slot of the storage
-- it shares with the others of its pool keeps its slot's limit
function record.limit(modules)
  local arenas, placed = record.settle(record.bindings(modules), nil, false)
  record.isolate(modules, arenas, placed)
  return arenas, placed
end

-- the root record: what optimize decided, in elements
function record.writeRoot(net, state)
  local p, result = state.plan, state.result
  local entries, arena, lower = {}, {}, {}
  local esOf = {}
  for dtype, pool in pairs(p.pools) do esOf[pool] = ESIZE[dtype] end
  for i, e in ipairs(p.entries) do
    local es = ESIZE[e.dtype]
    entries[i] = {pool = e.pool, at = e.offset // es, n = e.bytes // es, first = e.first, last = e.last,
                  role = e.role}
  end
  for pool, bytes in pairs(result.arena) do arena[pool] = -(-bytes // esOf[pool]) end
  for pool, bytes in pairs(result.lowerBound) do lower[pool] = -(-bytes // esOf[pool]) end
  local opts = {}
  for k, v in pairs(state.opts) do
    if type(v) ~= 'table' and type(v) ~= 'function' then opts[k] = v end
  end
  local r = {version = 1, opts = opts, signature = state.signature, nSteps = state.nSteps,
             nForward = state.nForward, entries = entries, arena = arena, lowerBound = lower,
             recompute = type(result.recompute) == 'string' and result.recompute or 'none',
             reorder = result.reorder ~= nil and result.reorder ~= 'module'}
  rawset(net, '_optnet', r)
  return r
end

-- checks a root record read from a file or copied: the fields optnet
-- needs, of the right types (a damaged record is an error, never a guess)
function record.check(r)
  local function bad(what)
    error('optnet: this net carries a damaged optimization record (' .. what .. '); '
      .. 'rebuild the net or load it without optnet', 0)
  end
  if type(r) ~= 'table' then bad('not a table') end
  if type(r.opts) ~= 'table' then bad('no options') end
  if type(r.signature) ~= 'string' then bad('no input signature') end
  if type(r.entries) ~= 'table' or type(r.arena) ~= 'table' then bad('no entries') end
  for _, e in ipairs(r.entries) do
    if type(e) ~= 'table' or math.type(e.pool) ~= 'integer' or math.type(e.at) ~= 'integer'
        or math.type(e.n) ~= 'integer' then
      bad('an entry without pool, start or length')
    end
  end
  return r
end

-- the plan as optnet's state holds it (entries with bytes and byte offsets,
-- pools by dtype), from a root record and the arenas' current types
function record.plan(r, arenas)
  local pools, entries, esOf = {}, {}, {}
  for pool, s in pairs(arenas) do
    local dtype = torch.typename(s):gsub('Storage$', 'Tensor')
    pools[dtype] = pool
    esOf[pool] = ESIZE[dtype]
  end
  for i, e in ipairs(r.entries) do
    local es = esOf[e.pool]
    if es then
      local dtype
      for d, pool in pairs(pools) do if pool == e.pool then dtype = d end end
      entries[#entries + 1] = {index = i, id = 'entry' .. i, pool = e.pool, offset = e.at * es, bytes = e.n * es,
                               dtype = dtype, first = e.first, last = e.last, role = e.role}
    end
  end
  local arena, lower = {}, {}
  for pool, n in pairs(r.arena) do if esOf[pool] then arena[pool] = n * esOf[pool] end end
  for pool, n in pairs(r.lowerBound or {}) do if esOf[pool] then lower[pool] = n * esOf[pool] end end
  return {entries = entries, pools = pools, nSteps = r.nSteps}, {arena = arena, lowerBound = lower,
    recompute = r.recompute, reorder = r.reorder and 'restored' or 'module'}
end

-- the bindings as optnet's state holds them ({t, entry, rel})
function record.stateBindings(placed, p)
  local byIndex = {}
  for _, e in ipairs(p.entries) do byIndex[e.index] = e end
  local list = {}
  for _, b in ipairs(placed) do
    local e = byIndex[b.slot.e]
    if e then list[#list + 1] = {t = b.t, entry = e, rel = b.slot.rel} end
  end
  return list
end

-- clears every record below (and on) net
function record.clear(modules, net)
  for _, m in ipairs(modules) do
    for _, k in ipairs(record.FIELDS) do rawset(m, k, nil) end
  end
  if net then rawset(net, '_optnet', nil) end
end

-- whether any module carries a record
function record.carries(modules)
  for _, m in ipairs(modules) do
    if rawget(m, '_optnet') ~= nil then return true end
    for _, k in ipairs(record.FIELDS) do
      if rawget(m, k) ~= nil then return true end
    end
  end
  return false
end

return record
