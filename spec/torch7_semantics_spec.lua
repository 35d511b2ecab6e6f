-- Torch7 functions checked against Torch7's own behaviour (TensorMath.lua
-- and Tensor.lua): functional forms, split/chunk with a result table,
-- equal, isSize, repeatTensor, diag, trace, tril, triu.
require 'torch'

local T = torch.DoubleTensor

local function sizes(t) return t:size():totable() end

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  return tostring(err)
end

local has = require('spec.support.helpers').has

describe('Torch7 functional forms', function()
  local m = T{{1, 2, 3}, {4, 5, 6}}

  it('torch.f(x, ...) is x:f(...) for the shape functions', function()
    assert.are.equal(6, torch.numel(m))
    assert.are.same({3, 2}, sizes(torch.view(m, 3, 2)))
    assert.are.same({6}, sizes(torch.view(m, torch.LongStorage{6})))
    assert.are.same({3, 2}, sizes(torch.viewAs(m, T(3, 2))))
    assert.are.same({3, 2}, sizes(torch.transpose(m, 1, 2)))
    assert.are.same({3, 2}, sizes(torch.t(m)))
    assert.are.same({3, 2}, sizes(torch.permute(m, 2, 1)))
    assert.are.same({1, 2, 3}, sizes(torch.unsqueeze(m, 1)))
    assert.are.same({2, 2}, sizes(torch.narrow(m, 2, 2, 2)))
    assert.are.same({3}, sizes(torch.select(m, 1, 2)))
    assert.are.same({2, 3}, sizes(torch.expand(T{{1}, {2}}, 2, 3)))
    assert.are.same({2, 3}, sizes(torch.expandAs(T{{1}, {2}}, m)))
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, torch.totable(m))
    -- view with a result first: res becomes a view of src
    local res = T()
    assert.are.equal(res, torch.view(res, m, 6))
    assert.are.equal(torch.pointer(m:storage()), torch.pointer(res:storage()))
    -- reshape copies, into a result when one is given
    local r = torch.reshape(m, 3, 2)
    assert.are.same({{1, 2}, {3, 4}, {5, 6}}, r:totable())
    assert.are_not.equal(torch.pointer(m:storage()), torch.pointer(r:storage()))
    local into = T()
    torch.reshape(into, m, 6)
    assert.are.same({1, 2, 3, 4, 5, 6}, into:totable())
  end)

  it('names the function when the tensor is missing', function()
    has(errmsg(torch.transpose, 'x', 1, 2), "bad argument #1 to 'torch.transpose' (tensor expected, got string)")
    has(errmsg(torch.numel, nil), "bad argument #1 to 'torch.numel' (tensor expected, got nil)")
  end)
end)

describe('split and chunk', function()
  local m = T{{1, 2, 3}, {4, 5, 6}}

  it('split(size [, dim]) gives views of at most size', function()
    local s = torch.split(m, 2, 2)
    assert.are.equal(2, #s)
    assert.are.same({{1, 2}, {4, 5}}, s[1]:totable())
    assert.are.same({{3}, {6}}, s[2]:totable())
    s[2]:fill(0)
    assert.are.equal(0, m[1][3])
    m[1][3], m[2][3] = 3, 6
    assert.are.equal(2, #m:split(1))
  end)

  it('fills and empties a result table given first', function()
    local result = {'a', 'b', 'c', 'd', x = 1}
    local r = torch.split(result, m, 1, 2)
    assert.are.equal(result, r)
    assert.are.equal(3, #r)
    assert.is_nil(r.x)
    assert.are.same({1, 4}, r[1]:select(2, 1):totable())
    local c = {}
    torch.chunk(c, m, 2, 2)
    assert.are.equal(2, #c)
    assert.are.same({2, 2}, sizes(c[1]))
  end)

  it('chunk(n [, dim]) gives n pieces of ceil(size/n)', function()
    local x = torch.range(1, 7)
    local c = x:chunk(3)
    assert.are.equal(3, #c)
    assert.are.same({3, 3, 1}, {c[1]:size(1), c[2]:size(1), c[3]:size(1)})
    assert.are.equal(2, #torch.chunk(m, 2))
  end)

  it('checks its arguments', function()
    has(errmsg(function() m:split(0) end), 'split: size must be a positive integer, got 0')
    has(errmsg(function() m:chunk(0) end), 'chunk: number of chunks must be a positive integer, got 0')
    has(errmsg(torch.split, 3, m, 1), "bad argument #1 to 'torch.split' (tensor or table expected, got number)")
  end)
end)

describe('equal and isSize', function()
  it('equal: same size and elements', function()
    local a = T{{1, 2}, {3, 4}}
    assert.is_true(a:equal(a:clone()))
    assert.is_true(torch.equal(a, a:t():t()))
    assert.is_false(a:equal(a:t()))
    assert.is_false(a:equal(T{1, 2, 3, 4}))
    assert.is_false(T{0 / 0}:equal(T{0 / 0}))
    assert.is_true(T():equal(T()))
    has(errmsg(function() a:equal(3) end), "bad argument #2 to 'equal' (tensor expected, got number)")
  end)

  it('isSize compares with a LongStorage', function()
    local a = T(2, 3)
    assert.is_true(a:isSize(torch.LongStorage{2, 3}))
    assert.is_false(a:isSize(torch.LongStorage{3, 2}))
    assert.is_false(a:isSize(torch.LongStorage{2, 3, 1}))
    has(errmsg(function() a:isSize(5) end), "bad argument #2 to 'isSize' (torch.LongStorage expected, got number)")
  end)
end)

describe('repeatTensor', function()
  it('tiles along each dimension, adding leading ones', function()
    local x = T{1, 2}
    local r = x:repeatTensor(3, 2)
    assert.are.same({{1, 2, 1, 2}, {1, 2, 1, 2}, {1, 2, 1, 2}}, r:totable())
    assert.are.same({{1, 1, 1}, {2, 2, 2}}, torch.repeatTensor(T{{1}, {2}}, 1, 3):totable())
    assert.are.same({2, 2, 4}, sizes(torch.repeatTensor(x, torch.LongStorage{2, 2, 2})))
    -- a result first, and a non-contiguous source
    local res = T()
    assert.are.equal(res, torch.repeatTensor(res, T{{1, 2}, {3, 4}}:t(), 1, 2))
    assert.are.same({{1, 3, 1, 3}, {2, 4, 2, 4}}, res:totable())
  end)

  it('checks the repeat counts', function()
    has(errmsg(function() T(2, 2):repeatTensor(2) end),
        'repeatTensor: number of repeat dimensions (1) can not be smaller than the number of dimensions of the tensor (2)')
  end)
end)

describe('diag, trace, tril, triu', function()
  local m = T{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}

  it('diag of a matrix is a new vector, of a vector a matrix', function()
    local d = torch.diag(m)
    assert.are.same({1, 5, 9}, d:totable())
    d[1] = 100
    assert.are.equal(1, m[1][1])
    assert.are.same({2, 6}, m:diag(1):totable())
    assert.are.same({4, 8}, m:diag(-1):totable())
    assert.are.same({3}, T{{1, 2}, {3, 4}}:t():diag(1):totable())   -- any strides
    assert.are.same({{1, 0}, {0, 2}}, torch.diag(T{1, 2}):totable())
    assert.are.same({{0, 1, 0}, {0, 0, 2}, {0, 0, 0}}, torch.diag(T{1, 2}, 1):totable())
    assert.are.same({{0, 0}, {5, 0}}, torch.diag(T{5}, -1):totable())
    has(errmsg(function() m:diag(5) end), 'diag: diagonal 5 out of range for a 3x3 matrix')
    has(errmsg(function() T(2, 2, 2):diag() end), 'diag: 1D or 2D tensor expected, got 3D')
  end)

  it('trace sums the diagonal', function()
    assert.are.equal(15, torch.trace(m))
    assert.are.equal(5, T{{1, 2, 3}, {4, 4, 6}}:trace())
    has(errmsg(function() T{1}:trace() end), 'trace: 2D tensor expected, got 1D')
  end)

  it('tril and triu keep a triangle from diagonal k, as new tensors', function()
    assert.are.same({{1, 0, 0}, {4, 5, 0}, {7, 8, 9}}, torch.tril(m):totable())
    assert.are.same({{1, 2, 0}, {4, 5, 6}, {7, 8, 9}}, torch.tril(m, 1):totable())
    assert.are.same({{0, 2, 3}, {0, 0, 6}, {0, 0, 0}}, torch.triu(m, 1):totable())
    assert.are.same({{1, 2, 3}, {4, 5, 6}, {0, 8, 9}}, m:triu(-1):totable())
    assert.are.equal(1, m[3][1] / 7)   -- the source is untouched
    local res = T()
    torch.triu(res, T{{1, 2}, {3, 4}})
    assert.are.same({{1, 2}, {0, 4}}, res:totable())
    has(errmsg(function() T{1, 2}:tril() end), 'tril: 2D tensor expected, got 1D')
  end)
end)

describe('random method forms and map2', function()
  it('x:rand, x:randn, x:randperm resize x and fill it, as torch.rand(x, ...)', function()
    local x = T()
    torch.manualSeed(11)
    assert.are.equal(x, x:rand(2, 3))
    assert.are.same({2, 3}, sizes(x))
    torch.manualSeed(11)
    assert.is_true(x:equal(torch.rand(2, 3)))
    assert.are.same({4}, sizes(x:randn(4)))
    local p = torch.LongTensor():randperm(5)
    assert.are.same({1, 2, 3, 4, 5}, p:sort():totable())
  end)

  it('map2 calls f(x, a, b) per element', function()
    local a = T{1, 2}
    a:map2(T{10, 20}, T{100, 200}, function(p, q, r) return p + q + r end)
    assert.are.same({111, 222}, a:totable())
    has(errmsg(function() a:map2(T{1}, T{1, 2}, print) end), 'map2: element counts differ: 2, 1 and 2')
  end)
end)

describe('logspace and the mod aliases', function()
  it('logspace([res,] a, b [, n=100]) runs from 10^a to 10^b', function()
    assert.are.same({1, 10, 100}, torch.logspace(0, 2, 3):totable())
    assert.are.equal(100, torch.logspace(0, 1):size(1))
    local r = T()
    assert.are.equal(r, torch.logspace(r, 1, 2, 2))
    assert.are.same({10, 100}, r:totable())
  end)

  it('mod is fmod, cmod is cfmod (the sign of the dividend)', function()
    assert.are.same({-1, 1}, torch.mod(T{-3, 3}, 2):totable())
    assert.are.same({-1}, T{-3}:cmod(T{2}):totable())
  end)
end)
