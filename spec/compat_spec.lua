-- Lua 5.1 / LuaJIT names for Torch7-era scripts (lua/torch/compat.lua).
require 'torch'

local compat = torch.compat
local impl = compat.impl

-- runs a Lua snippet in a fresh lua5.4 (same paths) and returns its output
local function fresh(code, env)
  local name = os.tmpname()
  local f = assert(io.open(name, 'w'))
  f:write(code)
  f:close()
  local p = io.popen((env or '') .. ' lua5.4 ' .. name .. ' 2>&1')
  local out = p:read('a')
  p:close()
  os.remove(name)
  return out
end

local function close(a, b)
  return a == b or math.abs(a - b) <= 4e-16 * math.max(math.abs(a), math.abs(b))
end

describe('torch.compat', function()
  it('provides the 5.1 globals when torch loads', function()
    assert.is_true(compat.enabled())
    assert.are.same({1, 2, 3}, {unpack({1, 2, 3})})
    assert.are.same({2, 3}, {unpack({1, 2, 3, 4}, 2, 3)})
    assert.are.equal(2, loadstring('return 1 + 1')())
    local f, err = loadstring('return +', 'snippet')
    assert.is_nil(f)
    assert.is_truthy(err:find('snippet', 1, true))
    assert.are.equal(3, table.getn({1, 2, 3}))
    assert.are.equal(10, table.maxn({1, 2, [10] = 3, x = 4}))
    assert.are.equal(0, table.maxn({}))
    local words = {}
    for w in string.gfind('a bb c', '%a+') do words[#words + 1] = w end
    assert.are.same({'a', 'bb', 'c'}, words)
    assert.are.equal(1.0, math.mod(7, 3))
  end)

  it('table.getn ignores __len, as Lua 5.1 did', function()
    local t = setmetatable({1, 2}, {__len = function() return 99 end})
    assert.are.equal(2, table.getn(t))
  end)

  it('table.foreach and foreachi stop at the first non-nil result', function()
    local seen = {}
    table.foreachi({'a', 'b', 'c'}, function(i, v) seen[#seen + 1] = i .. v end)
    assert.are.same({'1a', '2b', '3c'}, seen)
    assert.are.equal('b', table.foreachi({'a', 'b', 'c'}, function(_, v) if v == 'b' then return v end end))
    local n = 0
    table.foreach({x = 1, y = 2}, function() n = n + 1 end)
    assert.are.equal(2, n)
  end)

  it('has math.pow, log10, ldexp, frexp, cosh, sinh, tanh (built in or ours)', function()
    assert.are.equal(1024.0, math.pow(2, 10))
    assert.are.equal(3.0, math.log10(1000))
    assert.are.equal(4.0, math.ldexp(0.5, 3))
    assert.are.same({0.5, 4}, {math.frexp(8)})
    assert.is_true(close(math.tanh(0.5), 0.46211715726000974))
  end)

  it('implements the math functions exactly in Lua where the interpreter lacks them', function()
    local pow, log10 = impl['math.pow'], impl['math.log10']
    assert.are.equal(1024.0, pow(2, 10))
    assert.are.equal(0.5, pow(4, -0.5))
    assert.are.equal(3.0, log10(1000))
    assert.are.equal(-2.0, log10(0.01))
    local ldexp, frexp = impl['math.ldexp'], impl['math.frexp']
    for _, x in ipairs{1, -3, 8, 0.1, 1e-300, 5e-324, 1.7976931348623157e308, -2.5e-310, 123456789} do
      local m, e = frexp(x)
      assert.is_true(math.abs(m) >= 0.5 and math.abs(m) < 1, 'mantissa of ' .. x)
      assert.are.equal(x, ldexp(m, e))
      if math.frexp ~= frexp then   -- compare with the C version when it exists
        local cm, ce = math.frexp(x)
        assert.are.equal(cm, m)
        assert.are.equal(ce, e)
      end
    end
    assert.are.same({0.0, 0}, {frexp(0)})
    assert.are.same({math.huge, 0}, {frexp(math.huge)})
    assert.are.equal(5e-324, ldexp(0.5, -1073))
    assert.are.equal(math.huge, ldexp(1, 1024))
    assert.has_error(function() ldexp(1, 0.5) end, "bad argument #2 to 'ldexp' (number has no integer representation)")
    local sinh, cosh, tanh = impl['math.sinh'], impl['math.cosh'], impl['math.tanh']
    -- reference values (C library, correctly rounded)
    assert.is_true(close(tanh(0.5), 0.46211715726000974))
    assert.is_true(close(tanh(1e-10), 1e-10))
    assert.is_true(close(tanh(-3), -0.99505475368673046))
    assert.are.equal(1.0, tanh(50))
    assert.is_true(close(sinh(1e-8), 1e-8))
    assert.is_true(close(sinh(2), 3.6268604078470186))
    assert.is_true(close(sinh(-0.3), -0.30452029344714265))
    assert.is_true(close(cosh(2), 3.7621956910836314))
    assert.is_true(close(cosh(710), 1.1169973830808557e308))
    assert.is_true(close(sinh(-710), -1.1169973830808557e308))
  end)

  it("provides LuaJIT's bit module (32-bit, signed results)", function()
    local b = require 'bit'
    assert.are.equal(bit, b)
    assert.are.equal(15, bit.band(0xff, 0x0f))
    assert.are.equal(7, bit.bor(1, 2, 4))
    assert.are.equal(-1, bit.tobit(0xffffffff))
    assert.are.equal(-1, bit.bnot(0))
    assert.are.equal(-2147483648, bit.lshift(1, 31))
    assert.are.equal(0x3ffffffc, bit.rshift(-16, 2))
    assert.are.equal(-4, bit.arshift(-16, 2))
    assert.are.equal(0x34567812, bit.rol(0x12345678, 8))
    assert.are.equal(0x78123456, bit.ror(0x12345678, 8))
    assert.are.equal(0x78563412, bit.bswap(0x12345678))
    assert.are.equal('ffffffff', bit.tohex(-1))
    assert.are.equal('FF', bit.tohex(255, -2))
  end)

  it('disable() removes what it added and enable() brings it back', function()
    local names = compat.names()
    assert.is_true(#names > 0)
    compat.disable()
    assert.is_nil(rawget(_G, 'unpack'))
    assert.is_nil(rawget(_G, 'loadstring'))
    assert.is_nil(table.getn)
    assert.is_nil(package.loaded.bit)
    assert.is_false(compat.enabled())
    assert.are.same({}, compat.names())
    compat.enable()
    assert.are.equal(table.unpack, unpack)
    assert.are.same(names, compat.names())
  end)

  it('never overwrites or removes a name the program defined', function()
    compat.disable()
    local mine = function() return 'mine' end
    table.getn = mine
    compat.enable()
    assert.are.equal(mine, table.getn)
    compat.disable()
    assert.are.equal(mine, table.getn)
    table.getn = nil
    compat.enable()
    assert.are.equal(3, table.getn({1, 2, 3}))
  end)

  it('is off with TH_NO_COMPAT=1', function()
    local out = fresh("require 'torch'; print(rawget(_G, 'unpack'), table.getn, torch.compat.enabled())",
                      'TH_NO_COMPAT=1')
    assert.are.equal('nil\tnil\tfalse\n', out)
    out = fresh("require 'torch'; print(unpack == table.unpack, torch.compat.enabled())")
    assert.are.equal('true\ttrue\n', out)
  end)

  it('math.randomseed takes any finite number, truncated as in 5.1', function()
    math.randomseed(12.7)
    local a = {math.random(1000), math.random(1000)}
    math.randomseed(12)
    assert.are.same(a, {math.random(1000), math.random(1000)})
    math.randomseed(-3.5)
    local b = math.random(1000)
    math.randomseed(-3)
    assert.are.equal(b, math.random(1000))
    math.randomseed(1e5 * torch.tic())   -- nn's test suite seeds so
    assert.has_error(function() math.randomseed(0 / 0) end)
    assert.has_error(function() math.randomseed('x') end)
    compat.disable()
    assert.has_error(function() math.randomseed(1.5) end)
    compat.enable()
    math.randomseed(1.5)
  end)

  it('torch.tic and torch.toc measure wall seconds', function()
    local t = torch.tic()
    assert.is_true(t > 1.5e9)
    local dt = torch.toc(t)
    assert.is_true(dt >= 0 and dt < 60)
    assert.has_error(function() torch.toc() end, 'torch.toc: start time (number, from torch.tic()) expected, got nil')
  end)

  it('lists every name it can provide', function()
    local all = compat.all()
    for _, n in ipairs{'unpack', 'loadstring', 'bit', 'math.pow', 'math.log10', 'math.ldexp',
                       'math.frexp', 'table.getn', 'table.maxn', 'string.gfind', 'math.randomseed'} do
      local found = false
      for _, m in ipairs(all) do found = found or m == n end
      assert.is_true(found, n)
    end
  end)
end)
