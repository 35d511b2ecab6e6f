-- tds: data structures whose memory lives outside the Lua heap (Torch7's
-- torch/tds API): tds.Hash, tds.Vec and tds.AtomicCounter. The containers
-- are C (src/tds, inside torch/core.so); this file adds what is easier in
-- Lua: constructors from Lua tables, printing, concat, and Torch
-- serialization in Torch7's tds format (a count, then the elements as
-- objects), so that a tds object inside a saved table round-trips.
--
-- Elements: numbers (integers stay integers), strings, booleans, tds
-- containers (nested, reference-counted) and torch tensors and storages.
-- See docs/tds.md.

require 'torch'

local core = package.searchpath('torch.core', package.cpath)
local open = core and package.loadlib(core, 'luaopen_tds_core')
if not open then
  error("tds: cannot load the tds functions from torch/core.so" .. (core and ' (' .. core .. ')' or ''), 2)
end
local C = open()

local tds = {}
local hashMeta, vecMeta, atomicMeta = C.hashMeta, C.vecMeta, C.atomicMeta
local vecMethods = C.vecMethods

-- --- constructors -------------------------------------------------------

-- a Lua table with only number keys becomes a tds.Vec, any other a tds.Hash
local function isvec(tbl)
  for k in pairs(tbl) do
    if type(k) ~= 'number' then return false end
  end
  return true
end

local convert

-- converts the value of a Lua table being copied in; 'seen' holds the
-- tables on the current path, so that a table inside itself is an error
-- rather than an endless recursion
local function element(v, seen, fname)
  if type(v) == 'table' and getmetatable(v) == nil then
    if seen[v] then
      error(fname .. ': the table contains itself (tds structures cannot hold reference loops)', 0)
    end
    seen[v] = true
    local r = convert(v, isvec(v) and 'vec' or 'hash', seen, fname)
    seen[v] = nil
    return r
  end
  return v
end

convert = function(tbl, kind, seen, fname)
  local obj
  if kind == 'vec' then
    obj = C.Vec()
    for k, v in pairs(tbl) do
      local ik = math.tointeger(k)
      if not ik or ik < 1 then
        error(string.format('%s: a Lua table with positive integer keys expected, got key %s', fname, tostring(k)), 0)
      end
      obj[k] = element(v, seen, fname)
    end
  else
    obj = C.Hash()
    for k, v in pairs(tbl) do
      obj[element(k, seen, fname)] = element(v, seen, fname)
    end
  end
  return obj
end

local function callerror(fname, msg)
  error(fname .. ': ' .. msg, 3)
end

local function newHash(_, ...)
  local n = select('#', ...)
  if n == 0 then return C.Hash() end
  local tbl = ...
  if n > 1 or type(tbl) ~= 'table' or getmetatable(tbl) ~= nil then
    callerror('tds.Hash', 'a Lua table or nothing expected, got ' .. (n > 1 and n .. ' arguments' or torch.type(tbl)))
  end
  local ok, r = pcall(convert, tbl, 'hash', {[tbl] = true}, 'tds.Hash')
  if not ok then error(r, 2) end
  return r
end

local function newVec(_, ...)
  local n = select('#', ...)
  if n == 0 then return C.Vec() end
  local first = ...
  local tbl
  if n == 1 and type(first) == 'table' and getmetatable(first) == nil then
    tbl = first
  else
    tbl = table.pack(...)
    tbl.n = nil
  end
  local ok, r = pcall(convert, tbl, 'vec', {[tbl] = true}, 'tds.Vec')
  if not ok then error(r, 2) end
  return r
end

-- tds.AtomicCounter([value]): torchnet's tests pass 0; Torch7 ignored it
local function newAtomic(_, ...)
  local n = select('#', ...)
  local value = ...
  if n > 1 or (value ~= nil and math.type(value) ~= 'integer' and math.tointeger(value) == nil) then
    callerror('tds.AtomicCounter', 'an optional integer start value expected, got ' ..
              (n > 1 and n .. ' arguments' or torch.type(value) .. ' ' .. tostring(value)))
  end
  local c = C.AtomicCounter()
  if value ~= nil then c:set(math.tointeger(value)) end
  return c
end

-- the constructor tables: tds.Hash(...) calls, tds.Hash.__write reads the metatable
local function ctor(mt, new)
  return setmetatable({}, {__index = mt, __call = new,
                           __newindex = function(_, k, v) mt[k] = v end})
end

tds.Hash = ctor(hashMeta, newHash)
tds.hash = tds.Hash
tds.Vec = ctor(vecMeta, newVec)
tds.vec = tds.Vec
tds.AtomicCounter = ctor(atomicMeta, newAtomic)
tds.atomic_counter = tds.AtomicCounter
tds.atomic = tds.AtomicCounter

-- threads: the receiving Lua state makes its own box on a shared object
tds._adopt = C._adopt
-- bytes held outside the Lua heap and live containers (for tests and leak hunting)
tds._memory = C._memory
-- N OS threads incrementing one counter (the spec's check that it is atomic)
tds._testThreads = C._testThreads

-- --- Vec methods written in Lua ---------------------------------------

local function rangeArgs(self, fname, sep, i, j)
  if sep ~= nil and type(sep) ~= 'string' and type(sep) ~= 'number' then
    error(string.format("bad argument #1 to '%s' (separator string expected, got %s)", fname, torch.type(sep)), 3)
  end
  i = i or 1
  j = j or #self
  if math.type(i) ~= 'integer' or math.type(j) ~= 'integer' then
    error(string.format("bad argument to '%s' (integer range i, j expected, got %s, %s)", fname,
                        torch.type(i), torch.type(j)), 3)
  end
  return sep and tostring(sep) or '', i, j
end

-- v:concat([sep [, i [, j]]]): the elements i..j as strings, joined by sep
function vecMethods.concat(self, sep, i, j)
  local s
  s, i, j = rangeArgs(self, 'tds.Vec.concat', sep, i, j)
  local parts = {}
  for k = i, j do
    local v = self[k]
    local str = tostring(v)
    if str == nil then
      error(string.format('tds.Vec.concat: element %d (%s) has no string form', k, torch.type(v)), 2)
    end
    parts[#parts + 1] = str
  end
  return table.concat(parts, s)
end

-- v:concatstorage([sep [, i [, j]]]): concat's result as a torch.CharStorage
function vecMethods.concatstorage(self, sep, i, j)
  local str = vecMethods.concat(self, sep, i, j)
  return torch.CharStorage():string(str)
end

-- --- printing (Torch7's tds layout: at most 20 entries) ----------------

local function indented(kstr, vstr, pad)
  local n = 0
  return (vstr:gsub('([^\n]+)', function(line)
    n = n + 1
    return n == 1 and kstr .. line or pad .. line
  end))
end

function vecMeta.__tostring(self)
  local out = {string.format('tds.Vec[%d]{', #self)}
  for k = 1, #self do
    local kstr = string.format('%5d : ', k)
    out[#out + 1] = indented(kstr, tostring(self[k]), string.rep(' ', #kstr))
    if k == 20 then out[#out + 1] = '...'; break end
  end
  out[#out + 1] = '}'
  return table.concat(out, '\n')
end

local function keystr(k)
  local t = type(k)
  if t == 'string' or t == 'number' or t == 'boolean' then return tostring(k) end
  return torch.type(k)
end

function hashMeta.__tostring(self)
  local out = {string.format('tds.Hash[%d]{', #self)}
  local width, n = 0, 0
  for k in pairs(self) do
    width = math.max(width, #keystr(k))
    n = n + 1
    if n == 20 then break end
  end
  n = 0
  for k, v in pairs(self) do
    local ks = keystr(k)
    out[#out + 1] = indented(ks .. string.rep(' ', width - #ks) .. ' : ', tostring(v), string.rep(' ', width + 3))
    n = n + 1
    if n == 20 then out[#out + 1] = '...'; break end
  end
  out[#out + 1] = '}'
  return table.concat(out, '\n')
end

-- --- Torch serialization: Torch7's tds records (version 0) -------------

function hashMeta.__write(self, f)
  f:writeLong(#self)
  for k, v in pairs(self) do
    f:writeObject(k)
    f:writeObject(v)
  end
end

function hashMeta.__read(self, f)
  local n = f:readLong()
  for _ = 1, n do
    local k = f:readObject()
    local v = f:readObject()
    if k == nil then error('tds.Hash: corrupt record: a nil key', 0) end
    self[k] = v
  end
end

function vecMeta.__write(self, f)
  local n = #self
  f:writeLong(n)
  for k = 1, n do f:writeObject(self[k]) end
end

function vecMeta.__read(self, f)
  local n = f:readLong()
  if n < 0 then error('tds.Vec: corrupt record: negative size ' .. n, 0) end
  self:resize(n)
  for k = 1, n do self[k] = f:readObject() end
end

function atomicMeta.__write(self, f)
  f:writeLong(self:get())
end

function atomicMeta.__read(self, f)
  self:set(f:readLong())
end

hashMeta.__version = 0
vecMeta.__version = 0
atomicMeta.__version = 0
hashMeta.__factory = function() return C.Hash() end
vecMeta.__factory = function() return C.Vec() end
atomicMeta.__factory = function() return C.AtomicCounter() end

-- torch.factory / torch.getmetatable know the three classes (what
-- torch.load needs); registered once per Lua state
if not torch.getmetatable('tds.Hash') then
  torch._registerBuiltin('tds.Hash', hashMeta, C.Hash)
  torch._registerBuiltin('tds.Vec', vecMeta, C.Vec)
  torch._registerBuiltin('tds.AtomicCounter', atomicMeta, C.AtomicCounter)
  -- files of tds's first versions name the class 'tds_hash' and store the
  -- entries as a plain table of fields: with no read hook, torch.load
  -- assigns them into the new hash one by one (as Torch7's tds did)
  torch._registerBuiltin('tds_hash', {}, C.Hash)
end

return tds
