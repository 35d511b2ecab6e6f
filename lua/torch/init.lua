-- torch: Torch7's tensor library on a C core, for Lua 5.4.
-- This file wires the C module to Lua: the class system, the tensor and
-- storage type tables, the default type, and loads the sugar modules.

local C = require 'torch.core'

torch = torch or {}   -- Torch7 scripts expect the global
local torch = torch
torch._C = C

require 'torch.class'
require 'torch.include'

torch.pointer = C.pointer
torch.setnumthreads = C.setnumthreads
torch.getnumthreads = C.getnumthreads
torch.memoryStats = C.memoryStats
torch.resetPeakMemory = C.resetPeakMemory
torch.gemmInfo = C.gemmInfo
torch.cpuInfo = C.cpuInfo
-- the calling thread's kernel workspace (src/tensor/th_scratch.c)
torch.releaseScratch = C.releaseScratch
torch.blockCacheLimit = C.blockCacheLimit
torch.freeBlockCache = C.freeBlockCache
-- Torch7 told Lua's GC about tensor memory only with heap tracking on; here
-- the binding always does (th_alloc counts every byte), so the switch is
-- only recorded, as Torch7 recorded it (docs/compat.md)
function torch.setheaptracking(on)
  if type(on) ~= 'boolean' then
    error(string.format('torch.setheaptracking: boolean expected, got %s', type(on)), 2)
  end
  torch._heaptracking = on
end

local typenames = C.dtypeNames   -- {'Byte', 'Char', ...}: the C core's one list
torch._typenames = typenames
torch._tensortypes = {}   -- 'torch.FloatTensor' -> dtype name
torch._metatables = {}    -- 'torch.FloatTensor' -> metatable

for _, name in ipairs(typenames) do
  local dt = C.dtypes[name]
  local tname, sname = 'torch.' .. name .. 'Tensor', 'torch.' .. name .. 'Storage'
  local tmt, smt = C.tensorMetatables[name], C.storageMetatables[name]
  tmt.__name = tname
  smt.__name = sname
  tmt.new = C.constructor(dt, C.newTensor, true)
  smt.new = C.constructor(dt, C.newStorage, true)
  -- constructor tables: torch.FloatTensor(2, 3); torch.FloatTensor.add is the method
  -- (__call is C: an error in the arguments points at the caller's line)
  torch[name .. 'Tensor'] = setmetatable({}, {
    __call = C.constructor(dt, C.newTensor),
    __index = tmt, __newindex = tmt, __tostring = function() return tname end})
  torch[name .. 'Storage'] = setmetatable({}, {
    __call = C.constructor(dt, C.newStorage),
    __index = smt, __newindex = smt, __tostring = function() return sname end})
  torch._tensortypes[tname] = name
  torch._metatables[tname] = tmt
  torch._metatables[sname] = smt
  torch._registerBuiltin(tname, tmt, torch[name .. 'Tensor'])
  torch._registerBuiltin(sname, smt, torch[name .. 'Storage'])
end

local defaultname = 'torch.DoubleTensor'

function torch.setdefaulttensortype(name)
  local short = torch._tensortypes[name]
  if short ~= 'Float' and short ~= 'Double' then
    error(string.format("torch.setdefaulttensortype: 'torch.FloatTensor' or 'torch.DoubleTensor' expected, got %s", tostring(name)), 2)
  end
  defaultname = name
  torch.Tensor = torch[short .. 'Tensor']
  torch.Storage = torch[short .. 'Storage']
end

function torch.getdefaulttensortype() return defaultname end

torch.setdefaulttensortype('torch.DoubleTensor')

function torch.isTensor(x) return torch._tensortypes[torch.typename(x) or ''] ~= nil end
function torch.isStorage(x)
  local n = torch.typename(x)
  return n ~= nil and n:match('^torch%.%a+Storage$') ~= nil
end

-- sugar and services, one file each
require 'torch.Tensor'
for _, m in ipairs{'torch.math', 'torch.index', 'torch.print', 'torch.random', 'torch.multinomial', 'torch.mathmore', 'torch.File', 'torch.Timer',
                   'torch.compat', 'torch.scope', 'torch.Tester', 'torch.CmdLine'} do
  local ok, err = pcall(require, m)
  if not ok and not tostring(err):find("module '" .. m .. "' not found", 1, true) then error(err, 0) end
end

-- Torch7's torch loaded paths (the global 'paths'); it needs LuaFileSystem
-- (Debian's lua-filesystem, installed by tools/deps.sh): without it torch
-- loads and paths does not
do
  local ok, err = pcall(require, 'paths')
  if not ok and not tostring(err):find("module 'lfs' not found", 1, true) then error(err, 0) end
end

return torch
