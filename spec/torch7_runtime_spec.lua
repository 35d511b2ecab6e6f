-- The small conventions of Torch7's runtime that real scripts lean on
-- (issue 24): torch.setmetatable/getmetatable, the class system's
-- conventions (obj.new, operators found through the class chain, __index__
-- hooks, constructors as class specs), the index forms of tensors,
-- #container, and math on plain numbers. Written from Torch7's luaT.c,
-- init.lua, generic/Tensor.c and TensorMath.lua.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'

local n = 0
local function fresh(parent)
  n = n + 1
  local name = 'SpecRt' .. n
  local C, p = torch.class(name, parent)
  return C, p, name
end

describe('torch.setmetatable / torch.getmetatable', function()
  it('gives a table a class without running the constructor (checkpoint code)', function()
    local C, _, name = fresh()
    local inits = 0
    function C:__init() inits = inits + 1 end
    function C:hello() return 'hi ' .. self.who end
    local t = {who = 'you'}
    assert.are.equal(t, torch.setmetatable(t, name))
    assert.are.equal(name, torch.type(t))
    assert.are.equal('hi you', t:hello())
    assert.are.equal(0, inits)
    assert.are.equal(torch.getmetatable(name), getmetatable(t))
  end)

  it('works on nn modules as fb.resnet.torch uses it', function()
    local m = nn.Linear(3, 2)
    local plain = {}
    for k, v in pairs(m) do plain[k] = v end
    torch.setmetatable(plain, 'nn.Linear')
    local x = torch.randn(4, 3)
    assert.are.equal(0, (plain:forward(x) - m:forward(x)):abs():max())
  end)

  it('refuses what Torch7 refuses, naming the function', function()
    assert.truthy(H.errmsg(torch.setmetatable, {}, 'No.Such.Class'):find('torch.setmetatable: unknown class No.Such.Class', 1, true))
    assert.truthy(H.errmsg(torch.setmetatable, 3, 'nn.Linear'):find('table expected as argument 1, got number', 1, true))
    assert.truthy(H.errmsg(torch.setmetatable, {}, 3):find('class name (string) expected', 1, true))
    assert.truthy(H.errmsg(torch.setmetatable, {}, 'torch.FloatTensor'):find('C type', 1, true))
    assert.is_nil(torch.getmetatable('No.Such.Class'))
  end)
end)

describe('the class system', function()
  it('reaches the constructor from instances as obj.new(...)', function()
    local A, _, name = fresh()
    function A:__init(x) self.x = x end
    local a = A(1)
    local b = a.new(7)
    assert.are.equal(name, torch.type(b))
    assert.are.equal(7, b.x)
    assert.are.equal(5, nn.Linear(2, 5).new(3, 5).weight:size(2) + 2)
  end)

  it('chains __init through parents and keeps torch.type/typename', function()
    local A, _, an = fresh()
    function A:__init(x) self.x = x end
    local B, pa, bn = fresh(an)
    function B:__init(x) pa.__init(self, x * 2); self.y = true end
    local b = B(3)
    assert.are.equal(6, b.x)
    assert.is_true(b.y)
    assert.are.equal(bn, torch.type(b))
    assert.are.equal(bn, torch.typename(b))
    assert.are.equal(an, torch.parentname(bn))
    assert.is_nil(torch.typename({}))
    assert.are.equal('table', torch.type({}))
  end)

  it('finds __call__ through the class chain, even one defined after the subclass (nngraph)', function()
    local A, _, an = fresh()
    local B = fresh(an)
    local b = B()
    assert.truthy(H.errmsg(function() return b(1) end):find('has no call operator', 1, true))
    function A:__call__(y) return 'called with ' .. y end
    assert.are.equal('called with 1', b(1))
    -- nn.Module's own __call__ serves every module
    local m = nn.Tanh()
    assert.are.equal(m.output, m(torch.zeros(2)))
  end)

  it('finds the other operators through the chain (__add__, __unm__, __eq__, __len__, __concat__)', function()
    local A, _, an = fresh()
    local B = fresh(an)
    function A:__init(v) self.v = v end
    function A:__add__(o) return B(self.v + o.v) end
    function A:__unm__() return B(-self.v) end
    function A:__len__() return self.v end
    function A:__eq__(o) return self.v == o.v end
    function A:__concat__(o) return self.v .. '|' .. o.v end
    local x, y = B(2), B(3)
    assert.are.equal(5, (x + y).v)
    assert.are.equal(-2, (-x).v)
    assert.are.equal(2, #x)
    assert.is_true(B(4) == B(4))
    assert.is_false(B(4) == B(5))
    assert.are.equal('2|3', x .. y)
    local C = fresh()
    local c1, c2 = C(), C()
    assert.is_true(c1 == c1)
    assert.is_false(c1 == c2)
    assert.truthy(H.errmsg(function() return c1 + c2 end):find('have no addition operator', 1, true))
  end)

  it('honours __index__ and __newindex__ hooks as Torch7 does', function()
    local A, _, an = fresh()
    function A:__init() self.store = {} end
    function A:__index__(k)
      if type(k) == 'number' then return rawget(self, 'store')[k], true end
      return false
    end
    function A:__newindex__(k, v)
      if type(k) == 'number' then rawget(self, 'store')[k] = v * 10; return true end
      return false
    end
    function A:method() return 'm' end
    local a = A()
    a[1] = 4
    a.name = 'x'
    assert.are.equal(40, a[1])
    assert.are.equal('x', rawget(a, 'name'))
    assert.are.equal('m', a:method())
    assert.is_nil(a.nothing)
    local B = fresh(an)
    local b = B()
    b[2] = 1
    assert.are.equal(10, b[2])
  end)

  it('takes a class constructor, metatable or name in torch.isTypeOf', function()
    local l = nn.Linear(2, 2)
    assert.is_true(torch.isTypeOf(l, nn.Module))
    assert.is_true(torch.isTypeOf(l, nn.Linear))
    assert.is_true(torch.isTypeOf(l, 'nn.Module'))
    assert.is_true(torch.isTypeOf(l, torch.getmetatable('nn.Module')))
    assert.is_false(torch.isTypeOf(l, nn.Sequential))
    assert.is_true(torch.isTypeOf(torch.zeros(2), torch.DoubleTensor))
    assert.truthy(H.errmsg(torch.isTypeOf, l, 3):find('torch.isTypeOf', 1, true))
  end)

  it('has torch.factory, torch.getconstructortable and torch.version as Torch7', function()
    local A, _, an = fresh()
    local inits = 0
    function A:__init() inits = inits + 1 end
    local obj = torch.factory(an)()
    assert.are.equal(an, torch.type(obj))
    assert.are.equal(0, inits)
    assert.are.equal(A, torch.getconstructortable(an))
    assert.are.equal(1, torch.version(obj))
    assert.are.equal('torch.FloatTensor', torch.type(torch.factory('torch.FloatTensor')()))
    assert.is_nil(torch.factory('No.Such.Class'))
    assert.are.equal(torch.getmetatable('nn.Linear'), getmetatable(nn.Linear))
  end)
end)

describe('#container', function()
  it('gives the number of children', function()
    local s = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Tanh()):add(nn.Linear(2, 1))
    assert.are.equal(3, #s)
    assert.are.equal(0, #nn.Sequential())
    assert.are.equal(2, #nn.ConcatTable():add(nn.Identity()):add(nn.Identity()))
    assert.are.equal(1, #nn.Concat(1):add(nn.Identity()))
    assert.are.equal(2, #nn.ParallelTable():add(nn.Identity()):add(nn.Identity()))
  end)
end)

describe('tensor index forms', function()
  local t
  before_each(function() t = torch.range(1, 24):view(2, 3, 4) end)

  it('t[LongStorage] reads and writes one element (char-rnn)', function()
    assert.are.equal(t[2][3][4], t[torch.LongStorage{2, 3, 4}])
    assert.are.equal(t[1][2][3], t[torch.LongStorage{1, -2, -2}])
    t[torch.LongStorage{1, 1, 2}] = 99
    assert.are.equal(99, t[1][1][2])
    assert.truthy(H.errmsg(function() return t[torch.LongStorage{1, 2}] end):find('one entry per dimension', 1, true))
    assert.truthy(H.errmsg(function() return t[torch.LongStorage{1, 4, 1}] end):find('out of range', 1, true))
  end)

  it('takes floats with integer values inside tables (t[{i, 4.0}])', function()
    assert.are.equal(t[2][3][4], t[{2, 3.0, 4.0}])
    assert.are.same({3, 2}, t[{2.0, {1.0, 3}, {2, 3.0}}]:size():totable())
    t[{1, 1, 1.0}] = -1
    assert.are.equal(-1, t[1][1][1])
    assert.truthy(H.errmsg(function() return t[{1, 2.5}] end):find('must be an integer, got 2.5', 1, true))
  end)

  it('takes every other form Torch7 takes', function()
    assert.are.same({2, 3, 4}, t[{{}}]:size():totable())
    assert.are.same({2, 4}, t[{{}, 2}]:size():totable())
    assert.are.same({2, 3, 4}, t[{{1, -1}}]:size():totable())
    assert.are.same({1, 3, 4}, t[{{2}}]:size():totable())
    assert.are.same({2, 2, 4}, t[{{}, {-2, -1}}]:size():totable())
    assert.are.equal(t[2][1][1], t[{-1, 1, 1}])
    -- masks on both sides of =
    local v = torch.range(1, 6)
    local mask = v:gt(3)
    assert.are.same({4, 5, 6}, v[mask]:totable())
    v[mask] = 0
    assert.are.same({1, 2, 3, 0, 0, 0}, v:totable())
    v[v:eq(0)] = torch.Tensor{7, 8, 9}
    assert.are.same({1, 2, 3, 7, 8, 9}, v:totable())
    -- LongTensor of indices selects along the first dimension
    assert.are.same({2, 3}, torch.range(1, 5)[torch.LongTensor{2, 3}]:totable())
  end)
end)

describe('math on plain numbers', function()
  it('takes numbers where Torch7 does', function()
    assert.are.equal(3, torch.abs(-3))
    assert.are.equal(2, torch.sqrt(4))
    assert.are.equal(math.exp(1), torch.exp(1))
    assert.are.equal(math.log(2), torch.log(2))
    assert.are.equal(3, torch.round(2.5))
    assert.are.equal(-3, torch.round(-2.5))
    assert.are.equal(2, torch.floor(2.7))
    assert.are.equal(3, torch.ceil(2.1))
    assert.are.equal(-2, torch.trunc(-2.7))
    assert.are.equal(-0.75, torch.frac(-2.75))
    assert.are.equal(0.5, torch.sigmoid(0))
    assert.are.equal(0.5, torch.rsqrt(4))
    assert.are.equal(1.5, torch.lerp(1, 3, 0.25))
    assert.are.equal(1024, torch.pow(2, 10))
    assert.are.equal(math.atan(1, 2), torch.atan2(1, 2))
    assert.is_true(math.abs(torch.tanh(0.5) - 0.46211715726000974) < 1e-15)
    assert.is_true(math.abs(torch.log1p(1e-10) - 9.9999999995e-11) < 1e-24)
    assert.is_true(math.abs(torch.cosh(1) - 1.5430806348152437) < 1e-15)
    -- floats, as Torch7's C doubles (issue 33: step % torch.round(n / 10))
    assert.are.equal('float', math.type(torch.round(2.6)))
    assert.are.equal('float', math.type(torch.abs(-3)))
  end)

  it('keeps the tensor forms, and names the function on bad input', function()
    assert.are.same({1, 2}, torch.abs(torch.Tensor{-1, 2}):totable())
    assert.are.same({4, 8}, torch.pow(2, torch.Tensor{2, 3}):totable())
    assert.truthy(H.errmsg(torch.pow, 2, 'x'):find('torch.pow: 2 numbers expected, got number, string', 1, true))
    local msg = H.errmsg(function() torch.exp('x') end)
    assert.truthy(msg:find('exp', 1, true) and not msg:find('math.lua', 1, true), msg)
  end)
end)

describe('x:real()', function()
  it('converts to the default tensor type (Torch7: to compute on a HalfTensor)', function()
    local h = torch.Tensor{1.5, -2}:half()
    local r = h:real()
    assert.are.equal(torch.getdefaulttensortype(), torch.type(r))
    assert.are.same({1.5, -2}, r:totable())
  end)
end)
