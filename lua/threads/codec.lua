-- threads.codec: the serialization both threads.serialize (copies) and
-- threads.sharedserialize (shares) are made of. A value is written with
-- torch's own writeObject (closures with their upvalues, tables, torch
-- classes) into a string, plus the list of shared references it carries
-- ({pointer, constructor, ...}, the protocol of docs/threads.md): each
-- object shared is written as a 'threads.Ref' naming its place in that
-- list, and the reader's factory for that class adopts it, so that the
-- object is in place before any class reading around it checks it.
-- Modules (tables of package.loaded) go by name and are require'd on the
-- other side rather than copied.
require 'torch'
local core = require 'threads.core'

local codec = {}

local REF = 'threads.Ref'
local MODREF = 'threads.ModuleRef'

-- the file being read, for the factories below (reads do not nest across
-- files: a read runs to its end in one Lua state)
local reading = nil
local adopted = nil   -- reading's refs: index -> true once adopted
local readrefs = nil

local refmt = {__typename = REF, __version = 1}
refmt.__index = refmt
function refmt.write(ref, f) f:writeInt(ref.k) end
function refmt.read() end

local modmt = {__typename = MODREF, __version = 1}
modmt.__index = modmt
function modmt.write(ref, f) f:writeObject(ref.name) end
function modmt.read() end

local function adopt(k)
  local ptr, ctor = readrefs[2 * k - 1], readrefs[2 * k]
  if ptr == nil or adopted[k] then
    error(string.format('threads: shared reference %d is missing from the message', k), 0)
  end
  adopted[k] = true
  local modname, fname = ctor:match('^(.*)%.([^%.]+)$')
  if not modname then error(string.format("threads: bad shared-object constructor '%s'", ctor), 0) end
  local mod = require(modname)
  local fn = type(mod) == 'table' and mod[fname]
  if type(fn) ~= 'function' then
    error(string.format("threads: the constructor '%s' of a shared object does not exist", ctor), 0)
  end
  return fn(ptr)
end

torch._registerBuiltin(REF, refmt, function()
  if not reading then error('threads: a threads.Ref outside threads.codec', 0) end
  return adopt(reading:readInt())
end)
torch._registerBuiltin(MODREF, modmt, function()
  if not reading then error('threads: a threads.ModuleRef outside threads.codec', 0) end
  local name = reading:readObject()
  local ok, mod = pcall(require, name)
  if not ok then
    error(string.format("threads: the module '%s' an upvalue refers to cannot be loaded in this thread: %s",
                        tostring(name), tostring(mod)), 0)
  end
  return mod
end)

local function isTorchData(obj)
  local tn = torch.typename(obj)
  return tn ~= nil and (torch.isTensor(obj) or torch.isStorage(obj))
end

-- a module of code (functions, classes) goes by name: the thread's own
-- copy is the same code, and Torch7 could not copy one holding C functions.
-- A module of plain data (a config table a script may have changed since
-- it was loaded) is copied, as Torch7 did.
local function isCode(mod)
  for _, v in next, mod do
    local t = type(v)
    if t == 'function' or t == 'userdata' or (t == 'table' and getmetatable(v) ~= nil) then return true end
  end
  return mod == _G
end

-- loaded modules of code -> their name; made again when a table of code
-- is not in it and package.loaded has changed size (checked at most once
-- per encode): package.loaded changes rarely
local modules = setmetatable({}, {__mode = 'k'})
local nloaded = -1
local function rebuildModules()
  local n = 0
  for _ in next, package.loaded do n = n + 1 end
  if n == nloaded then return false end
  nloaded = n
  modules = setmetatable({}, {__mode = 'k'})
  for name, mod in pairs(package.loaded) do
    if type(mod) == 'table' and type(name) == 'string' and isCode(mod) then
      -- the shortest name wins: 'torch' rather than an alias
      if not modules[mod] or #name < #modules[mod] then modules[mod] = name end
    end
  end
  return true
end

-- codec.encode(value, share) -> bytes, refs
function codec.encode(value, share)
  local refs, nrefs, memo = {}, 0, {}
  local rebuilt = false
  local hook
  function hook(obj)
    local t = type(obj)
    if t ~= 'table' and t ~= 'userdata' then return obj end
    local m = memo[obj]
    if m then return m end
    if t == 'table' then
      local name = modules[obj]
      -- a module of code not seen yet (required since the map was made)
      if name == nil and not rebuilt and isCode(obj) then
        rebuilt = true
        if rebuildModules() then name = modules[obj] end
      end
      if name then
        m = setmetatable({name = name}, modmt)
        memo[obj] = m
        return m
      end
      -- a class instance: torch's writer skips fields it cannot write
      -- before this hook sees them, so shared userdata fields are put in
      -- as references on a copy written in the instance's place
      if torch.typename(obj) and not torch.isTensor(obj) then
        local copy
        for k, v in next, obj do
          if type(v) == 'userdata' then
            local r = hook(v)
            if r ~= v then
              if not copy then
                copy = {}
                for k2, v2 in next, obj do copy[k2] = v2 end
              end
              copy[k] = r
            end
          end
        end
        if copy then
          m = setmetatable(copy, getmetatable(obj))
          memo[obj] = m
          return m
        end
      end
      return obj
    end
    -- userdata: torch data is shared only in shared mode; anything with
    -- __share (tds, threads' own objects) always is
    local mt = getmetatable(obj)
    local shareit
    if isTorchData(obj) then
      if not share then return obj end
      shareit = core.share
    elseif type(mt) == 'table' and type(rawget(mt, '__share')) == 'function' then
      shareit = mt.__share
    else
      return obj
    end
    local ptr, ctor = shareit(obj)
    if type(ptr) ~= 'userdata' or type(ctor) ~= 'string' then
      error(string.format('threads: __share of a %s must return a light userdata and a constructor name', torch.type(obj)), 0)
    end
    nrefs = nrefs + 1
    refs[2 * nrefs - 1], refs[2 * nrefs] = ptr, ctor
    m = setmetatable({k = nrefs}, refmt)
    memo[obj] = m
    return m
  end
  local f = torch.MemoryFile(nil, 'threads')
  f:binary()
  local ok, err = pcall(f.writeObject, f, value, nil, hook)
  if not ok then
    codec.release(refs)
    error(err, 0)
  end
  local bytes = f:string()
  f:close()
  return bytes, refs
end

-- drops the references of refs not marked in 'done' (a message never read,
-- or read only in part): ours are released at once; another package's are
-- adopted and left to this state's garbage collector
function codec.release(refs, done)
  for k = 1, #refs // 2 do
    if not (done and done[k]) then
      local ptr, ctor = refs[2 * k - 1], refs[2 * k]
      if ctor == 'threads._adopt' then
        pcall(core.drop, ptr)
      else
        pcall(function()
          local modname, fname = ctor:match('^(.*)%.([^%.]+)$')
          require(modname)[fname](ptr)
        end)
      end
    end
  end
end

-- codec.decode(bytes, refs) -> value
function codec.decode(bytes, refs)
  local f = torch.MemoryFile(bytes, 'threads')
  f:binary()
  local saved = {reading, adopted, readrefs}
  reading, adopted, readrefs = f, {}, refs or {}
  local trusted = torch.trustBytecode(true)  -- bytecode from this process
  local ok, value = pcall(f.readObject, f)
  torch.trustBytecode(trusted)
  local done = adopted
  reading, adopted, readrefs = saved[1], saved[2], saved[3]
  f:close()
  if refs and #refs > 0 then codec.release(refs, done) end
  if not ok then error(value, 0) end
  return value
end

-- the module threads.serialize (share = false) or threads.sharedserialize
-- (share = true): encode/decode for the queues, and upstream's
-- save(value) -> CharStorage / load(storage) -> value, the references
-- travelling as integers inside the storage
function codec.serializer(name, share)
  local core = require 'threads.core'
  local M = {}
  function M.encode(value) return codec.encode(value, share) end
  M.decode = codec.decode
  M.release = codec.release
  function M.save(value)
    local bytes, refs = M.encode(value)
    local ints = {}
    for k = 1, #refs // 2 do ints[2 * k - 1], ints[2 * k] = core.ptrtoint(refs[2 * k - 1]), refs[2 * k] end
    local f = torch.MemoryFile()
    f:binary()
    f:writeObject({bytes = bytes, refs = ints})
    local st = f:storage()
    f:close()
    return st
  end
  function M.load(storage)
    if not (torch.isStorage(storage) or type(storage) == 'string') then
      error(name .. '.load: a CharStorage (from save) expected, got ' .. torch.type(storage), 2)
    end
    local f = torch.MemoryFile(storage)
    f:binary()
    local msg = f:readObject()
    f:close()
    local refs = {}
    for k = 1, #msg.refs // 2 do
      refs[2 * k - 1], refs[2 * k] = core.inttoptr(msg.refs[2 * k - 1]), msg.refs[2 * k]
    end
    return codec.decode(msg.bytes, refs)
  end
  return M
end

return codec
