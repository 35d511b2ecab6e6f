-- Reductions: sum, prod, mean, max, min, std, var, norm, dist, dot, cumsum,
-- cumprod, whole-tensor and along a dimension (kept with size 1, as Torch7),
-- on contiguous and strided inputs, and their determinism
-- (src/tensor/th_math_reduce.c, src/lua/th_lua_math.c).
require 'torch'

local errors = require('spec.support.helpers').errors

local flat = require('spec.support.helpers').flat

local function near(expected, t, tol)
  local e, g = flat(expected), flat(t:totable())
  assert.are.equal(#e, #g, 'element count')
  assert.are.same(torch.DoubleTensor(expected):size():totable(), t:size():totable())
  for i = 1, #e do
    local ok = (e[i] ~= e[i] and g[i] ~= g[i]) or math.abs(e[i] - g[i]) <= (tol or 0) * math.max(1, math.abs(e[i]))
    assert(ok, string.format('element %d: expected %s, got %s', i, tostring(e[i]), tostring(g[i])))
  end
end

local function close(expected, got, tol)
  assert(math.abs(expected - got) <= (tol or 1e-12) * math.max(1, math.abs(expected)),
         string.format('expected %.17g, got %.17g', expected, got))
end

for _, tname in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
  local T = function(...) return torch[tname:match('torch%.(%a+)')](...) end
  local tol = tname == 'torch.FloatTensor' and 1e-6 or 1e-12

  describe('reductions (' .. tname .. ')', function()
    local m
    before_each(function() m = T{{1, 2, 3}, {4, 5, 6}} end)

    it('sum, prod, mean of everything and along a dimension', function()
      assert.are.equal(21, m:sum())
      assert.are.equal(720, torch.prod(m))
      close(3.5, m:mean())
      near({{5, 7, 9}}, m:sum(1))
      near({{6}, {15}}, torch.sum(m, 2))
      near({{4, 10, 18}}, m:prod(1))
      near({{6}, {120}}, m:prod(2))
      near({{2.5, 3.5, 4.5}}, m:mean(1))
      near({{2}, {5}}, torch.mean(m, -1))                    -- negative dims count from the end
      local r = T()
      assert.are.equal(r, r:sum(m, 2))
      near({{6}, {15}}, r)
      assert.are.equal(r, torch.sum(r, m, 1))
      near({{5, 7, 9}}, r)
    end)

    it('prod along dims of a 3D tensor (Torch7 doc example)', function()
      local a = T{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}
      near({{{5, 12}, {21, 32}}}, torch.prod(a, 1))
      near({{{3, 8}}, {{35, 48}}}, torch.prod(a, 2))
      near({{{2}, {12}}, {{30}, {56}}}, torch.prod(a, 3))
      near({{{6, 8}, {10, 12}}}, a:sum(1))
      near({{{4, 6}}, {{12, 14}}}, a:sum(2))
    end)

    it('reduces transposed and narrowed views', function()
      local t = m:t()
      assert.are.equal(21, t:sum())
      near({{6, 15}}, t:sum(1))
      near({{5}, {7}, {9}}, t:sum(2))
      near({{3, 6}}, (t:max(1)))
      local col = m:narrow(2, 2, 2)
      assert.are.equal(16, col:sum())
      near({{7, 9}}, col:sum(1))
      near({{6}, {30}}, col:prod(2))
      local r = T(1, 3):t()                                  -- a transposed result
      r:sum(m:t(), 2)
      near({{5}, {7}, {9}}, r)
      near({{5, 7, 9}}, r:t())
    end)

    it('max and min: values and 1-based indices, ties go to the first', function()
      local x = T{{1, 5, 5}, {7, 0, 7}}
      assert.are.equal(7, x:max())
      assert.are.equal(0, torch.min(x))
      local v, i = x:max(2)
      near({{5}, {7}}, v)
      assert.are.equal('torch.LongTensor', torch.type(i))
      assert.are.same({{2}, {1}}, i:totable())
      v, i = torch.min(x, 1)
      near({{1, 0, 5}}, v)
      assert.are.same({{1, 2, 1}}, i:totable())
      local vals, idx = T(), torch.LongTensor()
      local rv, ri = vals:max(idx, x, 1)
      assert.are.equal(vals, rv)
      assert.are.equal(idx, ri)
      near({{7, 5, 7}}, vals)
      assert.are.same({{2, 1, 2}}, idx:totable())
      torch.min(vals, idx, x:t(), 2)
      near({{1}, {0}, {5}}, vals)
      assert.are.same({{1}, {2}, {1}}, idx:totable())
    end)

    it('max and min propagate NaN', function()
      local x = T{1, 0 / 0, 3}
      assert.is_true(x:max() ~= x:max())
      assert.is_true(x:min() ~= x:min())
      local v, i = x:max(1)
      assert.is_true(v[1] ~= v[1])
      assert.are.equal(2, i[1])
    end)

    it('var and std: unbiased by default, biased on request', function()
      local x = T{1, 2, 3, 4}
      close(5 / 3, x:var(), tol)
      close(1.25, x:var(true), tol)
      close(math.sqrt(5 / 3), torch.std(x), tol)
      close(math.sqrt(1.25), x:std(true), tol)
      near({{0.5}, {0.5}}, T{{1, 2}, {3, 4}}:var(2), tol)
      near({{2, 2}}, T{{1, 2}, {3, 4}}:var(1), tol)
      near({{1, 1}}, T{{1, 2}, {3, 4}}:var(1, true), tol)
      near({{math.sqrt(2), math.sqrt(2)}}, T{{1, 2}, {3, 4}}:std(1), tol)
      local r = T()
      r:std(T{{1, 2}, {3, 4}}, 2, true)
      near({{0.5}, {0.5}}, r, tol)
      assert.is_true(T{5}:var() ~= T{5}:var())                -- n - 1 = 0: NaN
    end)

    it('norm: p = 2 by default, 1, 3, 0 (nonzeros), inf (max |x|)', function()
      local x = T{3, -4, 0}
      close(5, x:norm(), tol)
      close(7, x:norm(1), tol)
      close((27 + 64) ^ (1 / 3), torch.norm(x, 3), tol)
      close(2, x:norm(0))
      close(4, x:norm(math.huge))
      local y = T{{3, 4}, {6, 8}}
      near({{5}, {10}}, y:norm(2, 2), tol)
      near({{9, 12}}, y:norm(1, 1), tol)
      local r = T()
      r:norm(y, 2, 1)
      near({{math.sqrt(45), math.sqrt(80)}}, r, tol)
    end)

    it('dist and dot', function()
      local a, b = T{1, 2, 3}, T{4, 6, 3}
      close(5, a:dist(b), tol)
      close(7, torch.dist(a, b, 1), tol)
      close(4, a:dist(b, math.huge))
      close(25, a:dot(b))
      close(24, torch.dot(T(2, 2):fill(2), T(4):fill(3)))   -- Torch7's doc example
      close(25, torch.dot(T{{1, 2, 3}}:t(), b))
      close(77, T{{1, 2}, {3, 4}, {5, 6}}:t():dot(T{{4, 5, 6}, {1, 2, 3}}))  -- row-major pairs
    end)

    it('cumsum and cumprod: dimension 1 by default (Torch7 doc example)', function()
      near({1, 3, 6, 10, 15}, torch.cumsum(torch.range(1, 5):type(tname)))
      near({1, 2, 6, 24, 120}, torch.cumprod(torch.range(1, 5):type(tname)))
      local a = T{{1, 4, 7}, {2, 5, 8}, {3, 6, 9}}
      near({{1, 4, 7}, {2, 20, 56}, {6, 120, 504}}, torch.cumprod(a))
      near({{1, 4, 28}, {2, 10, 80}, {3, 18, 162}}, torch.cumprod(a, 2))
      near({{1, 5, 12}, {2, 7, 15}, {3, 9, 18}}, a:cumsum(2))
      near({{1, 4, 7}, {3, 9, 15}, {6, 15, 24}}, a:t():cumsum(2):t())
      local r = T()
      assert.are.equal(r, r:cumsum(a, 1))
      near({{1, 4, 7}, {3, 9, 15}, {6, 15, 24}}, r)
      r:cumsum(r, 1)                                         -- in place
      near({{1, 4, 7}, {4, 13, 22}, {10, 28, 46}}, r)
    end)

    it('large tensors: blocked sums are exact and independent of the thread count', function()
      local n = 300001
      local x = torch.range(1, n):type(tname)
      if tname == 'torch.DoubleTensor' then assert.are.equal(n * (n + 1) / 2, x:sum()) end
      local y = torch.linspace(-1, 3, n):type(tname):mul(1 / 3)
      local before = torch.getnumthreads and torch.getnumthreads() or 1
      local results = {}
      for _, k in ipairs{1, 2, 3} do
        if torch.setnumthreads then torch.setnumthreads(k) end
        results[#results + 1] = {y:sum(), y:norm(), y:std(), y:max(), y:dot(y)}
      end
      if torch.setnumthreads then torch.setnumthreads(before) end
      assert.are.same(results[1], results[2])
      assert.are.same(results[1], results[3])
      close(n / 3, results[1][1], tname == 'torch.FloatTensor' and 1e-6 or 1e-9)                      -- the mean of y is 1/3
      -- column sums along an outer dimension equal the row sums of the transpose
      local g = torch.range(1, 600):type(tname):view(200, 3):mul(0.1)
      local s1 = g:sum(1)
      local s2 = g:t():contiguous():sum(2):t()
      near(s2:totable(), s1, tol)
      close(0.1 * (1 + 598) * 200 / 2, s1[1][1], 1e-6)
    end)

    it('a tensor shorter than 65536 sums in order, the bits of Torch7\'s serial loop', function()
      -- torchnet's ConfusionMeter test: a normalized 4x4 matrix sums to 4
      -- exactly in order (3.9999999999999996 in four lanes)
      local c = T{{1, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 2}}
      c:cdiv(c:sum(2):expandAs(c))
      if tname == 'torch.DoubleTensor' then assert.are.equal(4, c:sum()) end
      torch.manualSeed(5)
      for _, n in ipairs{3, 17, 1000, 65535} do
        local x = T(n):uniform(-1, 1):div(3)
        local acc = 0
        if tname == 'torch.DoubleTensor' then
          for i = 1, n do acc = acc + x[i] end
          assert.are.equal(acc, x:sum(), n .. ' elements')
          local acc2 = 0
          for i = 1, n do acc2 = acc2 + x[i] * x[i] end
          assert.are.equal(math.sqrt(acc2), x:norm(), n .. ' elements, norm')
        end
        -- the same bits along a dimension, rows or columns
        local m = x:view(1, n)
        local whole = T(1):fill(x:sum())[1]   -- rounded to the tensor's type, as a dimension's sum is
        assert.are.equal(whole, m:sum(2)[1][1])
        assert.are.equal(whole, m:t():contiguous():sum(1)[1][1])
      end
    end)

    it('results do not depend on the memory layout, to the bit', function()
      local g = torch.linspace(-1, 1, 3000):type(tname):mul(1 / 3):view(60, 50)
      local gt = g:t():contiguous():t()                      -- same values, columns contiguous
      assert.is_false(gt:isContiguous())
      assert.are.equal(g:sum(), gt:sum())
      assert.are.equal(g:norm(3), gt:norm(3))
      assert.are.equal(g:std(), gt:std())
      assert.are.equal(g:dot(g), gt:dot(gt))
      assert.are.equal(g:dist(g:t():t():mul(1)), 0)
      for d = 1, 2 do
        assert.are.same(g:sum(d):totable(), gt:sum(d):totable())
        assert.are.same(g:mean(d):totable(), gt:mean(d):totable())
        assert.are.same(g:var(d):totable(), gt:var(d):totable())
        assert.are.same(g:norm(2, d):totable(), gt:norm(2, d):totable())
      end
    end)

    it('errors: dimensions, empty tensors, types', function()
      errors(function() m:sum(3) end, "bad argument #2 to 'sum' (dimension 3 out of range for a 2D tensor (expected 1..2))")
      errors(function() m:max(0) end, "bad argument #2 to 'max' (dimension 0 out of range")
      errors(function() T():max() end, 'max: tensor is empty')
      errors(function() T():resize(0, 3):max(1) end, 'max: dimension 1 is empty (size 0)')
      errors(function() m:sum('a') end, 'sum: invalid arguments (' .. tname .. ', string); expected [result,] tensor | tensor, number')
      errors(function() m:max(1, 2) end, 'max: invalid arguments')
      errors(function() torch.max(T(), torch.DoubleTensor(), m, 1) end, "bad argument #2 to 'max' (torch.LongTensor expected")
      errors(function() m:dist(T{1, 2}) end, 'dist: element counts differ: a tensor of size 2x3 (6 elements) and one of size 2 (2 elements)')
      errors(function() m:cumsum(3) end, "bad argument #2 to 'cumsum' (dimension 3 out of range")
      errors(function() T():cumsum() end, 'cumsum: tensor is empty (no dimension 1)')
      assert.are.equal(0, T():sum())
      assert.are.equal(1, T():prod())
      near({{0, 0}}, T():resize(0, 2):sum(1))
    end)
  end)
end

describe('reductions on integer types', function()
  it('sum, prod, max, min and cumsum of LongTensors are integers', function()
    local x = torch.LongTensor{{1, 2, 3}, {4, 5, 6}}
    assert.are.equal(21, x:sum())
    assert.is_true(math.type(x:sum()) == 'integer')
    assert.are.equal(720, x:prod())
    assert.are.equal(6, x:max())
    assert.is_true(math.type(x:max()) == 'integer')
    assert.are.equal(1, x:min())
    assert.are.same({{6}, {15}}, x:sum(2):totable())
    assert.are.equal('torch.LongTensor', torch.type(x:sum(2)))
    assert.are.same({{1, 3, 6}, {4, 9, 15}}, x:cumsum(2):totable())
    local v, i = x:max(1)
    assert.are.same({{4, 5, 6}}, v:totable())
    assert.are.same({{2, 2, 2}}, i:totable())
    assert.are.equal(32, torch.LongTensor{1, 2, 3}:dot(torch.LongTensor{4, 5, 6}))
    local big = torch.LongTensor{math.maxinteger, math.maxinteger - 1}
    assert.are.equal(math.maxinteger, big:max())              -- exact, no double rounding
  end)

  it('ByteTensor masks sum to counts', function()
    local mask = torch.DoubleTensor{1, 5, 2, 7}:gt(1.5)
    assert.are.equal(3, mask:sum())
    assert.are.equal(1, mask:max())
  end)

  it('floating-only reductions are refused on integer types', function()
    local x = torch.LongTensor{1, 2}
    errors(function() x:mean() end, 'mean: not available for LongTensor (expects a Float or Double tensor)')
    errors(function() x:std() end, 'std: not available for LongTensor')
    errors(function() x:var(1) end, 'var: not available for LongTensor')
    errors(function() x:norm() end, 'norm: not available for LongTensor')
    errors(function() x:dist(x) end, 'dist: not available for LongTensor')
  end)
end)

-- GCC 12.2 at -O3 with AVX-512 once vectorized the integer sum wrongly:
-- a LongTensor of 8 ones summed to 4 (src/tensor/generic/math_reduce.c).
-- Every length up to past two vector widths, contiguous, strided and as
-- rows, against the sum done in Lua.
describe('integer sums of every length', function()
  it('match the exact sum (Long and Byte, contiguous, strided, per row)', function()
    for _, T in ipairs{'LongTensor', 'ByteTensor'} do
      for n = 1, 70 do
        local t = torch[T](n)
        local want = 0
        for i = 1, n do
          t[i] = (i * 7) % 5 + 1
          want = want + t[i]
        end
        assert.are.equal(want, t:sum(), T .. ' of ' .. n)
        local wide = torch[T](n, 2):zero()
        wide:select(2, 1):copy(t)
        assert.are.equal(want, wide:select(2, 1):sum(), T .. ' strided, ' .. n)
        local rows = t:view(1, n):expand(3, n):contiguous()
        assert.are.same({want, want, want}, rows:sum(2):view(-1):totable(), T .. ' rows of ' .. n)
        assert.are.equal(n, t:ne(0):sum(), T .. ' count of ' .. n)
      end
    end
  end)
end)
