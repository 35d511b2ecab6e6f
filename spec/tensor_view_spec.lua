-- Views: narrow, select, sub, transpose, t, permute, unfold, squeeze,
-- unsqueeze, expand, expandAs, view, viewAs, reshape, split, chunk.
-- A view shares its source's storage; writes through it show in the source.
require 'torch'

local function T(t) return torch.DoubleTensor(t) end

local function errors(f, text)
  local ok, err = pcall(f)
  assert.is_false(ok, 'expected an error containing: ' .. text)
  err = tostring(err)
  assert(err:find(text, 1, true), 'error "' .. err .. '" does not contain "' .. text .. '"')
end

local function same(expected, t) assert.are.same(expected, t:totable()) end
local function sizes(t) return t:size():totable() end
local function strides(t) return t:stride():totable() end

-- 2x3: 1 2 3 / 4 5 6
local function m23() return T{{1, 2, 3}, {4, 5, 6}} end

local function shares(a, b) return a:storage() == b:storage() end

describe('narrow, select, sub', function()
  it('narrow keeps the dimension and shares the storage', function()
    local x = m23()
    local n = x:narrow(2, 2, 2)
    same({{2, 3}, {5, 6}}, n)
    assert.is_true(shares(x, n))
    assert.are.equal(2, n:storageOffset())
    assert.are.same({3, 1}, strides(n))
    n:fill(0)
    same({{1, 0, 0}, {4, 0, 0}}, x)
    same({{4, 0, 0}}, x:narrow(1, -1, 1))
    assert.are.same({2, 0}, sizes(x:narrow(2, 4, 0)))
  end)

  it('select drops the dimension; on 1D it gives the number', function()
    local x = m23()
    same({4, 5, 6}, x:select(1, 2))
    same({3, 6}, x:select(2, -1))
    assert.are.equal(5, T{4, 5}:select(1, 2))
    local s = x:select(2, 1)
    s[2] = 40
    assert.are.equal(40, x[2][1])
  end)

  it('sub takes inclusive ranges, negatives counting from the end', function()
    local x = m23()
    same({{2, 3}}, x:sub(1, 1, 2, 3))
    same({{4, 5, 6}}, x:sub(-1, -1))
    same({{2, 3}, {5, 6}}, x:sub(1, 2, -2, -1))
    assert.is_true(shares(x, x:sub(1, 1)))
  end)

  it('reject out-of-range dimensions, indices and sizes', function()
    local x = m23()
    errors(function() x:narrow(2, 3, 2) end,
           "bad argument #4 to 'narrow' (size 2 from index 3 exceeds dimension 2 of size 3)")
    errors(function() x:narrow(2, 4, 1) end,
           "bad argument #3 to 'narrow' (index 4 out of range for dimension 2 of size 3)")
    errors(function() x:narrow(3, 1, 1) end,
           "bad argument #2 to 'narrow' (dimension 3 out of range for a 2D tensor (expected 1..2))")
    errors(function() x:narrow(1, 1, -1) end, "bad argument #4 to 'narrow' (size -1 from index 1")
    errors(function() x:narrow(1, 1.5, 1) end, "bad argument #3 to 'narrow' (index must be an integer, got 1.5)")
    errors(function() x:select(1, 3) end,
           "bad argument #3 to 'select' (index 3 out of range (expected 1..2 or -2..-1))")
    errors(function() x:select(1, 0) end, "bad argument #3 to 'select' (index 0 out of range")
    errors(function() x:select(0, 1) end, "bad argument #2 to 'select' (dimension 0 out of range")
    errors(function() x:sub(2, 1) end,
           "bad argument #3 to 'sub' (end 1 out of range for dimension 1 (start 2, size 2))")
    errors(function() x:sub(1, 3) end, "bad argument #3 to 'sub' (end 3 out of range")
    errors(function() x:sub(0, 1) end, "bad argument #2 to 'sub' (start 0 out of range for dimension 1 of size 2)")
    errors(function() x:sub(1) end,
           "bad argument #2 to 'sub' (pairs of start, end for at most 2 dimensions expected, got 1 numbers)")
    errors(function() torch.DoubleTensor():narrow(1, 1, 1) end,
           "bad argument #2 to 'narrow' (dimension 1 out of range: tensor is empty)")
    errors(function() x:narrow('a', 1, 1) end, "bad argument #2 to 'narrow' (dimension must be a number, got string)")
  end)
end)

describe('transpose, t, permute', function()
  it('swap strides without copying', function()
    local x = m23()
    local y = x:t()
    same({{1, 4}, {2, 5}, {3, 6}}, y)
    assert.are.same({1, 3}, strides(y))
    assert.is_false(y:isContiguous())
    assert.is_true(shares(x, y))
    same(y:totable(), x:transpose(1, 2))
    same(y:totable(), x:transpose(-1, -2))
    same(x:totable(), x:transpose(1, 1))
    local z = torch.DoubleTensor(2, 3, 4)
    local p = z:permute(3, 1, 2)
    assert.are.same({4, 2, 3}, sizes(p))
    assert.are.same({1, 12, 4}, strides(p))
    y[1][2] = 40
    assert.are.equal(40, x[2][1])
  end)

  it('reject bad dimensions and permutations', function()
    local x = m23()
    errors(function() torch.DoubleTensor(3):t() end, "bad argument #1 to 't' (2D tensor expected, got 1D 3)")
    errors(function() torch.DoubleTensor(2, 2, 2):t() end, "bad argument #1 to 't' (2D tensor expected, got 3D 2x2x2)")
    errors(function() x:transpose(1, 3) end, "bad argument #3 to 'transpose' (dimension 3 out of range")
    errors(function() x:permute(1, 1) end, 'permute: permutation must hold each of 1..2 once')
    errors(function() x:permute(1) end, "bad argument #2 to 'permute' (2 dimensions expected, got 1)")
    errors(function() x:permute(1, 3) end, "bad argument #3 to 'permute' (dimension 3 out of range")
  end)
end)

describe('unfold', function()
  it('makes overlapping windows as a new last dimension', function()
    local x = T{1, 2, 3, 4, 5}
    same({{1, 2}, {2, 3}, {3, 4}, {4, 5}}, x:unfold(1, 2, 1))
    same({{1, 2}, {3, 4}}, x:unfold(1, 2, 2))
    local u = m23():unfold(2, 2, 1)
    assert.are.same({2, 2, 2}, sizes(u))
    same({{{1, 2}, {2, 3}}, {{4, 5}, {5, 6}}}, u)
    assert.is_true(shares(x, x:unfold(1, 5, 1)))
  end)

  it('rejects a window larger than the dimension or a step below 1', function()
    errors(function() T{1, 2}:unfold(1, 3, 1) end, 'unfold: unfold size 3 out of range for dimension 1 of size 2')
    errors(function() T{1, 2}:unfold(1, 1, 0) end, 'unfold: unfold step must be positive, got 0')
    errors(function() T{1, 2}:unfold(2, 1, 1) end, "bad argument #2 to 'unfold' (dimension 2 out of range")
  end)
end)

describe('squeeze and unsqueeze', function()
  it('squeeze drops size-1 dimensions (all, or one)', function()
    assert.are.same({3}, sizes(torch.DoubleTensor(1, 3, 1):squeeze()))
    assert.are.same({3, 1}, sizes(torch.DoubleTensor(1, 3, 1):squeeze(1)))
    assert.are.same({1, 3, 1}, sizes(torch.DoubleTensor(1, 3, 1):squeeze(2)))
    -- as Torch7: one element left (squeeze(), or squeeze(dim) of a 1D tensor) is a number
    assert.are.equal(3, torch.DoubleTensor(1, 1):fill(3):squeeze())
    assert.are.equal(4, torch.DoubleTensor{4}:squeeze(1))
    assert.are.same({1}, sizes(torch.DoubleTensor(1, 1):fill(3):squeeze(1)))
    local res = torch.DoubleTensor()
    assert.are.equal(res, torch.squeeze(res, torch.DoubleTensor(1, 3, 1)))
    assert.are.same({3}, sizes(res))
    local x = m23():view(1, 2, 3)
    local s = x:squeeze()
    assert.is_true(shares(x, s))
    same(m23():totable(), s)
  end)

  it('unsqueeze inserts a size-1 dimension anywhere up to ndim + 1', function()
    local x = m23()
    assert.are.same({1, 2, 3}, sizes(x:unsqueeze(1)))
    assert.are.same({2, 1, 3}, sizes(x:unsqueeze(2)))
    assert.are.same({2, 3, 1}, sizes(x:unsqueeze(3)))
    assert.are.same({3, 3, 1}, strides(x:unsqueeze(2)))
    same({{{1, 2, 3}}, {{4, 5, 6}}}, x:unsqueeze(2))
    errors(function() x:unsqueeze(4) end,
           "bad argument #2 to 'unsqueeze' (dimension 4 out of range for a 2D tensor (expected 1..3))")
    errors(function() x:squeeze(3) end, "bad argument #2 to 'squeeze' (dimension 3 out of range")
  end)
end)

describe('expand and expandAs', function()
  it('repeat size-1 dimensions with stride 0', function()
    local c = T{{1}, {2}}
    local e = c:expand(2, 3)
    same({{1, 1, 1}, {2, 2, 2}}, e)
    assert.are.same({1, 0}, strides(e))
    same({{1, 1, 1, 1}, {2, 2, 2, 2}}, c:expandAs(torch.DoubleTensor(2, 4)))
    same({{1, 2, 3}, {1, 2, 3}}, T{1, 2, 3}:expand(2, 3))
    same({{1, 1}, {2, 2}}, c:expand(torch.LongStorage{2, 2}))
    c[1][1] = 7
    assert.are.equal(7, e[1][3])
    local r = torch.DoubleTensor()
    assert.are.equal(r, r:expand(c, 2, 2))
    same({{7, 7}, {2, 2}}, r)
  end)

  it('rejects expanding a dimension that is not 1', function()
    local c = T{{1}, {2}}
    errors(function() c:expand(3, 3) end, 'expand: cannot expand size 2x1 to 3x3: dimension 1 is 2, not 1')
    errors(function() c:expand(3) end, 'expand: cannot expand size 2x1 to 3')
    errors(function() c:expandAs(torch.DoubleTensor(3, 2)) end, 'expandAs: cannot expand size 2x1 to 3x2')
    errors(function() c:expand(2, -1) end, 'expand: cannot expand size 2x1 to 2x-1')
    errors(function() torch.FloatTensor():expand(c, 2, 2) end,
           "bad argument #2 to 'expand' (torch.FloatTensor expected, got torch.DoubleTensor)")
  end)
end)

describe('view, viewAs, reshape', function()
  it('view reshapes contiguous tensors without copying, inferring one -1', function()
    local x = m23()
    same({1, 2, 3, 4, 5, 6}, x:view(-1))
    same({{1, 2}, {3, 4}, {5, 6}}, x:view(3, -1))
    same(x:totable(), x:view(torch.LongStorage{2, 3}))
    same({{1, 2}, {3, 4}, {5, 6}}, x:viewAs(torch.DoubleTensor(3, 2)))
    local v = x:view(6)
    assert.is_true(shares(x, v))
    v[6] = 60
    assert.are.equal(60, x[2][3])
    local r = torch.DoubleTensor()
    assert.are.equal(r, r:view(x, 3, 2))
    same({{1, 2}, {3, 4}, {5, 60}}, r)
  end)

  it('view works on non-contiguous tensors where strides allow', function()
    local y = m23():t()  -- 3x2, strides 1, 3
    same({{{1, 4}}, {{2, 5}}, {{3, 6}}}, y:view(3, 1, 2))
    assert.are.same({3, 2, 1}, sizes(y:view(3, 2, 1)))
    local n = torch.DoubleTensor(4, 5):narrow(2, 1, 2)  -- 4x2 with row stride 5
    assert.are.same({2, 2, 2}, sizes(n:view(2, 2, 2)))
    assert.are.same({10, 5, 1}, strides(n:view(2, 2, 2)))
  end)

  it('view refuses what strides cannot express, and wrong element counts', function()
    local y = m23():t()
    errors(function() y:view(6) end,
           'view: cannot view a non-contiguous tensor of size 3x2 as 6 (call :contiguous() first)')
    errors(function() m23():view(4) end, 'view: cannot view a tensor of size 2x3 (6 elements) as 4 (4 elements)')
    errors(function() m23():view(-1, -1) end, 'view: only one size may be -1')
    errors(function() m23():view(4, -1) end, 'view: cannot infer size -1: 6 elements do not divide by 4')
    errors(function() m23():view(-2, 3) end, 'view: size must be non-negative or -1, got -2')
    errors(function() m23():viewAs(torch.DoubleTensor(5)) end, 'viewAs: cannot view a tensor of size 2x3')
  end)

  it('reshape always copies into a new contiguous tensor', function()
    local y = m23():t()
    local r = y:reshape(6)
    same({1, 4, 2, 5, 3, 6}, r)
    assert.is_false(shares(y, r))
    same({{1, 4, 2}, {5, 3, 6}}, y:reshape(2, 3))
    local res = torch.DoubleTensor()
    assert.are.equal(res, res:reshape(y, 2, 3))
    same({{1, 4, 2}, {5, 3, 6}}, res)
  end)
end)

describe('split and chunk', function()
  it('split cuts into views of the given size, the last one shorter', function()
    local x = T{1, 2, 3, 4, 5}
    local p = x:split(2)
    assert.are.equal(3, #p)
    same({1, 2}, p[1])
    same({5}, p[3])
    assert.is_true(shares(x, p[2]))
    local q = m23():split(2, 2)
    assert.are.equal(2, #q)
    same({{1, 2}, {4, 5}}, q[1])
    same({{3}, {6}}, q[2])
  end)

  it('chunk cuts into n views of equal size where possible', function()
    local c = T{1, 2, 3, 4, 5}:chunk(2)
    assert.are.equal(2, #c)
    same({1, 2, 3}, c[1])
    same({4, 5}, c[2])
    local d = m23():chunk(3, 2)
    assert.are.equal(3, #d)
    same({{2}, {5}}, d[2])
  end)

  it('reject sizes and counts below 1 and bad dimensions', function()
    errors(function() T{1, 2}:split(0) end, 'split: size must be a positive integer, got 0')
    errors(function() T{1, 2}:chunk(0) end, 'chunk: number of chunks must be a positive integer, got 0')
    errors(function() T{1, 2}:split(1, 2) end, "bad argument #2 to 'size' (dimension 2 out of range")
  end)
end)
