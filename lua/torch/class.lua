-- torch.class: Torch7's class system in plain Lua.
-- A class is a metatable that is also its methods table; as in luaT, the
-- class's own metatable is its parent class (getmetatable(Linear's
-- metatable) == Module's metatable), and lookups follow that chain through
-- each class's __index. Metamethods defined Torch7-style as __tostring__,
-- __call__, __len__ are found through the chain, so subclasses inherit them.

local torch = torch
local registry = {}      -- typename -> metatable
local constructors = {}  -- typename -> constructor table
local classOfCtor = setmetatable({}, {__mode = 'k'})  -- constructor table -> typename

-- the class metatables (a class is also an object of its parent class:
-- the parent's metamethods and hooks must leave it alone)
local isClass = setmetatable({}, {__mode = 'k'})

local function forward(mm)
  return function(self, ...)
    if isClass[self] then return rawget(self, '__typename') end
    local f = self[mm]
    if f then return f(self, ...) end
    if mm == '__tostring__' then return torch.typename(self) end
    error(string.format('%s: object has no %s method', torch.typename(self) or '?', mm), 2)
  end
end

-- Torch7 gives every class all the operators: each looks up the method
-- '__op__' through the class chain (nngraph redefines nn.Module.__call__
-- after nn's classes exist; this finds it). A class that sets the
-- metamethod itself (Sequential.__len) serves its subclasses too.
local OPS = {__add = 'addition', __sub = 'substraction', __mul = 'multiplication',
             __div = 'division', __mod = 'modulo', __pow = 'power', __concat = 'concat',
             __lt = 'less-than', __le = 'less-equal', __eq = false, __unm = 'negation',
             __len = 'length', __call = 'call'}
local BINARY = {__add = true, __sub = true, __mul = true, __div = true, __mod = true,
                __pow = true, __concat = true, __lt = true, __le = true, __eq = true}
local dispatchers = setmetatable({}, {__mode = 'k'})

-- the metamethod 'op' a parent class set itself (not a dispatcher), if any
local function inherited(mt, op)
  local p = getmetatable(mt)
  while isClass[p] do
    local f = rawget(p, op)
    if f ~= nil and not dispatchers[f] then return f end
    p = getmetatable(p)
  end
end

local function classOf(v)
  local mt = getmetatable(v)
  return type(mt) == 'table' and type(rawget(mt, '__typename')) == 'string' and mt or nil
end

local function dispatcher(op)
  local method = op .. '__'
  -- varargs all the way: m() must reach __call__ with no argument, not a nil
  local f = function(a, ...)
    local b = ...
    -- a class reached as an object of its parent (#mt, mt == x): plain table
    if isClass[a] or (BINARY[op] and isClass[b]) then
      if op == '__eq' then return rawequal(a, b) end
      if op == '__len' then return rawlen(a) end
      error(string.format('%s: a class table has no %s operator', tostring(rawget(a, '__typename') or a), OPS[op]), 2)
    end
    local mt = classOf(a)
    local m = mt and mt[method]
    if m == nil and BINARY[op] then
      local mb = classOf(b)
      m = mb and mb[method]
      mt = mt or mb
    end
    if m ~= nil then return m(a, ...) end
    local own = mt and inherited(mt, op)
    if own then return own(a, ...) end
    if op == '__eq' then return rawequal(a, b) end
    if BINARY[op] then
      error(string.format('both %s and %s have no %s operator', torch.type(a), torch.type(b), OPS[op]), 2)
    end
    error(string.format('%s has no %s operator', torch.type(a), OPS[op]), 2)
  end
  dispatchers[f] = true
  return f
end

-- classes that define __index__ / __newindex__ (Torch7's hooks: a method
-- that answers 'handled' first) get function metamethods; the others keep
-- plain table lookup, which is faster
local eqDispatcher
local function indexHooks(mt)
  if rawget(mt, '__eq') == nil and mt.__eq__ ~= nil then
    eqDispatcher = eqDispatcher or dispatcher('__eq')
    mt.__eq = eqDispatcher
  end
  if rawget(mt, '__index') == mt and type(mt.__index__) == 'function' then
    mt.__index = function(self, k)
      -- a subclass's metatable looks up its parent's methods through here
      if isClass[self] then return mt[k] end
      local hook = mt.__index__
      local r = table.pack(hook(self, k))
      if r.n > 0 and r[r.n] then return r[1] end
      return mt[k]
    end
  end
  if rawget(mt, '__newindex') == nil and type(mt.__newindex__) == 'function' then
    mt.__newindex = function(self, k, v)
      if isClass[self] or not mt.__newindex__(self, k, v) then rawset(self, k, v) end
    end
  end
end

-- as luaT, the Lua registry maps a class's name to its metatable and the
-- metatable back to the name: code of Torch7's time reads it directly
-- (torchnet's torch.isclass(o) is debug.getregistry()[o])
local REG = debug.getregistry()
local function luaTRegister(name, mt)
  REG[name] = mt
  REG[mt] = name
end

local builtin = {}

function torch._registerBuiltin(name, mt, ctor)
  registry[name] = mt
  luaTRegister(name, mt)
  constructors[name] = ctor
  builtin[name] = true
  if type(ctor) == 'table' then classOfCtor[ctor] = name end
end

function torch._isBuiltin(name)
  return builtin[name] == true
end

-- place the constructor: module.Name, or the global path 'nn.Linear'
local function place(name, ctor, module)
  local short = name:match('([^%.]+)$')
  if module then
    module[short] = ctor
    return
  end
  local t = _G
  local parts = {}
  for p in name:gmatch('[^%.]+') do parts[#parts + 1] = p end
  for i = 1, #parts - 1 do
    local nxt = t[parts[i]]
    if nxt == nil then
      nxt = {}
      t[parts[i]] = nxt
    elseif type(nxt) ~= 'table' then
      error(string.format("torch.class: cannot place class '%s': '%s' is a %s, not a table",
                          name, table.concat(parts, '.', 1, i), type(nxt)), 3)
    end
    t = nxt
  end
  t[parts[#parts]] = ctor
end

-- the parent of a class: a registered class other than the class itself
-- or one of its subclasses (the chain must end)
local function checkParent(name, mt, parentName)
  local parent = registry[parentName]
  if not parent then
    error(string.format("torch.class: parent class '%s' does not exist", parentName), 3)
  end
  if builtin[parentName] then
    error(string.format("torch.class: parent class '%s' is a C type; a Lua class cannot derive from it", parentName), 3)
  end
  local p = parent
  while mt and p do
    if p == mt then
      error(string.format("torch.class: class '%s' cannot have '%s' as parent (the chain would loop)", name, parentName), 3)
    end
    p = getmetatable(p)
  end
  return parent
end

-- torch.class(name [, parentName] [, module]) -> class, parent
-- A name that exists gets its class back, so that re-running a class file,
-- or one file required under two module names, works (issue 33; Torch7's
-- final luaT raised "already assigned a parent class" there, see
-- docs/compat.md); a parent given then becomes the class's parent.
function torch.class(name, parentName, module)
  if type(name) ~= 'string' or name == '' then
    error(string.format("torch.class: class name (string) expected as argument 1, got %s",
                        name == '' and 'an empty string' or torch.type(name)), 2)
  end
  if type(parentName) == 'table' and module == nil then module, parentName = parentName, nil end
  if parentName ~= nil and type(parentName) ~= 'string' then
    error(string.format("torch.class: parent class name (string) or module (table) expected as argument 2, got %s",
                        torch.type(parentName)), 2)
  end
  if module ~= nil and type(module) ~= 'table' then
    error(string.format("torch.class: module (table) expected as argument 3, got %s", torch.type(module)), 2)
  end
  if builtin[name] then
    error(string.format("torch.class: '%s' is a C type; a Lua class cannot take its name", name), 2)
  end
  local mt = registry[name]
  local parent = parentName and checkParent(name, mt, parentName)
  if mt then
    if parent then setmetatable(mt, parent) end
    place(name, constructors[name], module)
    return constructors[name], getmetatable(mt)
  end
  mt = {__typename = name, __version = 1}
  mt.__index = mt
  mt.__tostring = forward('__tostring__')
  -- __eq only once a class in the chain defines __eq__ (see indexHooks):
  -- without one, == is identity, and a metamethod on every comparison of
  -- two modules would only cost time
  for op in pairs(OPS) do
    if op ~= '__eq' then mt[op] = dispatcher(op) end
  end
  isClass[mt] = true
  setmetatable(mt, parent)
  local function new(...)
    indexHooks(mt)
    local obj = setmetatable({}, mt)
    local init = obj.__init
    if init then
      -- called through pcall, as Torch7 called it from C: an error __init
      -- aims at its caller (error(msg, 2)) carries no position rather
      -- than this file's
      local ok, err = pcall(init, obj, ...)
      -- an inner error placed in one of the project's files is the constructor's
      if not ok then error(torch._unplaceInternal and torch._unplaceInternal(name, err) or err, 0) end
    end
    -- a hook run once the whole constructor chain is done (nn: the
    -- module's tensors become module-owned, docs/memory.md)
    local post = obj.__postinit
    if post then post(obj) end
    return obj
  end
  -- as Torch7: instances reach the constructor as obj.new(...)
  mt.new = new
  local ctor = setmetatable({}, {
    __index = mt, __newindex = mt, __metatable = mt,
    __call = function(_, ...) return new(...) end,
    __tostring = function() return name end})
  place(name, ctor, module)
  registry[name] = mt
  luaTRegister(name, mt)
  constructors[name] = ctor
  classOfCtor[ctor] = name
  return ctor, parent
end

function torch.getmetatable(name)
  if type(name) ~= 'string' then
    error(string.format('torch.getmetatable: class name (string) expected, got %s', torch.type(name)), 2)
  end
  return registry[name]
end

-- gives table 'obj' the class 'name' (no constructor runs); returns obj
function torch.setmetatable(obj, name)
  if type(obj) ~= 'table' then
    error(string.format('torch.setmetatable: table expected as argument 1, got %s', torch.type(obj)), 2)
  end
  if type(name) ~= 'string' then
    error(string.format('torch.setmetatable: class name (string) expected as argument 2, got %s', torch.type(name)), 2)
  end
  local mt = registry[name]
  if not mt then error(string.format('torch.setmetatable: unknown class %s', name), 2) end
  if torch._isBuiltin(name) then
    error(string.format('torch.setmetatable: %s is a C type; a table cannot become one', name), 2)
  end
  indexHooks(mt)
  return setmetatable(obj, mt)
end

-- the class version an object was made with (Torch7's __version; 1 here)
function torch.version(obj)
  local mt = getmetatable(obj)
  return type(mt) == 'table' and rawget(mt, '__version') or nil
end

function torch.getconstructortable(name)
  return constructors[name]
end

-- an empty object of class 'name' without calling __init (deserialization)
function torch.factory(name)
  local mt = registry[name]
  if not mt then return nil end
  -- a C type's factory makes an empty one (Torch7: an empty tensor, storage)
  if builtin[name] then return function() return constructors[name]() end end
  return function() indexHooks(mt); return setmetatable({}, mt) end
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
  -- a class may be named, or given as its constructor (nn.Linear) or metatable
  if type(typeSpec) == 'table' then
    typeSpec = classOfCtor[typeSpec] or rawget(typeSpec, '__typename') or torch.typename(typeSpec)
  end
  if type(typeSpec) ~= 'string' then
    error(string.format('torch.isTypeOf: class name, constructor or metatable expected as argument 2, got %s',
                        torch.type(typeSpec)), 2)
  end
  while type(mt) == 'table' do
    local n = rawget(mt, '__typename')
    if n == typeSpec then return true end
    if type(typeSpec) == 'string' and n and typeSpec:find('[%*%+%^%$%[%]]') and n:match(typeSpec) then return true end
    -- up the class chain (a C type's metatable ends it)
    if not isClass[mt] then break end
    mt = getmetatable(mt)
  end
  return false
end

-- --- a class of one object's own ---------------------------------------------
-- torch._ownClass(obj) gives 'obj' (an object of a Lua class) a class of its
-- own and returns it: a nameless subclass of its class, with its class's
-- name, version and metamethods, so that torch.typename, torch.type,
-- torch.isTypeOf, the operators and torch.save (which writes the class by
-- name) see obj's class. What is set on the own class (rawset) reaches obj
-- alone: nn.Module's hooks live there, outside obj's fields, so they are
-- never saved or copied. torch._dropOwnClass(obj) gives obj its class back;
-- torch._classOf(mt) is the class an own class stands for (mt otherwise).
local ownOf = setmetatable({}, {__mode = 'k'})    -- own class -> class
-- what Lua reads from a metatable raw (a metamethod is never inherited)
local RAW = {'__tostring', '__call', '__len', '__eq', '__lt', '__le', '__unm', '__add', '__sub', '__mul',
             '__div', '__mod', '__pow', '__idiv', '__band', '__bor', '__bxor', '__shl', '__shr', '__bnot',
             '__concat', '__newindex', '__close', '__gc', '__mode', '__name', '__pairs', '__metatable',
             '__typename', '__version'}

function torch._ownClass(obj)
  local mt = getmetatable(obj)
  if ownOf[mt] then return mt end
  if not isClass[mt] then
    error(string.format('torch._ownClass: an object of a Lua class expected, got %s', torch.type(obj)), 2)
  end
  local own = {}
  for _, k in ipairs(RAW) do own[k] = rawget(mt, k) end
  local index = rawget(mt, '__index')
  if index == mt then
    own.__index = own
  else
    -- a class with an __index__ hook: own methods first, then the class's way
    own.__index = function(self, k)
      local v = rawget(own, k)
      if v ~= nil then return v end
      return index(self, k)
    end
  end
  isClass[own] = true
  ownOf[own] = mt
  setmetatable(own, mt)
  setmetatable(obj, own)
  return own
end

function torch._dropOwnClass(obj)
  local mt = getmetatable(obj)
  if ownOf[mt] then setmetatable(obj, ownOf[mt]) end
  return obj
end

function torch._classOf(mt)
  return ownOf[mt] or mt
end

-- parent class name of a class name, or nil
function torch.parentname(name)
  local mt = registry[name]
  local p = mt and isClass[mt] and getmetatable(mt)
  return p and rawget(p, '__typename') or nil
end

return torch
