-- The random generator: Torch7's exact stream (random.t7 was written by
-- Torch7 after torch.manualSeed(123)), seeds and RNG states, generators,
-- the scalar draws, tensor fills, rand/randn/randperm, and argument errors.

require 'torch'

local FIX = require 'spec.support.fixtures'

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  return (tostring(err):gsub('^[^:\n]+:%d+: ', ''))   -- without the caller's position
end

local function values(t)
  local out = {}
  local c = t:contiguous()
  local s, off = c:storage(), c:storageOffset()
  for i = 0, c:nElement() - 1 do out[#out + 1] = s[off + i] end
  return out
end

describe('sizes and nothing else', function()
  it('refuses what follows the sizes, unless it is a tensor type name', function()
    local H = require 'spec.support.helpers'
    H.fails("bad argument #2 to 'rand' (size must be a number, got string)", function() return torch.rand(2, 'x') end)
    H.fails("bad argument #2 to 'randn' (size must be a number, got table)", function() return torch.randn(2, {}) end)
    H.fails("bad argument #2 to 'zeros' (a number or a tensor type name expected, got string 'x')",
            function() return torch.zeros(2, 'x') end)
    H.fails("bad argument #3 to 'ones' (size must be a number, got string)",
            function() return torch.Tensor():ones(2, 'x') end)
    assert.are.equal('torch.FloatTensor', torch.rand(2, 3, 'torch.FloatTensor'):type())
    assert.are.equal('torch.IntTensor', torch.zeros(2, 'torch.IntTensor'):type())
    assert.are.equal(2, torch.rand(torch.Generator(), 2):size(1))
    assert.are.equal(3, torch.rand(torch.FloatTensor(), 3):size(1))
    assert.are.same({2, 2}, torch.ones(torch.LongStorage{2, 2}):size():totable())
  end)
end)

describe('Torch7 random stream', function()
  local ref = torch.load(FIX .. 'random.t7')

  it('manualSeed truncates a seed with a fraction (Torch7) and refuses non-finite ones', function()
    torch.manualSeed(7.9)
    local a = torch.uniform()
    torch.manualSeed(7)
    assert.are.equal(a, torch.uniform())
    assert.has_error(function() torch.manualSeed(1 / 0) end)
    assert.has_error(function() torch.manualSeed(0 / 0) end)
  end)

  it('reproduces random.t7 exactly after torch.manualSeed(123)', function()
    torch.manualSeed(123)
    assert.are.same(values(ref.rand), values(torch.rand(8)))
    assert.are.same(values(ref.randn), values(torch.randn(8)))
    assert.are.same(values(ref.uniform_tensor), values(torch.Tensor(5):uniform(-2, 3)))
    assert.are.same(values(ref.normal_tensor), values(torch.Tensor(5):normal(1, 0.5)))
    for i = 1, 5 do assert.are.equal(ref.random_numbers[i], torch.random()) end
    assert.are.same(values(ref.bernoulli), values(torch.Tensor(10):bernoulli(0.3)))
    local f = torch.FloatTensor(4):uniform()
    assert.are.equal('torch.FloatTensor', torch.typename(ref.float_rand))
    assert.are.same(values(ref.float_rand), values(f))
    torch.manualSeed(123)
    assert.are.equal(ref.first_uniform_after_reseed, torch.uniform())
  end)

  it('matches the values of Torch7 documentation', function()
    torch.manualSeed(123)
    assert.are.equal('0.69646918727085', string.format('%.14g', torch.uniform()))
    assert.are.equal('0.71295532141812', string.format('%.14g', torch.uniform()))
    assert.are.equal('0.28613933874294', string.format('%.14g', torch.uniform()))
  end)

  it('draws uniforms with 32 bits of resolution from the raw stream', function()
    torch.manualSeed(5)
    local raw = {}
    for i = 1, 10 do raw[i] = torch.random() end
    torch.manualSeed(5)
    for i = 1, 10 do assert.are.equal(raw[i] / 2 ^ 32, torch.uniform()) end
    torch.manualSeed(5)
    for i = 1, 10 do assert.are.equal(raw[i] / 2 ^ 32 * 4 - 1, torch.uniform(-1, 3)) end
  end)

  it('makes normals by Box-Muller, two values per pair of uniforms', function()
    torch.manualSeed(9)
    local u1, u2 = torch.uniform(), torch.uniform()
    local rho = math.sqrt(-2 * math.log(1 - u2))
    torch.manualSeed(9)
    assert.is_true(math.abs(torch.normal() - rho * math.cos(2 * math.pi * u1)) < 1e-15)
    assert.is_true(math.abs(torch.normal(3, 2) - (rho * math.sin(2 * math.pi * u1) * 2 + 3)) < 1e-14)
    -- reseeding drops the cached second value
    torch.manualSeed(9)
    local a = torch.normal()
    torch.manualSeed(9)
    assert.are.equal(a, torch.normal())
  end)

  it('derives bernoulli, random(a, b), exponential, geometric from the stream as Torch7 does', function()
    torch.manualSeed(11)
    local u = {}
    for i = 1, 6 do u[i] = torch.uniform() end
    torch.manualSeed(11)
    assert.are.equal(u[1] <= 0.4 and 1 or 0, torch.bernoulli(0.4))
    assert.are.equal(-1 / 2 * math.log(1 - u[2]), torch.exponential(2))
    assert.are.equal(math.floor(math.log(1 - u[3]) / math.log(0.3)) + 1, torch.geometric(0.3))
    assert.are.equal(2 + math.tan(math.pi * (u[4] - 0.5)) * 3, torch.cauchy(2, 3))
    torch.manualSeed(11)
    local r = {}
    for i = 1, 3 do r[i] = torch.random() end
    torch.manualSeed(11)
    assert.are.equal(r[1] % 6 + 1, torch.random(6))
    assert.are.equal(r[2] % 11 - 5, torch.random(-5, 5))
    assert.are.equal(r[3] % 1 + 7, torch.random(7, 7))
  end)

  it('shuffles randperm with Torch7\'s swaps', function()
    torch.manualSeed(3)
    local p = torch.randperm(10)
    torch.manualSeed(3)
    local want = {}
    for i = 1, 10 do want[i] = i end
    for i = 1, 9 do
      local z = torch.random() % (10 - i + 1)
      want[i], want[i + z] = want[i + z], want[i]
    end
    assert.are.same(want, values(p))
    assert.are.equal('torch.DoubleTensor', torch.typename(p))
    local seen = {}
    for _, v in ipairs(values(torch.randperm(100))) do seen[v] = true end
    for i = 1, 100 do assert.is_true(seen[i]) end
  end)
end)

describe('seeds, states and generators', function()
  it('same seed, same numbers; initialSeed returns the seed', function()
    torch.manualSeed(42)
    local a = values(torch.rand(5))
    assert.are.equal(42, torch.initialSeed())
    torch.manualSeed(42)
    assert.are.same(a, values(torch.rand(5)))
    torch.manualSeed(43)
    assert.are_not.same(a, values(torch.rand(5)))
  end)

  it('torch.seed() picks a fresh seed and returns it', function()
    local s = torch.seed()
    assert.are.equal('integer', math.type(s))
    assert.is_true(s >= 0 and s < 2 ^ 53)
    assert.are.equal(s, torch.initialSeed())
    local a = torch.uniform()
    torch.manualSeed(s)
    assert.are.equal(a, torch.uniform())
  end)

  it('getRNGState/setRNGState restore the stream, including a cached normal', function()
    torch.manualSeed(1)
    torch.normal()                      -- leaves the sine half of the pair cached
    local st = torch.getRNGState()
    assert.are.equal('torch.ByteTensor', torch.typename(st))
    assert.are.equal(5048, st:nElement())
    local a = {torch.normal(), torch.uniform(), values(torch.randn(3))}
    torch.manualSeed(99)
    torch.setRNGState(st)
    assert.are.same(a, {torch.normal(), torch.uniform(), values(torch.randn(3))})
  end)

  it('setRNGState refuses a state of the wrong size or with bad fields', function()
    assert.are.equal("bad argument #1 to 'setRNGState' (RNG state must be 5048 bytes, got 10)",
                     errmsg(torch.setRNGState, torch.ByteTensor(10):zero()))
    local st = torch.getRNGState()
    st[9] = 0   -- 'left' (bytes 9..12) = 0
    st[10], st[11], st[12] = 0, 0, 0
    assert.are.equal("bad argument #1 to 'setRNGState' (invalid RNG state (not one saved by getRNGState))",
                     errmsg(torch.setRNGState, st))
    assert.are.equal("bad argument #1 to 'setRNGState' (torch.ByteTensor expected, got torch.FloatTensor)",
                     errmsg(torch.setRNGState, torch.FloatTensor(5048)))
  end)

  it('torch.Generator objects have their own streams', function()
    local g = torch.Generator()
    assert.are.equal('torch.Generator', torch.typename(g))
    torch.manualSeed(g, 123)
    torch.manualSeed(5)
    local x = torch.uniform(g)
    local t = torch.Tensor(3):uniform(g)
    local r = torch.rand(g, 2)
    torch.manualSeed(123)
    assert.are.equal(x, torch.uniform())
    assert.are.same(values(t), values(torch.Tensor(3):uniform()))
    assert.are.same(values(r), values(torch.rand(2)))
    assert.are.equal(123, torch.initialSeed(g))
    assert.are.equal(5048, torch.getRNGState(g):nElement())
  end)
end)

describe('tensor fills', function()
  it('fill in row-major order whatever the strides', function()
    torch.manualSeed(2)
    local a = torch.Tensor(3, 4):t():uniform()     -- 4x3 view with strides {1, 4}
    torch.manualSeed(2)
    local b = torch.Tensor(4, 3):uniform()
    assert.are.same(values(b), values(a))
  end)

  it('uniform and normal have the requested range and moments', function()
    torch.manualSeed(4)
    local u = values(torch.Tensor(20000):uniform(-2, 3))
    local lo, hi = math.huge, -math.huge
    for _, v in ipairs(u) do lo, hi = math.min(lo, v), math.max(hi, v) end
    assert.is_true(lo >= -2 and hi < 3 and lo < -1.99 and hi > 2.99)
    local n = values(torch.Tensor(100000):normal(1, 0.5))
    local s, s2 = 0, 0
    for _, v in ipairs(n) do s, s2 = s + v, s2 + v * v end
    local mean = s / #n
    local std = math.sqrt(s2 / #n - mean * mean)
    assert.is_true(math.abs(mean - 1) < 0.01)
    assert.is_true(math.abs(std - 0.5) < 0.01)
  end)

  it('bernoulli gives 0/1 in every type, with a number or a tensor of probabilities', function()
    torch.manualSeed(6)
    for _, T in ipairs{torch.ByteTensor, torch.LongTensor, torch.FloatTensor, torch.DoubleTensor} do
      local v = values(T(1000):bernoulli(0.25))
      local ones = 0
      for _, x in ipairs(v) do
        assert.is_true(x == 0 or x == 1)
        ones = ones + x
      end
      assert.is_true(ones > 200 and ones < 300)
    end
    assert.are.same({0, 0, 0}, values(torch.Tensor(3):bernoulli(0)))
    assert.are.same({1, 1, 1}, values(torch.Tensor(3):bernoulli(1)))
    assert.are.same({0, 1, 0, 1}, values(torch.ByteTensor(4):bernoulli(torch.Tensor({0, 1, 0, 1}))))
    assert.are.same({1, 0}, values(torch.Tensor(2):bernoulli(torch.FloatTensor({1, 0}))))
    torch.manualSeed(6)
    local d = values(torch.Tensor(50):bernoulli())
    torch.manualSeed(6)
    assert.are.same(d, values(torch.Tensor(50):bernoulli(0.5)))
  end)

  it('random fills: the raw draw per type, 1..b and a..b', function()
    torch.manualSeed(8)
    local raw = {}
    for i = 1, 4 do raw[i] = torch.random() end
    torch.manualSeed(8)
    local want = {}
    for i = 1, 4 do want[i] = raw[i] % 256 end
    assert.are.same(want, values(torch.ByteTensor(4):random()))
    torch.manualSeed(8)
    assert.are.same(raw, values(torch.LongTensor(4):random()))
    torch.manualSeed(8)
    assert.are.same(raw, values(torch.DoubleTensor(4):random()))
    torch.manualSeed(8)
    for i = 1, 4 do want[i] = raw[i] % (2 ^ 24 + 1) end
    assert.are.same(want, values(torch.FloatTensor(4):random()))
    torch.manualSeed(8)
    for i = 1, 4 do want[i] = raw[i] % 10 + 1 end
    assert.are.same(want, values(torch.LongTensor(4):random(10)))
    torch.manualSeed(8)
    for i = 1, 4 do want[i] = raw[i] % 7 - 3 end
    assert.are.same(want, values(torch.DoubleTensor(4):random(-3, 3)))
    torch.manualSeed(8)
    assert.are.same(want, values(torch.LongTensor(4):random(-3, 3)))
  end)

  it('exponential, cauchy, logNormal and geometric fill from the same formulas', function()
    torch.manualSeed(10)
    local e = torch.Tensor(3):exponential(2)
    local c = torch.Tensor(3):cauchy(0, 1)
    local l = torch.Tensor(3):logNormal(2, 0.5)
    local g = torch.LongTensor(3):geometric(0.5)
    torch.manualSeed(10)
    for i = 1, 3 do assert.are.equal(torch.exponential(2), e[i]) end
    for i = 1, 3 do assert.are.equal(torch.cauchy(0, 1), c[i]) end
    for i = 1, 3 do assert.are.equal(torch.logNormal(2, 0.5), l[i]) end
    for i = 1, 3 do assert.are.equal(torch.geometric(0.5), g[i]) end
    for _, v in ipairs(values(torch.Tensor(200):logNormal(2, 0.5))) do assert.is_true(v > 0) end
  end)
end)

describe('rand, randn, randperm', function()
  it('take sizes as numbers, a LongStorage or a table, and an optional result', function()
    assert.are.same({2, 3}, {torch.rand(2, 3):size(1), torch.rand(2, 3):size(2)})
    assert.are.equal(4, torch.randn(torch.LongStorage({2, 2})):nElement())
    assert.are.equal(6, torch.rand({3, 2}):nElement())
    local r = torch.FloatTensor()
    assert.is_true(torch.randn(r, 5) == r)
    assert.are.equal(5, r:nElement())
    torch.manualSeed(1)
    local a = torch.rand(3)
    torch.manualSeed(1)
    assert.are.same(values(a), values(torch.Tensor(3):uniform(0, 1)))
    local l = torch.LongTensor()
    assert.is_true(torch.randperm(l, 5) == l)
    assert.are.equal(5, l:nElement())
  end)

  it('follow the default tensor type', function()
    torch.setdefaulttensortype('torch.FloatTensor')
    local ok, t = pcall(torch.rand, 2)
    local ok2, p = pcall(torch.randperm, 3)
    torch.setdefaulttensortype('torch.DoubleTensor')
    assert.is_true(ok and ok2)
    assert.are.equal('torch.FloatTensor', torch.typename(t))
    assert.are.equal('torch.FloatTensor', torch.typename(p))
    assert.are.equal('torch.DoubleTensor', torch.typename(torch.rand(2)))
  end)
end)

describe('random argument errors', function()
  it('name the function, the argument and what was wrong', function()
    assert.are.equal("bad argument #3 to 'normal' (standard deviation must be strictly positive, got 0)",
                     errmsg(function() torch.Tensor(2):normal(0, 0) end))
    assert.are.equal("bad argument #2 to 'normal' (standard deviation must be strictly positive, got -1)",
                     errmsg(torch.normal, 0, -1))
    assert.are.equal("bad argument #1 to 'bernoulli' (probability must be in [0, 1], got 1.5)",
                     errmsg(torch.bernoulli, 1.5))
    assert.are.equal("bad argument #2 to 'bernoulli' (probability must be in [0, 1], got -0.1)",
                     errmsg(function() torch.Tensor(2):bernoulli(-0.1) end))
    assert.are.equal("bad argument #2 to 'bernoulli' (3 probabilities for a 2 tensor)",
                     errmsg(function() torch.Tensor(2):bernoulli(torch.Tensor(3)) end))
    assert.are.equal("bad argument #2 to 'random' (upper bound 2 must be at least the lower bound 5)",
                     errmsg(torch.random, 5, 2))
    assert.are.equal("bad argument #1 to 'random' (upper bound must be strictly positive, got 0)",
                     errmsg(torch.random, 0))
    assert.are.equal("bad argument #2 to 'random' (upper bound must be an integer, got 2.5)",
                     errmsg(function() torch.Tensor(2):random(2.5) end))
    assert.are.equal("bad argument #1 to 'uniform' (torch.FloatTensor or torch.DoubleTensor expected, got torch.LongTensor)",
                     errmsg(function() torch.LongTensor(2):uniform() end))
    assert.are.equal("bad argument #2 to 'uniform' (lower bound must be a number, got string)",
                     errmsg(function() torch.Tensor(2):uniform('a') end))
    assert.are.equal("bad argument #1 to 'geometric' (probability must be in (0, 1), got 1)",
                     errmsg(torch.geometric, 1))
    assert.are.equal("bad argument #1 to 'exponential' (lambda (a number) expected, got no value)",
                     errmsg(torch.exponential))
    assert.are.equal("bad argument #1 to 'randperm' (n must be strictly positive, got 0)",
                     errmsg(torch.randperm, 0))
    assert.are.equal("randperm: n = 300 does not fit in a ByteTensor",
                     errmsg(torch.randperm, torch.ByteTensor(), 300))
    assert.are.equal("bad argument #1 to 'manualSeed' (seed must be a number, got string)",
                     errmsg(torch.manualSeed, 'x'))
    assert.are.equal("bad argument #1 to 'rand' (torch.FloatTensor or torch.DoubleTensor expected, got torch.LongTensor)",
                     errmsg(torch.rand, torch.LongTensor(), 2))
    assert.matches("^rand: size must be non%-negative", errmsg(torch.rand, -1))
  end)

  it('reports a bad size of rand / randn at the caller\'s line, not in random.lua', function()
    for _, f in ipairs{torch.rand, torch.randn} do
      local ok, e = pcall(function() f(-1) end)
      assert.is_false(ok)
      assert.matches('random_spec%.lua:%d+: rand', e)
    end
  end)
end)
