-- Storage views (Storage(s, offset, size)), storages mapped from files
-- (Storage(filename, shared, size), src/tensor/th_storage_map.c), File
-- seek/seekEnd/position, serializeToStorage, saving a torch.Generator, and
-- the ascii reader's refusal of a number cut short.
require 'torch'
local H = require 'spec.support.helpers'

local TYPES = {'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half'}

local function tmpname()
  local n = os.tmpname()
  os.remove(n)
  return n
end

local function readbytes(name)
  local f = assert(io.open(name, 'rb'))
  local s = f:read('a')
  f:close()
  return s
end

describe('storage views', function()
  it('Storage(s, offset [, size]) shares memory with s, for every type', function()
    for _, n in ipairs(TYPES) do
      local S = torch[n .. 'Storage']
      local s = S({3, 4, 5})
      local v = S(s, 2)
      assert.are.equal(2, v:size(), n)
      assert.are.equal(4, v[1])
      assert.are.equal(5, v[2])
      v[1] = 13
      assert.are.equal(13, s[2], n)
      local w = S(s, 3, 1)
      assert.are.equal(1, w:size())
      s[3] = 7
      assert.are.equal(7, w[1])
      assert.are.equal(0, S(s, 4):size())
    end
  end)

  it('keeps its parent alive, refuses resizing, and the parent cannot move under it', function()
    local v
    do
      local s = torch.LongStorage({1, 2, 3})
      v = torch.LongStorage(s, 2, 2)
    end
    collectgarbage()
    collectgarbage()
    assert.are.same({2, 3}, {v[1], v[2]})
    local s = torch.DoubleStorage(4):fill(1)
    local w = torch.DoubleStorage(s, 1, 2)
    H.errors(function() w:resize(3) end, 'cannot resize a storage that views another')
    H.errors(function() s:resize(100) end, 'cannot resize a storage viewed by 1 other storage(s)')
    local t = torch.DoubleTensor(w)
    assert.are.same({1, 1}, t:totable())
  end)

  it('rejects ranges outside the parent and storages of another type', function()
    local s = torch.IntStorage(3)
    H.errors(function() torch.IntStorage(s, 0) end, "bad argument #3 to 'torch.IntStorage' (offset in 1..4 expected, got 0)")
    H.errors(function() torch.IntStorage(s, 5) end, 'offset in 1..4 expected, got 5')
    H.errors(function() torch.IntStorage(s, 2, 3) end, 'torch.IntStorage: 3 elements from position 2 do not fit a storage of 3 elements')
    H.errors(function() torch.IntStorage(s, 1, -1) end, 'do not fit')
    H.errors(function() torch.LongStorage(s, 1) end, "bad argument #2 to 'torch.LongStorage' (torch.LongStorage expected, got torch.IntStorage)")
  end)
end)

describe('storages mapped from files', function()
  it('shared: writes go through to the file, which is created or grown to the size', function()
    for _, n in ipairs(TYPES) do
      local name = tmpname()
      local s = torch[n .. 'Storage'](name, true, 4)
      local esize = s:elementSize()
      assert.are.equal(4, s:size())
      s:fill(3)
      s[2] = 5
      s = nil
      collectgarbage()
      collectgarbage()
      local bytes = readbytes(name)
      assert.are.equal(4 * esize, #bytes, n)
      -- read back through a private mapping of the whole file
      local r = torch[n .. 'Storage'](name)
      assert.are.equal(4, r:size())
      assert.are.same({3, 5, 3, 3}, {r[1], r[2], r[3], r[4]}, n)
      os.remove(name)
    end
  end)

  it('the bytes are the raw elements; a private mapping does not write back', function()
    local name = tmpname()
    local f = assert(io.open(name, 'wb'))
    f:write(string.pack('<i4i4i4', 7, -1, 300))
    f:close()
    local s = torch.IntStorage(name, false)
    assert.are.same({7, -1, 300}, {s[1], s[2], s[3]})
    s[1] = 99
    assert.are.equal(99, s[1])
    assert.are.equal(string.pack('<i4i4i4', 7, -1, 300), readbytes(name))
    local t = torch.IntTensor(s)
    assert.are.same({99, -1, 300}, t:totable())
    -- shared = false reads the file into memory: a heap storage, resizable
    s:resize(4)
    assert.are.same({99, -1, 300}, {s[1], s[2], s[3]})
    s:resize(3)
    -- a size within the file maps a prefix; beyond it is an error without 'shared'
    assert.are.equal(2, torch.IntStorage(name, false, 2):size())
    H.errors(function() torch.IntStorage(name, false, 4) end, 'holds 12 bytes, fewer than the 4 elements asked (16 bytes)')
    -- shared over an existing file sees and changes its contents
    local sh = torch.IntStorage(name, true)
    assert.are.equal(7, sh[1])
    sh[3] = 1
    sh = nil
    collectgarbage()
    collectgarbage()
    assert.are.equal(string.pack('<i4i4i4', 7, -1, 1), readbytes(name))
    os.remove(name)
  end)

  it('reports missing files and bad arguments', function()
    H.errors(function() torch.FloatStorage('/nonexistent/dir/f') end,
             "torch.FloatStorage: cannot open '/nonexistent/dir/f': No such file or directory")
    H.errors(function() torch.FloatStorage('/nonexistent/dir/f', true, 3) end,
             "cannot open '/nonexistent/dir/f' for reading and writing")
    H.errors(function() torch.FloatStorage('x', 'yes') end,
             "bad argument #3 to 'torch.FloatStorage' (shared flag (boolean) expected, got string)")
    local name = tmpname()
    assert(io.open(name, 'wb')):close()
    assert.are.equal(0, torch.DoubleStorage(name):size())
    os.remove(name)
  end)
end)

-- the file of a mapped storage cut shorter while the storage lives: once a
-- SIGBUS that killed the process (issue 36). Each case runs in a child
-- bin/th, so a crash fails the spec instead of ending busted.
describe('a file cut shorter under its storage', function()
  local function run(body)
    local script, out = tmpname() .. '.lua', tmpname()
    local f = assert(io.open(script, 'w'))
    f:write("local path = os.tmpname()\n",
            "local f = io.open(path, 'wb'); f:write(string.pack(('<f'):rep(4096), ",
            "table.unpack((function() local t = {} for i = 1, 4096 do t[i] = i end return t end)()))); f:close()\n",
            "local function cut(n) local g = io.open(path, 'r+b'); ",
            "if n == 0 then g:close(); io.open(path, 'w'):close() else g:close(); os.execute('truncate -s ' .. n .. ' ' .. path) end end\n",
            body, "\nos.remove(path)\n")
    f:close()
    local ok, how, rc = os.execute('bin/th ' .. script .. ' >' .. out .. ' 2>&1')
    local text = readbytes(out)
    os.remove(script)
    os.remove(out)
    text = text:gsub(script:gsub('%p', '%%%0'), 'SCRIPT'):gsub('/tmp/lua_%w+', 'FILE')
    return rc, text
  end

  it('shared = false: the storage is a copy made at construction, the cut does not reach it', function()
    local rc, text = run([[
      local s = torch.FloatStorage(path, false, 4096)
      cut(0)
      print(s[1], s[4096], torch.FloatTensor(s):sum())]])
    assert.are.equal(0, rc)
    assert.are.equal('1.0\t4096.0\t8390656.0\n', text)
  end)

  it('shared = true: the access past the new end is an error naming the file, not a SIGBUS', function()
    local rc, text = run([[
      local s = torch.FloatStorage(path, true, 4096)
      cut(0)
      print(pcall(function() return s[4096] end))
      print(s[4096], s[1])]])
    assert.are.equal(0, rc)
    assert.are.equal("false\tSCRIPT:6: Storage(filename, true): the file 'FILE' mapped shared " ..
                     "(16384 bytes) was cut to 0 bytes while mapped: the storage's bytes from byte 0 on now read 0 " ..
                     "and no longer reach the file\n0.0\t0.0\n", text)
  end)

  it('shared = true: a kernel meeting the cut fails when it returns; pages before the cut stay shared', function()
    local rc, text = run([[
      local s = torch.FloatStorage(path, true, 4096)
      cut(8192)
      local ok, err = pcall(function() return torch.FloatTensor(s):sum() end)
      print(ok, (err:gsub('^.-Storage', 'Storage')))
      s[1] = 42
      local g = io.open(path, 'rb'); local bytes = g:read('a'); g:close()
      print(#bytes, string.unpack('<f', bytes), s[2048], s[2049], s[4096])]])
    assert.are.equal(0, rc)
    assert.are.equal("false\tStorage(filename, true): the file 'FILE' mapped shared (16384 bytes) was cut to 8192 bytes " ..
                     "while mapped: the storage's bytes from byte 8192 on now read 0 and no longer reach the file\n" ..
                     "8192\t42.0\t2048.0\t0.0\t0.0\n", text)
  end)

  it('shared = true: two storages cut under one call give one error; the next call runs clean', function()
    local rc, text = run([[
      local s = torch.FloatStorage(path, true, 4096)
      local path2 = os.tmpname()
      local g = io.open(path2, 'wb'); g:write(string.rep('\0', 16384)); g:close()
      local s2 = torch.FloatStorage(path2, true, 4096)
      cut(0)
      io.open(path2, 'w'):close()
      local ok, err = pcall(function() return torch.FloatTensor(s):add(torch.FloatTensor(s2)) end)
      print(ok, select(2, err:gsub('was cut to 0 bytes', '')))
      print(pcall(function() return torch.FloatTensor(s2):sum() + s[1] end))
      os.remove(path2)]])
    assert.are.equal(0, rc)
    assert.are.equal('false\t1\ntrue\t0.0\n', text)
  end)

  it('shared = true, uncaught: the script ends with the error (status 1), not a signal', function()
    local rc, text = run([[
      local s = torch.FloatStorage(path, true, 4096)
      cut(0)
      local x = s[10]
      print('not reached', x)]])
    assert.are.equal(1, rc)
    H.has(text, "was cut to 0 bytes while mapped")
    assert.is_nil(text:find('not reached', 1, true))
  end)
end)

describe('File positions', function()
  it('DiskFile seek, seekEnd and position are 1-based, for reading and writing', function()
    local name = tmpname()
    local w = torch.DiskFile(name, 'w'):binary()
    assert.are.equal(1, w:position())
    w:writeInt(1)
    w:writeInt(2)
    assert.are.equal(9, w:position())
    w:seek(1)
    w:writeInt(7)
    assert.are.equal(5, w:position())
    w:seekEnd()
    w:writeInt(3)
    assert.are.equal(13, w:position())
    w:close()
    local r = torch.DiskFile(name, 'r'):binary()
    assert.are.equal(7, r:readInt())
    assert.are.equal(5, r:position())
    r:seek(9)
    assert.are.equal(3, r:readInt())
    r:seek(1)
    assert.are.same({7, 2}, {r:readInt(), r:readInt()})
    r:seekEnd()
    assert.are.equal(13, r:position())
    H.errors(function() r:seek(0) end, 'seek: a position >= 1 expected, got 0')
    H.errors(function() r:seek(20) end, 'seek: position 20 is past the end (12 bytes)')
    r:close()
    H.errors(function() r:position() end, 'file is closed')
    os.remove(name)
  end)

  it('seek works in ascii reading too; MemoryFile has position and seekEnd', function()
    local name = tmpname()
    local w = torch.DiskFile(name, 'w'):ascii()
    w:writeInt(41)
    w:writeInt(42)
    w:close()
    local r = torch.DiskFile(name, 'r'):ascii()
    assert.are.same({41, 42}, {r:readInt(), r:readInt()})
    r:seek(1)
    assert.are.equal(41, r:readInt())
    r:close()
    os.remove(name)
    local m = torch.MemoryFile('rw'):binary()
    m:writeInt(5)
    assert.are.equal(5, m:position())   -- one position for reads and writes (Torch7's)
    m:seekEnd()
    assert.are.equal(5, m:position())
    m:seek(1)
    assert.are.equal(5, m:readInt())
    assert.are.equal(5, m:position())
    local wo = torch.MemoryFile('w'):binary()
    wo:writeInt(1)
    assert.are.equal(5, wo:position())
  end)
end)

-- Torch7's THMemoryFile.c: one buffer, one position for reads and writes;
-- a file made from a storage starts at its first byte, and a write goes
-- over the bytes at the position (appending past the end)
describe('MemoryFile over a storage, read and written', function()
  local function hello()
    local src = torch.MemoryFile()
    src:writeString('hello')
    return src:storage()
  end

  it('a write after reads goes where the reads stopped', function()
    local f = torch.MemoryFile(hello(), 'rw')
    assert.are.equal('he', f:readString(2))
    f:writeString('XY')
    assert.are.equal('heXYo', f:string())
    assert.are.equal(5, f:position())
    assert.are.equal('o', f:readString('*a'))
  end)

  it('seekEnd then a write appends to the contents', function()
    local g = torch.MemoryFile(hello(), 'rw')
    g:seekEnd()
    g:writeString('!')
    assert.are.equal('hello!', g:string())
    assert.are.equal(7, g:position())
    local st = g:storage()
    assert.are.equal(7, st:size())
    assert.are.equal(0, st[7])
  end)

  it("mode 'w' keeps the contents and writes from the first byte; past the end it grows", function()
    local h = torch.MemoryFile(hello(), 'w')
    h:writeString('J')
    assert.are.equal('Jello', h:string())
    local k = torch.MemoryFile(hello(), 'rw')
    k:writeString('0123456')
    k:writeString('7')
    assert.are.equal('01234567', k:string())
    assert.are.equal(9, k:position())
    k:seek(3)
    assert.are.equal('23', k:readString(2))
    k:writeString('ab')
    k:seek(1)
    assert.are.equal('0123ab67', k:readString('*a'))
  end)

  it('binary numbers written into the middle read back in place', function()
    local m = torch.MemoryFile('rw'):binary()
    m:writeInt(1); m:writeInt(2); m:writeInt(3)
    m:seek(1)
    assert.are.equal(1, m:readInt())
    m:writeInt(20)
    assert.are.equal(3, m:readInt())
    m:seek(1)
    assert.are.same({1, 20, 3}, m:readInt(3):totable())
  end)
end)

describe('serializeToStorage and Generators', function()
  it('serializeToStorage gives the serialized bytes as a CharStorage', function()
    local obj = {6, a = 42, t = torch.range(1, 3)}
    local st = torch.serializeToStorage(obj)
    assert.are.equal('torch.CharStorage', torch.type(st))
    assert.are.equal(torch.serialize(obj), st:_bytes())
    local back = torch.deserializeFromStorage(st)
    assert.are.equal(42, back.a)
    assert.are.same({1, 2, 3}, back.t:totable())
    assert.are.equal(42, torch.deserializeFromStorage(torch.serializeToStorage({a = 42}, 'ascii'), 'ascii').a)
    H.errors(function() torch.deserializeFromStorage('x') end, 'torch.deserializeFromStorage: CharStorage or CharTensor expected, got string')
  end)

  it('a saved generator gives the same numbers after loading, binary and ascii', function()
    for _, mode in ipairs{'binary', 'ascii'} do
      local g = torch.Generator()
      torch.manualSeed(g, 123)
      torch.uniform(g)
      local h = torch.deserialize(torch.serialize(g, mode), mode)
      assert.are.equal('torch.Generator', torch.type(h))
      for _ = 1, 5 do assert.are.equal(torch.random(g), torch.random(h)) end
      assert.are.equal(torch.normal(g), torch.normal(h))
      local name = tmpname()
      torch.save(name, {gen = g}, mode)
      local l = torch.load(name, mode).gen
      assert.are.equal(torch.uniform(g), torch.uniform(l))
      os.remove(name)
    end
    -- Torch7's layout: the raw 5048 bytes of its generator after the class name
    local s = torch.serialize(torch.Generator())
    assert.is_truthy(s:find('torch.Generator', 1, true))
    H.errors(function() torch.deserialize(s:sub(1, #s - 100)) end, 'truncated')
  end)
end)

describe('writeObject hooks', function()
  it('write hook(x) in place of every object x, keeping references to x shared', function()
    local shared = {kind = 'old'}
    local obj = {a = shared, b = shared, n = 1}
    local f = torch.MemoryFile('rw'):binary()
    f:writeObject(obj, nil, function(x)
      if type(x) == 'table' and x.kind == 'old' then return {kind = 'new'} end
      return x
    end)
    f:seek(1)
    local back = f:readObject()
    assert.are.equal('new', back.a.kind)
    assert.are.equal(back.a, back.b)
    assert.are.equal(1, back.n)
    H.errors(function() torch.MemoryFile('w'):writeObject(1, nil, 'x') end, 'writeObject: hook must be a function, got string')
  end)
end)

describe('the ascii reader', function()
  it('refuses a file cut inside a number instead of loading another object', function()
    local name = tmpname()
    torch.save(name, {1.5, 'abc', 31415, torch.range(1, 3), torch.FloatTensor{2.25}}, 'ascii')
    local all = readbytes(name)
    assert.are.same({1, 2, 3}, torch.load(name, 'ascii')[4]:totable())
    for cut = 1, #all - 1 do
      local f = assert(io.open(name, 'wb'))
      f:write(all:sub(1, cut))
      f:close()
      assert.is_false(pcall(torch.load, name, 'ascii'), 'loaded a file cut at byte ' .. cut)
    end
    os.remove(name)
  end)
end)
