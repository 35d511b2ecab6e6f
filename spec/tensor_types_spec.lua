-- The integer tensor types Char (int8), Short (int16) and Int (int32), with
-- Byte, Long, Float and Double: construction, conversions with Torch7's
-- truncation and wrap-around, copy between every pair of types, integer
-- math, sums in a long accumulator, printing, torch.save/load in both
-- formats, and the errors; and Half (IEEE fp16), a storage type without
-- math, as Torch7's CPU HalfTensor (src/tensor/th_dtype.h lists the types).
require 'torch'

local helpers = require 'spec.support.helpers'
local errors = helpers.errors

local NEW = {'Char', 'Short', 'Int'}
local ALL = {'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half'}
local BITS = {Char = 8, Short = 16, Int = 32}

describe('integer tensor types: construction', function()
  it('has every type, its storage and its conversion method, in the C core order', function()
    assert.are.same(ALL, torch._typenames)
    for _, n in ipairs(ALL) do
      assert.are.equal('torch.' .. n .. 'Tensor', torch.type(torch[n .. 'Tensor']()))
      assert.are.equal('torch.' .. n .. 'Storage', torch.type(torch[n .. 'Storage']()))
      assert.is_function(torch.DoubleTensor()[n:lower()])
      assert.is_true(torch.isTensor(torch[n .. 'Tensor'](1)))
      assert.is_true(torch.isStorage(torch[n .. 'Storage'](1)))
    end
  end)

  it('knows the element sizes (elementSize, as Torch7)', function()
    local want = {Byte = 1, Char = 1, Short = 2, Int = 4, Long = 8, Float = 4, Double = 8, Half = 2}
    for _, n in ipairs(ALL) do
      assert.are.equal(want[n], torch[n .. 'Tensor']():elementSize(), n)
      assert.are.equal(want[n], torch[n .. 'Storage']():elementSize(), n)
    end
  end)

  for _, n in ipairs(NEW) do
    local T, S = torch[n .. 'Tensor'], torch[n .. 'Storage']
    it('builds ' .. n .. ' tensors in every constructor form', function()
      assert.are.equal(0, T():dim())
      assert.are.same({2, 3}, T(2, 3):size():totable())
      assert.are.same({2, 3}, T(torch.LongStorage{2, 3}):size():totable())
      local t = T({{1, -2, 3}, {4, 5, -6}})
      assert.are.same({{1, -2, 3}, {4, 5, -6}}, t:totable())
      assert.are.equal('integer', math.type(t[1][2]))
      local s = S({10, 20, 30, 40})
      assert.are.equal(4, #s)
      assert.are.equal(30, s[3])
      local v = T(s, 2, torch.LongStorage{3})
      assert.are.same({20, 30, 40}, v:totable())
      v[1] = -7
      assert.are.equal(-7, s[2])
      assert.are.same({3}, T(v):size():totable())
      assert.are.same({0, 0}, T(2):zero():totable())
      assert.are.same({5, 5, 5}, T(3):fill(5):totable())
      assert.are.same({1, 2, 3, 4}, torch.range(T(), 1, 4):totable())
      assert.are.same({{1, 0}, {0, 1}}, torch.eye(T(), 2):totable())
    end)

    it('stores numbers in a ' .. n .. ' tensor as Torch7: fractions truncate, overflow wraps', function()
      local t = T(4)
      t[1] = 2.9
      t[2] = -2.9
      t[3] = 2 ^ (BITS[n] - 1)          -- one past the largest
      t[4] = true
      assert.are.same({2, -2, -(2 ^ (BITS[n] - 1)) // 1, 1}, t:totable())
      local s = S({2 ^ BITS[n] + 5})
      assert.are.equal(5, s[1])
    end)
  end
end)

describe('byte and char storages as strings', function()
  it('give and take their bytes with :string(), as Torch7', function()
    local c = torch.CharStorage({72, 105, -1})
    assert.are.equal('Hi\255', c:string())
    assert.are.equal(c, c:string('abc'))
    assert.are.same({97, 98, 99}, c:totable())
    assert.are.same({104, 255}, torch.ByteStorage():string('h\255'):totable())
    assert.are.same({-1}, torch.CharStorage():string('\255'):totable())
    assert.is_nil(torch.IntStorage(1).string)
    errors(function() c:string(5) end, "bad argument #2 to 'string' (string expected, got number)")
  end)
end)

describe('integer tensor types: conversions', function()
  it('converts with :char() :short() :int() and :type(), keeping in-range values', function()
    local d = torch.DoubleTensor({{-100, 0, 7}, {100, 1, -1}})
    for _, n in ipairs(NEW) do
      local t = d[n:lower()](d)
      assert.are.equal('torch.' .. n .. 'Tensor', torch.type(t))
      assert.are.same(d:totable(), t:totable())
      assert.are.same(d:totable(), t:double():totable(), n .. ' round trip')
      assert.are.same(d:totable(), t:type('torch.LongTensor'):type('torch.' .. n .. 'Tensor'):totable())
      assert.are.equal(t, t:type('torch.' .. n .. 'Tensor'), 'the tensor itself when already of the type')
      assert.are.equal('torch.' .. n .. 'Tensor', torch.type(torch.FloatTensor(2):typeAs(t)))
    end
  end)

  it('truncates floating values toward zero and wraps out-of-range ones (two\'s complement)', function()
    local d = torch.DoubleTensor({2.9, -2.9, 300, -129, 40000, 3e9})
    assert.are.same({2, -2, 44, 127, 64, 0}, d:char():totable())
    assert.are.same({2, -2, 300, -129, -25536, 24064}, d:short():totable())
    assert.are.same({2, -2, 300, -129, 40000, -1294967296}, d:int():totable())
    -- NaN and inf have no integer value: an error, not a silent 0
    for _, v in ipairs({0 / 0, math.huge, -math.huge}) do
      for _, n in ipairs({'byte', 'char', 'short', 'int', 'long'}) do
        assert.has_error(function() torch.DoubleTensor({1, v})[n](torch.DoubleTensor({1, v})) end)
      end
    end
    -- float sources take the same path
    assert.are.same({44, -2}, torch.FloatTensor({300, -2.5}):char():totable())
  end)

  it('narrows integers by keeping the low bits, as a C cast', function()
    local l = torch.LongTensor({2 ^ 40 + 5, -1, 255, 65535 + 65536})
    assert.are.same({5, -1, -1, -1}, l:char():totable())
    assert.are.same({5, -1, 255, -1}, l:short():totable())
    assert.are.same({5, -1, 255, 131071}, l:int():totable())
    assert.are.same({200 - 256, 127}, torch.ByteTensor({200, 127}):char():totable())
    assert.are.same({255, 128}, torch.CharTensor({-1, -128}):byte():totable())
    assert.are.same({-1, -128}, torch.CharTensor({-1, -128}):long():totable())
  end)

  it('copies between every pair of types, contiguous and strided', function()
    local vals = {0, 1, 7, 100, 127}
    for _, from in ipairs(ALL) do
      for _, to in ipairs(ALL) do
        local src = torch[from .. 'Tensor'](vals)
        local dst = torch[to .. 'Tensor'](5):copy(src)
        assert.are.same(vals, dst:totable(), from .. ' -> ' .. to)
        local wide = torch[from .. 'Tensor'](5, 2):zero()
        wide:select(2, 2):copy(src)
        local d2 = torch[to .. 'Tensor'](2, 5):zero()
        d2:select(1, 2):copy(wide:select(2, 2))
        assert.are.same(vals, d2[2]:totable(), from .. ' -> ' .. to .. ' strided')
      end
    end
  end)

  it('keeps torch.setdefaulttensortype to floating types (Torch7 accepted any: docs/compat.md)', function()
    errors(function() torch.setdefaulttensortype('torch.IntTensor') end,
           "torch.setdefaulttensortype: 'torch.FloatTensor' or 'torch.DoubleTensor' expected, got torch.IntTensor")
    assert.are.equal('torch.DoubleTensor', torch.getdefaulttensortype())
  end)
end)

describe('integer tensor types: math', function()
  for _, n in ipairs(NEW) do
    local T = torch[n .. 'Tensor']
    local max = (1 << (BITS[n] - 1)) - 1
    local min = -max - 1
    it('computes ' .. n .. ' arithmetic as Torch7 (C division, wrap-around)', function()
      local a, b = T({7, -7, 7, -7}), T({2, 2, -2, -2})
      assert.are.same({9, -5, 5, -9}, a:clone():add(b):totable())
      assert.are.same({14, -14, -14, 14}, a:clone():cmul(b):totable())
      assert.are.same({3, -3, -3, 3}, torch.cdiv(a, b):totable(), 'cdiv truncates')
      assert.are.same({3, -3, 3, -3}, torch.div(a, 2):totable(), 'div truncates')
      assert.are.same({1, -1, 1, -1}, torch.fmod(a, 3):totable(), 'fmod: the dividend\'s sign')
      assert.are.same({1, 2, 1, 2}, torch.remainder(a, 3):totable(), 'remainder: the divisor\'s sign')
      assert.are.same({-2, -1, -2, -1}, torch.remainder(a, -3):totable())
      assert.are.same({1, -1, 1, -1}, torch.cfmod(a, T({3, 3, 3, 3})):totable())
      assert.are.same({1, 2, -2, -1}, torch.cremainder(a, T({3, 3, -3, -3})):totable())
      assert.are.same({8, -6, 8, -6}, torch.add(a, 1):totable())
      assert.are.same({21, -21, 21, -21}, torch.mul(a, 3):totable())
      assert.are.same({-7, 7, -7, 7}, torch.neg(a):totable())
      assert.are.same({7, 7, 7, 7}, torch.abs(a):totable())
      assert.are.same({1, -1, 1, -1}, torch.sign(a):totable())
      assert.are.same({5, -5, 5, -5}, torch.clamp(a, -5, 5):totable())
      assert.are.same({7, 2, 7, -2}, torch.cmax(a, b):totable())
      assert.are.same({2, -7, -2, -7}, torch.cmin(a, b):totable())
      assert.are.same({23, 9, -9, -23}, torch.addcmul(a, 2, a:clone():fill(1), b:clone():mul(4)):totable())
      assert.are.same({8, -6, 8, -6}, torch.addcdiv(a, 1, b, b):totable())
      -- overflow wraps; MIN / -1 is MIN (no trap) and abs(MIN) is MIN, as C on x86
      assert.are.same({min}, T({max}):add(1):totable())
      assert.are.same({max}, T({min}):add(-1):totable())
      assert.are.same({min}, T({min}):div(-1):totable())
      assert.are.same({0}, T({min}):fmod(-1):totable())
      assert.are.same({min}, T({min}):abs():totable())
      assert.are.same({-2}, T({max}):mul(2):totable())
    end)

    it('reduces ' .. n .. ' tensors: sums and products in a long, max/min with indices, sort', function()
      local t = T({{3, -1, 2}, {-5, 4, 0}})
      assert.are.equal(3, t:sum())
      assert.are.equal('integer', math.type(t:sum()))
      assert.are.same({{4}, {-1}}, t:sum(2):totable())
      assert.are.same({{-2, 3, 2}}, t:sum(1):totable())
      assert.are.equal(0, t:prod())
      assert.are.equal(4, t:max())
      assert.are.equal(-5, t:min())
      local v, i = t:max(2)
      assert.are.same({{3}, {4}}, v:totable())
      assert.are.same({{1}, {2}}, i:totable())
      assert.are.same({{3, 2, 4}, {-5, -1, -1}}, t:cumsum(2):totable())
      assert.are.same({{3, -3, -6}, {-5, -20, 0}}, t:cumprod(2):totable())
      assert.are.equal(3 * 3 + 1 + 4 + 25 + 16, t:dot(t))
      local sv, si = T({3, -1, 2, -5}):sort()
      assert.are.same({-5, -1, 2, 3}, sv:totable())
      assert.are.same({4, 2, 3, 1}, si:totable())
      assert.are.same({3, 2, -1, -5}, (T({3, -1, 2, -5}):sort(1, true)):totable())
      -- the accumulator is a long: the sum exceeds the element type
      assert.are.equal(max * 1000, T(1000):fill(max):sum())
      assert.are.equal(min * 3, T(3):fill(min):sum())
      assert.are.equal(2 * max * max, T({max, max}):dot(T({max, max})))
    end)

    it('compares ' .. n .. ' tensors with numbers exactly (no wrap of the number)', function()
      local t = T({-1, 0, 2, 3})
      assert.are.same({0, 0, 0, 0}, t:eq(2 ^ BITS[n] - 1):totable())
      assert.are.same({1, 1, 1, 1}, t:lt(2 ^ BITS[n]):totable())
      assert.are.same({1, 1, 1, 0}, t:lt(2.5):totable())
      assert.are.same({0, 0, 1, 1}, t:ge(1.5):totable())
      assert.are.same({0, 1, 1, 1}, t:gt(-1):totable())
      assert.are.same({0, 0, 1, 0}, t:eq(T({1, 1, 2, 2})):totable())
      local r = T()
      r:gt(t, 0)
      assert.are.same({0, 0, 1, 1}, r:totable(), 'a result of the input type')
    end)

    it('indexes and selects in ' .. n .. ' tensors', function()
      local t = T({{1, 2, 3}, {4, 5, 6}})
      assert.are.same({4, 5, 6}, t[2]:totable())
      assert.are.equal(6, t[{2, 3}])
      assert.are.same({{3}, {6}}, t[{{}, {3}}]:totable())
      assert.are.same({{4, 5, 6}}, t:index(1, torch.LongTensor{2}):totable())
      assert.are.same({5, 6}, t:maskedSelect(t:gt(4)):totable())
      assert.are.same({{1, 0, 3}, {0, 5, 0}}, t:clone():maskedFill(torch.ByteTensor({{0, 1, 0}, {1, 0, 1}}), 0):totable())
      assert.are.same({{2, 1}, {6, 6}}, t:gather(2, torch.LongTensor({{2, 1}, {3, 3}})):totable())
      assert.are.same({{1, 2}, {1, 3}, {2, 1}, {2, 2}}, T({{0, 1, 1}, {1, 1, 0}}):nonzero():totable())
      assert.are.same({{1, 4}, {2, 5}, {3, 6}}, t:t():totable())
      assert.are.same({1, 2, 3, 4, 5, 6}, t:view(6):totable())
    end)

    it('draws random ' .. n .. ' values in Torch7\'s range', function()
      torch.manualSeed(1)
      local r = T(200):random()
      assert.is_true(r:min() >= 0 and r:max() <= max)
      r = T(200):random(-3, 3)
      assert.is_true(r:min() >= -3 and r:max() <= 3)
      assert.are.same({1, 2, 3, 4, 5}, (torch.randperm(T(), 5):sort()):totable())
      errors(function() torch.randperm(T(), max + 1) end, 'does not fit in a ' .. n .. 'Tensor')
    end)
  end

  it('gives abs for every integer type (Torch7: Short, Int and Long; docs/compat.md)', function()
    assert.are.same({5, 0, 5}, torch.CharTensor({-5, 0, 5}):abs():totable())
    assert.are.same({5, 0, 5}, torch.ShortTensor({-5, 0, 5}):abs():totable())
    assert.are.same({2147483647, 1}, torch.IntTensor({-2147483647, -1}):abs():totable())
  end)
end)

-- GCC 12.2 at -O3 with AVX-512 once vectorized the integer sum wrongly
-- (src/tensor/generic/math_reduce.c); every length up to past two vector
-- widths, contiguous, strided and per row, against the sum done in Lua.
describe('integer sums of every length', function()
  it('match the exact sum for Char, Short and Int (contiguous, strided, per row, count)', function()
    for _, n in ipairs(NEW) do
      local T = torch[n .. 'Tensor']
      for len = 1, 70 do
        local t = T(len)
        local want = 0
        for i = 1, len do
          t[i] = ((i * 37) % 200) - 100
          want = want + t[i]
        end
        assert.are.equal(want, t:sum(), n .. ' of ' .. len)
        local wide = T(len, 3):zero()
        wide:select(2, 2):copy(t)
        assert.are.equal(want, wide:select(2, 2):sum(), n .. ' strided, ' .. len)
        -- along a dimension the result has the input's type (as Torch7): it wraps
        local half = 2 ^ (BITS[n] - 1) // 1
        local w = (want + half) % (2 * half) - half
        local rows = t:view(1, len):expand(3, len):contiguous()
        assert.are.same({w, w, w}, rows:sum(2):view(-1):totable(), n .. ' rows of ' .. len)
        assert.are.same({w, w, w}, rows:t():sum(1):view(-1):totable(), n .. ' columns of ' .. len)
        assert.are.same({want, want, want}, rows:long():sum(2):view(-1):totable(), n .. ' as long rows of ' .. len)
        assert.are.equal(len, T(len):fill(1):sum(), n .. ' ones ' .. len)
        assert.are.equal(len, t:ne(0):sum() + t:eq(0):sum(), n .. ' count of ' .. len)
      end
    end
  end)
end)

describe('integer tensor types: printing', function()
  it('prints integers without decimals, as Torch7', function()
    -- Torch7's width: the digits of the largest magnitude plus one
    assert.are.equal('   1\n  -2\n 127\n[torch.CharTensor of size 3]\n', tostring(torch.CharTensor({1, -2, 127})))
    assert.are.equal(' 1  2\n-3  4\n[torch.ShortTensor of size 2x2]\n', tostring(torch.ShortTensor({{1, 2}, {-3, 4}})))
    assert.are.equal('[torch.IntTensor with no dimension]\n', tostring(torch.IntTensor()))
    assert.are.equal('\n 5\n-6\n[torch.IntStorage of size 2]\n', tostring(torch.IntStorage({5, -6})))
    -- ten digits and more: Torch7's '%11.4e'
    assert.are.equal(' 2.1475e+09\n-2.1475e+09\n[torch.IntTensor of size 2]\n',
                     tostring(torch.IntTensor({2147483647, -2147483648})))
    local s = tostring(torch.IntTensor(2, 2, 2):fill(3))
    assert.truthy(s:find('(2,.,.) = \n  3  3\n  3  3\n', 1, true))
    assert.truthy(s:find('[torch.IntTensor of size 2x2x2]', 1, true))
  end)
end)

describe('integer tensor types: torch.save and torch.load', function()
  local function roundtrip(x, mode)
    return torch.deserialize(torch.serialize(x, mode), mode)
  end

  it('writes Torch7\'s binary layout: elements of the type\'s own size', function()
    local s = torch.serialize(torch.IntStorage({1, -2}))
    local want = string.pack('<i4i4', 4, 1) .. string.pack('<i4', 3) .. 'V 1' ..
                 string.pack('<i4', 16) .. 'torch.IntStorage' .. string.pack('<i8', 2) .. string.pack('<i4i4', 1, -2)
    assert.are.equal(want, s)
    s = torch.serialize(torch.ShortStorage({-3}))
    assert.are.equal(string.pack('<i8', 1) .. string.pack('<i2', -3), s:sub(-10))
    s = torch.serialize(torch.CharStorage({-1, 65}))
    assert.are.equal(string.pack('<i8', 2) .. '\255A', s:sub(-10))
  end)

  it('writes ascii as Torch7: Short and Int as decimal numbers, Char as raw bytes', function()
    assert.truthy(torch.serialize(torch.ShortStorage({1, -2, 32767}), 'ascii'):find('\n3\n1 -2 32767\n', 1, true))
    assert.truthy(torch.serialize(torch.IntStorage({-2147483648}), 'ascii'):find('\n1\n-2147483648\n', 1, true))
    assert.truthy(torch.serialize(torch.CharStorage({65, 66, -1}), 'ascii'):find('\n3\nAB\255\n', 1, true))
  end)

  for _, mode in ipairs{'binary', 'ascii'} do
    it('round-trips every integer type in ' .. mode .. ' (extremes, views, shared storages)', function()
      for _, n in ipairs(NEW) do
        local T = torch[n .. 'Tensor']
        local max = (1 << (BITS[n] - 1)) - 1
        local t = T({{-max - 1, -1, 0}, {1, 10, max}})
        local u = roundtrip(t, mode)
        assert.are.equal('torch.' .. n .. 'Tensor', torch.type(u))
        assert.are.same(t:totable(), u:totable(), n)
        local v = roundtrip(t:t(), mode)
        assert.are.same(t:t():totable(), v:totable(), n .. ' transposed view')
        local both = roundtrip({t, t[2]}, mode)
        both[1][2][3] = 5
        assert.are.equal(5, both[2][3], n .. ': the view still shares its storage')
        local s = roundtrip(torch[n .. 'Storage']({-max - 1, max}), mode)
        assert.are.equal('torch.' .. n .. 'Storage', torch.type(s))
        assert.are.same({-max - 1, max}, s:totable())
        assert.are.equal(0, roundtrip(T(), mode):dim())
      end
    end)
  end

  it('saves to and loads from files', function()
    local name = os.tmpname()
    for _, mode in ipairs{'binary', 'ascii'} do
      torch.save(name, {c = torch.CharTensor({-5, 5}), i = torch.IntTensor({7})}, mode)
      local x = torch.load(name, mode)
      assert.are.same({-5, 5}, x.c:totable())
      assert.are.same({7}, x.i:totable())
    end
    os.remove(name)
  end)

  it('reads and writes shorts in torch.File objects (writeShort/readShort)', function()
    local p = os.tmpname()
    for _, mode in ipairs{'binary', 'ascii'} do
      local f = torch.DiskFile(p, 'w')
      f[mode](f)
      f:writeShort(-32768)
      f:writeShort(7)
      f:writeInt(-5)
      f:close()
      f = torch.DiskFile(p, 'r')
      f[mode](f)
      assert.are.equal(-32768, f:readShort())
      assert.are.equal(7, f:readShort())
      assert.are.equal(-5, f:readInt())
      f:close()
    end
    os.remove(p)
  end)

  it('rejects an ascii number outside the storage type\'s range', function()
    local s = torch.serialize(torch.ShortStorage({1, 2}), 'ascii'):gsub('\n1 2\n$', '\n1 40000\n')
    errors(function() torch.deserialize(s, 'ascii') end, "bad number in a torch.ShortStorage of 2 elements: '40000'")
  end)
end)

describe('integer tensor types as nn indices', function()
  it('are read as indices and targets by LookupTable and ClassNLLCriterion', function()
    require 'nn'
    local lt = nn.LookupTable(10, 3)
    local want = lt:forward(torch.LongTensor({{1, 10}, {3, 4}})):clone()
    for _, n in ipairs(NEW) do
      assert.are.same(want:totable(), lt:forward(torch[n .. 'Tensor']({{1, 10}, {3, 4}})):totable(), n)
    end
    local logp = torch.log(torch.DoubleTensor({{0.5, 0.25, 0.25}, {0.1, 0.2, 0.7}}))
    local c = nn.ClassNLLCriterion()
    local ref = c:forward(logp, torch.LongTensor({1, 3}))
    for _, n in ipairs(NEW) do
      assert.are.equal(ref, c:forward(logp, torch[n .. 'Tensor']({1, 3})), n)
    end
    errors(function() lt:forward(torch.CharTensor({11})) end, 'index 11 out of range (expected 1..10)')
  end)
end)

describe('integer tensor types: errors', function()
  it('names the function and the types', function()
    errors(function() torch.IntTensor(2):exp() end, 'exp: not available for IntTensor (expects a Float or Double tensor)')
    errors(function() torch.CharTensor(2):fill(1):div(0) end, 'div: integer division by zero')
    errors(function() torch.ShortTensor({1, 2}):cdiv(torch.ShortTensor({1, 0})) end,
           'cdiv: integer division by zero (the divisor tensor holds a 0)')
    errors(function() torch.IntTensor(2):add(torch.LongTensor(2)) end,
           "bad argument #2 to 'add' (torch.IntTensor expected, got torch.LongTensor)")
    errors(function() torch.DoubleTensor(3):index(1, torch.IntTensor{1}) end,
           "bad argument #3 to 'index' (torch.LongTensor expected, got torch.IntTensor)")
    errors(function() torch.ShortStorage({1, 'x'}) end,
           'torch.ShortStorage: table holds a string at position 2 where a number was expected')
    errors(function() local t = torch.CharTensor(2); t[1] = 'x' end,
           "bad argument #3 to '__newindex' (number expected, got string)")
    errors(function() torch.IntTensor(2, 2):mm(torch.IntTensor(2, 2)) end,
           'mm: not available for IntTensor (expects a Float or Double tensor)')
    errors(function() torch.IntTensor(2):type('torch.QuadTensor') end,
           "type: tensor type name expected (e.g. 'torch.FloatTensor'), got torch.QuadTensor")
  end)
end)

describe('torch.HalfTensor (IEEE fp16 storage, no math)', function()
  it('converts from floats by rounding to nearest even, with inf, NaN and subnormals', function()
    local d = torch.DoubleTensor({1, -2, 0.5, 65504, 65519, 65520, 1e9, 0.1, 2049, 2051,
                                  2 ^ -24, 2 ^ -25, 3 * 2 ^ -25, 2 ^ -14, 1e-8, 1 / 0, -1 / 0})
    local want = {1, -2, 0.5, 65504, 65504, 1 / 0, 1 / 0, 0.0999755859375, 2048, 2052,
                  2 ^ -24, 0, 2 ^ -23, 2 ^ -14, 0, 1 / 0, -1 / 0}
    assert.are.same(want, d:half():double():totable())
    assert.are.same(want, d:float():half():float():double():totable())
    local n = torch.FloatTensor({0 / 0}):half()[1]
    assert.is_true(n ~= n, 'NaN stays NaN')
    assert.are.equal('float', math.type(torch.HalfTensor({3})[1]))
    local t = torch.HalfTensor(2)
    t[1] = 0.1
    t[2] = 70000
    assert.are.same({0.0999755859375, 1 / 0}, t:totable())
  end)

  it('converts to and from every type; integers truncate and wrap as from Float', function()
    local h = torch.HalfTensor({2.5, -2.5, 300.5, 7})
    assert.are.same({2, -2, 300, 7}, h:int():totable())
    assert.are.same({2, -2, 44, 7}, h:char():totable())
    assert.are.same({2, 254, 44, 7}, h:byte():totable())
    assert.are.same({2.5, -2.5, 300.5, 7}, h:double():totable())
    assert.are.same({3, -4, 100}, torch.LongTensor({3, -4, 100}):half():long():totable())
    assert.are.equal('torch.HalfTensor', torch.type(torch.IntTensor(2):type('torch.HalfTensor')))
    local s = torch.HalfTensor(2, 3)
    s:t():copy(torch.DoubleTensor({{1, 2}, {3, 4}, {5, 6}}))
    assert.are.same({{1, 3, 5}, {2, 4, 6}}, s:totable(), 'strided copy into Half')
    assert.are.same({{1, 3, 5}, {2, 4, 6}}, s:clone():totable())
    assert.are.same({{1, 2}, {3, 4}, {5, 6}}, s:t():contiguous():totable())
    assert.are.same({1.5, 1.5}, torch.HalfTensor(2, 2):fill(1.5):select(2, 1):totable())
    assert.are.same({{0, 0}}, torch.HalfTensor(1, 2):fill(3):zero():totable())
  end)

  it('prints as a floating tensor', function()
    assert.are.equal(' 1.0000\n-2.0000\n 0.5000\n[torch.HalfTensor of size 3]\n',
                     tostring(torch.HalfTensor({1, -2, 0.5})))
    assert.are.equal('\n 1.5000\n[torch.HalfStorage of size 1]\n', tostring(torch.HalfStorage({1.5})))
  end)

  it('saves as Torch7: binary fp16 bits, ascii the float value', function()
    assert.are.equal(string.pack('<i8', 2) .. '\0\60\0\192', torch.serialize(torch.HalfStorage({1, -2})):sub(-12))
    assert.truthy(torch.serialize(torch.HalfStorage({1.5, -2}), 'ascii'):find('\n2\n1.5 -2\n', 1, true))
    for _, mode in ipairs{'binary', 'ascii'} do
      local h = torch.HalfTensor({{0.1, -65504}, {2 ^ -24, 1 / 0}})
      local u = torch.deserialize(torch.serialize(h:t(), mode), mode)
      assert.are.equal('torch.HalfTensor', torch.type(u))
      assert.are.same(h:t():totable(), u:totable(), mode)
    end
  end)

  it('refuses math with a message naming the function and the way out', function()
    local h = torch.HalfTensor({1, 2})
    local how = 'not available for HalfTensor (a storage type here, as in Torch7: convert it, e.g. x:float())'
    errors(function() h:add(1) end, 'add: ' .. how)
    errors(function() h:cmul(h) end, 'cmul: ' .. how)
    errors(function() h:sum() end, 'sum: ' .. how)
    errors(function() h:max() end, 'max: ' .. how)
    errors(function() h:abs() end, 'abs: ' .. how)
    errors(function() h:sort() end, 'sort: ' .. how)
    errors(function() h:index(1, torch.LongTensor{1}) end, 'index: ' .. how)
    errors(function() h:maskedFill(torch.ByteTensor{1, 0}, 3) end, 'maskedFill: ' .. how)
    errors(function() h:gt(1) end, 'gt: ' .. how)
    errors(function() h:random() end, 'random: ' .. how)
    errors(function() torch.range(torch.HalfTensor(), 1, 3) end, 'range: ' .. how)
    errors(function() h:exp() end, 'exp: ' .. how)
    errors(function() h:uniform() end, "bad argument #1 to 'uniform' (torch.FloatTensor or torch.DoubleTensor expected, got torch.HalfTensor)")
    errors(function() torch.setdefaulttensortype('torch.HalfTensor') end,
           "torch.setdefaulttensortype: 'torch.FloatTensor' or 'torch.DoubleTensor' expected, got torch.HalfTensor")
    assert.are.same({1, 2}, h:totable(), 'nothing written')
  end)
end)
