-- argcheck.env: the type functions every checker is built with.
--
-- env.istype(obj, typename) decides whether an argument fits a rule's
-- `type`; env.type(obj) names an argument's type in error messages. A user
-- may replace either (a class system of their own): a checker keeps the
-- istype it was created with, later replacements do not reach it.
--
-- These functions reach torch, getmetatable, rawget... as globals, never as
-- upvalues: a checker (and its istype) can then be written by
-- torch.File:writeObject, which leaves _ENV out but cannot write the C
-- functions a local would capture.

local env = {}

-- Without torch: a table whose metatable has a __typename is of that type.
local function plainIstype(obj, typename)
  local mt = getmetatable(obj)
  if type(mt) == 'table' then
    local name = rawget(mt, '__typename')
    if name then return name == typename end
  end
  return type(obj) == typename
end

local function plainType(obj)
  local mt = getmetatable(obj)
  if type(mt) == 'table' then
    local name = rawget(mt, '__typename')
    if name then return name end
  end
  return type(obj)
end

-- Does class name `name` satisfy rule type `typename`? The rule type is a
-- Lua pattern, as in Torch7's argcheck: 'torch.*Tensor' takes any tensor,
-- '.*Long' any class with Long in its name. A match that is the rule text
-- itself must be the whole name: 'torch.Long' is not 'torch.LongTensor'.
-- A rule type that is no valid pattern compares as plain text.
local function nameFits(name, typename)
  if name == typename then return true end
  local ok, m = pcall(string.match, name, typename)
  return ok and m ~= nil and (m ~= typename or m == name)
end

-- The parent class metatable of a class metatable, whichever way the class
-- system chains them: luaT's (the metatable's metatable is the parent's) or
-- through an __index table.
local function parentClass(mt)
  local up = getmetatable(mt)
  if type(up) ~= 'table' then return nil end
  if rawget(up, '__typename') then return up end
  local index = rawget(up, '__index')
  if type(index) == 'table' and rawget(index, '__typename') then return index end
  return nil
end

-- The torch class name of obj as luaT_typename found it: from obj's own
-- metatable, not the one a __metatable field shows. A class constructor
-- table (nn.Linear) shows its class's metatable to getmetatable but is a
-- plain 'table' to Torch7's argcheck (torchnet passes them as tables).
-- (A userdata whose metatable hides behind __metatable keeps the name
-- torch.typename gives it.)
local function rawTypename(obj)
  local mt = debug.getmetatable(obj)
  local name = type(mt) == 'table' and rawget(mt, '__typename') or nil
  if type(name) == 'string' then return name, mt end
  if type(obj) == 'userdata' then
    name = torch.typename(obj)
    if name then return name, torch.getmetatable(name) or getmetatable(obj) end
  end
  return nil, nil
end

-- With torch: a torch object (tensor, storage, class instance) fits its own
-- class name and every parent's, never 'table' or 'userdata'; anything else
-- fits the name type() gives it.
local function torchIstype(obj, typename)
  local name, mt = rawTypename(obj)
  if not name then return type(obj) == typename end
  if nameFits(name, typename) then return true end
  if torch.isTypeOf(obj, typename) then return true end
  local seen = 0
  mt = torch.getmetatable(name) or mt
  mt = type(mt) == 'table' and parentClass(mt) or nil
  while mt and seen < 256 do
    local parent = rawget(mt, '__typename')
    if type(parent) == 'string' and nameFits(parent, typename) then return true end
    mt = parentClass(mt)
    seen = seen + 1
  end
  return false
end

-- the name in usage texts: torch.type's, 'table' for a class constructor
local function torchType(obj)
  return rawTypename(obj) or type(obj)
end

if pcall(require, 'torch') and type(torch) == 'table' and torch.typename then
  env.istype = torchIstype
  env.type = torchType
else
  env.istype = plainIstype
  env.type = plainType
end

return env
