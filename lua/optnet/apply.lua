-- optnet.apply: carrying out a plan on a net, and undoing it exactly.
-- Rebinding: every tensor of every module that views a planned storage is
-- :set() onto its pool's arena at (slot offset + its offset in the old
-- storage), keeping sizes and strides; the old storage is then unreferenced
-- and freed. Undo gives each planned storage private memory again, with the
-- same sharing between tensors as before and the current contents.
local walk = require 'optnet.walk'

local apply = {}

local ESIZE = {['torch.ByteTensor'] = 1, ['torch.LongTensor'] = 8,
               ['torch.FloatTensor'] = 4, ['torch.DoubleTensor'] = 8}
apply.ESIZE = ESIZE

local function storageCtor(dtype)
  return torch[dtype:match('^torch%.(%a+)Tensor$') .. 'Storage']
end

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
  for _, e in ipairs(p.entries) do byId[e.id] = e end
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

-- gives every planned storage private memory again (contents kept)
function apply.unbind(bindings)
  local fresh = {}
  for _, b in ipairs(bindings) do
    local t, e = b.t, b.entry
    local es = ESIZE[e.dtype]
    local cur = t.new():set(t)             -- a view of the arena data, for the copy
    local s = fresh[e.id]
    local need = b.rel + 1
    if t:dim() > 0 and t:nElement() > 0 then
      for d = 1, t:dim() do need = need + (t:size(d) - 1) * t:stride(d) end
    end
    if not s then
      s = storageCtor(e.dtype)(math.max(e.bytes // es, need))
      fresh[e.id] = s
    elseif s:size() < need then
      s:resize(need)
    end
    t:_setLimit(0)
    setView(t, s, b.rel + 1, t:size(), t:stride())
    if t:nElement() > 0 then t:copy(cur) end
  end
end

-- opts.verify: after every step, the slots of the storages whose last use
-- it was are filled with NaN (floating point pools; integer pools hold
-- indices and are left alone). A plan that lets two storages in use at the
-- same time share bytes then shows as NaN in outputs or gradients instead
-- of as a silently wrong number. Steps are counted as the trace numbered
-- them (the same wrappers); the net's forward resets the count.
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

-- inference: drop gradWeight/gradBias, remembering their layout and sharing
function apply.dropGradParams(modules)
  local saved = {groups = {}, items = {}}
  for _, m in ipairs(modules) do
    for _, field in ipairs{'gradWeight', 'gradBias'} do
      local t = rawget(m, field)
      if torch.isTensor(t) and t:_storageId() then
        local id = t:_storageId()
        if not saved.groups[id] then
          saved.groups[id] = {bytes = t:_storageBytes(), dtype = torch.typename(t)}
        end
        saved.items[#saved.items + 1] = {t = t, group = id, offset = t:storageOffset(),
                                         size = t:size(), stride = t:stride()}
      end
    end
  end
  for _, it in ipairs(saved.items) do it.t:set() end
  return saved
end

function apply.restoreGradParams(saved)
  local fresh = {}
  for id, g in pairs(saved.groups) do
    fresh[id] = storageCtor(g.dtype)(g.bytes // ESIZE[g.dtype]):fill(0)
  end
  for _, it in ipairs(saved.items) do
    setView(it.t, fresh[it.group], it.offset, it.size, it.stride)
  end
end

return apply
