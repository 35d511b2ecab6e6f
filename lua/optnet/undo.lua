-- optnet.undo: a failed optimizeMemory leaves the net as it was.
-- Optimizing changes a net in many places (in-place flags, hooks,
-- tensors re-pointed into arenas, dropped gradients, records); an error
-- half-way (a module that fails in the trace, a budget that no plan meets)
-- must undo all of it, not leave a net that runs in place and fails again.
-- undo.snapshot(net) records, for every module: its fields (shallow), the
-- plain tables they hold (shallow), and each tensor's storage, geometry
-- and view limit; plus the contents of state tensors (running statistics)
-- and the generator. The returned function puts all of that back.
-- Hooks (Module:hook) are not fields and are not recorded: each part of
-- optnet takes its own off, and the caller re-establishes an earlier
-- optimization from its records.
-- A gradient storage that only the net's own tensors view is not held:
-- holding it would stack it on the arenas while inference planning runs
-- (which drops gradients first); on failure the zeroed gradient
-- apply.restoreGradParams gives back stands, and nobody else saw the old
-- one. A gradient storage a user's tensor views too (getParameters' flat
-- gradients) is held, and the module's tensor goes back onto it.
local walk = require 'optnet.walk'
local apply = require 'optnet.apply'

local undo = {}

local function isPlain(v)
  return type(v) == 'table' and not torch.typename(v)
end

local function geometry(v)
  return {storage = v:storage(), offset = v:storageOffset(), sizes = v:size(), strides = v:stride(),
          limit = v:_limit()}
end

-- every plain table and tensor reachable from v without entering modules
local function collect(v, tables, tensors)
  if torch.isTensor(v) then
    if not tensors[v] then tensors[v] = geometry(v) end
  elseif isPlain(v) and not tables[v] then
    local copy = {}
    tables[v] = copy
    for k, x in pairs(v) do
      copy[k] = x
      collect(x, tables, tensors)
    end
  end
end

-- the gradient tensors of the modules, and per storage how many of them view it
local function gradients(modules)
  local list, views = {}, {}
  for _, m in ipairs(modules) do
    for _, f in ipairs(apply.GRAD_FIELDS) do
      local t = rawget(m, f)
      if torch.isTensor(t) then
        list[#list + 1] = t
        local st = t:storage()
        if st then views[st] = (views[st] or 0) + 1 end
      end
    end
  end
  return list, views
end

function undo.snapshot(net, snapshotState)
  local modules = walk.modules(net)
  local fields, tables, tensors = {}, {}, {}
  local grads = {}
  for _, f in ipairs(apply.GRAD_FIELDS) do grads[f] = true end
  -- a gradient storage only the modules view is not held (it is dropped
  -- while inference is planned); one a user's tensor views too is
  -- (refcount: one per view, one for the Lua object)
  local glist, gviews = gradients(modules)
  for _, t in ipairs(glist) do
    local st = t:storage()
    if not st or st:size() == 0 or st:_refcount() - 1 > gviews[st] then
      tensors[t] = geometry(t)
    else
      tensors[t] = {dropped = true}
    end
  end
  for _, m in ipairs(modules) do
    local copy = {}
    for k, v in pairs(m) do
      copy[k] = v
      if k ~= 'modules' and not (grads[k] and torch.isTensor(v)) then collect(v, tables, tensors) end
    end
    if isPlain(rawget(m, 'modules')) then
      tables[m.modules] = tables[m.modules] or {}
      for k, x in pairs(m.modules) do tables[m.modules][k] = x end
    end
    fields[m] = copy
  end
  local restoreState = snapshotState(modules)
  return function()
    for m, copy in pairs(fields) do
      for k in pairs(m) do if copy[k] == nil then rawset(m, k, nil) end end
      for k, v in pairs(copy) do rawset(m, k, v) end
    end
    for t, copy in pairs(tables) do
      for k in pairs(t) do if copy[k] == nil then t[k] = nil end end
      for k, v in pairs(copy) do t[k] = v end
    end
    for t, g in pairs(tensors) do
      -- a dropped gradient nobody else saw stays as apply.restoreGradParams gave it back
      if not g.dropped then
        t:_setLimit(0)
        if g.storage then t:set(g.storage, g.offset, g.sizes, g.strides) else t:set() end
        t:_setLimit(g.limit)
      end
    end
    restoreState()
  end
end

return undo
