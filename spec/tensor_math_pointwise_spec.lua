-- Element-wise math: add, csub, mul, div, fmod, remainder, cmul, cdiv, cpow,
-- cmax, cmin, pow, clamp, lerp, addcmul, addcdiv, the unary maps, the
-- comparisons and all/any, in Torch7's method and functional forms, on
-- contiguous and strided inputs, for every type they exist for
-- (src/tensor/th_math_pointwise.c, th_math_compare.c, src/lua/th_lua_math.c).
require 'torch'

local errors = require('spec.support.helpers').errors

local flat = require('spec.support.helpers').flat

-- t has the shape of 'expected' (a nested table) and its values within tol
local function near(expected, t, tol)
  local e, g = flat(expected), flat(t:totable())
  assert.are.equal(#e, #g, 'element count')
  local want = torch.DoubleTensor(expected)
  assert.are.same(want:size():totable(), t:size():totable())
  for i = 1, #e do
    local ok = (e[i] ~= e[i] and g[i] ~= g[i]) or math.abs(e[i] - g[i]) <= (tol or 0) * math.max(1, math.abs(e[i]))
    assert(ok, string.format('element %d: expected %s, got %s', i, tostring(e[i]), tostring(g[i])))
  end
end

local function sizes(t) return t:size():totable() end

for _, tname in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
  local T = function(...) return torch[tname:match('torch%.(%a+)')](...) end
  local tol = tname == 'torch.FloatTensor' and 1e-6 or 1e-12

  describe('pointwise (' .. tname .. ')', function()
    it('add: every Torch7 form', function()
      local x = T{{1, 2}, {3, 4}}
      assert.are.equal(x, x:add(1))                         -- in place, returns self
      near({{2, 3}, {4, 5}}, x)
      x:add(T{10, 20, 30, 40})                              -- equal counts, any shapes
      near({{12, 23}, {34, 45}}, x)
      x:add(2, T{1, 1, 1, 1})
      near({{14, 25}, {36, 47}}, x)
      local a, b, r = T{1, 2, 3}, T{10, 20, 30}, T()
      assert.are.equal(r, r:add(a, 5))
      near({6, 7, 8}, r)
      r:add(a, b)
      near({11, 22, 33}, r)
      r:add(a, -2, b)
      near({-19, -38, -57}, r)
      near({1, 2, 3}, a)                                    -- inputs untouched
      local n = torch.add(a, b)
      assert.are_not.equal(a, n)
      near({11, 22, 33}, n)
      near({3, 4, 5}, torch.add(a, 2))
      near({21, 42, 63}, torch.add(a, 2, b))
      local r2 = T(7)
      assert.are.equal(r2, torch.add(r2, a, b))
      near({11, 22, 33}, r2)                                -- resized to a's shape
      near({1, 2, 3}, a)
    end)

    it('add: the result takes the first input shape', function()
      local r = torch.add(T(2, 3):fill(1), T(6):fill(2))
      assert.are.same({2, 3}, sizes(r))
      near({{3, 3, 3}, {3, 3, 3}}, r)
    end)

    it('csub subtracts in the same forms', function()
      local x = T{5, 6}
      near({4, 5}, x:csub(1))
      near({3, 3}, x:csub(T{1, 2}))
      near({1, -1}, x:csub(2, T{1, 2}))
      near({-9, -18}, torch.csub(T{1, 2}, T{10, 20}))
      near({-1, 0}, T():csub(T{1, 2}, 2))
    end)

    it('mul, div, fmod, remainder with a number', function()
      local x = T{-3, -1, 2, 5}
      near({-6, -2, 4, 10}, torch.mul(x, 2))
      near({-1.5, -0.5, 1, 2.5}, torch.div(x, 2))
      near({0, -1, 2, 2}, torch.fmod(x, 3))                 -- the sign of x
      near({0, 2, 2, 2}, torch.remainder(x, 3))             -- the sign of the divisor
      near({0, -1, -1, -1}, torch.remainder(x, -3))
      near({-6, -2, 4, 10}, x:mul(2))
      near({-3, -1, 2, 5}, x:div(2))
      local r = T()
      r:mul(x, 10)
      near({-30, -10, 20, 50}, r)
    end)

    it('cmul, cdiv, cpow, cfmod, cremainder', function()
      local a, b = T{1, 2, 3, -7}, T{4, 5, 6, 2}
      near({4, 10, 18, -14}, torch.cmul(a, b))
      near({0.25, 0.4, 0.5, -3.5}, torch.cdiv(a, b), tol)
      near({1, 32, 729, 49}, torch.cpow(a, b))
      near({1, 2, 3, -1}, torch.cfmod(a, b))
      near({1, 2, 3, 1}, torch.cremainder(a, b))
      local x = T(2, 2):fill(2)
      near({{6, 6}, {6, 6}}, x:cmul(T(4):fill(3)))          -- Torch7's doc example
      local y = T(2, 2):fill(1)
      near({{1, 0.5}, {1 / 3, 0.25}}, y:cdiv(torch.range(1, 4):type(tname)), tol)
    end)

    it('cmax and cmin with a tensor or a number', function()
      local a, b = T{1, 2, 3}, T{3, 2, 1}
      near({3, 2, 3}, torch.cmax(a, b))
      near({1, 2, 1}, torch.cmin(a, b))
      near({2, 2, 3}, torch.cmax(a, 2))
      near({1, 2, 2}, torch.cmin(a, 2))
      a:cmax(b)
      near({3, 2, 3}, a)
    end)

    it('pow: x^n, n^x, in place and into a result', function()
      local x = T{1, 2, 3}
      near({1, 4, 9}, torch.pow(x, 2))
      near({1, 8, 27}, torch.pow(x, 3))
      near({1, math.sqrt(2), math.sqrt(3)}, torch.pow(x, 0.5), tol)
      near({2, 4, 8}, torch.pow(2, x))
      local r = T()
      r:pow(3, x)
      near({3, 9, 27}, r)
      r:pow(x, 2)
      near({1, 4, 9}, r)
      x:pow(2)
      near({1, 4, 9}, x)
    end)

    it('clamp and lerp', function()
      local x = T{-2, 0.5, 3}
      near({0, 0.5, 1}, torch.clamp(x, 0, 1))
      near({-1, 0.5, 1}, x:clamp(-1, 1))
      local a, b = T{0, 10}, T{10, 20}
      near({2.5, 12.5}, torch.lerp(a, b, 0.25))
      near({5, 15}, a:lerp(b, 0.5))
      errors(function() x:clamp(1, 0) end, "bad argument #2 to 'clamp' (min 1 is greater than max 0)")
    end)

    it('addcmul and addcdiv (Torch7 doc examples)', function()
      local x, y, z = T(2, 2):fill(2), T(4):fill(3), T(2, 2):fill(5)
      near({{32, 32}, {32, 32}}, x:addcmul(2, y, z))
      near({{47, 47}, {47, 47}}, x:addcmul(y, z))
      local u, v, w = T(2, 2):fill(1), torch.range(1, 4):type(tname), T(2, 2):fill(5)
      near({{1.4, 1.8}, {2.2, 2.6}}, u:addcdiv(2, v, w), tol * 10)
      local r = torch.addcmul(T{1, 1}, 3, T{1, 2}, T{2, 2})
      near({7, 13}, r)
      near({2, 3}, torch.addcdiv(T{1, 1}, T{1, 2}, T{1, 1}))
      local res = T()
      res:addcmul(T{1, 1}, 2, T{1, 2}, T{3, 3})
      near({7, 13}, res)
    end)

    it('unary maps: values', function()
      local x = T{0.25, 1, 4}
      near({0.5, 1, 2}, torch.sqrt(x), tol)
      near({2, 1, 0.5}, torch.rsqrt(x), tol)
      near({math.exp(0.25), math.exp(1), math.exp(4)}, torch.exp(x), tol)
      near({math.log(0.25), 0, math.log(4)}, torch.log(x), tol)
      near({math.log(1.25), math.log(2), math.log(5)}, torch.log1p(x), tol)
      near({4, 1, 0.25}, torch.cinv(x), tol)
      local s = T{-2.5, -0.5, 0, 0.5, 2.5, 1.75}
      near({2.5, 0.5, 0, 0.5, 2.5, 1.75}, torch.abs(s))
      near({-1, -1, 0, 1, 1, 1}, torch.sign(s))
      near({2.5, 0.5, 0, -0.5, -2.5, -1.75}, torch.neg(s))
      near({-3, -1, 0, 0, 2, 1}, torch.floor(s))
      near({-2, 0, 0, 1, 3, 2}, torch.ceil(s))
      near({-3, -1, 0, 1, 3, 2}, torch.round(s))         -- halves away from zero
      near({-2, 0, 0, 0, 2, 1}, torch.trunc(s))
      near({-0.5, -0.5, 0, 0.5, 0.5, 0.75}, torch.frac(s))
      local z = T{-1, 0, 2}
      near({math.tanh and math.tanh(-1) or -0.7615941559557649, 0, 0.9640275800758169}, torch.tanh(z), tol)
      near({1 / (1 + math.exp(1)), 0.5, 1 / (1 + math.exp(-2))}, torch.sigmoid(z), tol)
      near({math.sin(-1), 0, math.sin(2)}, torch.sin(z), tol)
      near({math.cos(-1), 1, math.cos(2)}, torch.cos(z), tol)
      near({math.atan(-1), 0, math.atan(2)}, torch.atan(z), tol)
      near({math.asin(-1), 0}, torch.asin(T{-1, 0}), tol)
      near({math.acos(-1), math.acos(0)}, torch.acos(T{-1, 0}), tol)
      near({math.tan(0.5)}, torch.tan(T{0.5}), tol)
      near({(math.exp(1) - math.exp(-1)) / 2}, torch.sinh(T{1}), tol)
      near({(math.exp(1) + math.exp(-1)) / 2}, torch.cosh(T{1}), tol)
    end)

    it('unary maps: x:f() works in place, torch.f(x) and r:f(x) do not', function()
      local x = T{0, 1}
      local y = torch.exp(x)
      near({0, 1}, x)
      near({1, math.exp(1)}, y, tol)
      local r = T()
      assert.are.equal(r, r:exp(x))
      near({1, math.exp(1)}, r, tol)
      near({0, 1}, x)
      assert.are.equal(x, x:exp())
      near({1, math.exp(1)}, x, tol)
      local into = T(5)
      assert.are.equal(into, torch.log(into, T{1, 1}))
      near({0, 0}, into)
    end)

    it('works on transposed and narrowed views', function()
      local m = T{{1, 2, 3}, {4, 5, 6}}
      local t = m:t()                                       -- 3x2, strides 1, 3
      near({{2, 5}, {3, 6}, {4, 7}}, torch.add(t, 1))
      near({{1, 16}, {4, 25}, {9, 36}}, torch.cmul(t, t))
      local col = m:narrow(2, 2, 2)                         -- 2x2, strides 3, 1
      near({{4, 6}, {10, 12}}, torch.mul(col, 2))
      col:mul(10)                                           -- writes through the view
      near({{1, 20, 30}, {4, 50, 60}}, m)
      local r = T(2, 3):t()                                 -- a transposed result
      r:add(t, 1)
      near({{2, 5}, {21, 51}, {31, 61}}, r)
      near({{2, 21, 31}, {5, 51, 61}}, r:t())
      -- a non-contiguous operand of another shape pairs in row-major order
      near({{2, 24, 50}, {54, 80, 120}}, torch.add(m, t))
    end)

    it('overlapping views are read before they are written', function()
      local x = T{{1, 2}, {3, 4}}
      x:add(x:t())
      near({{2, 5}, {5, 8}}, x)
      local y = T{1, 2, 3, 4}
      y:narrow(1, 2, 3):add(y:narrow(1, 1, 3))              -- shifted views of one storage
      near({1, 3, 5, 7}, y)
      local z = T{1, 2, 3, 4}
      torch.cmul(z:narrow(1, 1, 3), z:narrow(1, 2, 3), z:narrow(1, 1, 3))
      near({2, 6, 12, 4}, z)
    end)

    it('comparisons give ByteTensors of 0 and 1', function()
      local a, b = T{1, 2, 3}, T{3, 2, 1}
      for name, want in pairs{eq = {0, 1, 0}, ne = {1, 0, 1}, lt = {1, 0, 0}, le = {1, 1, 0},
                              gt = {0, 0, 1}, ge = {0, 1, 1}} do
        local r = a[name](a, b)
        assert.are.equal('torch.ByteTensor', torch.type(r))
        near(want, r)
        near(want, torch[name](a, b))
      end
      near({0, 0, 1}, a:gt(2))
      near({1, 1, 0}, torch.le(a, 2))
      near({0, 1, 0}, a:eq(2))
      local mask = torch.ByteTensor()
      assert.are.equal(mask, mask:gt(a, 1))
      near({0, 1, 1}, mask)
      local same = T()
      same:lt(a, b)                                         -- a result of a's own type
      assert.are.equal(tname, torch.type(same))
      near({1, 0, 0}, same)
      near({1, 1, 1}, T{0.1, 0.2, 0.3}:eq(T{0.1, 0.2, 0.3}))
      near({1, 0}, T{0.1, 0.2}:eq(0.1))                    -- the number is taken in the tensor's type
    end)

    it('errors: types, element counts, arguments, results', function()
      local other = tname == 'torch.FloatTensor' and torch.DoubleTensor{1, 2} or torch.FloatTensor{1, 2}
      local otype = torch.type(other)
      errors(function() T{1, 2}:add(other) end,
             "bad argument #2 to 'add' (" .. tname .. ' expected, got ' .. otype .. ')')
      errors(function() torch.cmul(T{1, 2}, T{1, 2, 3}) end, 'cmul: element counts differ: a tensor of size 2 (2 elements) and one of size 3 (3 elements)')
      errors(function() T{1, 2}:add('x') end,
             "add: invalid arguments (" .. tname .. ", string); expected [result,] tensor, number | tensor, tensor | tensor, number, tensor")
      errors(function() T{1}:exp(1) end, 'exp: invalid arguments (' .. tname .. ', number); expected [result,] tensor')
      errors(function() other:add(T{1, 2}, T{1, 2}) end,
             "bad argument #1 to 'add' (" .. tname .. ' expected, got ' .. otype .. ')')
      errors(function() torch.lt(torch.LongTensor(2), T{1, 2}, 1) end,
             "bad argument #1 to 'lt' (result must be a torch.ByteTensor or a " .. tname .. ', got torch.LongTensor)')
      local freed = T{1, 2}
      freed:free()
      errors(function() torch.add(freed, 1) end, "bad argument #1 to 'add' (tensor was freed")
    end)
  end)
end

describe('pointwise on integer types', function()
  it('Long arithmetic: add, mul, integer division, remainders', function()
    local x = torch.LongTensor{-7, -1, 3, 8}
    assert.are.same({-5, 1, 5, 10}, torch.add(x, 2):totable())
    assert.are.same({-14, -2, 6, 16}, torch.mul(x, 2):totable())
    assert.are.same({-3, 0, 1, 4}, torch.div(x, 2):totable())       -- truncates, as C
    assert.are.same({-1, -1, 1, 0}, torch.fmod(x, 2):totable())
    assert.are.same({1, 1, 1, 0}, torch.remainder(x, 2):totable())
    assert.are.same({-7, -1, 3, 8}, torch.div(x, 1):totable())
    assert.are.same({7, 1, -3, -8}, torch.div(x, -1):totable())
    assert.are.same({7, 1, 3, 8}, torch.abs(x):totable())
    assert.are.same({-1, -1, 1, 1}, torch.sign(x):totable())
    assert.are.same({7, 1, -3, -8}, torch.neg(x):totable())
    assert.are.same({-7, -1, 1, 2}, torch.cdiv(x, torch.LongTensor{1, 1, 3, 4}):totable())
    assert.are.same({-7, 0, 3, 3}, torch.clamp(x, -10, 3):cmax(torch.LongTensor{-9, 0, 0, 0}):totable())
    assert.are.equal('torch.LongTensor', torch.type(torch.add(x, 0.5)))
  end)

  it('Long arithmetic wraps instead of overflowing', function()
    local x = torch.LongTensor{math.maxinteger}
    assert.are.equal(math.mininteger, torch.add(x, 1)[1])
    assert.are.equal(math.mininteger, torch.neg(torch.LongTensor{math.mininteger})[1])
    assert.are.equal(math.mininteger, torch.div(torch.LongTensor{math.mininteger}, -1)[1])
  end)

  it('Byte arithmetic wraps modulo 256', function()
    local b = torch.ByteTensor{250, 3}
    assert.are.same({4, 13}, torch.add(b, 10):totable())
    assert.are.same({244, 6}, torch.mul(b, 2):totable())
    assert.are.same({125, 1}, torch.div(b, 2):totable())
    assert.are.same({6, 253}, torch.neg(b):totable())
  end)

  it('integer division by zero is an error and writes nothing', function()
    local x = torch.LongTensor{1, 2}
    errors(function() x:div(0) end, 'div: integer division by zero')
    errors(function() x:cdiv(torch.LongTensor{1, 0}) end, 'cdiv: integer division by zero')
    errors(function() x:remainder(0) end, 'remainder: integer division by zero')
    assert.are.same({1, 2}, x:totable())
  end)

  it('floating-only maps are refused on integer types', function()
    errors(function() torch.LongTensor{1, 2}:exp() end,
           'exp: not available for LongTensor (expects a Float or Double tensor)')
    errors(function() torch.ByteTensor{1}:sqrt() end, 'sqrt: not available for ByteTensor')
    errors(function() torch.LongTensor{1}:pow(2) end, 'pow: not available for LongTensor')
    errors(function() torch.LongTensor{1}:lerp(torch.LongTensor{1}, 0.5) end, 'lerp: not available for LongTensor')
    errors(function() torch.sigmoid(torch.LongTensor{1}) end, 'sigmoid: not available for LongTensor')
  end)

  it('integer comparisons with a number are exact', function()
    local x = torch.LongTensor{1, 2, 3}
    assert.are.same({1, 1, 0}, x:lt(2.5):totable())
    assert.are.same({0, 0, 1}, x:gt(2.5):totable())
    assert.are.same({0, 0, 0}, x:eq(2.5):totable())
    assert.are.same({1, 1, 1}, x:ne(2.5):totable())
    local b = torch.ByteTensor{0, 200, 255}
    assert.are.same({1, 1, 1}, b:gt(-1):totable())          -- not wrapped to 255
    assert.are.same({0, 0, 0}, b:eq(-1):totable())
    assert.are.same({1, 1, 1}, b:lt(300):totable())
    assert.are.same({0, 1, 1}, b:ge(200):totable())
    assert.are.same({1, 0}, torch.LongTensor{5, 6}:eq(torch.LongTensor{5, 7}):totable())
  end)

  it('all and any on ByteTensors', function()
    local a = torch.ByteTensor{1, 1, 1}
    assert.is_true(a:all())
    assert.is_true(torch.any(a))
    a[2] = 0
    assert.is_false(a:all())
    assert.is_true(a:any())
    a:zero()
    assert.is_false(a:any())
    assert.is_true(torch.ByteTensor():all())
    assert.is_false(torch.ByteTensor():any())
    assert.is_true(torch.ByteTensor{{1, 1}, {1, 1}}:t():all())
    errors(function() torch.DoubleTensor{1}:all() end, 'all: expects a ByteTensor, got a DoubleTensor')
  end)
end)
