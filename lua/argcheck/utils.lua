-- argcheck.utils: upvalue access by name (a checker keeps its tree in the
-- upvalue `graph`, its type function in `istype`) and a shallow table copy.

local utils = {}

local function upvalueIndex(func, name)
  local i = 1
  while true do
    local uname = debug.getupvalue(func, i)
    if uname == nil then return nil end
    if uname == name then return i end
    i = i + 1
  end
end

-- utils.getupvalue(func, name [, quiet]) -> the value of func's upvalue
-- `name`; an error when there is none, unless quiet
function utils.getupvalue(func, name, quiet)
  local i = upvalueIndex(func, name)
  if i then
    local _, value = debug.getupvalue(func, i)
    return value
  end
  if not quiet then error(string.format('unknown upvalue <%s>', tostring(name)), 2) end
end

-- utils.setupvalue(func, name, value [, quiet]) -> the previous value
function utils.setupvalue(func, name, value, quiet)
  local i = upvalueIndex(func, name)
  if i then
    local _, old = debug.getupvalue(func, i)
    debug.setupvalue(func, i, value)
    return old
  end
  if not quiet then error(string.format('unknown upvalue <%s>', tostring(name)), 2) end
end

-- utils.duptable(t) -> a new table with t's keys and values
function utils.duptable(t)
  local copy = {}
  for k, v in pairs(t) do copy[k] = v end
  return copy
end

return utils
