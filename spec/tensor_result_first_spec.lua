-- Torch7's result-first forms of the reductions and cumulative ops (issue
-- 33): every form TensorMath.lua's cwrap declarations allow, each result
-- optional (torch.max(vals, idx, x, d), torch.max(vals, x, d),
-- torch.max(idx, x, d), vals:max(x, d) as optim's adamax does), compared
-- exactly with the form that makes new tensors; the result given is the
-- one returned and is resized to fit.
require 'torch'
local H = require 'spec.support.helpers'

local function same(expected, got)
  assert.are.equal(torch.type(expected), torch.type(got))
  assert.are.same(expected:size():totable(), got:size():totable())
  assert.is_true(torch.equal(expected, got), 'values differ')
end

-- a result of the wrong size, to see it resized
local function stale(T) return T(7):fill(-99) end

local function inputs(T)
  torch.manualSeed(33)
  -- small integers: ties and repeats for max, sort, median and mode
  local x = T(5, 6):random(1, 4):add(-2)
  x[2][3] = 0.5
  return x
end

for _, T in ipairs{torch.DoubleTensor, torch.FloatTensor} do
  local tname = torch.type(T())
  describe('result-first reductions on ' .. tname, function()
    local x = inputs(T)

    it('sum, prod, mean: torch.f(r, x, d) and r:f(x, d)', function()
      for _, f in ipairs{'sum', 'prod', 'mean'} do
        for d = 1, 2 do
          local ref = x[f](x, d)
          local r = stale(T)
          assert.are.equal(r, torch[f](r, x, d))
          same(ref, r)
          r = stale(T)
          assert.are.equal(r, r[f](r, x, d))
          same(ref, r)
        end
      end
    end)

    it('std, var with and without the biased flag', function()
      for _, f in ipairs{'std', 'var'} do
        for _, flag in ipairs{false, true} do
          local ref = x[f](x, 2, flag)
          local r = stale(T)
          assert.are.equal(r, torch[f](r, x, 2, flag))
          same(ref, r)
          r = stale(T)
          assert.are.equal(r, r[f](r, x, 2, flag))
          same(ref, r)
        end
        local r = stale(T)
        torch[f](r, x, 1)
        same(x[f](x, 1), r)
      end
    end)

    it('norm: torch.norm(r, x, p, d) and r:norm(x, p, d)', function()
      for _, p in ipairs{1, 2, 3} do
        local ref = x:norm(p, 2)
        local r = stale(T)
        assert.are.equal(r, torch.norm(r, x, p, 2))
        same(ref, r)
        r = stale(T)
        assert.are.equal(r, r:norm(x, p, 2))
        same(ref, r)
      end
    end)

    it('max, min: each result optional, as function and as method', function()
      for _, f in ipairs{'max', 'min'} do
        for d = 1, 2 do
          local rv, ri = x[f](x, d)
          local v, i = stale(T), torch.LongTensor(3):fill(-1)
          local a, b = torch[f](v, i, x, d)
          assert.are.equal(v, a); assert.are.equal(i, b)
          same(rv, v); same(ri, i)
          -- values given, indices new
          v = stale(T)
          a, b = torch[f](v, x, d)
          assert.are.equal(v, a)
          same(rv, v); same(ri, b)
          -- indices given, values new
          i = torch.LongTensor()
          a, b = torch[f](i, x, d)
          assert.are.equal(i, b)
          same(rv, a); same(ri, i)
          -- methods: self is the values result (optim's adamax: u:max(m, 1))
          v = stale(T)
          a, b = v[f](v, x, d)
          assert.are.equal(v, a)
          same(rv, v); same(ri, b)
          v, i = stale(T), torch.LongTensor()
          a, b = v[f](v, i, x, d)
          assert.are.equal(v, a); assert.are.equal(i, b)
          same(rv, v); same(ri, i)
        end
      end
    end)

    it('max on an adamax step: u:max(stacked, 1) with a 2 x n input', function()
      local u, g = T{0.5, 2, -1}, T{1, 1, 1}
      local stacked = torch.cat(u:view(1, 3), g:clone():abs():view(1, 3), 1)
      u:max(stacked, 1)
      same(T{{1, 2, 1}}, u)
    end)

    it('cumsum, cumprod: torch.f(r, x [, d]) and r:f(x [, d])', function()
      for _, f in ipairs{'cumsum', 'cumprod'} do
        for d = 1, 2 do
          local ref = x[f](x, d)
          local r = stale(T)
          assert.are.equal(r, torch[f](r, x, d))
          same(ref, r)
          r = stale(T)
          assert.are.equal(r, r[f](r, x, d))
          same(ref, r)
        end
        local r = stale(T)
        r[f](r, x)
        same(x[f](x), r)
        same(x[f](x, 1), r)
      end
    end)

    it('cmax, cmin: with a tensor or a number, result first or in place', function()
      local y = T(5, 6):random(1, 4):add(-2)
      for _, f in ipairs{'cmax', 'cmin'} do
        local ref, refn = torch[f](x, y), torch[f](x, 0.5)
        local r = stale(T)
        assert.are.equal(r, torch[f](r, x, y)); same(ref, r)
        r = stale(T)
        assert.are.equal(r, r[f](r, x, y)); same(ref, r)
        r = stale(T)
        assert.are.equal(r, torch[f](r, x, 0.5)); same(refn, r)
        r = stale(T)
        assert.are.equal(r, r[f](r, x, 0.5)); same(refn, r)
        local z = x:clone()
        assert.are.equal(z, z[f](z, y)); same(ref, z)
      end
    end)

    it('sort, topk, kthvalue, median, mode: each result optional', function()
      local cases = {
        {'sort', {2, true}}, {'sort', {1}},
        {'topk', {3, 2, true, true}}, {'topk', {2, 1, false, true}},
        {'kthvalue', {2, 2}}, {'kthvalue', {3, 1}},
        {'median', {2}}, {'median', {1}},
        {'mode', {2}}, {'mode', {1}},
      }
      for _, c in ipairs(cases) do
        local f, args = c[1], c[2]
        local rv, ri = x[f](x, table.unpack(args))
        local v, i = stale(T), torch.LongTensor(2)
        local a, b = torch[f](v, i, x, table.unpack(args))
        assert.are.equal(v, a); assert.are.equal(i, b)
        same(rv, v); same(ri, i)
        v = stale(T)
        a, b = torch[f](v, x, table.unpack(args))
        assert.are.equal(v, a)
        same(rv, v); same(ri, b)
        i = torch.LongTensor()
        a, b = torch[f](i, x, table.unpack(args))
        assert.are.equal(i, b)
        same(rv, a); same(ri, i)
        v = stale(T)
        a, b = v[f](v, x, table.unpack(args))
        assert.are.equal(v, a)
        same(rv, v); same(ri, b)
      end
    end)

    it('atan2: new, result first, and in place', function()
      local a, b = T{{1, -1, 0}, {2, 0.5, -3}}, T{{1, 1, -1}, {-2, 0, 4}}
      local ref = T(2, 3)
      for i = 1, 2 do
        for j = 1, 3 do ref[i][j] = math.atan(a[i][j], b[i][j]) end
      end
      same(ref, torch.atan2(a, b))
      local r = stale(T)
      assert.are.equal(r, torch.atan2(r, a, b)); same(ref, r)
      r = stale(T)
      assert.are.equal(r, r:atan2(a, b)); same(ref, r)
      local z = a:clone()
      assert.are.equal(z, z:atan2(b)); same(ref, z)
      H.has(H.errmsg(torch.atan2, a, torch.LongTensor{1, 2, 3, 4, 5, 6}), 'atan2: tensors of one type expected')
      H.has(H.errmsg(torch.atan2, torch.LongTensor{1}, torch.LongTensor{1}), 'atan2: not available for torch.LongTensor')
    end)

    it('match: squared distances between rows, times gain', function()
      local m1, m2 = T{{0, 0}, {1, 1}}, T{{1, 0}, {2, 2}, {0, 0}}
      local ref = T{{1, 8, 0}, {1, 2, 2}}
      same(ref, torch.match(m1, m2))
      local r = stale(T)
      assert.are.equal(r, torch.match(r, m1, m2, 0.5)); same(ref:clone():mul(0.5), r)
      r = stale(T)
      assert.are.equal(r, r:match(m1, m2, 2)); same(ref:clone():mul(2), r)
      H.has(H.errmsg(torch.match, m1, T{{1, 2, 3}}), 'match: m1 and m2 must have the same inner vector dim (2 and 3)')
    end)
  end)
end

describe('result-first forms on integer tensors', function()
  it('max, sort with a LongTensor input: two Long tensors are values, indices', function()
    local x = torch.LongTensor{{3, 1, 2}, {0, 5, 5}}
    local rv, ri = x:max(2)
    local v, i = torch.LongTensor(), torch.LongTensor()
    torch.max(v, i, x, 2)
    same(rv, v); same(ri, i)
    v = torch.LongTensor()
    local _, b = torch.max(v, x, 2)
    same(rv, v); same(ri, b)
    local sv, si = x:sort(2)
    v = torch.LongTensor()
    _, b = torch.sort(v, x, 2)
    same(sv, v); same(si, b)
  end)
end)

describe('result-first forms refuse a result of the wrong type', function()
  it('names the function and what was expected', function()
    local x = torch.DoubleTensor(3, 4):zero()
    H.has(H.errmsg(torch.max, torch.FloatTensor(), torch.LongTensor(), x, 2), 'max')
    H.has(H.errmsg(torch.max, torch.IntTensor(), x, 2), 'torch.LongTensor expected, got torch.IntTensor')
    H.has(H.errmsg(torch.min, torch.DoubleTensor(), torch.IntTensor(), x, 2), 'torch.LongTensor expected, got torch.IntTensor')
    H.has(H.errmsg(torch.sort, torch.IntTensor(), x, 2), 'torch.LongTensor expected, got torch.IntTensor')
    H.has(H.errmsg(torch.mode, torch.IntTensor(), x, 2), 'mode: indices result must be a torch.LongTensor, got torch.IntTensor')
    H.has(H.errmsg(torch.max, x, 'a', 2), 'max: invalid arguments')
  end)
end)

describe('functional forms that take the tensor first (TensorMath.lua)', function()
  it('torch.zero(x), torch.fill(x, v) work in place and return x', function()
    local x = torch.Tensor(2, 3):fill(5)
    assert.are.equal(x, torch.zero(x))
    assert.are.equal(0, x:abs():sum())
    assert.are.equal(x, torch.fill(x, 2.5))
    same(torch.Tensor(2, 3):fill(2.5), x)
  end)

  it('torch.bernoulli(x [, p]), torch.uniform(x [, a, b]) ... fill x as the methods do', function()
    local cases = {
      {'bernoulli', {}}, {'bernoulli', {0.2}}, {'uniform', {}}, {'uniform', {-2, 3}},
      {'normal', {1, 2}}, {'exponential', {1.5}}, {'cauchy', {0, 1}}, {'logNormal', {1, 2}},
      {'geometric', {0.3}}, {'random', {}}, {'random', {7}}, {'random', {3, 9}},
    }
    for _, c in ipairs(cases) do
      local name, args = c[1], c[2]
      torch.manualSeed(7)
      local ref = torch.Tensor(6)[name](torch.Tensor(6), table.unpack(args))
      torch.manualSeed(7)
      local x = torch.Tensor(6)
      assert.are.equal(x, torch[name](x, table.unpack(args)))
      same(ref, x)
    end
    -- with a generator after the tensor, as Torch7's cwrap orders them
    local g1, g2 = torch.Generator(), torch.Generator()
    torch.manualSeed(g1, 3); torch.manualSeed(g2, 3)
    same(torch.Tensor(4):uniform(g1, 5, 6), torch.uniform(torch.Tensor(4), g2, 5, 6))
    -- the number forms stay
    torch.manualSeed(11)
    local u = torch.uniform(2, 3)
    torch.manualSeed(11)
    assert.are.equal(u, torch.Tensor(1):uniform(2, 3)[1])
    assert.are.equal('number', type(torch.normal()))
    H.has(H.errmsg(function() torch.uniform(torch.LongTensor(2)) end),
          "bad argument #1 to 'uniform' (torch.FloatTensor or torch.DoubleTensor expected, got torch.LongTensor)")
  end)

  it('torch.cat along a dimension past the last adds dimensions of size 1 (catArray)', function()
    local a, b = torch.Tensor{{1, 2}, {3, 4}}, torch.Tensor{{10, 20}, {30, 40}}
    local r = torch.cat(a, b, 3)
    assert.are.same({2, 2, 2}, r:size():totable())
    same(a, r:select(3, 1)); same(b, r:select(3, 2))
    same(torch.Tensor{{{1, 2}}}:view(1, 1, 2), torch.cat(torch.Tensor{1}, torch.Tensor{2}, 3))
    local res = torch.Tensor()
    assert.are.equal(res, torch.cat(res, {a, b, a}, 4))
    assert.are.same({2, 2, 1, 3}, res:size():totable())
    same(b, res:select(4, 2):select(3, 1))
  end)
end)
