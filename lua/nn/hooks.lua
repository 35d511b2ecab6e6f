-- Module:hook / Module:hooked: the one way to attach behaviour to a module.
--
--   local h = m:hook('updateOutput', function(nextf, self, input)
--     ...                                  -- before
--     local out = nextf(self, input)       -- the rest of the chain
--     ...                                  -- after
--     return out
--   end)
--   h:remove()
--
-- A hook runs "around" a method: nextf runs the hooks registered before it,
-- then the class's method; the last registered runs outermost.
--
-- Where hooks live: a hooked module gets a class of its own
-- (torch._ownClass: a nameless subclass of its class, with its name and
-- metamethods); the chain of a hooked method is a method of that class.
-- The module's fields are untouched, so torch.save (which writes the class
-- by name), clone (which copies fields and gives the copy the class) and
-- :type() never see a hook. A module never hooked, or whose last hook was
-- removed, has its class back and runs exactly the class's code.
local torch = torch

local hooks = {}

-- module -> {method -> list of handles, registration order}; a list's
-- 'own' is the module's own function field for that method, if it had one
local registry = setmetatable({}, {__mode = 'k'})

-- the method 'k' as the module's class answers it, found at each call (a
-- class may change after the hook went on: nngraph redefines __call__)
local function classMethod(cls, k)
  return function(self, ...)
    local f = cls[k]
    if type(f) ~= 'function' then
      error(string.format("%s: the class's method '%s' is gone (hooked)", torch.type(self), k), 2)
    end
    return f(self, ...)
  end
end

-- puts the chain of 'k' on the module's own class (nil: no hooks on k)
local function rebuild(m, own, k, list)
  if not list or #list == 0 then
    rawset(own, k, nil)
    return
  end
  local f = list.own or classMethod(torch._classOf(own), k)
  for _, h in ipairs(list) do
    local fn, nextf = h.fn, f
    f = function(self, ...) return fn(nextf, self, ...) end
  end
  rawset(own, k, f)
end

local Handle = {}
Handle.__index = Handle

-- removes exactly this hook; a second call does nothing
function Handle:remove()
  local m = self.module
  local byMethod = m and registry[m]
  self.module = nil
  if not byMethod then return end
  local list = byMethod[self.method]
  for i = #(list or {}), 1, -1 do
    if list[i] == self then table.remove(list, i) break end
  end
  local own = getmetatable(m)
  -- a module whose class was changed under it (cudnn.convert) has lost its hooks
  local isOwn = torch._classOf(own) ~= own
  if isOwn then rebuild(m, own, self.method, list) end
  if #list == 0 then
    byMethod[self.method] = nil
    -- the module's own function goes back where it was
    if list.own and rawget(m, self.method) == nil then rawset(m, self.method, list.own) end
  end
  if next(byMethod) == nil then
    registry[m] = nil
    if isOwn then torch._dropOwnClass(m) end
  end
end

function Handle:__tostring()
  return string.format('nn hook on %s', self.method)
end

local function fail(m, fmt, ...)
  error(string.format('%s:hook: ' .. fmt, torch.type(m), ...), 3)
end

function hooks.hook(m, method, fn)
  if type(method) ~= 'string' then
    fail(m, 'method name (string) expected as argument 1, got %s', torch.type(method))
  end
  if type(fn) ~= 'function' then
    fail(m, 'function(nextf, self, ...) expected as argument 2, got %s', torch.type(fn))
  end
  local field = rawget(m, method)
  if field ~= nil and type(field) ~= 'function' then
    fail(m, "'%s' is a field of this module (a %s), not a method", method, torch.type(field))
  end
  local cls = torch._classOf(getmetatable(m))
  if field == nil and type(cls[method]) ~= 'function' then
    fail(m, "no method '%s' to hook", method)
  end
  -- hooks registered before the module's class was changed under it are gone
  if registry[m] and torch._classOf(getmetatable(m)) == getmetatable(m) then registry[m] = nil end
  local own = torch._ownClass(m)
  local byMethod = registry[m]
  if not byMethod then
    byMethod = {}
    registry[m] = byMethod
  end
  local list = byMethod[method]
  if not list then
    -- a function set on the module itself (a frozen layer's no-op
    -- accGradParameters) is what the chain goes around, kept here while
    -- hooked: the hook's own class cannot be reached past an own field
    list = {own = field}
    byMethod[method] = list
    if field then rawset(m, method, nil) end
  end
  local h = setmetatable({module = m, method = method, fn = fn}, Handle)
  list[#list + 1] = h
  rebuild(m, own, method, list)
  return h
end

function hooks.hooked(m, method)
  if method ~= nil and type(method) ~= 'string' then
    error(string.format('%s:hooked: method name (string) or nothing expected as argument 1, got %s',
                        torch.type(m), torch.type(method)), 2)
  end
  local byMethod = registry[m]
  if not byMethod then return false end
  -- a module whose class was changed under it has no hooks any more
  local own = getmetatable(m)
  if torch._classOf(own) == own then return false end
  if method == nil then return next(byMethod) ~= nil end
  return byMethod[method] ~= nil
end

return hooks
