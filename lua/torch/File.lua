-- Serialization in Torch7's formats: torch.save/load, torch.serialize/
-- deserialize, and the torch.File objects behind them (torch.DiskFile,
-- torch.MemoryFile, torch.PipeFile) whose writeObject/readObject walk the
-- object graph. The files have Torch7's whole API besides (readTYPE and
-- writeTYPE in their scalar and storage forms, readString, ascii spacing,
-- quiet mode and the error flag, byte orders: "Torch7's File API" below).
--
-- A value is a 4-byte type tag (0 nil, 1 number, 2 string, 3 table,
-- 4 torch object, 5 boolean) and its payload; tables and torch objects
-- carry an index, one counter for both in order of first appearance, and
-- a later occurrence writes only the index: that keeps cycles, aliases and
-- storage sharing. Torch objects write "V <version>", their class name and
-- then tensors their geometry, storages their raw elements, and classes a
-- table of their fields (or whatever their __write/write hook writes).
-- The 'ascii' format writes the same items as text lines. Storage payloads
-- move in bulk through C (torch._C.serialize), never element by element.
--
-- Numbers are doubles in the file (as Torch7 writes them). On load, a
-- number with an integral value that fits in a Lua integer becomes an
-- integer (42, not 42.0; -0.0 stays a float); on save, an integer that a
-- double cannot hold exactly is an error rather than a silent rounding.

local torch = torch
local C = torch._C
local S = C.serialize

local spack, sunpack, sformat = string.pack, string.unpack, string.format

local TYPE_NIL, TYPE_NUMBER, TYPE_STRING, TYPE_TABLE, TYPE_TORCH, TYPE_BOOLEAN = 0, 1, 2, 3, 4, 5
local TYPE_FUNCTION, LEGACY_TYPE_RECUR_FUNCTION, TYPE_RECUR_FUNCTION = 6, 7, 8

local MAXDEPTH = 20000   -- tables and objects inside each other, when reading
local CHUNK = 1 << 16    -- bytes read from a file at a time (payloads bypass this)
local FLUSH = 1 << 20    -- bytes buffered before a write to the file
local MAXDIM = 16

-- the classes written and read by this file itself
local builtin = {}
-- a class's old name -> function(): the class to read it as (its package
-- loaded) and check(fields), nil when they are that class's layout, else
-- why not; readTorch asks when no class has the name (nn's renamed
-- recurrent layers: lua/nn/legacy.lua)
torch._legacyClass = torch._legacyClass or {}
local elemsize = C.dtypeSizes   -- Byte = 1, ..., Double = 8
for _, n in ipairs(torch._typenames) do
  -- 'raw': one-byte integers (Byte, Char) are raw bytes in ascii files too, as in Torch7
  local raw = elemsize[n] == 1 and not C.dtypeFloating[n]
  builtin['torch.' .. n .. 'Tensor'] = {kind = 'tensor', dtype = C.dtypes[n], name = n, raw = raw}
  builtin['torch.' .. n .. 'Storage'] = {kind = 'storage', dtype = C.dtypes[n], name = n, raw = raw}
end
-- 'Byte, Char, ..., Float and Double', for the message about a type this build lacks
local typelist = table.concat(torch._typenames, ', ', 1, #torch._typenames - 1) .. ' and ' ..
                 torch._typenames[#torch._typenames]

-- the scalar types of the File API (readTYPE/writeTYPE) and the serializer,
-- one row each: its name with article for messages; its binary format, a
-- key of self._fmt (the file's byte order; Long in longSize bytes); the
-- text an ascii file holds; the range a written integer must fit (Byte and
-- Char wrap to their low 8 bits instead, as C's cast). Byte and Char are
-- raw bytes ('raw'), in ascii files too, as in Torch7.
local SCALAR = {
  Byte = {what = 'a byte', raw = true},
  Char = {what = 'a char', raw = true},
  Short = {what = 'a short', fmt = 'i2', ascii = '%d', range = {-32768, 32767}},
  Int = {what = 'an int', fmt = 'i4', ascii = '%d', range = {-2147483648, 2147483647}},
  Long = {what = 'a long', fmt = 'l', ascii = '%d', range = {math.mininteger, math.maxinteger}},
  Float = {what = 'a float', fmt = 'f', ascii = '%.9g', float = true},
  Double = {what = 'a double', fmt = 'd', ascii = '%.17g', float = true},
}

-- the bytes of one element of type 'name' in a binary file
local function binSize(self, name)
  return name == 'Long' and self._longSize or elemsize[name]
end

local File = torch.class('torch.File')

-- --- state ---------------------------------------------------------------

-- binary formats of the file's encoding: little-endian (Torch7's files on
-- x86) or big-endian (DiskFile:bigEndianEncoding())
local function formats(self)
  local e = self._bigEndian and '>' or '<'
  self._fmt = {i2 = e .. 'i2', i4 = e .. 'i4', i8 = e .. 'i8', f = e .. 'f', d = e .. 'd',
               l = e .. (self._longSize == 4 and 'i4' or 'i8')}
end

local function init(self, name)
  self._name = name
  self._mode = 'ascii'     -- Torch7's default, for DiskFile, MemoryFile and PipeFile
  self._longSize = 8
  self._autospace = true   -- ascii: a space between the elements of a write, a newline after it
  self._quiet = false      -- quiet(): read errors set the error flag instead of raising
  self._err = false        -- hasError()
  self._bigEndian = false
  formats(self)
  self._force = false      -- referenced(false): no object indices are reused
  self._wobj, self._nw = {}, 0
  self._robj = {}
  self._upid, self._nupid, self._upjoin = {}, 0, {}
  self._stack = {}
  -- writer
  self._out, self._outn, self._outbytes = {}, 0, 0
  -- reader: _buf holds the bytes from file offset _base on; _pos is 1-based in _buf
  self._buf, self._pos, self._base = '', 1, 0
end

local function checkopen(self, fname)
  if self._closed then error(sformat('%s%s: file is closed', self._name, fname and ':' .. fname or ''), 0) end
end

function File:binary()
  if not S.littleEndian then
    error(sformat('%s: binary Torch7 files are little-endian; this machine is not', self._name), 0)
  end
  self._mode = 'binary'
  return self
end

function File:ascii()
  self._mode = 'ascii'
  return self
end

function File:isBinary() return self._mode == 'binary' end

-- Torch7's File:longSize(n): 8 (default) or 4 bytes per 'long' in binary files
-- (0: the machine's long, 8 bytes)
function File:longSize(n)
  if n ~= 0 and n ~= 4 and n ~= 8 then
    error(sformat('%s: longSize must be 0, 4 or 8, got %s', self._name, tostring(n)), 0)
  end
  self._longSize = n == 0 and 8 or n
  formats(self)
  return self
end

function File:referenced(ref)
  self._force = not ref
  return self
end

function File:isReferenced() return not self._force end

-- --- errors --------------------------------------------------------------

local function tell(self) return self._base + self._pos - 1 end

local function corrupt(self, at, fmt, ...)
  error(sformat('%s: corrupt at byte %d: ' .. fmt, self._name, at, ...), 0)
end

local function truncated(self, at, n, what)
  local stop = self._base + #self._buf
  if self._size then stop = math.max(stop, self._size) end
  error(sformat('%s: truncated at byte %d (%s at byte %d needs %d bytes, %d left)',
                self._name, stop, what, at, n, math.max(stop - at, 0)), 0)
end

-- a name from a file, safe to print: at most 80 bytes, non-printables escaped
local function printable(s)
  if #s > 80 then s = s:sub(1, 80) .. '...' end
  return (s:gsub('[^\32-\126]', function(c) return sformat('\\%d', c:byte()) end))
end

-- a function's upvalues are written as a table under this name, each entry
-- named by its upvalue: neither shows in the path (Torch7's)
local UPVALUES = {}

local function path(self)
  local parts, st = {}, self._stack
  for i, p in ipairs(st) do
    if p ~= UPVALUES and st[i - 1] ~= UPVALUES then parts[#parts + 1] = tostring(p) end
  end
  return table.concat(parts, '.')
end

-- Lua functions (string.dump works on them), not C functions
local function dumpable(f)
  return type(f) == 'function' and debug.getinfo(f, 'S').what ~= 'C'
end

-- bytecode this process wrote, the only kind read without torch.trustBytecode:
-- Lua 5.4 does not verify bytecode, and a crafted chunk can crash the VM
local dumpedHere = {}
local trusted = false
function torch.trustBytecode(on)
  if on ~= nil and type(on) ~= 'boolean' then
    error('torch.trustBytecode: boolean expected, got ' .. type(on), 2)
  end
  local was = trusted
  if on ~= nil then trusted = on end
  return was
end

-- --- writing: primitives -------------------------------------------------

local function flush(self)
  if self._fh and self._outn > 0 then
    local ok, err = self._fh:write(table.concat(self._out, '', 1, self._outn))
    if not ok then error(sformat('%s: write failed: %s', self._name, tostring(err)), 0) end
    self._out, self._outn, self._outbytes = {}, 0, 0
  end
end

-- a DiskFile opened 'rw' reads and writes through one handle: a write
-- after reads goes where the reads stopped (the read-ahead is dropped), a
-- read after writes sees them (they are flushed first)
local function switch(self, to)
  if self._last == to then return end
  if to == 'w' and self._last == 'r' then
    local at = self._base + self._pos - 1
    self._fh:seek('set', at)
    self._buf, self._pos, self._base, self._all = '', 1, at, false
  elseif to == 'r' and self._last == 'w' then
    flush(self)
    local at = self._fh:seek('cur')
    self._buf, self._pos, self._base, self._all = '', 1, at, false
  end
  self._last = to
end

-- A MemoryFile has one position for reads and writes, as Torch7's: its
-- contents are _buf (from byte 1) then the appended pieces _out. While
-- _out is empty the position is _pos, in _buf: a write there goes over
-- the bytes (and past the end of _buf, appends); once pieces are
-- appended the position is the end, where _pos (#_buf + 1) reads nothing.
local function overwrite(self, s)
  local b, at = self._buf, self._pos
  self._buf = b:sub(1, at - 1) .. s .. b:sub(at + #s)
  self._pos = at + #s
end

local function put(self, s)
  if self._mem and self._outn == 0 and self._pos <= #self._buf then return overwrite(self, s) end
  if self._rw then switch(self, 'w') end
  local n = self._outn + 1
  self._out[n] = s
  self._outn = n
  self._outbytes = self._outbytes + #s
  if self._fh and (self._outbytes >= FLUSH or self._nobuf) then flush(self) end
end

local function checkwrite(self)
  checkopen(self)
  if not self._writable then error(sformat('%s: file is not open for writing', self._name), 0) end
end

-- one ascii value: its text, then (autoSpacing) a newline
local function putAscii(self, s)
  put(self, self._autospace and s .. '\n' or s)
end

-- raw bytes (Byte and Char are raw in ascii files too), then (ascii,
-- autoSpacing) a newline
local function wRaw(self, s)
  put(self, s)
  if self._mode == 'ascii' and self._autospace and #s > 0 then put(self, '\n') end
end

-- one value of type 'name' (SCALAR), as Torch7's writeTYPE(n) wrote it
local function wScalar(self, name, v)
  local T = SCALAR[name]
  if T.raw then return wRaw(self, string.char(v)) end
  if self._mode == 'binary' then return put(self, spack(self._fmt[T.fmt], v)) end
  if name == 'Float' then v = sunpack('f', spack('f', v)) end   -- the float's value, as C's cast
  putAscii(self, sformat(T.ascii, v))
end

-- the serializer's scalars
local function wInt(self, v) wScalar(self, 'Int', v) end
local function wLong(self, v) wScalar(self, 'Long', v) end

local function writeString(self, s)
  if #s > 0x7fffffff then error(sformat('%s: string of %d bytes is too long for the format (at %s)', self._name, #s, path(self)), 0) end
  wInt(self, #s)
  wRaw(self, s)
end

-- a tensor's sizes or strides: one line in ascii, nothing at all when empty
local function writeLongs(self, st, n)
  if self._mode == 'binary' then
    local fmt = self._fmt.l
    for i = 1, n do put(self, spack(fmt, st[i])) end
  elseif n > 0 then
    local t = {}
    for i = 1, n do t[i] = sformat('%d', st[i]) end
    putAscii(self, table.concat(t, self._autospace and ' ' or ''))
  end
end

-- each element's bytes reversed (big-endian files)
local function swapped(bytes, size)
  if size == 1 then return bytes end
  return (bytes:gsub(('.'):rep(size), string.reverse))
end

-- the elements of a storage of type 'name' (Byte, ..., Double), as
-- Torch7's writeTYPE(storage) wrote them: binary, each in its size and the
-- file's byte order (Long in longSize bytes); ascii, Byte and Char raw,
-- numbers as text, with autoSpacing a space between them and a newline
-- after the last. Returns the number of elements.
-- 'who' names the method for a direct write (f:writeLong(storage)); inside
-- writeObject the message names the object's path instead
local function wStorage(self, name, s, who)
  local n = #s
  if n == 0 then return 0 end
  if self._mode == 'binary' then
    if name == 'Long' and self._longSize == 4 then
      local str, bad = S.toint32(s)
      if not str then
        local at = path(self)
        error(sformat('%s: LongStorage element %d (%d) does not fit in 4 bytes (longSize 4)%s', who or self._name, bad,
                      s[bad], at ~= '' and ' at ' .. at or ''), 0)
      end
      put(self, self._bigEndian and swapped(str, 4) or str)
    elseif self._bigEndian then
      put(self, swapped(s:_bytes(), elemsize[name]))
    elseif self._fh and not self._rw then
      flush(self)
      local ok, err = S.write(self._fh, s)
      if not ok then error(sformat('%s: %s', self._name, err), 0) end
    else
      put(self, s:_bytes())
    end
  elseif elemsize[name] == 1 and not C.dtypeFloating[name] then
    wRaw(self, s:_bytes())
  elseif self._autospace then
    putAscii(self, S.asciiformat(s))
  else
    put(self, (S.asciiformat(s):gsub(' ', '')))
  end
  return n
end

local function writeStoragePayload(self, s, info)
  wLong(self, #s)
  wStorage(self, info.name, s)
end

-- --- writing: objects ----------------------------------------------------

local function classOf(obj)
  local tname = torch.typename(obj)
  if tname and torch.factory(tname) then return tname end
  return nil
end

local writeObject

local function writable(v)
  local t = type(v)
  return t == 'nil' or t == 'number' or t == 'string' or t == 'boolean' or t == 'table' or classOf(v) ~= nil
    or dumpable(v)
end

-- Torch7's function record: the bytecode, then the upvalues as a list of
-- {name, id, value} (id: the same for upvalues shared between closures;
-- _ENV is written as nil and bound to the reader's globals)
local function writeFunction(self, f)
  local ups, i = {}, 1
  while true do
    local name, value = debug.getupvalue(f, i)
    if not name then break end
    if name == '_ENV' then value = nil end
    local ref = debug.upvalueid(f, i)
    local id = self._upid[ref]
    if not id then
      self._nupid = self._nupid + 1
      id = self._nupid
      self._upid[ref] = id
    end
    ups[i] = {name = name, id = id, value = value}
    i = i + 1
  end
  local code = string.dump(f)
  dumpedHere[code] = true
  writeString(self, code)
  writeObject(self, ups, UPVALUES)
end


local function writeTorch(self, obj, tname)
  local info = builtin[tname]
  local mt = torch.getmetatable(tname)
  local version = 1
  if not info and mt then version = tonumber(mt.__version) or 1 end
  version = math.tointeger(version) or version
  writeString(self, 'V ' .. tostring(version))
  writeString(self, tname)
  if info and info.kind == 'tensor' then
    if obj:isFreed() then
      error(sformat('%s: cannot save a freed %s (at %s): it was used after :free()/:dispose()', self._name, tname,
                    path(self)), 0)
    end
    local bad = obj:_extentError()  -- its storage shrank under it: the file would not load
    if bad then error(sformat('%s: cannot save a %s (at %s): %s', self._name, tname, path(self), bad), 0) end
    local nd = obj:dim()
    wInt(self, nd)
    writeLongs(self, obj:size(), nd)
    writeLongs(self, obj:stride(), nd)
    wLong(self, obj:storageOffset())
    writeObject(self, obj:storage(), 'storage')
  elseif info then
    writeStoragePayload(self, obj, info)
  else
    local hook = mt and (mt.__write or mt.write)
    if type(hook) == 'function' then
      hook(obj, self)
    elseif type(obj) == 'table' then
      local var = {}
      for k, v in next, obj do
        if writable(v) then
          var[k] = v
        else
          io.stderr:write(sformat('torch.save: warning: field %s of %s (a %s) cannot be saved; skipped (at %s)\n',
                                  tostring(k), tname, type(v), path(self)))
        end
      end
      writeObject(self, var, nil)
    else
      error(sformat('%s: %s is not serializable (at %s)', self._name, tname, path(self)), 0)
    end
  end
end

writeObject = function(self, obj, name)
  local stack = self._stack
  stack[#stack + 1] = name or '?'
  -- Torch7's write hook: hook(obj) is written in obj's place; references
  -- are still counted on obj itself
  local sobj = obj
  if self._hook then obj = self._hook(obj) end
  local t = type(obj)
  local tname = classOf(obj)
  if obj == nil then
    wInt(self, TYPE_NIL)
  elseif tname == nil and t == 'number' then
    if math.type(obj) == 'integer' and math.tointeger(obj + 0.0) ~= obj then
      error(sformat('%s: integer %d cannot be stored exactly (the format stores numbers as doubles) at %s',
                    self._name, obj, path(self)), 0)
    end
    wInt(self, TYPE_NUMBER)
    wScalar(self, 'Double', obj)
  elseif tname == nil and t == 'string' then
    wInt(self, TYPE_STRING)
    writeString(self, obj)
  elseif tname == nil and t == 'boolean' then
    wInt(self, TYPE_BOOLEAN)
    wInt(self, obj and 1 or 0)
  elseif tname ~= nil or t == 'table' or dumpable(obj) then
    -- the reader's bound (what is saved can be loaded), before Lua's stack runs out
    if #stack > MAXDEPTH then
      error(sformat('%s: nesting deeper than %d (tables and objects inside each other)', self._name, MAXDEPTH), 0)
    end
    local tag = tname and TYPE_TORCH or t == 'function' and TYPE_RECUR_FUNCTION or TYPE_TABLE
    local idx = self._wobj[sobj]
    wInt(self, tag)
    if idx and not self._force then
      wInt(self, idx)
    else
      idx = self._nw + 1
      self._nw = idx
      if not self._force then self._wobj[sobj] = idx end
      wInt(self, idx)
      if tname then
        writeTorch(self, obj, tname)
      elseif t == 'function' then
        writeFunction(self, obj)
      else
        local n = 0
        for _ in next, obj do n = n + 1 end
        wInt(self, n)
        for k, v in next, obj do
          writeObject(self, k, nil)
          -- an upvalue entry's value goes by the upvalue's name
          local name = k
          if stack[#stack - 1] == UPVALUES and k == 'value' and type(obj.name) == 'string' then
            name = obj.name
          end
          writeObject(self, v, name)
        end
      end
    end
  else
    error(sformat('%s: cannot save a %s (at %s)', self._name, t == 'function' and 'C function' or t,
                  path(self)), 0)
  end
  stack[#stack] = nil
end

-- f:writeObject(obj [, debugname [, hook]]): hook(x), when given, is what
-- gets written for every object x met on the way (Torch7's, to save under
-- another configuration)
function File:writeObject(obj, name, hook)
  checkwrite(self)
  if hook ~= nil and type(hook) ~= 'function' then
    error(sformat('%s: writeObject: hook must be a function, got %s', self._name, type(hook)), 2)
  end
  local saved = self._hook
  self._hook = hook
  local ok, err = pcall(writeObject, self, obj, name or (#self._stack == 0 and '<?>' or nil))
  self._hook = saved
  if not ok then error(err, 0) end
end

-- --- reading: primitives -------------------------------------------------

local function checkread(self)
  checkopen(self)
  if not self._readable then error(sformat('%s: file is not open for reading', self._name), 0) end
end

-- makes up to n bytes available at _pos; returns how many are (fewer
-- only at the end of the file)
local function fill(self, n)
  if self._rw then switch(self, 'r') end
  local avail = #self._buf - self._pos + 1
  if avail >= n or not self._fh or self._all then return math.min(avail, n) end
  local rest = self._pos <= #self._buf and self._buf:sub(self._pos) or ''
  local more, err = self._fh:read(math.max(n - #rest, CHUNK))
  if more == nil and err then error(sformat('%s: cannot read: %s', self._name, tostring(err)), 0) end
  self._base = self._base + self._pos - 1
  self._buf = more and (rest .. more) or rest
  self._pos = 1
  return math.min(#self._buf, n)
end

-- makes n bytes available at _pos (binary), or raises naming 'what'
local function need(self, n, what)
  if #self._buf - self._pos + 1 >= n then return end
  if fill(self, n) < n then truncated(self, tell(self), n, what) end
end

-- ascii reading works on the whole remaining content
local function loadall(self)
  if self._rw then switch(self, 'r') end
  if self._fh and not self._all then
    local rest = self._buf:sub(self._pos)
    self._base = self._base + self._pos - 1
    local more, err = self._fh:read('a')
    if more == nil then error(sformat('%s: cannot read: %s', self._name, tostring(err)), 0) end
    self._buf = rest .. more
    self._pos = 1
    self._all = true   -- the handle stays, for seek
  end
end

-- after a group of ascii values Torch7 writes one newline (autoSpacing);
-- it is consumed
local function endline(self)
  if self._autospace and self._buf:byte(self._pos) == 10 then self._pos = self._pos + 1 end
end

local function token(self, what)
  loadall(self)
  local at = tell(self)
  local _, e, tok = self._buf:find('^%s*(%S+)', self._pos)
  if not tok then
    error(sformat('%s: truncated at byte %d (%s expected at byte %d)', self._name, self._base + #self._buf, what, at), 0)
  end
  -- Torch7 ends every token with a space or newline: one that runs into
  -- the end of the data was cut short ("3.14" of "3.14159" is no number
  -- of the file)
  if e >= #self._buf then
    error(sformat("%s: truncated at byte %d (%s '%s' at byte %d is cut short)", self._name,
                  self._base + #self._buf, what, printable(tok), at), 0)
  end
  self._pos = e + 1
  return tok, at
end

local function asciiInteger(self, what)
  local tok, at = token(self, what)
  local v = tok:match('^[+-]?%d+$') and math.tointeger(tonumber(tok))
  if not v then corrupt(self, at, "%s expected, got '%s'", what, printable(tok)) end
  return v
end

local specials = {inf = math.huge, ['+inf'] = math.huge, ['-inf'] = -math.huge, infinity = math.huge,
                  ['-infinity'] = -math.huge, nan = 0 / 0, ['-nan'] = 0 / 0, ['+nan'] = 0 / 0}

local function asciiNumber(self, what)
  local tok, at = token(self, what)
  local v = tonumber(tok)
  if v == nil then v = specials[tok:lower()] end
  if v == nil then corrupt(self, at, "%s expected, got '%s'", what, printable(tok)) end
  if v == 0 and tok:find('^%-') then return -0.0 end   -- "-0" reads as the integer 0
  return v + 0.0
end

-- a binary scalar of 'size' bytes in format 'fmt'
local function binScalar(self, size, fmt, what)
  need(self, size, what)
  local v
  v, self._pos = sunpack(fmt, self._buf, self._pos)
  return v
end

-- the serializer's scalars: one value of type 'name' (Short, ..., Double:
-- SCALAR); raises on a short or bad read
local function rScalar(self, name)
  local T = SCALAR[name]
  if self._mode == 'binary' then return binScalar(self, binSize(self, name), self._fmt[T.fmt], T.what) end
  local v = T.float and asciiNumber(self, 'a number') or asciiInteger(self, 'an integer')
  endline(self)
  if name == 'Short' and (v < T.range[1] or v > T.range[2]) then   -- as Torch7's
    corrupt(self, tell(self), 'short %d out of range', v)
  end
  return v
end

local function rInt(self) return rScalar(self, 'Int') end
local function rLong(self) return rScalar(self, 'Long') end

-- n raw bytes as a string (ascii too: Byte and Char are raw there), then
-- in ascii the newline that ends them
local function rRaw(self, n, what)
  if self._mode == 'ascii' then loadall(self) end
  if n > 0 then
    if self._mode == 'binary' then
      need(self, n, what)
    elseif #self._buf - self._pos + 1 < n then
      truncated(self, tell(self), n, what)
    end
  end
  local s = self._buf:sub(self._pos, self._pos + n - 1)
  self._pos = self._pos + n
  if self._mode == 'ascii' and n > 0 then endline(self) end
  return s
end

local function readString(self, what)
  local at = tell(self)
  local n = rInt(self)
  if n < 0 then corrupt(self, at, 'negative string length %d', n) end
  return rRaw(self, n, what)
end

local function readLongs(self, n)
  local t = {}
  if self._mode == 'binary' then
    local sz = self._longSize
    need(self, n * sz, 'tensor sizes')
    local fmt = self._fmt.l
    for i = 1, n do t[i], self._pos = sunpack(fmt, self._buf, self._pos) end
  else
    for i = 1, n do t[i] = asciiInteger(self, 'a tensor size or stride') end
    if n > 0 then endline(self) end
  end
  return t
end

-- bytes left in the source after the current position (nil if unknown)
local function remaining(self)
  if self._fh then
    return self._size and self._size - tell(self) or nil
  end
  return #self._buf - self._pos + 1
end

-- k elements of type 'name' from the buffer at _pos into s[1..k] (binary:
-- the file's byte order, Long in longSize bytes); the bytes must be there
local function fromBuffer(self, name, s, k)
  if k == 0 then return end
  local long4 = name == 'Long' and self._longSize == 4
  local esize = long4 and 4 or elemsize[name]
  local nbytes = k * esize
  local str, at = self._buf, self._pos
  if self._bigEndian then str, at = swapped(str:sub(at, at + nbytes - 1), esize), 1 end
  if long4 then
    local t = k == #s and s or torch.LongStorage(k)
    S.fromint32(t, str, at)
    if t ~= s then for i = 1, k do s[i] = t[i] end end
  else
    S.setbytes(s, 0, str, at, nbytes)
  end
  self._pos = self._pos + nbytes
end

-- fills storage s (type 'name') with #s elements or raises naming 'what'
-- (the serializer's payloads: sizes were checked against the file first)
local function rStorageInto(self, name, s, what, at)
  local n = #s
  if self._mode == 'binary' then
    local long4 = name == 'Long' and self._longSize == 4
    if long4 or self._bigEndian then
      need(self, n * (long4 and 4 or elemsize[name]), what)
      fromBuffer(self, name, s, n)
      return
    end
    local bytes = n * elemsize[name]
    local avail = #self._buf - self._pos + 1
    local k = math.min(avail, bytes)
    S.setbytes(s, 0, self._buf, self._pos, k)
    self._pos = self._pos + k
    if k < bytes then
      -- the rest goes straight from the file into the storage
      local got = self._fh and S.read(self._fh, s, k) or 0
      local stop = self._base + #self._buf + got
      -- (a MemoryFile's _buf is its contents: they stay)
      if self._fh then self._base, self._buf, self._pos = stop, '', 1 end
      if got < bytes - k then
        error(sformat('%s: truncated at byte %d (%s at byte %d needs %d bytes, %d left)',
                      self._name, stop, what, at, bytes, stop - at), 0)
      end
    end
    return
  end
  loadall(self)
  if elemsize[name] == 1 and not C.dtypeFloating[name] then
    if #self._buf - self._pos + 1 < n then truncated(self, tell(self), n, what) end
    S.setbytes(s, 0, self._buf, self._pos, n)
    self._pos = self._pos + n
  else
    local pos, bad = S.asciiparse(s, self._buf, self._pos)
    if not pos then
      local b = self._base + bad - 1
      if bad > #self._buf then
        error(sformat('%s: truncated at byte %d (%s expected)', self._name, b, what), 0)
      end
      corrupt(self, b, "bad number in %s: '%s'", what, printable(self._buf:match('^%S*', bad)))
    end
    -- the last number is followed by a newline: without it, it may be cut short
    if pos > #self._buf then
      error(sformat('%s: truncated at byte %d (the last number of %s may be cut short)', self._name,
                    self._base + #self._buf, what), 0)
    end
    self._pos = pos
  end
  endline(self)
end

local function readStoragePayload(self, info, tname)
  local at = tell(self)
  local n = rLong(self)
  if n < 0 then corrupt(self, at, 'negative size %d for a %s', n, tname) end
  local left = remaining(self)
  local fsize = (info.name == 'Long' and self._longSize or elemsize[info.name])
  if self._mode == 'binary' then
    if left and n > left // fsize then
      truncated(self, tell(self), n * fsize, sformat('a %s of %d elements', tname, n))
    end
  elseif left and n > left then
    truncated(self, tell(self), n, sformat('a %s of %d elements', tname, n))
  end
  local s = torch[info.name .. 'Storage'](n)
  if n == 0 then return s end
  rStorageInto(self, info.name, s, sformat('a %s of %d elements', tname, n), at)
  return s
end

-- --- reading: objects ----------------------------------------------------

local function tonumber_loaded(v)
  local i = math.tointeger(v)
  if i and (v ~= 0 or 1 / v > 0) then return i end
  return v
end

local readObject, readFunction

local function readTensorPayload(self, info, tname, at)
  local nd = rInt(self)
  if nd < 0 or nd > MAXDIM then corrupt(self, at, '%s with %d dimensions (at most %d supported)', tname, nd, MAXDIM) end
  local sizes = readLongs(self, nd)
  local strides = readLongs(self, nd)
  local offset = rLong(self)
  local sat = tell(self)
  local st = readObject(self)
  local sinfo = st ~= nil and builtin[torch.typename(st) or '']
  if st ~= nil and not (sinfo and sinfo.kind == 'storage') then
    corrupt(self, sat, 'the storage of a %s is a %s', tname, torch.type(st))
  end
  local t, err = S.tensor(info.dtype, st, offset, sizes, strides)
  if not t then corrupt(self, at, '%s', err) end
  return t
end

-- a class may check what was read (nn.Module: fields, types, shapes)
-- before anything uses the object; then its __postinit runs, as after
-- construction (torch.class)
local function finishObject(self, obj, at)
  -- the class's method: a field of the file must not stand in for it
  local mt = getmetatable(obj)
  local validate = type(mt) == 'table' and mt.__validate
  if type(validate) == 'function' then
    local ok, err = pcall(validate, obj)
    if not ok then corrupt(self, at, '%s', tostring(err)) end
  end
  -- the class's too: a loaded object's own field or key (a tds.Hash key
  -- '__postinit') is data, never called
  local post = type(mt) == 'table' and mt.__postinit
  if type(post) == 'function' then post(obj) end
end

local function unknownClass(self, cname, index, at, why)
  error(sformat("%s: unknown Torch class '%s' (object #%d at byte %d); load the package that defines it first (e.g. require 'nn')%s",
                self._name, printable(cname), index, at, why and ('; ' .. why) or ''), 0)
end

local function readTorch(self, index, at)
  local vstr = readString(self, 'a class version')
  local version = tonumber(vstr:match('^V (.*)$') or '')
  local cname
  if version then
    cname = readString(self, 'a class name')
  else
    cname, version = vstr, 0   -- files from before versions were written
  end
  -- cutorch's stand-in names the CUDA types whose payload is a CPU type's
  -- (docs/cuda.md): Torch7's GPU checkpoints load as CPU tensors
  local info = builtin[cname] or builtin[torch._loadAliases and torch._loadAliases[cname] or '']
  if info then
    local obj
    if info.kind == 'tensor' then
      obj = readTensorPayload(self, info, cname, at)
    else
      obj = readStoragePayload(self, info, cname)
    end
    if not self._force then self._robj[index] = obj end
    return obj
  end
  if cname:match('^torch%.Cuda%w*Tensor$') or cname:match('^torch%.Cuda%w*Storage$') then
    local why = torch._loadAliases and "it has no CPU type here (half precision): convert it with :float() before saving"
      or "this engine is CPU-only: with TH_CUDA_STANDIN=1, require 'cutorch' first and it loads as the CPU type of its elements (docs/cuda.md)"
    error(sformat('%s: %s (object #%d at byte %d) is a GPU type: %s', self._name, printable(cname), index, at, why), 0)
  end
  if cname:match('^torch%.%w*Tensor$') or cname:match('^torch%.%w*Storage$') then
    error(sformat('%s: %s (object #%d at byte %d) is not supported: only %s tensors and storages exist here; convert it (e.g. :double()) before saving',
                  self._name, printable(cname), index, at, typelist), 0)
  end
  local factory = torch.factory(cname)
  -- a class renamed since (torch._legacyClass, docs/compat.md): its fields decide
  local legacy = not factory and torch._legacyClass[cname]
  if not factory and not legacy then unknownClass(self, cname, index, at) end
  local to, check
  if legacy then to, check = legacy() end
  local obj = factory and factory() or {}
  if not self._force then self._robj[index] = obj end
  local mt = torch.getmetatable(cname)
  local hook = mt and (mt.__read or mt.read)
  if type(hook) == 'function' then
    -- the objects a read hook reads are checked once it returns: it may
    -- complete them (nn.WeightNorm puts back its module's weight)
    local outer = self._deferred
    self._deferred = {}
    hook(obj, self, version)
    local inner = self._deferred
    self._deferred = outer
    for _, d in ipairs(inner) do finishObject(self, d[1], d[2]) end
  else
    local fat = tell(self)
    local var = readObject(self)
    if type(var) ~= 'table' or torch.typename(var) then
      corrupt(self, fat, 'the fields of %s must be a table, got %s', printable(cname), torch.type(var))
    end
    for k, v in pairs(var) do obj[k] = v end
    if legacy then
      local why = check(obj)
      if why then unknownClass(self, cname, index, at, why) end
      torch.setmetatable(obj, to)
    end
  end
  if self._deferred then
    table.insert(self._deferred, {obj, at})
  else
    finishObject(self, obj, at)
  end
  return obj
end

-- a function record (see writeFunction); legacy records list the upvalues'
-- values only
readFunction = function(self, index, at, legacy)
  local code = readString(self, 'bytecode')
  if not (dumpedHere[code] or trusted) then
    error(sformat('%s: the Lua function at byte %d was not written by this process; Lua 5.4 does not check '
                  .. 'bytecode, so it loads only after torch.trustBytecode(true), for files you trust', self._name, at), 0)
  end
  local f, err = load(code, '=' .. self._name, 'b')
  if not f then
    error(sformat('%s: the Lua function at byte %d cannot be loaded: %s', self._name, at, tostring(err)), 0)
  end
  if index and not self._force then self._robj[index] = f end
  local uat = tell(self)
  local ups = readObject(self)
  if type(ups) ~= 'table' then corrupt(self, uat, 'the upvalues of a function must be a table, got %s', type(ups)) end
  for i, up in ipairs(ups) do
    if legacy then
      debug.setupvalue(f, i, up)
    elseif type(up) ~= 'table' then
      corrupt(self, uat, 'upvalue %d of a function must be a table, got %s', i, type(up))
    elseif up.name == '_ENV' then
      debug.setupvalue(f, i, _ENV)
    elseif debug.getupvalue(f, i) ~= nil then
      debug.setupvalue(f, i, up.value)
      local id = up.id
      if id ~= nil then
        local other = self._upjoin[id]
        if other then debug.upvaluejoin(f, i, other[1], other[2]) else self._upjoin[id] = {f, i} end
      end
    end
  end
  return f
end

readObject = function(self)
  local at = tell(self)
  local tag = rInt(self)
  if tag == TYPE_NIL then
    return nil
  elseif tag == TYPE_NUMBER then
    return tonumber_loaded(rScalar(self, 'Double'))
  elseif tag == TYPE_BOOLEAN then
    return rInt(self) == 1
  elseif tag == TYPE_STRING then
    return readString(self, 'a string')
  elseif tag == TYPE_TABLE or tag == TYPE_TORCH then
    local index = rInt(self)
    local obj = self._robj[index]
    if obj ~= nil and not self._force then return obj end
    -- nesting is bounded before Lua's own stack is: a clear error, not 'stack overflow'
    local depth = (self._depth or 0) + 1
    if depth > MAXDEPTH then
      error(sformat('%s: nesting deeper than %d (tables and objects inside each other) at byte %d',
                    self._name, MAXDEPTH, at), 0)
    end
    self._depth = depth
    if tag == TYPE_TORCH then
      obj = readTorch(self, index, at)
      self._depth = depth - 1
      return obj
    end
    local nat = tell(self)
    local n = rInt(self)
    if n < 0 then corrupt(self, nat, 'negative table size %d', n) end
    local t = {}
    if not self._force then self._robj[index] = t end
    for _ = 1, n do
      local kat = tell(self)
      local k = readObject(self)
      local v = readObject(self)
      if k == nil or k ~= k then corrupt(self, kat, 'table key is %s', tostring(k)) end
      t[k] = v
    end
    self._depth = depth - 1
    return t
  elseif tag == TYPE_RECUR_FUNCTION or tag == LEGACY_TYPE_RECUR_FUNCTION then
    local index = rInt(self)
    local obj = self._robj[index]
    if obj ~= nil and not self._force then return obj end
    return readFunction(self, index, at, tag == LEGACY_TYPE_RECUR_FUNCTION)
  elseif tag == TYPE_FUNCTION then
    return readFunction(self, nil, at, true)
  elseif at == 0 and self._mode == 'binary' and self._buf:match('^%d+\n') then
    corrupt(self, at, "unknown type tag %d (the file looks like ascii: load it with mode 'ascii')", tag)
  else
    corrupt(self, at, 'unknown type tag %d', tag)
  end
end

-- quiet(): a file that cannot be read sets the error flag and gives nil
-- (Torch7 read on with its primitives' zeros, and so made up an object)
function File:readObject()
  checkread(self)
  -- a class's read hook reading its parts: same object graph, same depth
  if self._reading then return readObject(self) end
  self._reading, self._depth, self._deferred = true, 0, nil
  local ok, obj = pcall(readObject, self)
  self._reading = false
  if not ok then
    self._err = true
    if self._quiet then return nil end
    error(obj, 0)
  end
  return obj
end

-- the type tag an object would be written with (0 nil, 1 number, 2
-- string, 3 table, 4 torch object, 5 boolean, 8 Lua function), nil for
-- what cannot be written (C functions, coroutines, userdata of no class)
function File:isWritableObject(object)
  local t = type(object)
  if object == nil then return TYPE_NIL end
  if classOf(object) then return TYPE_TORCH end
  if t == 'table' then return TYPE_TABLE end
  if t == 'number' then return TYPE_NUMBER end
  if t == 'string' then return TYPE_STRING end
  if t == 'boolean' then return TYPE_BOOLEAN end
  if dumpable(object) then return TYPE_RECUR_FUNCTION end
  return nil
end

-- --- Torch7's File API ----------------------------------------------------
-- readTYPE() / readTYPE(n) / readTYPE(storage) and writeTYPE(number) /
-- writeTYPE(storage) for TYPE in Byte, Char, Short, Int, Long, Float and
-- Double; readString/writeString; the flags. A read that comes short (end
-- of the file, a token that is no number) sets the error flag (hasError)
-- and raises, or in quiet() mode returns what it got (0 for a scalar, the
-- storage cut to the elements read, the count read, '' for readString).
-- Using a closed file, reading a write-only one and bad arguments raise in
-- both modes, as in Torch7.

-- a read error: flagged, and raised unless the file is quiet
local function readError(self, msg)
  self._err = true
  if not self._quiet then error(msg, 0) end
end

local function methodName(self, fname)
  return sformat('%s:%s', torch.typename(self) or 'torch.File', fname)
end

-- numbers as the C casts of Torch7's bindings made them: toward zero, and
-- for Byte and Char the low 8 bits
local function toElement(self, fname, name, v)
  local T = SCALAR[name]
  if T.float then return v + 0.0 end
  if v ~= v or v == math.huge or v == -math.huge then
    error(sformat('%s: %s cannot be written as an integer', methodName(self, fname), tostring(v)), 3)
  end
  local i = math.tointeger(v >= 0 and math.floor(v) or math.ceil(v))
  if i == nil then
    error(sformat('%s: %s is out of range', methodName(self, fname), tostring(v)), 3)
  end
  if T.raw then return i & 0xff end
  local r = T.range
  if name == 'Long' and self._mode == 'binary' and self._longSize == 4 then r = SCALAR.Int.range end
  if i < r[1] or i > r[2] then
    error(sformat('%s: %d is out of range for %s', methodName(self, fname), i, T.what), 3)
  end
  return i
end

-- a number in ascii as Torch7's fscanf read it: after blanks, the longest
-- prefix that is a number ('45A' reads 45 and leaves 'A'); it may end the
-- file. nil and what was there instead when there is none.
local function asciiValue(self, int)
  loadall(self)
  local _, e, tok = self._buf:find('^%s*(%S+)', self._pos)
  -- like fscanf, a failed read has still gone past the blanks
  if not tok then
    self._pos = #self._buf + 1
    return nil, 'the end of the file'
  end
  self._pos = e - #tok + 1
  local v, len
  if int then
    local digits = tok:match('^[+-]?%d+')
    if digits then v, len = math.tointeger(tonumber(digits)), #digits end
  else
    for i = #tok, 1, -1 do
      local t = tok:sub(1, i)
      v = tonumber(t) or specials[t:lower()]
      if v then
        v = (v == 0 and t:find('^%-')) and -0.0 or v + 0.0
        len = i
        break
      end
    end
  end
  if v == nil then return nil, sformat("'%s' at byte %d", printable(tok), self._base + e - #tok) end
  self._pos = self._pos + len
  return v
end

-- one element; nil and what was found instead at a short read
local function readScalar(self, name)
  local T = SCALAR[name]
  if T.raw then
    if self._mode == 'ascii' then loadall(self) end
    if fill(self, 1) < 1 then return nil, 'the end of the file' end
    local b = self._buf:byte(self._pos)
    self._pos = self._pos + 1
    if self._mode == 'ascii' then endline(self) end
    if name == 'Char' and b >= 128 then b = b - 256 end
    return b
  end
  if self._mode == 'binary' then
    local size = binSize(self, name)
    if fill(self, size) < size then return nil, 'the end of the file' end
    local v
    v, self._pos = sunpack(self._fmt[T.fmt], self._buf, self._pos)
    return v
  end
  local v, got = asciiValue(self, not T.float)
  if v ~= nil then endline(self) end
  return v, got
end

-- reads up to #s elements into s; returns how many were read
local function readElements(self, name, s)
  local n = #s
  if n == 0 then return 0 end
  if self._mode == 'binary' then
    local esize = binSize(self, name)
    local k = math.min(n, fill(self, n * esize) // esize)
    fromBuffer(self, name, s, k)
    return k
  end
  loadall(self)
  local k
  if elemsize[name] == 1 and not C.dtypeFloating[name] then
    k = math.min(n, #self._buf - self._pos + 1)
    if k > 0 then S.setbytes(s, 0, self._buf, self._pos, k) end
    self._pos = self._pos + k
  else
    local pos = S.asciiparse(s, self._buf, self._pos)
    if pos then
      self._pos, k = pos, n
    else
      local int = not C.dtypeFloating[name]
      k = 0
      while k < n do
        local v = asciiValue(self, int)
        if v == nil then break end
        k = k + 1
        s[k] = v
      end
    end
  end
  endline(self)
  return k
end

local function defineType(name)
  local sname = 'torch.' .. name .. 'Storage'
  local rname, wname = 'read' .. name, 'write' .. name

  File[rname] = function(self, arg)
    checkread(self)
    if arg == nil then
      local v, got = readScalar(self, name)
      if v == nil then
        readError(self, sformat('%s: read error: %s expected, got %s', methodName(self, rname), SCALAR[name].what, got))
        return 0
      end
      return v
    end
    local s = arg
    if type(arg) == 'number' then
      local n = math.tointeger(arg)
      if n == nil or n < 0 then
        error(sformat('%s: a count >= 0 expected, got %s', methodName(self, rname), tostring(arg)), 2)
      end
      s = torch[name .. 'Storage'](n)
    elseif torch.typename(arg) ~= sname then
      error(sformat('%s: nothing, a number or a %s expected, got %s', methodName(self, rname), sname,
                    torch.type(arg)), 2)
    end
    local n = #s
    local k = readElements(self, name, s)
    if k < n then
      readError(self, sformat('%s: read error: read %d blocks instead of %d', methodName(self, rname), k, n))
      if s ~= arg then s:resize(k) end
    end
    if s ~= arg then return s end
    return k
  end

  File[wname] = function(self, arg)
    checkwrite(self)
    if type(arg) == 'number' then
      wScalar(self, name, toElement(self, wname, name, arg))
      return
    elseif torch.typename(arg) == sname then
      return wStorage(self, name, arg, methodName(self, wname))
    elseif type(arg) == 'string' and (name == 'Char' or name == 'Byte') then
      wRaw(self, arg)      -- this project's: a Lua string's bytes
      return #arg
    end
    error(sformat('%s: a number or a %s expected, got %s', methodName(self, wname), sname, torch.type(arg)), 2)
  end
end

for name in pairs(SCALAR) do defineType(name) end

function File:readBool() return self:readInt() == 1 end
function File:writeBool(v) self:writeInt(v and 1 or 0) end

-- f:readString('*a') the rest of the file, f:readString('*l') the next line
-- without its newline (the last line may lack one), f:readString(n) the
-- next n bytes (fewer at the end; this project's). Neither mode nor
-- autoSpacing applies. Nothing left to read is a read error, '' when quiet.
function File:readString(format)
  checkread(self)
  local fname = methodName(self, 'readString')
  local kind
  if type(format) == 'number' then
    kind = math.tointeger(format)
    if kind == nil or kind < 0 then error(sformat('%s: a byte count >= 0 expected, got %s', fname, tostring(format)), 2) end
    if kind == 0 then return '' end
  elseif type(format) == 'string' and (format:sub(1, 2) == '*a' or format:sub(1, 2) == '*l') then
    kind = format:sub(2, 2)
  else
    error(sformat("%s: format '*a' or '*l' (or a byte count) expected, got %s", fname,
                  type(format) == 'string' and "'" .. printable(format) .. "'" or torch.type(format)), 2)
  end
  local s
  if kind == 'a' then
    loadall(self)
    s = self._buf:sub(self._pos)
    self._pos = #self._buf + 1
  elseif kind == 'l' then
    local nl
    while true do
      nl = self._buf:find('\n', self._pos, true)
      if nl or self._all or not self._fh then break end
      local have = #self._buf - self._pos + 1
      if fill(self, have + CHUNK) == have then break end   -- the end of the file
    end
    if nl then
      s = self._buf:sub(self._pos, nl - 1)
      self._pos = nl + 1
      return s
    end
    s = self._buf:sub(self._pos)
    self._pos = #self._buf + 1
  else
    local k = fill(self, kind)
    s = self._buf:sub(self._pos, self._pos + k - 1)
    self._pos = self._pos + k
  end
  if s == '' then readError(self, fname .. ': read error: read 0 blocks instead of 1 (the end of the file)') end
  return s
end

-- writes the string's bytes as they are (no mode, no spacing); returns
-- their number
function File:writeString(str)
  checkwrite(self)
  if type(str) ~= 'string' then
    error(sformat('%s: string expected, got %s', methodName(self, 'writeString'), torch.type(str)), 2)
  end
  put(self, str)
  return #str
end

function File:quiet() self._quiet = true; return self end
function File:pedantic() self._quiet = false; return self end
function File:isQuiet() return self._quiet end
function File:hasError() return self._err end
function File:clearError() self._err = false; return self end
function File:isReadable() return self._readable == true end
function File:isWritable() return self._writable == true end
function File:isOpened() return not self._closed end
function File:autoSpacing() self._autospace = true; return self end
function File:noAutoSpacing() self._autospace = false; return self end
function File:isAutoSpacing() return self._autospace end

-- what was written reaches the file (the OS)
function File:synchronize()
  checkopen(self, 'synchronize')
  flush(self)
  if self._fh then self._fh:flush() end
  return self
end

-- --- torch.Generator -----------------------------------------------------

-- as Torch7: the raw bytes of TH's generator struct (the getRNGState
-- bytes), so that a generator saved by Torch7 loads here and the other way
local genmt = torch.getmetatable('torch.Generator')
if genmt then
  function genmt.write(gen, f)
    checkwrite(f)
    put(f, torch.getRNGState(gen):storage():_bytes())
    if f._mode ~= 'binary' then put(f, '\n') end
  end
  function genmt.read(gen, f)
    checkread(f)
    local n = torch.getRNGState(gen):nElement()
    local at = tell(f)
    if f._mode == 'binary' then
      need(f, n, 'a torch.Generator state')
    else
      loadall(f)
      if #f._buf - f._pos + 1 < n then truncated(f, at, n, 'a torch.Generator state') end
    end
    local state = torch.ByteTensor(n)
    state:storage():_setbytes(f._buf, f._pos)
    f._pos = f._pos + n
    if f._mode ~= 'binary' then endline(f) end
    local ok, err = pcall(torch.setRNGState, gen, state)
    if not ok then corrupt(f, at, 'bad torch.Generator state (%s)', tostring(err)) end
  end
end

-- --- files ---------------------------------------------------------------

function File:close()
  if self._closed then return end
  local ok, err = pcall(flush, self)
  if self._fh and self._ownsfh then self._fh:close() end
  self._fh = nil
  self._closed = true
  if not ok then error(err, 0) end
end

-- torch.DiskFile(path [, 'r' | 'w' | 'rw'] [, quiet]): as Torch7, a file
-- that cannot be opened is an error, or with quiet nil ('rw' creates the
-- file when it does not exist). A directory opens in Torch7 (glibc) and
-- only its reads failed: here it is an error, with quiet a closed file.
local DiskFile = torch.class('torch.DiskFile', 'torch.File')

local DISK_MODES = {r = 'rb', w = 'wb', rw = 'r+b'}

function DiskFile:__init(path, mode, quiet)
  mode = mode or 'r'
  if type(path) ~= 'string' then
    error(sformat('torch.DiskFile: file name (string) expected, got %s', type(path)), 2)
  end
  -- fopen would stop at the zero: 'a.t7\0x' opened a.t7
  if path:find('\0', 1, true) then
    error(sformat('torch.DiskFile: file name without zero bytes expected, got one with a zero at byte %d',
                  path:find('\0', 1, true)), 2)
  end
  if not DISK_MODES[mode] then
    error(sformat("torch.DiskFile: mode 'r', 'w' or 'rw' expected, got %s", tostring(mode)), 2)
  end
  init(self, path)
  self._quiet = quiet and true or false   -- Torch7: the flag's initial state
  self._closed = true
  local fh, err = io.open(path, DISK_MODES[mode])
  if not fh and mode == 'rw' then
    local created = io.open(path, 'wb')
    if created then
      created:close()
      fh, err = io.open(path, 'r+b')
    end
  end
  if not fh then
    if quiet then self._openFailed = true return end
    local what = ({r = 'reading', w = 'writing', rw = 'reading and writing'})[mode]
    error(sformat('%s: cannot open for %s: %s', path, what, tostring(err)), 0)
  end
  if mode ~= 'w' then
    -- a directory opens (glibc) but reads fail; its size came out 2^63 - 1
    local _, rerr = fh:read(0)
    if rerr then
      fh:close()
      if quiet then return end
      error(sformat('%s: cannot open for reading: %s', path, tostring(rerr)), 0)
    end
    fh:seek('set')
  end
  self._closed = false
  self._fh, self._ownsfh = fh, true
  self._readable, self._writable = mode ~= 'w', mode ~= 'r'
  self._rw = mode == 'rw'
  if mode == 'r' then
    local size = fh:seek('end')
    if size and fh:seek('set') then self._size = size end
  end
end

-- a constructor that gives nil for a quiet file that did not open (the C
-- constructor pushed no object); an object is still made, then dropped
local function nilWhenNotOpened(ctor)
  local cmt = debug.getmetatable(ctor)
  local call = cmt.__call
  cmt.__call = function(c, ...)
    local f = call(c, ...)
    if rawget(f, '_openFailed') then return nil end
    return f
  end
end
nilWhenNotOpened(DiskFile)

local function modeString(self, sep)
  return sformat('[status: %s -- mode%s%s%s]', self._closed and 'closed' or 'open', sep,
                 self._readable and 'r' or ' ', self._writable and 'w' or ' ')
end

function DiskFile:__tostring__()
  return sformat('%s on <%s> %s', torch.typename(self), self._name,
                 modeString(self, torch.typename(self) == 'torch.DiskFile' and ' ' or ': '))
end

local function checkhandle(self, fname)
  if self._closed then error(sformat('%s:%s: attempt to use a closed file', torch.typename(self), fname), 3) end
end

-- binary files in the CPU's byte order (the default), little-endian or
-- big-endian: Torch7's files are little-endian (x86)
function DiskFile:nativeEndianEncoding()
  checkhandle(self, 'nativeEndianEncoding')
  self._bigEndian = not S.littleEndian
  formats(self)
  return self
end

function DiskFile:littleEndianEncoding()
  checkhandle(self, 'littleEndianEncoding')
  self._bigEndian = false
  formats(self)
  return self
end

function DiskFile:bigEndianEncoding()
  checkhandle(self, 'bigEndianEncoding')
  self._bigEndian = true
  formats(self)
  return self
end

function DiskFile.isLittleEndianCPU() return S.littleEndian end
function DiskFile.isBigEndianCPU() return not S.littleEndian end

-- every write goes to the file at once (Torch7: setvbuf _IONBF)
function DiskFile:noBuffer()
  checkhandle(self, 'noBuffer')
  flush(self)
  self._nobuf = true
  self._fh:setvbuf('no')
  return self
end

-- Torch7's positions are 1-based: f:seek(1) goes back to the start,
-- f:position() is where the next read or write happens
-- (math.tointeger, not pos == floor(pos): inf passes that and is no position;
-- a tensor is named by its type, not printed whole into the message)
local function checkpos(self, fname, pos)
  checkopen(self, fname)
  local n = math.tointeger(pos)
  if n == nil or n < 1 then
    error(sformat('%s:%s: a position >= 1 expected, got %s', self._name, fname,
                  type(pos) == 'number' and tostring(pos) or torch.type(pos)), 3)
  end
  return n
end

-- moves the handle ('set', off or 'end') and drops what was buffered
local function moveto(self, whence, off)
  if self._writable then flush(self) end
  local at, err = self._fh:seek(whence, off)
  if not at then error(sformat('%s: cannot seek: %s', self._name, tostring(err)), 0) end
  self._buf, self._pos, self._base, self._all, self._last = '', 1, at, false, nil
  return at
end

function DiskFile:seek(pos)
  pos = checkpos(self, 'seek', pos)
  if self._readable and self._size and pos > self._size + 1 then
    error(sformat('%s:seek: position %d is past the end (%d bytes)', self._name, pos, self._size), 2)
  end
  moveto(self, 'set', pos - 1)
  return self
end

function DiskFile:seekEnd()
  checkopen(self, 'seekEnd')
  moveto(self, 'end', 0)
  return self
end

function DiskFile:position()
  checkopen(self, 'position')
  if self._writable and not (self._rw and self._last == 'r') then
    flush(self)
    local at, err = self._fh:seek('cur')
    if not at then error(sformat('%s:position: %s', self._name, tostring(err)), 2) end   -- a pipe
    return at + 1
  end
  return tell(self) + 1
end

-- torch.MemoryFile([mode]) or torch.MemoryFile(storage [, mode]), as
-- Torch7: a file in memory, mode 'r', 'w' or 'rw' (default); the storage
-- (a CharStorage or ByteStorage) gives the contents to read.
-- f:storage() gives what was written, f:string() the same as a string,
-- f:seek(pos) moves where the next read starts (reading back what was
-- written, in 'rw'). A string other than a mode is contents to read (this
-- project's torch.deserialize uses that).
local MemoryFile = torch.class('torch.MemoryFile', 'torch.File')

local MEMORY_MODES = {r = true, w = true, rw = true}

function MemoryFile:__init(what, mode)
  local contents, name = nil, '<memory>'
  if what == nil and type(mode) == 'string' and not MEMORY_MODES[mode] then
    name, mode = mode, 'w'           -- the project's own (nil, name) form
  elseif what == nil or (type(what) == 'string' and MEMORY_MODES[what]) then
    mode = what or 'rw'
  elseif torch.typename(what) == 'torch.CharStorage' or torch.typename(what) == 'torch.ByteStorage' then
    contents = what:_bytes()
    if contents:sub(-1) ~= '\0' then
      error('torch.MemoryFile: the storage must end in a zero byte (as MemoryFile:storage() gives)', 2)
    end
    contents = contents:sub(1, -2)
    mode = mode or 'rw'
  elseif type(what) == 'string' then
    contents, name, mode = what, mode or '<string>', 'r'
  else
    error(sformat("torch.MemoryFile: a mode ('r', 'w', 'rw') or a CharStorage expected, got %s", torch.type(what)), 2)
  end
  if not MEMORY_MODES[mode] then
    error(sformat("torch.MemoryFile: mode 'r', 'w' or 'rw' expected, got %s", tostring(mode)), 2)
  end
  init(self, name)
  self._mem = true
  self._readable = mode ~= 'w'
  self._writable = mode ~= 'r'
  if contents then self._buf = contents end
end

-- the whole contents (a storage's given ones, as changed by the writes)
function MemoryFile:string()
  return self._buf .. table.concat(self._out, '', 1, self._outn)
end

-- what was written, as a CharStorage (a ByteStorage where CharStorage does
-- not exist), ending in a zero byte as Torch7's did
function MemoryFile:storage()
  local bytes = self:string() .. '\0'
  local S = torch.CharStorage or torch.ByteStorage
  local st = S(#bytes)
  if #bytes > 0 then st:_setbytes(bytes) end
  return st
end

-- the next read starts at byte pos (1-based) of what is in the file
function MemoryFile:seek(pos)
  checkopen(self, 'seek')
  pos = math.tointeger(pos) or pos
  if math.type(pos) ~= 'integer' or pos < 1 then
    error(sformat('torch.MemoryFile:seek: a position >= 1 expected, got %s',
                  type(pos) == 'number' and tostring(pos) or torch.type(pos)), 2)
  end
  if self._outn > 0 then
    self._buf = self._buf .. table.concat(self._out, '', 1, self._outn)
    self._out, self._outn, self._outbytes = {}, 0, 0
  end
  local size = #self._buf
  if pos > size + 1 then
    error(sformat('torch.MemoryFile:seek: position %d is past the end (%d bytes)', pos, size), 2)
  end
  -- the next read or write happens at pos (a write goes over what is there)
  self._base, self._pos = 0, pos
  return self
end

function MemoryFile:seekEnd()
  checkopen(self, 'seekEnd')
  self:seek(#self._buf + self._outbytes + 1)
  return self
end

-- where the next read or write happens
function MemoryFile:position()
  checkopen(self, 'position')
  if self._outn > 0 then return #self._buf + self._outbytes + 1 end
  return self._pos
end

function MemoryFile:__tostring__()
  return 'torch.MemoryFile ' .. modeString(self, ': ')
end

-- torch.PipeFile(command [, 'r' | 'w'] [, quiet]): a DiskFile on the
-- input or output of a shell command (popen), as Torch7's. Seeking is an
-- error, as on any pipe.
local PipeFile = torch.class('torch.PipeFile', 'torch.DiskFile')

function PipeFile:__init(command, mode, quiet)
  mode = mode or 'r'
  if type(command) ~= 'string' then
    error(sformat('torch.PipeFile: command (string) expected, got %s', torch.type(command)), 2)
  end
  if mode ~= 'r' and mode ~= 'w' then
    error(sformat("torch.PipeFile: mode 'r' or 'w' expected, got %s", tostring(mode)), 2)
  end
  init(self, command)
  self._quiet = quiet and true or false
  local fh, err = io.popen(command, mode)
  if not fh then
    if quiet then self._closed, self._openFailed = true, true return end
    error(sformat('%s: cannot open a pipe for %s: %s', command, mode == 'r' and 'reading' or 'writing',
                  tostring(err)), 0)
  end
  self._fh, self._ownsfh = fh, true
  self._readable, self._writable = mode == 'r', mode == 'w'
end
nilWhenNotOpened(PipeFile)

-- --- torch.save / torch.load ---------------------------------------------

local modes = {binary = true, ascii = true, b32 = true, b64 = true}

local function setmode(f, fname, mode)
  mode = mode or 'binary'
  if not modes[mode] then
    error(sformat("%s: mode 'binary' or 'ascii' expected, got %s", fname, tostring(mode)), 3)
  end
  if mode == 'ascii' then f:ascii() else f:binary() end
  if mode == 'b32' then f:longSize(4) end
end

local function checkref(fname, referenced)
  if referenced ~= nil and type(referenced) ~= 'boolean' then
    error(sformat('%s: referenced must be a boolean, got %s', fname, type(referenced)), 3)
  end
  return referenced ~= false
end

-- torch.save(filename, object [, 'binary' | 'ascii' [, referenced]])
function torch.save(filename, object, mode, referenced)
  if type(filename) ~= 'string' then
    error(sformat('torch.save: file name (string) expected, got %s', type(filename)), 2)
  end
  if not modes[mode or 'binary'] then
    error(sformat("torch.save: mode 'binary' or 'ascii' expected, got %s", tostring(mode)), 2)
  end
  local ref = checkref('torch.save', referenced)
  local f
  local ok, err = pcall(function()
    f = torch.DiskFile(filename, 'w')
    setmode(f, 'torch.save', mode)
    f:referenced(ref)
    f:writeObject(object)
    f:close()
  end)
  if not ok then
    if f and not f._closed then
      pcall(function() f._out, f._outn = {}, 0; f:close() end)
      os.remove(filename)
    end
    error('torch.save: ' .. tostring(err), 2)
  end
end

-- torch.load(filename [, 'binary' | 'ascii' [, referenced]])
function torch.load(filename, mode, referenced)
  if type(filename) ~= 'string' then
    error(sformat('torch.load: file name (string) expected, got %s', type(filename)), 2)
  end
  if not modes[mode or 'binary'] then
    error(sformat("torch.load: mode 'binary' or 'ascii' expected, got %s", tostring(mode)), 2)
  end
  local ref = checkref('torch.load', referenced)
  local f
  local ok, res = pcall(function()
    f = torch.DiskFile(filename, 'r')
    setmode(f, 'torch.load', mode)
    f:referenced(ref)
    local obj = f:readObject()
    f:close()
    return obj
  end)
  if not ok then
    if f then pcall(f.close, f) end
    error('torch.load: ' .. tostring(res), 2)
  end
  return res
end

-- torch.serialize(object [, mode]) -> string; torch.deserialize(string [, mode]) -> object
function torch.serialize(object, mode)
  if not modes[mode or 'binary'] then
    error(sformat("torch.serialize: mode 'binary' or 'ascii' expected, got %s", tostring(mode)), 2)
  end
  local ok, res = pcall(function()
    local f = torch.MemoryFile(nil, '<string>')
    setmode(f, 'torch.serialize', mode)
    f:writeObject(object)
    return f:string()
  end)
  if not ok then error('torch.serialize: ' .. tostring(res), 2) end
  return res
end

function torch.deserialize(str, mode)
  if type(str) ~= 'string' then
    error(sformat('torch.deserialize: string expected, got %s', type(str)), 2)
  end
  if not modes[mode or 'binary'] then
    error(sformat("torch.deserialize: mode 'binary' or 'ascii' expected, got %s", tostring(mode)), 2)
  end
  local ok, res = pcall(function()
    local f = torch.MemoryFile(str, '<string>')
    setmode(f, 'torch.deserialize', mode)
    return f:readObject()
  end)
  if not ok then error('torch.deserialize: ' .. tostring(res), 2) end
  return res
end

-- torch.serializeToStorage(object [, mode]) -> CharStorage of the bytes (no
-- trailing zero, as Torch7); torch.deserializeFromStorage(storage [, mode])
function torch.serializeToStorage(object, mode)
  local ok, res = pcall(torch.serialize, object, mode)
  if not ok then error((tostring(res):gsub('^torch%.serialize', 'torch.serializeToStorage')), 2) end
  local st = torch.CharStorage(#res)
  if #res > 0 then st:_setbytes(res) end
  return st
end

function torch.deserializeFromStorage(storage, mode)
  local tn = torch.typename(storage)
  -- as Torch7 (it read torch.CharTensor(storage)), a char tensor of the
  -- bytes also does: torchnet keeps serialized samples in a tds.Vec of them
  if tn == 'torch.CharTensor' or tn == 'torch.ByteTensor' then
    local st = tn == 'torch.CharTensor' and torch.CharStorage(storage:nElement())
               or torch.ByteStorage(storage:nElement())
    if storage:nElement() > 0 then torch[tn:sub(7)](st):copy(storage) end
    storage, tn = st, torch.typename(st)
  end
  if tn ~= 'torch.CharStorage' and tn ~= 'torch.ByteStorage' then
    error(sformat('torch.deserializeFromStorage: CharStorage or CharTensor expected, got %s', torch.type(storage)), 2)
  end
  local ok, res = pcall(torch.deserialize, storage:_bytes(), mode)
  if not ok then error((tostring(res):gsub('^torch%.deserialize', 'torch.deserializeFromStorage')), 2) end
  return res
end

torch.saveobj = torch.save
torch.loadobj = torch.load

return torch
