-- Tensor math at the torch level: the constructors zeros, ones, range,
-- linspace, eye; the operators + - * / and unary -; and Torch7's
-- argument conventions shared by every math function (lua/torch/math.lua,
-- src/lua/th_lua_math.c). The kernels have their own specs:
-- tensor_math_pointwise_spec, tensor_math_reduce_spec, tensor_math_blas_spec.
require 'torch'

local errors = require('spec.support.helpers').errors

local function same(expected, t) assert.are.same(expected, t:totable()) end
local function sizes(t) return t:size():totable() end

describe('constructors', function()
  after_each(function() torch.setdefaulttensortype('torch.DoubleTensor') end)

  it('zeros and ones: sizes, a LongStorage, or a result first', function()
    local z = torch.zeros(2, 3)
    assert.are.equal('torch.DoubleTensor', torch.type(z))
    same({{0, 0, 0}, {0, 0, 0}}, z)
    same({1, 1}, torch.ones(2))
    same({{1, 1}}, torch.ones(torch.LongStorage{1, 2}))
    local r = torch.FloatTensor(7)
    assert.are.equal(r, torch.ones(r, 2, 2))
    same({{1, 1}, {1, 1}}, r)
    local l = torch.LongTensor()
    l:zeros(3)
    same({0, 0, 0}, l)
    torch.setdefaulttensortype('torch.FloatTensor')
    assert.are.equal('torch.FloatTensor', torch.type(torch.zeros(1)))
  end)

  it('range: inclusive, with a step, Torch7 sizes', function()
    same({2, 3, 4, 5}, torch.range(2, 5))
    local r = torch.range(2, 5, 1.2)
    assert.are.same({3}, sizes(r))
    assert.is_true(math.abs(r[3] - 4.4) < 1e-12)
    same({5, 3, 1}, torch.range(5, 0, -2))
    same({7}, torch.range(7, 7))
    same({1, 2, 3}, torch.LongTensor():range(1, 3))
    assert.are.equal('torch.LongTensor', torch.type(torch.range(torch.LongTensor(), 1, 3)))
    errors(function() torch.range(1, 5, 0) end, 'range: step must be nonzero')
    errors(function() torch.range(5, 1) end, 'range: upper bound 1 and lower bound 5 are incoherent with step sign (1)')
    errors(function() torch.range(1) end, "bad argument #3 to 'range' (upper bound must be a number, got no value)")
  end)

  it('linspace: n points from a to b, 100 by default', function()
    same({0, 0.25, 0.5, 0.75, 1}, torch.linspace(0, 1, 5))
    local l = torch.linspace(-1, 1)
    assert.are.same({100}, sizes(l))
    assert.are.equal(-1, l[1])
    assert.is_true(math.abs(l[100] - 1) < 1e-12)
    same({3}, torch.linspace(3, 3, 1))
    errors(function() torch.linspace(0, 1, 1) end,
           'linspace: invalid number of points 1 (at least 2, or 1 when both ends are equal)')
    errors(function() torch.linspace(0, 1, 0) end, 'linspace: invalid number of points 0')
  end)

  it('eye: square and rectangular identities', function()
    same({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, torch.eye(3))
    same({{1, 0, 0}, {0, 1, 0}}, torch.eye(2, 3))
    same({{1, 0}, {0, 1}, {0, 0}}, torch.eye(3, 2))
    local r = torch.FloatTensor()
    assert.are.equal(r, torch.eye(r, 2))
    same({{1, 0}, {0, 1}}, r)
    errors(function() torch.eye(0) end, 'eye: sizes must be positive, got 0x0')
  end)
end)

describe('operators', function()
  local function T(t) return torch.DoubleTensor(t) end

  it('+ and - with tensors and numbers on either side (Torch7 doc examples)', function()
    local x, y = torch.Tensor(2, 2):fill(2), torch.Tensor(4):fill(3)
    local s = x + y
    same({{5, 5}, {5, 5}}, s)                           -- the first operand's shape
    same({1, 1, 1, 1}, y - x)
    same({{5, 5}, {5, 5}}, x + 3)
    same({{5, 5}, {5, 5}}, 3 + x)
    same({{-1, -1}, {-1, -1}}, x - 3)
    same({{1, 1}, {1, 1}}, 3 - x)
    same({{2, 2}, {2, 2}}, x)                           -- operands untouched
    assert.are_not.equal(x, x + 0)                      -- always a new tensor
  end)

  it('*, / and unary -', function()
    local x = torch.Tensor(2, 2):fill(2)
    same({{-2, -2}, {-2, -2}}, -x)
    same({{6, 6}, {6, 6}}, x * 3)
    same({{6, 6}, {6, 6}}, 3 * x)
    local third = x / 3
    assert.is_true(math.abs(third[1][1] - 2 / 3) < 1e-15)
    same({{0.5, 0.5}, {0.5, 0.5}}, 1 / x)
    same({{1, 1}, {1, 1}}, x / x)
    local M, N = torch.Tensor(2, 2):fill(2), torch.Tensor(2, 4):fill(3)
    local u, v = torch.Tensor(2):fill(4), torch.Tensor(2):fill(5)
    assert.are.equal(40, u * v)
    same({16, 16}, M * u)
    same({{12, 12, 12, 12}, {12, 12, 12, 12}}, M * N)
  end)

  it('keep the operand type; integer tensors work where the op exists', function()
    local f = torch.FloatTensor{1, 2}
    assert.are.equal('torch.FloatTensor', torch.type(f + 1))
    assert.are.equal('torch.FloatTensor', torch.type(-f))
    local l = torch.LongTensor{1, 2}
    same({2, 4}, l * 2)
    same({0, -1}, 1 - l)
    same({-1, -2}, -l)
    errors(function() return 1 / l end, 'cinv: not available for LongTensor')
  end)

  it('errors name the operator', function()
    local x = T{1, 2}
    errors(function() return x + 'a' end, "__add: tensor and tensor, tensor and number, or number and tensor expected, got torch.DoubleTensor and string")
    errors(function() return {} * x end, '__mul: tensor and tensor, tensor and number, or number and tensor expected, got table and torch.DoubleTensor')
    errors(function() return x + torch.FloatTensor{1, 2} end, "bad argument #2 to 'add' (torch.DoubleTensor expected, got torch.FloatTensor)")
    errors(function() return x - T{1, 2, 3} end, 'add: element counts differ: a tensor of size 2 (2 elements) and one of size 3 (3 elements)')
    errors(function() return x * T{1, 2, 3} end, 'dot: element counts differ')
  end)

  it('== stays identity (Torch7 has no element-wise ==)', function()
    local a, b = T{1, 2}, T{1, 2}
    assert.is_false(a == b)
    assert.is_true(a == a)
  end)
end)

describe("Torch7's result conventions", function()
  local function T(t) return torch.DoubleTensor(t) end

  it('methods of in-place ops write self; others return a new tensor', function()
    local x = T{1, 4}
    assert.are.equal(x, x:sqrt())
    same({1, 2}, x)
    local g = x:gt(1)
    assert.are_not.equal(x, g)
    same({1, 2}, x)
    local s = x:sum(1)
    assert.are_not.equal(x, s)
  end)

  it('a function returns a new tensor unless a result comes first', function()
    local x = T{1, 4}
    local y = torch.sqrt(x)
    assert.are_not.equal(x, y)
    same({1, 4}, x)
    local r = torch.DoubleTensor()
    assert.are.equal(r, torch.sqrt(r, x))
    same({1, 2}, r)
  end)

  it('a given result keeps its storage when it is large enough', function()
    local r = torch.DoubleTensor(10)
    local s = r:storage()
    torch.add(r, T{1, 2}, T{3, 4})
    assert.are.equal(torch.pointer(s), torch.pointer(r:storage()))
    same({4, 6}, r)
  end)

  it('every math function exists as a method and as a torch function', function()
    for _, name in ipairs{'add', 'csub', 'mul', 'div', 'cmul', 'cdiv', 'addcmul', 'addcdiv', 'pow',
                          'sqrt', 'exp', 'log', 'log1p', 'abs', 'sign', 'tanh', 'sigmoid', 'neg',
                          'clamp', 'floor', 'ceil', 'round', 'cmax', 'cmin', 'lerp', 'cinv', 'fmod',
                          'remainder', 'addmm', 'addmv', 'addr', 'mm', 'mv', 'dot', 'bmm', 'baddbmm',
                          'sum', 'prod', 'mean', 'max', 'min', 'std', 'var', 'norm', 'dist',
                          'cumsum', 'cumprod', 'all', 'any', 'eq', 'ne', 'lt', 'le', 'gt', 'ge'} do
      assert.are.equal('function', type(torch[name]), 'torch.' .. name)
      assert.are.equal('function', type(torch.FloatTensor[name]), 'method ' .. name)
    end
  end)
end)
