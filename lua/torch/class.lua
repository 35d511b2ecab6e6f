-- torch.class: Torch7's class system in plain Lua.
-- A class is a metatable that is also its methods table; the parent
-- chain goes through the metatable's own metatable. Metamethods defined
-- Torch7-style as __tostring__, __call__, __len__ are found through the
-- chain, so subclasses inherit them.

local torch = torch
local registry = {}      -- typename -> metatable
local constructors = {}  -- typename -> constructor table

local function forward(mm)
  return function(self, ...)
    local f = self[mm]
    if f then return f(self, ...) end
    if mm == '__tostring__' then return torch.typename(self) end
    error(string.format('%s: object has no %s method', torch.typename(self) or '?', mm), 2)
  end
end

function torch._registerBuiltin(name, mt, ctor)
  registry[name] = mt
  constructors[name] = ctor
end

-- torch.class(name [, parentName] [, module]) -> class, parent
function torch.class(name, parentName, module)
  if type(name) ~= 'string' then
    error(string.format("torch.class: class name (string) expected, got %s", type(name)), 2)
  end
  if type(parentName) == 'table' then module, parentName = parentName, nil end
  if registry[name] then
    error(string.format("torch.class: class '%s' already exists", name), 2)
  end
  local parent
  if parentName then
    parent = registry[parentName]
    if not parent then
      error(string.format("torch.class: parent class '%s' does not exist", parentName), 2)
    end
  end
  local mt = {__typename = name}
  mt.__index = mt
  mt.__tostring = forward('__tostring__')
  setmetatable(mt, parent and {__index = parent} or nil)
  if parent then
    -- inherit other metamethods (__call__, __len__ are looked up through the chain)
    for _, k in ipairs{'__call', '__len', '__unm', '__add', '__sub', '__mul', '__div', '__eq', '__lt', '__le', '__concat'} do
      if parent[k] and rawget(mt, k) == nil then mt[k] = parent[k] end
    end
  end
  local ctor = setmetatable({}, {
    __index = mt, __newindex = mt,
    __call = function(_, ...)
      local obj = setmetatable({}, mt)
      local init = obj.__init
      if init then
        -- called through pcall, as Torch7 called it from C: an error __init
        -- aims at its caller (error(msg, 2)) carries no position rather
        -- than this file's
        local ok, err = pcall(init, obj, ...)
        if not ok then error(err, 0) end
      end
      -- a hook run once the whole constructor chain is done (nn: the
      -- module's tensors become module-owned, docs/memory.md)
      local post = obj.__postinit
      if post then post(obj) end
      return obj
    end,
    __tostring = function() return name end})
  registry[name] = mt
  constructors[name] = ctor
  -- place the constructor: module.Name, or the global path 'nn.Linear'
  local short = name:match('([^%.]+)$')
  if module then
    module[short] = ctor
  else
    local t = _G
    local parts = {}
    for p in name:gmatch('[^%.]+') do parts[#parts + 1] = p end
    for i = 1, #parts - 1 do
      t[parts[i]] = t[parts[i]] or {}
      t = t[parts[i]]
    end
    t[parts[#parts]] = ctor
  end
  return ctor, parent
end

function torch.getmetatable(name)
  return registry[name]
end

function torch.getconstructortable(name)
  return constructors[name]
end

-- an empty object of class 'name' without calling __init (deserialization)
function torch.factory(name)
  local mt = registry[name]
  if not mt then return nil end
  return function() return setmetatable({}, mt) end
end

function torch.typename(obj)
  local mt = getmetatable(obj)
  if type(mt) == 'table' then
    local n = rawget(mt, '__typename')
    if type(n) == 'string' then return n end
  end
  return nil
end

function torch.type(obj)
  return torch.typename(obj) or type(obj)
end

-- walks the class chain: torch.isTypeOf(linear, 'nn.Module') -> true
function torch.isTypeOf(obj, typeSpec)
  local mt = getmetatable(obj)
  if type(typeSpec) == 'table' then typeSpec = rawget(typeSpec, '__typename') or torch.typename(typeSpec) end
  while type(mt) == 'table' do
    local n = rawget(mt, '__typename')
    if n == typeSpec then return true end
    if type(typeSpec) == 'string' and n and typeSpec:find('[%*%+%^%$%[%]]') and n:match(typeSpec) then return true end
    local mmt = getmetatable(mt)
    mt = mmt and rawget(mmt, '__index')
  end
  return false
end

-- Values an object holds only for the life of this process: closures that
-- a library installs on an object's fields (optnet's wrappers). torch.save
-- leaves them out without a warning, and deep copies (nn's clone) leave
-- them out too: the library installs them again on what it recognises.
local transient = setmetatable({}, {__mode = 'k'})

function torch._transient(v)
  transient[v] = true
  return v
end

function torch._isTransient(v)
  return transient[v] == true
end

-- parent class name of a class name, or nil
function torch.parentname(name)
  local mt = registry[name]
  local mmt = mt and getmetatable(mt)
  local p = mmt and rawget(mmt, '__index')
  return p and rawget(p, '__typename') or nil
end

return torch
