-- The rest of Torch7's tensor library: cross, renorm, histc, bhistc, mode,
-- the alias method, fills into non-contiguous results, logNormal, number
-- forms, result forms of view/expand, storage views, and the conversions
-- and sizes that must be errors. Values are computed by hand or from the
-- definitions.
require 'torch'
local H = require 'spec.support.helpers'

describe('torch.cross', function()
  it('computes the cross product along the first dimension of size 3 (hand values)', function()
    local a = torch.Tensor{{1, 0}, {0, 1}, {0, 0}}   -- columns e1 and e2
    local b = torch.Tensor{{0, 0}, {1, 0}, {0, 1}}   -- columns e2 and e3
    -- e1 x e2 = e3, e2 x e3 = e1
    assert.are.same({{0, 1}, {0, 0}, {1, 0}}, torch.cross(a, b):totable())
    assert.are.same({-3, 6, -3}, torch.cross(torch.Tensor{1, 2, 3}, torch.Tensor{4, 5, 6}):totable())
    -- the dimension given; a result tensor; a method; the result may be an input
    local x, y = torch.Tensor{{1, 2, 3}, {1, 0, 0}}, torch.Tensor{{4, 5, 6}, {0, 1, 0}}
    assert.are.same({{-3, 6, -3}, {0, 0, 1}}, torch.cross(x, y, 2):totable())
    local r = torch.Tensor()
    assert.are.equal(r, torch.cross(r, x, y, 2))
    assert.are.same({{-3, 6, -3}, {0, 0, 1}}, r:totable())
    assert.are.same({{-3, 6, -3}, {0, 0, 1}}, x:cross(y, 2):totable())
    torch.cross(x, x, y, 2)
    assert.are.same({{-3, 6, -3}, {0, 0, 1}}, x:totable())
  end)

  it('rejects sizes without a dimension of 3 and mismatches', function()
    H.errors(function() torch.cross(torch.rand(2, 2), torch.rand(2, 2)) end, 'cross: no dimension of size 3')
    H.errors(function() torch.cross(torch.rand(3, 2), torch.rand(3, 2), 2) end, 'cross: dimension 2 must have size 3, got 2')
    H.errors(function() torch.cross(torch.rand(3), torch.rand(4)) end, 'cross: tensors of the same size expected')
    H.errors(function() torch.cross(torch.rand(3), torch.rand(3):float()) end, 'cross: tensors of one type expected')
  end)
end)

describe('renorm', function()
  it('scales every slice whose p-norm exceeds maxnorm to maxnorm (Torch7: / (norm + 1e-7))', function()
    local m = torch.Tensor{{3, 4}, {0.3, 0.4}}   -- row norms 5 and 0.5
    local r = torch.renorm(m, 2, 1, 1)
    assert.is_true(math.abs(r[1][1] - 3 / (5 + 1e-7)) < 1e-15)
    assert.is_true(math.abs(r[1][2] - 4 / (5 + 1e-7)) < 1e-15)
    assert.are.same({0.3, 0.4}, r[2]:totable())        -- under the bound: untouched
    assert.are.same({{3, 4}, {0.3, 0.4}}, m:totable()) -- the function form leaves m alone
    m:renorm(1, 2, 2)                                   -- columns, 1-norms 3.3 and 4.4
    assert.is_true(math.abs(m[1][1] - 3 * 2 / (3.3 + 1e-7)) < 1e-12)
    assert.is_true(math.abs(m[2][2] - 0.4 * 2 / (4.4 + 1e-7)) < 1e-12)
    H.errors(function() torch.renorm(torch.rand(3), 2, 1, 1) end, 'renorm: tensor of at least 2 dimensions expected')
    H.errors(function() torch.renorm(torch.rand(2, 2), 0, 1, 1) end, 'renorm: norm power must be a positive number')
    H.errors(function() torch.renorm(torch.LongTensor(2, 2), 2, 1, 1) end, 'renorm: not available for torch.LongTensor')
  end)
end)

describe('histc / bhistc', function()
  it('count elements into equal bins over [min, max]; max falls in the last bin; others are left out', function()
    assert.are.same({0, 3, 0, 2, 1}, torch.histc(torch.Tensor{2, 4, 2, 2, 5, 4}, 5, 1, 5):totable())
    assert.are.same({1, 1}, torch.histc(torch.Tensor{-1, 0, 1, 2, 3}, 2, 0, 1):totable())
    -- min = max: the data's range
    assert.are.same({1, 0, 2}, torch.histc(torch.Tensor{1, 3, 3}, 3):totable())
    -- a flat tensor: [v - 1, v + 1]
    assert.are.same({0, 2}, torch.histc(torch.Tensor{7, 7}, 2):totable())
    assert.are.equal(100, torch.histc(torch.rand(10)):nElement())
    local r = torch.Tensor()
    assert.are.equal(r, torch.histc(r, torch.Tensor{1, 2}, 2, 1, 2))
    assert.are.same({1, 1}, r:totable())
    H.errors(function() torch.histc(torch.Tensor{1}, 0) end, 'histc: number of bins must be a positive integer')
    H.errors(function() torch.histc(torch.Tensor{1}, 2, 3, 1) end, 'histc: min (3) must not exceed max (1)')
  end)

  it('bhistc makes one histogram per row', function()
    local x = torch.Tensor{{2, 4, 2, 2, 5, 4}, {3, 5, 1, 5, 3, 5}, {3, 4, 2, 5, 5, 1}}
    assert.are.same({{0, 3, 0, 2, 1}, {1, 0, 2, 0, 3}, {1, 1, 1, 1, 2}}, torch.bhistc(x, 5, 1, 5):totable())
    -- whole-tensor range when min = max
    assert.are.same({{1, 1}, {0, 2}}, torch.bhistc(torch.Tensor{{0, 1}, {2, 2}}, 2):totable())
    H.errors(function() torch.bhistc(torch.rand(2, 2, 2)) end, 'bhistc: 1D or 2D tensor expected')
  end)
end)

describe('mode', function()
  it('gives the most frequent value (smallest among ties) and the index of its last appearance', function()
    local x = torch.Tensor{{1, 2, 2, 2, 3, 2}, {1.5, 2, 2, 1.5, 1.5, 5}, {4, 3, 3, 4, 9, 9}}
    local v, i = torch.mode(x)
    assert.are.same({{2}, {1.5}, {3}}, v:totable())
    assert.are.same({{6}, {5}, {3}}, i:totable())
    assert.are.equal('torch.LongTensor', torch.type(i))
    local v1, i1 = x:mode(1)
    assert.are.same({{1, 2, 2, 1.5, 1.5, 2}}, v1:totable())
    assert.are.same({{1, 2, 2, 2, 2, 1}}, i1:totable())
    local rv, ri = torch.Tensor(), torch.LongTensor()
    torch.mode(rv, ri, x, 2)
    assert.are.same(v:totable(), rv:totable())
    assert.are.same(i:totable(), ri:totable())
    H.errors(function() torch.mode(torch.Tensor{0 / 0}) end, 'mode: NaN in the input')
    H.errors(function() torch.mode(x, 3) end, 'mode: dimension 3 out of range for a 2D tensor')
  end)
end)

describe('multinomialAliasSetup / multinomialAlias', function()
  it('builds a table whose buckets carry the probabilities exactly', function()
    local p = torch.Tensor{0.1, 0.2, 0.7, 0}
    local state = torch.multinomialAliasSetup(p)
    local J, q = state[1], state[2]
    assert.are.equal('torch.LongTensor', torch.type(J))
    -- each category's mass: q[k]/K from its own bucket plus (1 - q[j])/K from buckets aliasing it
    local K = 4
    local mass = {0, 0, 0, 0}
    for j = 1, K do
      mass[j] = mass[j] + q[j] / K
      mass[J[j]] = mass[J[j]] + (1 - q[j]) / K
    end
    for k = 1, K do assert.is_true(math.abs(mass[k] - p[k]) < 1e-12, 'category ' .. k) end
    assert.is_true(J:min() >= 1 and J:max() <= K)
    -- the state is reused
    local s2 = torch.multinomialAliasSetup(torch.Tensor{1, 1, 2}, state)
    assert.are.equal(state, s2)
    assert.are.equal(3, state[1]:nElement())
  end)

  it('draws with the frequencies of the probabilities', function()
    torch.manualSeed(7)
    local state = torch.multinomialAliasSetup(torch.Tensor{0.1, 0.2, 0.7, 0})
    local out = torch.LongTensor(50000)
    assert.are.equal(out, torch.multinomialAlias(out, state))
    for k, w in ipairs{0.1, 0.2, 0.7, 0} do
      assert.is_true(math.abs(out:eq(k):sum() / 50000 - w) < 0.01, 'category ' .. k)
    end
    local big = torch.LongTensor(3, 4):zero()
    torch.multinomialAlias(big:narrow(2, 2, 2), state)
    assert.are.equal(0, big:narrow(2, 1, 1):sum() + big:narrow(2, 4, 1):sum())
    assert.is_true(big:narrow(2, 2, 2):min() >= 1 and big:narrow(2, 2, 2):max() <= 3)
    H.errors(function() torch.multinomialAliasSetup(torch.Tensor{1, -1}) end,
             'torch.multinomialAliasSetup: invalid probability -1 at 2')
    H.errors(function() torch.multinomialAliasSetup(torch.zeros(3)) end, 'probabilities sum to 0')
    H.errors(function() torch.multinomialAlias(torch.Tensor(3), state) end, 'LongTensor output expected')
  end)
end)

describe('fills into a result', function()
  it('linspace, logspace and range fill a non-contiguous view of as many elements in place', function()
    local x = torch.zeros(2, 3)
    x:narrow(2, 2, 2):linspace(0, 3, 4)
    assert.are.same({{0, 0, 1}, {0, 2, 3}}, x:totable())
    x:zero():narrow(2, 2, 2):range(1, 4)
    assert.are.same({{0, 1, 2}, {0, 3, 4}}, x:totable())
    x:zero():narrow(2, 1, 2):logspace(0, 3, 4)
    assert.are.same({{1, 10, 0}, {100, 1000, 0}}, x:totable())
    -- a result of another size is resized (1D)
    local y = torch.zeros(2, 2)
    assert.are.same({0, 0.5, 1}, y:linspace(0, 1, 3):totable())
  end)
end)

describe('result arguments', function()
  it('a non-contiguous result of the right shape is written in place, never outside the view', function()
    local a, b, sq = torch.rand(3, 4), torch.rand(3, 4), torch.rand(4, 4)
    local cases = {
      {{3, 4}, function(r) return torch.add(r, a, b) end, function() return torch.add(a, b) end},
      {{3, 4}, function(r) return torch.cmul(r, a, b) end, function() return torch.cmul(a, b) end},
      {{3, 4}, function(r) return torch.exp(r, a) end, function() return torch.exp(a) end},
      {{3, 4}, function(r) return torch.lerp(r, a, b, 0.3) end, function() return torch.lerp(a, b, 0.3) end},
      {{3, 1}, function(r) return torch.sum(r, a, 2) end, function() return torch.sum(a, 2) end},
      {{3, 4}, function(r) return torch.cumsum(r, a, 2) end, function() return torch.cumsum(a, 2) end},
      {{4, 4}, function(r) return torch.mm(r, sq, sq) end, function() return torch.mm(sq, sq) end},
      {{4, 4}, function(r) return torch.eye(r, 4) end, function() return torch.eye(4) end},
      {{2, 2}, function(r) return torch.range(r, 1, 4) end, function() return torch.range(1, 4):view(2, 2) end},
      {{2, 2}, function(r) return torch.linspace(r, 0, 3, 4) end, function() return torch.linspace(0, 3, 4):view(2, 2) end},
      {{2, 2}, function(r) return torch.logspace(r, 0, 3, 4) end, function() return torch.logspace(0, 3, 4):view(2, 2) end},
      {{3, 4}, function(r) return torch.cross(r, a, b, 1) end, function() return torch.cross(a, b, 1) end},
      {{3, 4}, function(r) return torch.renorm(r, a, 2, 1, 0.5) end, function() return torch.renorm(a, 2, 1, 0.5) end},
      {{2, 3}, function(r) return torch.conv2(r, a, torch.ones(2, 2)) end, function() return torch.conv2(a, torch.ones(2, 2)) end},
      {{3, 8}, function(r) return torch.cat(r, a, b, 2) end, function() return torch.cat(a, b, 2) end},
      {{3, 1}, function(r) return torch.mode(r, torch.LongTensor(), a, 2) end, function() return (torch.mode(a, 2)) end},
      {{5}, function(r) return torch.histc(r, a, 5, 0, 1) end, function() return torch.histc(a, 5, 0, 1) end},
    }
    for k, c in ipairs(cases) do
      local sizes, f, ref = c[1], c[2], c[3]
      local wide = {table.unpack(sizes)}
      wide[#wide] = wide[#wide] + 2
      local big = torch.zeros(table.unpack(wide))
      local r = big:narrow(#sizes, 2, sizes[#sizes])
      f(r)
      assert.are.equal(2, r:storageOffset(), 'case ' .. k)
      assert.are.equal(0, big:narrow(#sizes, 1, 1):abs():max() + big:narrow(#sizes, wide[#wide], 1):abs():max(),
                       'case ' .. k .. ' wrote outside the view')
      assert.is_true((r:clone():view(-1) - ref():contiguous():view(-1)):abs():max() < 1e-9, 'case ' .. k)
    end
  end)
end)

describe('logNormal', function()
  it('draws exp(N(mean, std)): the logarithm has the given mean and std', function()
    torch.manualSeed(11)
    local t = torch.Tensor(20000):logNormal(1.5, 0.25)
    local l = t:log()
    assert.is_true(math.abs(l:mean() - 1.5) < 0.01)
    assert.is_true(math.abs(l:std() - 0.25) < 0.01)
    torch.manualSeed(12)
    local a = torch.logNormal(1, 2)
    torch.manualSeed(12)
    assert.are.equal(math.exp(torch.normal(1, 2)), a)
  end)
end)

describe('number forms and small methods', function()
  it('torch.round and friends take numbers as Torch7', function()
    assert.are.equal(3, torch.round(2.5))
    assert.are.equal(-3, torch.round(-2.5))
    assert.are.equal(0, torch.round(0.49999999999999994))
    assert.are.equal(2, torch.floor(2.7))
    assert.are.equal(-2, torch.trunc(-2.7))
    assert.is_true(math.abs(torch.frac(-2.75) + 0.75) < 1e-15)
    assert.are.equal(0.5, torch.sigmoid(0))
    assert.are.equal(0.5, torch.rsqrt(4))
    assert.are.equal(3, torch.abs(-3))
    assert.are.equal(7, torch.lerp(5, 9, 0.5))
    assert.are.equal(8, torch.pow(2, 3))
    assert.are.equal(math.atan(1, 2), torch.atan2(1, 2))
    for _, f in ipairs{'log', 'exp', 'cos', 'acos', 'sin', 'asin', 'tan', 'atan', 'sqrt', 'ceil', 'log1p',
                       'cosh', 'sinh', 'tanh'} do
      local v = 0.5
      assert.is_true(math.abs(torch[f](v) - torch.DoubleTensor{v}[f](torch.DoubleTensor{v})[1]) < 1e-15, f)
    end
  end)

  it('elementSize, select on 1D, view/viewAs/expand/expandAs result forms', function()
    assert.are.equal(1, torch.ByteTensor():elementSize())
    assert.are.equal(2, torch.ShortStorage():elementSize())
    assert.are.equal(8, torch.DoubleTensor():elementSize())
    assert.are.equal(5, torch.Tensor{4, 5}:select(1, 2))
    assert.are.equal(5, torch.Tensor{4, 5}:select(2, 2))   -- Torch7 ignores the dimension of a 1D tensor
    local t, u = torch.range(1, 6), torch.rand(2, 3)
    local r = torch.Tensor()
    assert.are.equal(r, r:viewAs(t, u))
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, r:totable())
    r[1][1] = 9
    assert.are.equal(9, t[1])
    local e = torch.Tensor()
    assert.are.equal(e, e:expandAs(torch.Tensor{{1}, {2}}, u))
    assert.are.same({{1, 1, 1}, {2, 2, 2}}, e:totable())
    assert.are.same({{1, 1, 1}, {2, 2, 2}}, torch.Tensor():expand(torch.Tensor{{1}, {2}}, 2, 3):totable())
    assert.are.same({3, 2}, torch.Tensor():view(t, 3, 2):size():totable())
    H.errors(function() r:viewAs(t:float(), u) end, "bad argument #2 to 'viewAs' (torch.DoubleTensor expected")
  end)

  it('torch.setheaptracking records the switch', function()
    torch.setheaptracking(true)
    assert.is_true(torch._heaptracking)
    torch.setheaptracking(false)
    assert.is_false(torch._heaptracking)
    H.errors(function() torch.setheaptracking('yes') end, 'torch.setheaptracking: boolean expected, got string')
  end)
end)

describe('conversions and sizes that are errors', function()
  it('NaN and inf do not convert to integer types', function()
    for _, n in ipairs{'Byte', 'Char', 'Short', 'Int', 'Long'} do
      local T = torch[n .. 'Tensor']
      H.errors(function() T(2):fill(0 / 0) end, 'fill: cannot convert nan or inf to an integer (' .. n .. 'Tensor)')
      H.errors(function() T(2):copy(torch.Tensor{1, math.huge}) end, 'copy: cannot convert nan or inf')
      H.errors(function() T(2):copy(torch.FloatTensor{-math.huge, 1}) end, 'copy: cannot convert nan or inf')
      H.errors(function() local x = T(1); x[1] = 0 / 0 end, 'cannot convert nan to an integer')
      H.errors(function() T{1, math.huge} end, 'cannot convert inf to an integer')
      H.errors(function() T(2):zero():add(-math.huge) end, 'add: cannot convert -inf to an integer')
      H.errors(function() T(2):zero():mul(0 / 0) end, 'mul: cannot convert nan to an integer')
      H.errors(function() T(2):zero():clamp(0, math.huge) end, 'clamp: cannot convert inf to an integer')
      H.errors(function() torch[n .. 'Storage'](1)[1] = 0 / 0 end, 'cannot convert nan to an integer')
    end
    -- comparisons are not conversions: every integer is below inf
    assert.are.same({1, 1}, torch.LongTensor{1, 2}:lt(math.huge):totable())
    -- floating and half targets keep NaN
    assert.is_true(torch.FloatTensor(1):fill(0 / 0)[1] ~= torch.FloatTensor(1):fill(0 / 0)[1])
    assert.is_true(torch.HalfTensor(1):copy(torch.Tensor{math.huge}):double()[1] == math.huge)
  end)

  it('a freed source is an error for set; overflowing repeat counts are an error', function()
    local a, b = torch.Tensor(3), torch.Tensor(3)
    b:free()
    H.errors(function() a:set(b) end, "bad argument #2 to 'set' (tensor was freed")
    H.errors(function() torch.Tensor(2):repeatTensor(2 ^ 40, 2 ^ 40) end, "repeatTensor: the result's size overflows")
    H.errors(function() torch.Tensor(2):repeatTensor(1.5) end, "bad argument #2 to 'repeatTensor'")
    H.errors(function() torch.Tensor():resize(2 ^ 32, 2 ^ 32, 4) end, 'size overflows')
    H.errors(function() torch.cat(torch.Tensor(1):expand(2 ^ 62), torch.Tensor(1):expand(2 ^ 62)) end,
             "cat: the result's dimension 1 overflows")
  end)
end)

describe('errors of cross, renorm, histc, bhistc, mode, atan2, match', function()
  it("are placed at the user's call, not in lua/torch/mathmore.lua", function()
    local here = debug.getinfo(1, 'S').short_src
    local calls = {
      function() return (torch.histc(torch.IntTensor{1})) end,
      function() return (torch.bhistc(torch.IntTensor{1})) end,
      function() return (torch.renorm(torch.IntTensor{{1}}, 2, 1, 1)) end,
      function() return (torch.mode(torch.Tensor{{1}}, 3)) end,
      function() return (torch.cross(torch.Tensor{1, 2, 3}, 5)) end,
      function() return (torch.atan2(torch.Tensor{1}, 5)) end,
      function() return (torch.match(torch.Tensor{{1}}, 5)) end,
      function() return (torch.Tensor{{1}}:mode(3)) end,
    }
    for i, f in ipairs(calls) do
      local ok, e = pcall(f)
      assert.is_false(ok)
      assert.is_truthy(e:find(here, 1, true), 'call ' .. i .. ': ' .. e)
      assert.is_falsy(e:find('mathmore', 1, true), 'call ' .. i .. ': ' .. e)
    end
  end)
end)
