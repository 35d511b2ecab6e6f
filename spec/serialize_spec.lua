-- torch.save/load and torch.serialize/deserialize: round trips of every kind
-- of value in both formats, identity (cycles, aliases, shared storages),
-- torch.class objects and their hooks, Torch7 network files loaded
-- generically, and clear errors for corrupt, truncated or unsupported input.

require 'torch'

local FIX = require 'spec.support.fixtures'
local MODES = {'binary', 'ascii'}

local readfile = require('spec.support.helpers').readfile

local function writefile(p, s)
  local f = assert(io.open(p, 'wb'))
  f:write(s)
  f:close()
end

local function roundtrip(obj, mode)
  return torch.deserialize(torch.serialize(obj, mode), mode)
end

local function viadisk(obj, mode)
  local p = os.tmpname()
  torch.save(p, obj, mode)
  local r = torch.load(p, mode)
  os.remove(p)
  return r
end

local errmsg = require('spec.support.helpers').errmsg

local function sametensor(a, b)
  assert.are.equal(torch.typename(a), torch.typename(b))
  assert.are.equal(a:dim(), b:dim())
  for d = 1, a:dim() do
    assert.are.equal(a:size(d), b:size(d))
    assert.are.equal(a:stride(d), b:stride(d))
  end
  assert.are.equal(a:storageOffset(), b:storageOffset())
  if a:storage() then
    local sa, sb = a:storage(), b:storage()
    assert.are.equal(#sa, #sb)
    if sa:_bytes() == sb:_bytes() then return end   -- bit for bit: the fast path
    for i = 1, #sa do
      local x, y = sa[i], sb[i]
      assert.is_true(x == y or (x ~= x and y ~= y), 'element ' .. i)
    end
  else
    assert.is_nil(b:storage())
  end
end

describe('serialization round trips', function()
  for _, mode in ipairs(MODES) do
    describe('(' .. mode .. ')', function()
      it('keeps numbers exactly, integral values as integers', function()
        local nums = {0, 1, -7, 42, 2 ^ 53, -(2 ^ 53), 1 << 60, 3.25, 0.1, math.pi, 1e-300, 5e-324,
                      1.7976931348623157e308, math.huge, -math.huge}
        for _, v in ipairs(nums) do
          local r = roundtrip(v, mode)
          assert.are.equal(v, r)
          if v == math.floor(v) and math.abs(v) < 2 ^ 63 then
            assert.are.equal('integer', math.type(r), tostring(v))
          end
        end
        assert.are.equal('float', math.type(roundtrip(3.25, mode)))
        local nz = roundtrip(-0.0, mode)
        assert.are.equal('float', math.type(nz))
        assert.are.equal(-math.huge, 1 / nz)
        local nan = roundtrip(0 / 0, mode)
        assert.is_true(nan ~= nan)
      end)

      it('keeps strings byte for byte (NUL, newlines, high bytes, empty, long)', function()
        local all = {}
        for i = 0, 255 do all[#all + 1] = string.char(i) end
        for _, s in ipairs{'', 'x', 'a\0b', '\n', 'line1\nline2\ttab "q" \0 nul', table.concat(all),
                           string.rep('ab\n', 100000)} do
          assert.are.equal(s, roundtrip(s, mode))
        end
      end)

      it('keeps booleans, nil and nested tables with mixed keys', function()
        assert.are.equal(true, roundtrip(true, mode))
        assert.are.equal(false, roundtrip(false, mode))
        assert.is_nil(roundtrip(nil, mode))
        local t = {1, 2, 'three', {4, {5}}, x = {y = {z = 'deep'}}, [2.5] = 'f', [true] = 'b', [false] = 0,
                   [-3] = 'neg', flag = false}
        local r = roundtrip(t, mode)
        assert.are.same(t, r)
        assert.are.equal('f', r[2.5])
        assert.are.equal('b', r[true])
        assert.are.equal(0, r[false])
      end)

      it('keeps cycles and aliases as the same Lua objects', function()
        local a = {name = 'a'}
        local b = {name = 'b', a = a}
        a.b, a.self = b, a
        local root = {a, b, a, list = {a, b}}
        local r = roundtrip(root, mode)
        assert.is_true(r[1] == r[3])
        assert.is_true(r[1].self == r[1])
        assert.is_true(r[1].b == r[2])
        assert.is_true(r[2].a == r[1])
        assert.is_true(r.list[1] == r[1] and r.list[2] == r[2])
        -- a table used as a key is the same table as the value
        local k = {}
        local r2 = roundtrip({[k] = k}, mode)
        local kk, vv = next(r2)
        assert.is_true(kk == vv)
      end)

      it('keeps every tensor and storage type with values, geometry and type', function()
        torch.manualSeed(7)
        local d = torch.rand(3, 4)
        local tensors = {
          d, torch.FloatTensor(2, 5):normal(), torch.LongTensor({{-5, 2 ^ 40}, {3, 0}}),
          torch.ByteTensor({0, 1, 255, 128}), d:t(), d:narrow(2, 2, 2), d:select(1, 2),
          torch.Tensor(), torch.FloatTensor(), torch.DoubleTensor(1):fill(0 / 0),
          torch.DoubleTensor({math.huge, -math.huge, -0.0, 5e-324}),
          torch.FloatTensor({1e-45, 3.4028234663852886e38, -0.0}),
        }
        for i, t in ipairs(tensors) do sametensor(t, roundtrip(t, mode)) end
        for _, s in ipairs{torch.DoubleStorage({1.5, -2}), torch.FloatStorage({0.25}), torch.LongStorage({-1, 2 ^ 50}),
                           torch.ByteStorage({10, 0, 13, 255}), torch.DoubleStorage(), torch.ByteStorage()} do
          local r = roundtrip(s, mode)
          assert.are.equal(torch.typename(s), torch.typename(r))
          assert.are.same(s:totable(), r:totable())
        end
      end)

      it('keeps storage sharing: views of one storage load as views of one storage', function()
        local m = torch.range and torch.range(1, 20):view(4, 5) or torch.Tensor(4, 5)
        if not torch.range then
          for i = 1, 20 do m:storage()[i] = i end
        end
        local expanded = torch.Tensor({1, 2, 3}):view(1, 3):expand(4, 3)
        local root = {rows = m:narrow(1, 2, 2), cols = m:narrow(2, 3, 2), s = m:storage(), m = m,
                      again = m, expanded = expanded}
        local r = roundtrip(root, mode)
        assert.is_true(r.rows:storage() == r.s)
        assert.is_true(r.cols:storage() == r.s)
        assert.is_true(r.m == r.again)
        assert.is_false(r.m == r.rows)
        sametensor(root.cols, r.cols)
        sametensor(expanded, r.expanded)
        assert.are.equal(0, r.expanded:stride(1))
        r.rows[1][3] = -1
        assert.are.equal(-1, r.cols[2][1])
        assert.are.equal(-1, r.m[2][3])
      end)

      it('saves and loads through files', function()
        local obj = {t = torch.FloatTensor(3):fill(2), s = 'str', n = 1.5}
        local r = viadisk(obj, mode)
        assert.are.equal('torch.FloatTensor', torch.typename(r.t))
        assert.are.equal(2, r.t[3])
        assert.are.equal('str', r.s)
        assert.are.equal(1.5, r.n)
      end)

      it('round trips large storages in bulk', function()
        local t = torch.DoubleTensor(1 << 18):uniform()
        local l = torch.LongTensor(1 << 16):random(-1000000, 1000000)
        local r = viadisk({t, l}, mode)
        sametensor(t, r[1])
        sametensor(l, r[2])
      end)
    end)
  end

  it('writes and reads b32 files (4-byte longs) as Torch7 File:longSize(4)', function()
    local t = torch.LongTensor({{1, -2}, {3, 4}}):t()
    local s = torch.serialize({t = t, x = 3}, 'b32')
    local r = torch.deserialize(s, 'b32')
    sametensor(t, r.t)
    assert.are.equal(3, r.x)
    -- 4 bytes less for each of: 2 sizes, 2 strides, the offset, the storage size, 4 elements
    assert.are.equal(#torch.serialize({t = t, x = 3}) - 4 * 10, #s)
    assert.matches('does not fit in 4 bytes', errmsg(torch.serialize, torch.LongTensor({2 ^ 40}), 'b32'), 1, true)
  end)

  it('with referenced = false writes every occurrence in full (no sharing)', function()
    local p = os.tmpname()
    local t = {1, 2}
    local s = torch.DoubleStorage({1, 2, 3})
    torch.save(p, {t, t, torch.DoubleTensor(s), torch.DoubleTensor(s)}, 'binary', false)
    local r = torch.load(p)
    assert.are.same(r[1], r[2])
    assert.is_false(r[1] == r[2])
    assert.is_false(r[3]:storage() == r[4]:storage())
    os.remove(p)
  end)
end)

describe('torch.class objects', function()
  local Point = torch.class('h3ser.Point')
  function Point:__init(x, y) self.x, self.y = x, y end
  function Point:norm2() return self.x * self.x + self.y * self.y end
  local Point3 = torch.class('h3ser.Point3', 'h3ser.Point')
  function Point3:__init(x, y, z) Point.__init(self, x, y); self.z = z end

  local Hooked = torch.class('h3ser.Hooked')
  function Hooked:__init(v) self.v = v; self.cache = {junk = true} end
  function Hooked:__write(f)
    f:writeDouble(self.v)
    f:writeObject(self.extra)
  end
  function Hooked:__read(f, version)
    self.v = f:readDouble()
    self.extra = f:readObject()
    self.version = version
  end

  for _, mode in ipairs(MODES) do
    it('keep their class, fields, methods and nested tensors (' .. mode .. ')', function()
      local p = h3ser.Point3(3, 4, torch.Tensor({1, 2}))
      p.children = {h3ser.Point(1, 1), {deep = torch.LongTensor({5})}}
      p.me = p
      local r = roundtrip({p, p}, mode)
      assert.are.equal('h3ser.Point3', torch.typename(r[1]))
      assert.is_true(r[1] == r[2])
      assert.is_true(r[1].me == r[1])
      assert.are.equal(25, r[1]:norm2())
      assert.is_true(torch.isTypeOf(r[1], 'h3ser.Point'))
      assert.are.equal(2, r[1].z[2])
      assert.are.equal('h3ser.Point', torch.typename(r[1].children[1]))
      assert.are.equal(5, r[1].children[2].deep[1])
    end)

    it('use __write/__read hooks when the class defines them (' .. mode .. ')', function()
      local h = h3ser.Hooked(2.5)
      h.extra = {torch.FloatTensor({7})}
      local r = roundtrip({h, h}, mode)
      assert.are.equal('h3ser.Hooked', torch.typename(r[1]))
      assert.is_true(r[1] == r[2])
      assert.are.equal(2.5, r[1].v)
      assert.is_nil(r[1].cache)
      assert.are.equal(7, r[1].extra[1][1])
      assert.are.equal(1, r[1].version)
    end)
  end

  it('are written as the class name plus a table of fields, as Torch7 does', function()
    local s = torch.serialize(h3ser.Point(1, 2))
    local want = string.pack('<i4i4', 4, 1) .. string.pack('<i4', 3) .. 'V 1' .. string.pack('<i4', 11) ..
                 'h3ser.Point' .. string.pack('<i4i4i4', 3, 2, 2)
    assert.are.equal(want, s:sub(1, #want))
  end)

  it('save Lua functions with their upvalues (Torch7), skip C function fields with a warning', function()
    local p = h3ser.Point(1, 2)
    local k = 10
    p.callback = function(x) return x + k end
    p.native = print
    local stderr, warned = io.stderr, {}
    io.stderr = {write = function(_, s) warned[#warned + 1] = s end}
    local ok, r = pcall(roundtrip, p)
    io.stderr = stderr
    assert.is_true(ok, tostring(r))
    assert.are.equal('torch.save: warning: field native of h3ser.Point (a function) cannot be saved; skipped (at <?>)\n',
                     warned[1])
    assert.are.equal(13, r.callback(3))
    assert.is_nil(r.native)
    assert.are.equal(2, r.y)
    local e = errmsg(torch.serialize, {a = {f = print}})
    assert.matches("torch.serialize: <string>: cannot save a C function (at <?>.a.f)", e, 1, true)
  end)

  it('keep closures that share an upvalue sharing it, and recursive closures', function()
    local n = 0
    local t = {inc = function() n = n + 1 end, get = function() return n end}
    local fact
    fact = function(x) return x <= 1 and 1 or x * fact(x - 1) end
    t.fact = fact
    local c = torch.deserialize(torch.serialize(t))
    c.inc(); c.inc()
    assert.are.equal(2, c.get())
    assert.are.equal(0, n)
    assert.are.equal(120, c.fact(5))
    assert.are.equal(c.fact, c.fact)
    -- globals stay the reader's: _ENV is not saved
    local g = torch.deserialize(torch.serialize(function() return math.pi end))
    assert.are.equal(math.pi, g())
  end)

  it('of an unknown class give an error naming the class', function()
    local s = torch.serialize(h3ser.Point(1, 2)):gsub('h3ser%.Point', 'h3ser.Pxxxx')
    local e = errmsg(torch.deserialize, s)
    assert.matches("torch.deserialize: <string>: unknown Torch class 'h3ser.Pxxxx' (object #1 at byte 0)", e, 1, true)
  end)
end)

describe('Torch7 network files, loaded generically', function()
  -- rename the nn.* classes to zz.* (same length, so the file stays valid) and
  -- load them into stand-in classes: this checks the generic object loading
  -- without depending on nn
  local made = {}
  local function load_as_zz(name)
    local raw = readfile(FIX .. name)
    raw = raw:gsub('(....)nn%.(%w+)', function(len, cls)
      if string.unpack('<i4', len) == 3 + #cls then
        if not made[cls] then
          made[cls] = true
          if not torch.factory('zz.' .. cls) then torch.class('zz.' .. cls) end
        end
        return len .. 'zz.' .. cls
      end
    end)
    return torch.deserialize(raw)
  end

  it('mlp.t7 loads with every module, field and tensor', function()
    local net = load_as_zz('mlp.t7')
    assert.are.equal('zz.Sequential', torch.typename(net))
    assert.are.equal(4, #net.modules)
    local lin = net.modules[1]
    assert.are.equal('zz.Linear', torch.typename(lin))
    assert.are.equal('torch.DoubleTensor', lin._type)
    assert.are.same({20, 10}, {lin.weight:size(1), lin.weight:size(2)})
    assert.are.equal(20, lin.bias:size(1))
    assert.are.equal(0, lin.output:dim())
    assert.are.equal('zz.LogSoftMax', torch.typename(net.modules[4]))
  end)

  it('the _used files keep aliases between module outputs', function()
    local net = load_as_zz('mlp_used.t7')
    assert.is_true(net.output == net.modules[4].output)
    assert.is_false(net.train)
    local conv = load_as_zz('convnet_used.t7')
    local view, prev = conv.modules[8], conv.modules[7]
    assert.are.equal('zz.View', torch.typename(view))
    assert.is_true(view.output:storage() == prev.output:storage())
    assert.are.equal(64, view.numElements)
    assert.are.equal('torch.LongStorage', torch.typename(view.size))
    assert.are.equal('torch.LongTensor', torch.typename(conv.modules[3].indices))
    local rb = load_as_zz('resnet_block_used.t7')
    local ct = rb.modules[1]
    assert.are.equal('zz.ConcatTable', torch.typename(ct))
    assert.is_true(ct.output[1] == ct.modules[1].output)
    assert.is_true(ct.output[2] == ct.modules[2].output)
  end)

  it('the _io files and criterions_io.t7 load (plain tables and criterion objects)', function()
    local io_ = torch.load(FIX .. 'mlp_io.t7')
    assert.are.equal(4, io_.input:size(1))
    local crit = load_as_zz('criterions_io.t7')
    assert.are.equal('zz.ClassNLLCriterion', torch.typename(crit.ClassNLLCriterion.criterion))
    assert.are.equal(-100, crit.ClassNLLCriterion.criterion.ignoreIndex)
    assert.are.equal('torch.LongTensor', torch.typename(crit.ClassNLLCriterion.target))
    assert.are.equal(3, crit.ClassNLLCriterion_1d.target)
    assert.are.equal('zz.LogSoftMax', torch.typename(crit.CrossEntropyCriterion.criterion.lsm))
    for _, name in ipairs{'mlp', 'convnet', 'resnet_block', 'inception_mini', 'tables_net'} do
      for _, suffix in ipairs{'.t7', '_io.t7', '_used.t7'} do
        assert.is_not_nil(load_as_zz(name .. suffix), name .. suffix)
      end
    end
  end)

  it('without the classes, the error names the missing class', function()
    if torch.factory('nn.Sequential') then return end
    local e = errmsg(torch.load, FIX .. 'mlp.t7')
    assert.matches("torch.load: " .. FIX .. "mlp.t7: unknown Torch class 'nn.Sequential' (object #1 at byte 0); load the package that defines it first (e.g. require 'nn')", e, 1, true)
  end)
end)

describe('serialization errors', function()
  local sample = torch.serialize({a = torch.DoubleTensor({1, 2, 3}), s = 'hello', n = 1})

  it('a truncated file is a clear error at every cut, never a crash', function()
    local p = os.tmpname()
    for cut = 0, #sample - 1 do
      writefile(p, sample:sub(1, cut))
      local e = errmsg(torch.load, p)
      assert.matches('^torch%.load: ' .. p:gsub('%p', '%%%0') .. ': truncated at byte ' .. cut .. ' %(', e)
      e = errmsg(torch.deserialize, sample:sub(1, cut))
      assert.matches('^torch%.deserialize: <string>: truncated at byte ' .. cut .. ' %(', e)
    end
    os.remove(p)
  end)

  it('a truncated ascii file is a clear error', function()
    local s = torch.serialize({a = torch.DoubleTensor({1, 2, 3}), s = 'hello'}, 'ascii')
    for cut = 0, #s - 2 do
      local ok, e = pcall(torch.deserialize, s:sub(1, cut), 'ascii')
      if not ok then
        assert.matches('^torch%.deserialize: <string>: ', tostring(e))
      end
    end
    assert.matches('truncated at byte 0 (an integer expected at byte 0)', errmsg(torch.deserialize, '', 'ascii'), 1, true)
  end)

  it('reports the exact position and cause', function()
    assert.are.equal('torch.deserialize: <string>: truncated at byte 6 (a double at byte 4 needs 8 bytes, 2 left)',
                     errmsg(torch.deserialize, string.pack('<i4', 1) .. 'ab'))
    assert.are.equal('torch.deserialize: <string>: corrupt at byte 0: unknown type tag 77',
                     errmsg(torch.deserialize, string.pack('<i4', 77)))
    assert.are.equal('torch.deserialize: <string>: corrupt at byte 4: negative string length -5',
                     errmsg(torch.deserialize, string.pack('<i4i4', 2, -5)))
    local big = string.pack('<i4i4', 4, 1) .. string.pack('<i4', 3) .. 'V 1' .. string.pack('<i4', 19) ..
                'torch.DoubleStorage' .. string.pack('<i8', 1 << 40)
    assert.matches('truncated at byte 46 (a torch.DoubleStorage of 1099511627776 elements at byte 46 needs 8796093022208 bytes, 0 left)',
                   errmsg(torch.deserialize, big), 1, true)
  end)

  it('rejects tensor geometry outside its storage', function()
    local t = torch.DoubleTensor({1, 2, 3})
    local s = torch.serialize(t)
    -- size 3 -> 4 (the 8-byte size follows the 4-byte nDimension)
    local at = s:find(string.pack('<i4i8', 1, 3), 1, true)
    local bad = s:sub(1, at + 3) .. string.pack('<i8', 4) .. s:sub(at + 12)
    assert.matches('corrupt at byte 0: a 4 tensor at offset 1 with strides reaching element 4 lies outside its storage of 3 elements',
                   errmsg(torch.deserialize, bad), 1, true)
    local neg = s:sub(1, at + 3) .. string.pack('<i8', 3) .. string.pack('<i8', -1) .. s:sub(at + 20)
    assert.matches('negative stride -1 in a 3 tensor is not supported', errmsg(torch.deserialize, neg), 1, true)
  end)

  it('rejects tensor and storage types this build does not have', function()
    local s = torch.serialize(torch.FloatTensor({1}))
    -- (CUDA types are cutorch's: spec/cuda_standin_spec.lua)
    local quad = s:gsub(string.pack('<i4', 17) .. 'torch%.FloatTensor', string.pack('<i4', 16) .. 'torch.QuadTensor')
    assert.matches('torch.QuadTensor (object #1 at byte 0) is not supported: only Byte, Char, Short, Int, Long, Float, Double and Half',
                   errmsg(torch.deserialize, quad), 1, true)
    local quad2 = torch.serialize(torch.LongStorage({1})):gsub(string.pack('<i4', 17) .. 'torch%.LongStorage',
                                                            string.pack('<i4', 17) .. 'torch.QuadStorage')
    assert.matches('torch.QuadStorage (object #1 at byte 0) is not supported', errmsg(torch.deserialize, quad2), 1, true)
  end)

  it('says when a binary load meets an ascii file', function()
    assert.matches("corrupt at byte 0: unknown type tag 170986035 (the file looks like ascii: load it with mode 'ascii')",
                   errmsg(torch.deserialize, torch.serialize({1}, 'ascii')), 1, true)
  end)

  it('nesting too deep for the Lua stack is an error, on load and on save', function()
    local parts = {}
    for i = 1, 300000 do parts[i] = string.pack('<i4i4i4i4d', 3, i, 1, 1, 1) end
    parts[#parts + 1] = string.pack('<i4', 0)
    assert.are.equal('torch.deserialize: <string>: nesting deeper than 20000 (tables and objects inside each other) at byte 480000',
                     errmsg(torch.deserialize, table.concat(parts)))
    local root = {}
    local t = root
    for _ = 1, 300000 do t[1] = {}; t = t[1] end
    assert.are.equal('torch.serialize: <string>: nesting deeper than 20000 (tables and objects inside each other)',
                     errmsg(torch.serialize, root))
    -- just below the bound both ways
    root = {}
    t = root
    for _ = 1, 19000 do t[1] = {}; t = t[1] end
    t = torch.deserialize(torch.serialize(root))
    for _ = 1, 19000 do t = t[1] end
    assert.are.same({}, t)
  end)

  it('loads bytecode this process did not write only under torch.trustBytecode(true)', function()
    local code = string.dump(load('return 7'))
    local s = string.pack('<i4i4i4', 8, 2, #code) .. code .. torch.serialize({})   -- the {} is object 1
    assert.matches('the Lua function at byte 0 was not written by this process',
                   errmsg(torch.deserialize, s), 1, true)
    local was = torch.trustBytecode(true)
    local ok, f = pcall(torch.deserialize, s)
    torch.trustBytecode(was)
    assert.is_true(ok, tostring(f))
    assert.are.equal(7, f())
    -- Torch7's (LuaJIT) bytecode is refused with the reason, trusted or not
    local lj = string.pack('<i4i4i4', 8, 1, 5) .. '\27LJ\2\0' .. torch.serialize({})
    torch.trustBytecode(true)
    local e = errmsg(torch.deserialize, lj)
    torch.trustBytecode(was)
    assert.matches('the Lua function at byte 0 cannot be loaded', e, 1, true)
    assert.has_error(function() torch.trustBytecode('yes') end, 'torch.trustBytecode: boolean expected, got string')
    -- a damaged upvalue list is an error naming it, not a half-made closure
    local f = function() return 1 end
    local good = torch.serialize(f)
    local bad = good:sub(1, #good - #torch.serialize({})) .. torch.serialize(5)
    assert.matches('the upvalues of a function must be a table, got number', errmsg(torch.deserialize, bad), 1, true)
  end)

  it('random corruption never crashes: it loads or gives a torch.deserialize error', function()
    torch.manualSeed(1)
    local bytes = {sample:byte(1, -1)}
    for trial = 1, 400 do
      local b = {table.unpack(bytes)}
      for _ = 1, 1 + trial % 3 do
        local i = torch.random(1, #b)
        b[i] = torch.random(0, 255)
      end
      local s = string.char(table.unpack(b))
      local ok, e = pcall(torch.deserialize, s)
      if not ok then assert.matches('^torch%.deserialize: ', tostring(e)) end
    end
  end)

  it('checks arguments', function()
    assert.matches("torch.save: mode 'binary' or 'ascii' expected, got text", errmsg(torch.save, '/tmp/x', 1, 'text'), 1, true)
    assert.matches("torch.load: file name (string) expected, got nil", errmsg(torch.load), 1, true)
    assert.matches("torch.load: /nonexistent/dir/f.t7: cannot open for reading", errmsg(torch.load, '/nonexistent/dir/f.t7'), 1, true)
    assert.matches("torch.save: /nonexistent/dir/f.t7: cannot open for writing", errmsg(torch.save, '/nonexistent/dir/f.t7', 1), 1, true)
    assert.matches("torch.deserialize: string expected, got number", errmsg(torch.deserialize, 5), 1, true)
    assert.matches("cannot save a userdata (at <?>)", errmsg(torch.serialize, io.stdout), 1, true)
    assert.matches("cannot save a thread (at <?>.co)", errmsg(torch.serialize, {co = coroutine.create(print)}), 1, true)
    assert.matches("integer 9007199254740993 cannot be stored exactly (the format stores numbers as doubles) at <?>.big",
                   errmsg(torch.serialize, {big = (1 << 53) + 1}), 1, true)
  end)

  it('a failed save leaves no partial file behind', function()
    local p = os.tmpname()
    errmsg(torch.save, p, {f = print})
    assert.is_nil(io.open(p, 'rb'))
  end)
end)

describe('torch.DiskFile and torch.MemoryFile', function()
  it('write and read objects and scalars in sequence, as Torch7 File objects', function()
    local p = os.tmpname()
    for _, mode in ipairs(MODES) do
      local f = torch.DiskFile(p, 'w')
      f[mode](f)
      f:writeInt(-3)
      f:writeDouble(0.1)
      f:writeObject({1, 'two'})
      f:writeLong(1 << 40)
      f:writeFloat(0.5)
      f:writeBool(true)
      f:close()
      f = torch.DiskFile(p, 'r')
      f[mode](f)
      assert.are.equal(-3, f:readInt())
      assert.are.equal(0.1, f:readDouble())
      assert.are.same({1, 'two'}, f:readObject())
      assert.are.equal(1 << 40, f:readLong())
      assert.are.equal(0.5, f:readFloat())
      assert.is_true(f:readBool())
      f:close()
      assert.matches('file is closed', errmsg(f.readInt, f), 1, true)
    end
    os.remove(p)
    local m = torch.MemoryFile()
    m:writeObject('x')
    assert.are.equal('x', torch.MemoryFile(m:string()):readObject())
  end)
end)
