-- optnet.apply: carrying out a plan on a net, and undoing it exactly.
-- Rebinding: every tensor of every module that views a planned storage is
-- :set() onto its pool's arena at (slot offset + its offset in the old
-- storage), keeping sizes and strides; the old storage is then unreferenced
-- and freed. Undo gives each planned storage private memory again, with the
-- same sharing between tensors as before and the current contents.
-- What was done is also written onto the modules as plain data
-- (optnet.record), so that it survives clone, type, save and load.
local walk = require 'optnet.walk'
local record = require 'optnet.record'
local gradrelease = require 'nn.gradrelease'

local apply = {}

local ESIZE = record.ESIZE
apply.ESIZE = ESIZE
local storageCtor = record.storageCtor

-- every tensor held in module fields, each once: list of {t, module, field}
local function allTensors(modules)
  local list, seen = {}, {}
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role, field)
      if not seen[t] then
        seen[t] = true
        list[#list + 1] = {t = t, module = m, field = field, role = role}
      end
    end)
  end
  return list
end
apply.allTensors = allTensors

local function setView(t, storage, offset1, sizes, strides)
  if #sizes == 0 then
    t:set(storage, offset1, torch.LongStorage(), torch.LongStorage())
  else
    t:set(storage, offset1, sizes, strides)
  end
end

-- allocates the arenas and rebinds; returns the binding list for undo
function apply.rebind(modules, p, result)
  local byId = {}
  for i, e in ipairs(p.entries) do
    e.index = i
    byId[e.id] = e
  end
  record.writeSlots(modules, byId)
  -- the geometry of every planned tensor, then its old storage let go before
  -- the arenas are allocated: the two never need memory at the same time
  -- (contents are not carried over; the next forward writes them)
  local bindings, geometry = {}, {}
  for _, it in ipairs(allTensors(modules)) do
    local t = it.t
    local id = t:_storageId()
    local e = id and byId[id]
    if e then
      bindings[#bindings + 1] = {t = t, entry = e, rel = t:storageOffset() - 1}
      geometry[#bindings] = {t:size(), t:stride()}
    end
  end
  for _, b in ipairs(bindings) do b.t:set() end
  collectgarbage('step')
  local arenas = {}
  for dtype, pool in pairs(p.pools) do
    local bytes = result.arena[pool] or 0
    arenas[pool] = storageCtor(dtype)(math.max(1, math.ceil(bytes / ESIZE[dtype])))
  end
  for i, b in ipairs(bindings) do
    local e = b.entry
    local es = ESIZE[e.dtype]
    setView(b.t, arenas[e.pool], e.offset // es + b.rel + 1, geometry[i][1], geometry[i][2])
    -- growing past the slot would overlap a neighbour: make it an error
    b.t:_setLimit((e.offset + e.bytes) // es)
  end
  return arenas, bindings
end

-- gives every planned storage private memory again (contents kept). Only
-- tensors still in their pool's arena (arenas: pool -> storage): one that
-- was emptied (clearState) stays empty, one elsewhere stays where it is.
-- one tensor to the private storage of its entry (fresh: entry id -> storage)
local function unbindOne(fresh, b)
  local t, e = b.t, b.entry
  local dtype = torch.typename(t)
  local cur = t.new():set(t)             -- a view of the arena data, for the copy
  local s = fresh[e.id]
  local need = b.rel + 1
  if t:dim() > 0 and t:nElement() > 0 then
    for d = 1, t:dim() do need = need + (t:size(d) - 1) * t:stride(d) end
  end
  if not s then
    s = storageCtor(dtype)(math.max(e.bytes // ESIZE[e.dtype], need))
    fresh[e.id] = s
  elseif s:size() < need then
    s:resize(need)
  end
  t:_setLimit(0)
  setView(t, s, b.rel + 1, t:size(), t:stride())
  if t:nElement() > 0 then t:copy(cur) end
end

-- modules (optional): any other tensor of theirs still viewing an arena (a
-- view a module made during a pass: a gradInput set to its gradOutput)
-- follows the tensor it aliases (the bound tensor that started at the same
-- element), or gets a private copy; so no view keeps an arena alive.
function apply.unbind(bindings, arenas, modules)
  local fresh, arenaId = {}, {}
  for pool, st in pairs(arenas or {}) do arenaId[pool] = torch.pointer(st) end
  local moved = {}    -- arena id .. ':' .. offset -> {storage, offset}
  for _, b in ipairs(bindings) do
    -- a tensor the user freed (an output closed with <close>, :free()) holds
    -- no arena memory any more: nothing to move
    local id = not b.t:isFreed() and b.t:_storageId() or nil
    if b.t:isFreed() then
      -- nothing
    elseif gradrelease.takeSkipped(b.t) then
      -- a gradInput the last backward left in the arena only because it
      -- was bound: a plain net released it (nn/gradrelease.lua)
      b.t:_setLimit(0)
      b.t:set()
    elseif id ~= nil and (not arenas or id == arenaId[b.entry.pool]) then
      local key = id .. ':' .. b.t:storageOffset()
      unbindOne(fresh, b)
      moved[key] = moved[key] or {b.t:storage(), b.t:storageOffset()}
    else
      b.t:_setLimit(0)
    end
  end
  if not modules then return end
  local isArena = {}
  for _, id in pairs(arenaId) do isArena[id] = true end
  for _, m in ipairs(modules) do
    record.tensorPaths(m, function(t)
      local id = not t:isFreed() and t:_storageId() or nil
      if id and isArena[id] then
        local to = moved[id .. ':' .. t:storageOffset()]
        local ok = false
        if to then
          t:_setLimit(0)
          local sizes, strides = t:size(), t:stride()
          local need = to[2]
          for d = 1, #sizes do need = need + (sizes[d] - 1) * strides[d] end
          if #sizes == 0 or t:nElement() == 0 or need <= to[1]:size() then
            setView(t, to[1], to[2], sizes, strides)
            ok = true
          end
        end
        if not ok then
          t:_setLimit(0)
          t:set(t:clone())
        end
      end
    end)
  end
end

-- opts.verify: after every step, the slots of the storages whose last use
-- it was are filled with NaN (floating point pools; integer pools hold
-- indices and are left alone). A plan that lets two storages in use at the
-- same time share bytes then shows as NaN in outputs or gradients instead
-- of as a silently wrong number. Steps are counted as the trace numbered
-- them (the same hooks); the net's forward resets the count.
function apply.verifier(modules, p, arenas, nSteps)
  local trace = require 'optnet.trace'
  local dead = {}
  for _, e in ipairs(p.entries) do
    local es = ESIZE[e.dtype]
    if e.last < nSteps and (e.dtype == 'torch.FloatTensor' or e.dtype == 'torch.DoubleTensor') then
      local view = torch[e.dtype:match('^torch%.(%a+)$')](arenas[e.pool], e.offset // es + 1, e.bytes // es)
      dead[e.last] = dead[e.last] or {}
      table.insert(dead[e.last], view)
    end
  end
  local v = {step = 0, filled = 0}
  v.saved = trace.wrap(modules, function()
    v.step = v.step + 1
    for _, view in ipairs(dead[v.step] or {}) do
      view:fill(0 / 0)
      v.filled = v.filled + 1
    end
  end)
  return v
end

-- inference: drop gradWeight/gradBias. Their layout and sharing (a group
-- per storage) are written on each module (_optnetGradParams), so that they
-- come back, zeroed, on the net or on any copy of it.
local GRAD_FIELDS = {'gradWeight', 'gradBias'}
apply.GRAD_FIELDS = GRAD_FIELDS

function apply.dropGradParams(modules)
  local groupOf, ngroups, dropped = {}, 0, {}
  for _, m in ipairs(modules) do
    local rec
    for _, field in ipairs(GRAD_FIELDS) do
      local t = rawget(m, field)
      if torch.isTensor(t) and t:_storageId() then
        local id = t:_storageId()
        if not groupOf[id] then
          ngroups = ngroups + 1
          groupOf[id] = ngroups
        end
        rec = rec or {}
        rec[field] = {group = groupOf[id], n = t:storage():size(), offset = t:storageOffset(),
                      size = t:size():totable(), stride = t:stride():totable()}
        dropped[#dropped + 1] = t
      end
    end
    if rec then rawset(m, '_optnetGradParams', rec) end
  end
  for _, t in ipairs(dropped) do t:set() end
  return modules
end

local function longs(list)
  local ok = type(list) == 'table'
  for _, v in ipairs(ok and list or {}) do ok = ok and math.type(v) == 'integer' and v >= 0 end
  return ok and torch.LongStorage(list) or nil
end

-- gives the dropped gradients back, zeroed, with their sharing; clears the records
function apply.restoreGradParams(modules)
  local groups = {}
  for _, m in ipairs(modules) do
    local rec = rawget(m, '_optnetGradParams')
    if type(rec) == 'table' then
      for _, field in ipairs(GRAD_FIELDS) do
        local r, t = rec[field], rawget(m, field)
        if type(r) == 'table' and torch.isTensor(t) and math.type(r.n) == 'integer' and r.n >= 0 then
          local g = groups[r.group]
          if not g then
            g = {n = r.n, dtype = torch.typename(t)}
            groups[r.group] = g
          elseif r.n > g.n then
            g.n = r.n
          end
        end
      end
    end
  end
  for _, g in pairs(groups) do
    if ESIZE[g.dtype] then g.storage = storageCtor(g.dtype)(g.n):fill(0) end
  end
  for _, m in ipairs(modules) do
    local rec = rawget(m, '_optnetGradParams')
    if type(rec) == 'table' then
      for _, field in ipairs(GRAD_FIELDS) do
        local r, t = rec[field], rawget(m, field)
        local g = type(r) == 'table' and groups[r.group]
        local size, stride = g and longs(r.size), g and longs(r.stride)
        if g and g.storage and torch.isTensor(t) and t:nElement() == 0 and torch.typename(t) == g.dtype
            and size and stride and math.type(r.offset) == 'integer' and r.offset >= 1 then
          setView(t, g.storage, r.offset, size, stride)
        end
      end
      rawset(m, '_optnetGradParams', nil)
    end
  end
end

return apply
