-- ffi: what of LuaJIT's FFI a Lua 5.4 runtime can give honestly (docs/compat.md).
-- Torch7 packages load it at their top (torchx: `ffi = require 'ffi'`) and most
-- use it on a path a script may never take. Here: the platform facts (os, arch,
-- abi) and the sizes of C's scalar types, pointers and arrays, which are facts
-- of this ABI (x86-64 / aarch64 Linux, LP64). What needs a C compiler's view
-- of memory (cdef'd declarations, C calls, raw pointers, cdata) is an error
-- that names the call and the way round it, never a wrong answer.
local ffi = {}

ffi.os = 'Linux'
ffi.arch = (function()
  local f = io.popen and io.popen('uname -m 2>/dev/null')
  local m = f and f:read('l') or ''
  if f then f:close() end
  if m == 'aarch64' then return 'arm64' end
  return 'x64'
end)()

local abi = {['64bit'] = true, le = true, fpu = true, hardfp = ffi.arch == 'arm64', eabi = false,
             win = false, gc64 = true, uwp = false, softfp = false, ['32bit'] = false, be = false}

-- ffi.abi(param): true when the ABI has that property ('64bit', 'le', ...)
function ffi.abi(param)
  if type(param) ~= 'string' then
    error(string.format('ffi.abi: string expected, got %s', type(param)), 2)
  end
  return abi[param] == true
end

-- sizes and alignments of C's scalar types on LP64
local scalar = {
  char = 1, ['signed char'] = 1, ['unsigned char'] = 1, bool = 1, _Bool = 1,
  short = 2, ['short int'] = 2, ['unsigned short'] = 2, ['signed short'] = 2,
  int = 4, ['signed int'] = 4, ['unsigned int'] = 4, unsigned = 4, signed = 4,
  long = 8, ['long int'] = 8, ['unsigned long'] = 8, ['signed long'] = 8,
  ['long long'] = 8, ['unsigned long long'] = 8, ['signed long long'] = 8,
  float = 4, double = 8, ['long double'] = 16,
  int8_t = 1, uint8_t = 1, int16_t = 2, uint16_t = 2, int32_t = 4, uint32_t = 4,
  int64_t = 8, uint64_t = 8, size_t = 8, ssize_t = 8, ptrdiff_t = 8, intptr_t = 8,
  uintptr_t = 8, off_t = 8, wchar_t = 4,
}

local function normalize(ct)
  return (ct:gsub('^%s*const%s+', ''):gsub('%s+const%s*$', ''):gsub('%s+', ' '):gsub('^ ', ''):gsub(' $', ''))
end

-- size of ct (a C type as a string), nelem filling a '[?]' array
local function sizeOf(fname, ct, nelem)
  if type(ct) ~= 'string' then
    error(string.format('%s: a C type name (string) expected, got %s (cdata does not exist on Lua 5.4)',
                        fname, torch and torch.typename(ct) or type(ct)), 3)
  end
  local t = normalize(ct)
  if t:match('%*$') then return 8, 8 end
  local elem, n = t:match('^(.-)%s*%[%s*(%d*%??)%s*%]$')
  if elem then
    local es, ea = sizeOf(fname, elem)
    if n == '?' then
      if math.type(nelem) ~= 'integer' or nelem < 0 then
        error(string.format("%s: '%s' needs a count (non-negative integer) as argument 2, got %s", fname, ct, tostring(nelem)), 3)
      end
      return es * nelem, ea
    end
    if n == '' then return nil, ea end
    return es * tonumber(n), ea
  end
  local s = scalar[t]
  if not s then
    error(string.format("ffi: %s: '%s' is not a C scalar, pointer or array type known here (ffi.cdef declarations are not available on Lua 5.4: docs/compat.md)",
                        fname, ct), 3)
  end
  return s, math.min(s, 16)
end

-- ffi.sizeof(ct [, nelem]) -> bytes
function ffi.sizeof(ct, nelem) return (sizeOf('ffi.sizeof', ct, nelem)) end

-- ffi.alignof(ct) -> bytes
function ffi.alignof(ct) return select(2, sizeOf('ffi.alignof', ct)) end

-- What needs LuaJIT: an error naming the call and the way round it
local unavailable = {
  cdef = 'C declarations', new = 'C data objects', cast = 'C pointer casts', typeof = 'C type objects',
  metatype = 'C type metatables', gc = 'finalizers on C data', load = 'loading C libraries',
  string = 'reading raw memory', copy = 'writing raw memory', fill = 'writing raw memory',
  offsetof = 'C struct layouts', istype = 'C type objects', errno = "C's errno",
  tonumber = 'C data objects',
}
for name, what in pairs(unavailable) do
  ffi[name] = function()
    error(string.format('ffi.%s: %s need LuaJIT, and this runtime is Lua 5.4 (docs/compat.md): '
                        .. 'use tensor and storage methods (copy, narrow, string conversions with torch.CharTensor) instead',
                        name, what), 2)
  end
end

-- ffi.C.anything: the same error, raised where the script touches it
ffi.C = setmetatable({}, {__index = function(_, k)
  error(string.format("ffi.C.%s: calling C functions needs LuaJIT, and this runtime is Lua 5.4 (docs/compat.md)",
                      tostring(k)), 2)
end})

return ffi
