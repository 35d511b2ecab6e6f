-- The tensor core: constructors, shape queries, copy/fill/resize, set,
-- identity, t[i] and t[{...}] indexing, storages, and their errors
-- (src/tensor/th_tensor.c, th_copy.c, src/lua/th_lua_tensor.c, th_lua_storage.c).
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

describe('tensor constructors', function()
  it('constructs from sizes and tables', function()
    local t = torch.Tensor(2, 3)
    assert.are.equal(2, t:dim())
    assert.are.equal(6, t:nElement())
    local u = torch.FloatTensor({{1, 2, 3}, {4, 5, 6}})
    assert.are.equal(6, u[2][3])
    assert.are.equal('torch.FloatTensor', torch.type(u))
  end)

  it('builds an empty tensor without arguments', function()
    local e = torch.DoubleTensor()
    assert.are.equal(0, e:dim())
    assert.are.equal(0, e:nElement())
    assert.are.same({}, sizes(e))
    assert.is_nil(e:storage())
    assert.are.equal(1, e:storageOffset())
  end)

  it('takes sizes as numbers or a LongStorage, contiguous', function()
    local t = torch.DoubleTensor(2, 3, 4)
    assert.are.same({2, 3, 4}, sizes(t))
    assert.are.same({12, 4, 1}, strides(t))
    assert.is_true(t:isContiguous())
    local s = torch.DoubleTensor(torch.LongStorage{4, 5})
    assert.are.same({4, 5}, sizes(s))
    -- Torch7 had no size-0 dimensions: a zero size makes a tensor without dimension
    assert.are.same({0, 0}, {torch.DoubleTensor(0):dim(), torch.DoubleTensor(0):nElement()})
    assert.are.equal(0, torch.LongTensor(0, 2):dim())
    assert.are.same({2, 0}, sizes(torch.LongTensor(2, 0)))
    assert.are.equal(0, torch.FloatTensor(torch.LongStorage{0}):dim())
    assert.are.same({3}, sizes(torch.ByteTensor(3)))
  end)

  it('reads nested tables of any depth into any type', function()
    same({1, 2, 3}, T{1, 2, 3})
    same({{{1, 2}}, {{3, 4}}}, T{{{1, 2}}, {{3, 4}}})
    same({1, 2}, torch.LongTensor{1, 2})
    same({0, 255}, torch.ByteTensor{0, 255})
    same({1.5}, torch.FloatTensor{1.5})
    assert.are.equal(0, T{}:nElement())
  end)

  it('views a storage: offset, sizes and strides, as LongStorages or numbers', function()
    local s = torch.DoubleStorage{1, 2, 3, 4, 5, 6}
    local a = T(s)
    same({1, 2, 3, 4, 5, 6}, a)
    assert.are.equal(s, a:storage())
    same({2, 3, 4, 5, 6}, torch.DoubleTensor(s, 2))
    same({{1, 2, 3}, {4, 5, 6}}, torch.DoubleTensor(s, 1, torch.LongStorage{2, 3}))
    same({{1, 4}, {2, 5}, {3, 6}},
         torch.DoubleTensor(s, 1, torch.LongStorage{3, 2}, torch.LongStorage{1, 3}))
    same({2, 4}, torch.DoubleTensor(s, 2, 2, 2))            -- size 2, stride 2
    same({{1, 2, 3}, {4, 5, 6}}, torch.DoubleTensor(s, 1, 2, 3, 3, 1))
    local v = torch.DoubleTensor(s, 3, 2)                     -- stride omitted: contiguous
    same({3, 4}, v)
    v[1] = 30
    assert.are.equal(30, s[3])
    -- a LongStorage is a storage for a LongTensor, sizes for the others
    same({5, 6}, torch.LongTensor(torch.LongStorage{5, 6}))
    same({6}, torch.LongTensor(torch.LongStorage{5, 6}, 2))
  end)

  it('grows the storage when the view needs more, as Torch7', function()
    local s = torch.DoubleStorage{1, 2}
    local t = torch.DoubleTensor(s, 2, 3)
    assert.are.equal(4, s:size())
    assert.are.equal(2, t[1])
  end)

  it('views another tensor', function()
    local x = T{{1, 2}, {3, 4}}
    local y = torch.DoubleTensor(x)
    assert.is_true(y:isSetTo(x))
    assert.are_not.equal(torch.pointer(x), torch.pointer(y))
    y[1][1] = 9
    assert.are.equal(9, x[1][1])
  end)

  it('rejects negative sizes, ragged tables and wrong arguments', function()
    errors(function() torch.DoubleTensor(-1) end, 'torch.DoubleTensor: size must be non-negative, got -1 at dimension 1')
    errors(function() torch.DoubleTensor(2, -3) end, 'size must be non-negative, got -3 at dimension 2')
    errors(function() torch.DoubleTensor('a') end,
           "bad argument #1 to 'torch.DoubleTensor' (sizes, a table, a tensor or a storage expected, got string)")
    errors(function() torch.DoubleTensor({{1, 2}, {3}}) end,
           'table is not rectangular (dimension 2 has 2 and 1 entries)')
    errors(function() torch.DoubleTensor({{1, 2}, 3}) end, 'table is not rectangular (a number where a table was expected)')
    errors(function() torch.DoubleTensor({1, 'x'}) end, 'table holds a string where a number was expected')
    local s = torch.DoubleStorage(6)
    errors(function() torch.DoubleTensor(s, 0) end,
           "bad argument #2 to 'torch.DoubleTensor' (storage offset 0 out of range (storage has 6 elements))")
    errors(function() torch.DoubleTensor(s, 8) end, 'storage offset 8 out of range')
    errors(function() torch.DoubleTensor(torch.FloatStorage(2)) end,
           "bad argument #1 to 'torch.DoubleTensor' (torch.DoubleStorage expected, got torch.FloatStorage)")
    errors(function() torch.DoubleTensor(torch.FloatTensor(2)) end,
           "bad argument #1 to 'torch.DoubleTensor' (torch.DoubleTensor expected, got torch.FloatTensor)")
    errors(function() torch.DoubleTensor(s, 1, torch.LongStorage{2}, torch.LongStorage{1, 1}) end,
           "bad argument #4 to 'torch.DoubleTensor' (2 strides for 1 sizes)")
    errors(function() torch.DoubleTensor(2, 'a') end,
           "bad argument #2 to 'torch.DoubleTensor' (size must be a number, got string)")
    errors(function() torch.DoubleTensor(2 ^ 70) end, 'size must be an integer, got 1.18059e+21')
  end)

  it('truncates a size with a fraction toward zero, as Torch7 (Lua 5.1 scripts: n / 2)', function()
    assert.are.same({1}, torch.DoubleTensor(1.5):size():totable())
    assert.are.same({3, 4}, torch.rand(3, 9 / 2):size():totable())
    assert.are.same({2, 3}, torch.zeros({2, 3.9}):size():totable())
    assert.are.same({2, 2}, torch.FloatTensor(2.2, 2.7):size():totable())
    local x = torch.DoubleTensor()
    x:resize(2.5, 3)
    assert.are.same({2, 3}, x:size():totable())
    errors(function() torch.DoubleTensor(0 / 0) end, 'size must be an integer')
  end)
end)

describe('shape queries', function()
  it('size, dim, nElement, stride, storageOffset, isContiguous, isSameSizeAs', function()
    local x = torch.DoubleTensor(2, 3)
    assert.are.equal('torch.LongStorage', torch.type(x:size()))
    assert.are.equal(3, x:size(2))
    assert.are.equal(3, x:size(-1))
    assert.are.equal(2, x:dim())
    assert.are.equal(2, x:nDimension())
    assert.are.equal(6, x:nElement())
    assert.are.equal(6, x:numel())
    assert.are.equal(1, x:stride(2))
    assert.are.equal(3, x:stride(-2))
    assert.are.equal(1, x:storageOffset())
    assert.is_true(x:isContiguous())
    assert.is_false(x:t():isContiguous())
    assert.is_true(torch.DoubleTensor(3, 1):t():isContiguous())  -- size-1 dims do not count
    assert.is_true(x:isSameSizeAs(torch.FloatTensor(2, 3)))
    assert.is_false(x:isSameSizeAs(torch.DoubleTensor(3, 2)))
    assert.are.equal(3, x:narrow(2, 3, 1):storageOffset())
  end)

  it('reject dimensions out of range', function()
    local x = torch.DoubleTensor(2, 3)
    errors(function() x:size(3) end,
           "bad argument #2 to 'size' (dimension 3 out of range for a 2D tensor (expected 1..2))")
    errors(function() x:stride(0) end, "bad argument #2 to 'stride' (dimension 0 out of range")
    errors(function() torch.DoubleTensor():size(1) end,
           "bad argument #2 to 'size' (dimension 1 out of range: tensor is empty)")
    errors(function() x.size(5) end, "bad argument #1 to 'size' (tensor expected, got number)")
  end)
end)

describe('contiguous, clone, copy, fill, zero', function()
  it('contiguous returns self when already contiguous, else a copy', function()
    local x = T{{1, 2}, {3, 4}}
    assert.are.equal(x, x:contiguous())
    local c = x:t():contiguous()
    assert.is_true(c:isContiguous())
    same({{1, 3}, {2, 4}}, c)
    assert.are_not.equal(x:storage(), c:storage())
  end)

  it('clone makes an independent contiguous copy', function()
    local x = T{{1, 2}, {3, 4}}:t()
    local c = x:clone()
    same({{1, 3}, {2, 4}}, c)
    assert.is_true(c:isContiguous())
    c[1][1] = 10
    assert.are.equal(1, x[1][1])
    assert.are.equal(0, torch.DoubleTensor():clone():nElement())
  end)

  it('copy converts between all types and layouts with equal element counts', function()
    local x = T{{1, 2, 3}, {4, 5, 6}}
    same({{1, 2, 3}, {4, 5, 6}}, torch.FloatTensor(2, 3):copy(x))
    same({1, 2, 3, 4, 5, 6}, torch.LongTensor(6):copy(x))
    same({1, -1, 2}, torch.LongTensor(3):copy(T{1.7, -1.7, 2}))  -- truncates like C
    same({1, 255}, torch.ByteTensor(2):copy(torch.LongTensor{1, 255}))
    same({{1, 4}, {2, 5}, {3, 6}}, torch.DoubleTensor(3, 2):copy(x:t()))
    same({{1, 2}, {3, 4}, {5, 6}}, torch.DoubleTensor(3, 2):copy(x))  -- row-major order
    local y = torch.DoubleTensor(2, 3):zero()
    y:t():copy(T{{1, 2}, {3, 4}, {5, 6}})
    same({{1, 3, 5}, {2, 4, 6}}, y)
    local a = T{{1, 2}, {3, 4}}
    a:copy(a:t())  -- overlapping source and destination
    same({{1, 3}, {2, 4}}, a)
    assert.are.equal(a, a:copy(a))
  end)

  it('fill and zero work on any layout and return self', function()
    local x = torch.DoubleTensor(2, 3):zero()
    assert.are.equal(x, x:narrow(2, 2, 1):fill(7) and x)
    same({{0, 7, 0}, {0, 7, 0}}, x)
    x:t():fill(1)
    same({{1, 1, 1}, {1, 1, 1}}, x)
    assert.are.equal(x, x:zero())
    same({{0, 0, 0}, {0, 0, 0}}, x)
    same({3, 3}, torch.LongTensor(2):fill(3))
  end)

  it('reject mismatched sizes and wrong types', function()
    errors(function() torch.DoubleTensor(2):copy(torch.DoubleTensor(3)) end,
           'copy: element counts differ: destination of size 2 has 2, source of size 3 has 3')
    errors(function() torch.DoubleTensor(2):copy(5) end, "bad argument #2 to 'copy' (tensor expected, got number)")
    errors(function() torch.DoubleTensor(2):fill('a') end, "bad argument #2 to 'fill' (value must be a number, got string)")
  end)
end)

describe('resize and resizeAs', function()
  it('resize keeps the storage, growing it only when needed', function()
    local x = torch.DoubleTensor(2, 3):fill(1)
    local st = x:storage()
    x:resize(3, 2)
    assert.are.same({3, 2}, sizes(x))
    assert.are.equal(st, x:storage())
    assert.are.equal(6, st:size())
    x:resize(torch.LongStorage{10})
    assert.are.equal(10, st:size())
    assert.are.equal(st, x:storage())
    x:resize(2)
    assert.are.equal(10, st:size())  -- never shrinks
    x:resizeAs(torch.FloatTensor(2, 2))
    assert.are.same({2, 2}, sizes(x))
    local v = torch.DoubleTensor(4):narrow(1, 2, 2)
    v:resize(3)
    assert.are.equal(2, v:storageOffset())
    assert.are.equal(4, v:storage():size())
  end)

  it('rejects negative sizes and leaves the tensor as it was', function()
    local x = torch.DoubleTensor(2, 2)
    errors(function() x:resize(-2) end, 'resize: size must be non-negative, got -2 at dimension 1')
    errors(function() x:resize(2, 'a') end, "bad argument #3 to 'resize' (size must be a number, got string)")
    errors(function() x:resize('a') end, "bad argument #2 to 'resize' (size must be a number, got string)")
    assert.are.same({2, 2}, sizes(x))
    errors(function() x:resizeAs(3) end, "bad argument #2 to 'resizeAs' (tensor expected, got number)")
  end)
end)

describe('set, isSetTo, torch.pointer', function()
  it('set points a tensor at a storage or another tensor, in every Torch7 form', function()
    local s = torch.DoubleStorage{1, 2, 3, 4, 5, 6}
    local t = torch.DoubleTensor()
    assert.are.equal(t, t:set(s))
    same({1, 2, 3, 4, 5, 6}, t)
    same({3, 4, 5, 6}, t:set(s, 3))
    same({{2, 3}, {4, 5}}, t:set(s, 2, torch.LongStorage{2, 2}))
    same({{1, 3}, {2, 4}}, t:set(s, 1, torch.LongStorage{2, 2}, torch.LongStorage{1, 2}))
    same({{1, 2, 3}, {4, 5, 6}}, t:set(s, 1, 2, 3, 3, 1))
    assert.are.equal(s, t:storage())
    local u = torch.DoubleTensor():set(t)
    assert.is_true(u:isSetTo(t))
    assert.is_true(t:isSetTo(u))
    assert.is_false(u:isSetTo(t:t()))
    assert.is_false(u:isSetTo(t:clone()))
  end)

  it('set() empties the tensor and drops its storage', function()
    local t = T{1, 2}
    local u = torch.DoubleTensor():set(t)
    t:set()
    assert.are.equal(0, t:dim())
    assert.is_nil(t:storage())
    assert.is_false(u:isSetTo(t))
    assert.is_false(t:isSetTo(torch.DoubleTensor()))  -- two empties are not set to anything
    same({1, 2}, u)
  end)

  it('rejects other types and bad offsets and sizes', function()
    local t = torch.DoubleTensor()
    local s = torch.DoubleStorage(6)
    errors(function() t:set(torch.FloatStorage(3)) end,
           "bad argument #2 to 'set' (torch.DoubleStorage expected, got torch.FloatStorage)")
    errors(function() t:set(torch.FloatTensor(3)) end,
           "bad argument #2 to 'set' (torch.DoubleTensor expected, got torch.FloatTensor)")
    errors(function() t:set(1) end, "bad argument #2 to 'set' (tensor or storage expected, got number)")
    errors(function() t:set(s, 8) end,
           "bad argument #3 to 'set' (storage offset 8 out of range (storage has 6 elements))")
    errors(function() t:set(s, 1, -1) end, 'set: size must be non-negative, got -1 at dimension 1')
  end)

  it('torch.pointer identifies tensors and storages', function()
    local x = T{{1, 2}, {3, 4}}
    assert.are.equal(torch.pointer(x), torch.pointer(x))
    assert.are_not.equal(torch.pointer(x), torch.pointer(x:t()))
    assert.are.equal(torch.pointer(x:storage()), torch.pointer(x:t():storage()))
    assert.are_not.equal(torch.pointer(x:storage()), torch.pointer(x:clone():storage()))
    assert.are.equal(x:storage(), x:storage())
    assert.are.equal(x:storage(), x:narrow(1, 2, 1):storage())
    errors(function() torch.pointer(1) end, "bad argument #1 to 'torch.pointer'")
  end)
end)

describe('t[i] and t[{...}]', function()
  local function m23() return T{{1, 2, 3}, {4, 5, 6}} end

  it('reads numbers, views and ranges, with negative indices', function()
    local x = m23()
    same({1, 2, 3}, x[1])
    same({4, 5, 6}, x[-1])
    assert.are.equal(6, x[2][3])
    assert.are.equal(6, x[{2, 3}])
    assert.are.equal(6, x[{-1, -1}])
    same({2, 5}, x[{{}, 2}])
    same({{2, 3}, {5, 6}}, x[{{1, 2}, {2, 3}}])
    same({5}, x[{2, {2}}])
    same({{4, 5, 6}}, x[{{-1}, {}}])
    same({{2, 3}}, x[{1, {2, -1}}]:view(1, 2))
    same(x:totable(), x[{}])
    assert.are.equal(x:storage(), x[{{}, 2}]:storage())
    assert.is_nil(x.nosuchfield)
  end)

  it('writes numbers, fills and copies through the same forms', function()
    local y = m23()
    y[1] = 7
    same({{7, 7, 7}, {4, 5, 6}}, y)
    y[{2, 1}] = -1
    y[{{}, 3}] = 9
    same({{7, 7, 9}, {-1, 5, 9}}, y)
    y[{1, {1, 2}}] = T{10, 20}
    y[2] = T{1, 2, 3}
    same({{10, 20, 9}, {1, 2, 3}}, y)
    local v = T{1, 2, 3}
    v[2] = 5
    v[-1] = 6
    same({1, 5, 6}, v)
    v[1] = true
    assert.are.equal(1, v[1])
    local l = torch.LongTensor(1)
    l[1] = 2 ^ 53 + 1
    assert.are.equal(2 ^ 53, l[1])
    l[1] = math.maxinteger
    assert.are.equal(math.maxinteger, l[1])
  end)

  it('reports out-of-range indices, bad keys and values', function()
    local x = m23()
    errors(function() return x[3] end,
           "bad argument #2 to '__index' (index 3 out of range (expected 1..2 or -2..-1))")
    errors(function() return x[0] end, "bad argument #2 to '__index' (index 0 out of range")
    errors(function() return x[1.5] end, "bad argument #2 to '__index' (index must be an integer, got 1.5)")
    errors(function() return x[{3, 1}] end, 'tensor index: index 3 out of range for dimension 1 of size 2')
    errors(function() return x[{1, 4}] end, 'tensor index: index 4 out of range for dimension 2 of size 3')
    errors(function() return x[{{1, 3}}] end, 'tensor index: range {1, 3} out of bounds for dimension 1 of size 2')
    errors(function() return x[{1, 1, 1}] end, 'tensor index: 3 indices for a 2D tensor')
    errors(function() return x[{'a'}] end,
           'tensor index: index 1 must be a number or a {first, last} table, got string')
    errors(function() return x[{1.5}] end, 'tensor index: index 1 must be an integer, got 1.5')
    errors(function() return x[{{'a'}}] end, 'tensor index: range 1 must hold integers, got string')
    errors(function() return x[{1, {1.5, 2}}] end, 'tensor index: range 2 must hold integers, got a fraction')
    errors(function() return x[{{1, 2, 3}}] end, 'tensor index: range 1 must be {first, last}, got 3 entries')
    errors(function() return torch.DoubleTensor()[1] end,
           "bad argument #2 to '__index' (index 1 out of range: nothing to index (size 0))")
    errors(function() x[3] = 1 end, "bad argument #2 to '__newindex' (index 3 out of range")
    errors(function() x[{1, 2}] = 'a' end, "bad argument #3 to '__newindex' (number expected, got string)")
    errors(function() x[{1}] = 'a' end, '__newindex: a number or a tensor expected as value, got string')
    errors(function() x.foo = 1 end, 'tensor index: cannot assign to key of type string (tensors have no fields)')
    errors(function() x[{{}, 1}] = T{1, 2, 3} end, '__newindex: element counts differ')
    same(m23():totable(), x)
  end)
end)

describe('type conversions', function()
  it('type, typeAs and the short forms convert by copying', function()
    local x = T{1.5, 2}
    assert.are.equal('torch.DoubleTensor', x:type())
    assert.are.equal(x, x:type('torch.DoubleTensor'))
    local f = x:float()
    assert.are.equal('torch.FloatTensor', torch.type(f))
    same({1.5, 2}, f)
    same({1, 2}, x:long())
    same({1, 2}, x:byte())
    same({1.5, 2}, f:double())
    assert.are.equal('torch.LongTensor', torch.type(x:typeAs(torch.LongTensor())))
    errors(function() x:type('torch.Nope') end, "type: tensor type name expected (e.g. 'torch.FloatTensor'), got torch.Nope")
  end)
end)

describe('storages', function()
  it('are built from a size or a table and indexed from 1 (or from the end)', function()
    local s = torch.FloatStorage(3)
    assert.are.equal(3, s:size())
    assert.are.equal(3, #s)
    s:fill(2)
    assert.are.equal(2, s[1])
    s[2] = 5
    assert.are.equal(5, s[2])
    assert.are.equal(2, s[-1])
    local d = torch.DoubleStorage{1, 2, 3}
    assert.are.same({1, 2, 3}, d:totable())
    assert.are.equal(0, torch.DoubleStorage():size())
    assert.are.equal('torch.ByteStorage', torch.type(torch.ByteStorage(2)))
  end)

  it('copy across types, resize keeping the prefix, identity through tensors', function()
    local s = torch.FloatStorage(3)
    assert.are.equal(s, s:copy(torch.DoubleStorage{1, 2, 3}))
    assert.are.same({1, 2, 3}, s:totable())
    s:resize(5)
    assert.are.equal(5, s:size())
    assert.are.equal(3, s[3])
    s:resize(2)
    assert.are.same({1, 2}, s:totable())
    local t = torch.FloatTensor(s)
    assert.are.equal(s, t:storage())
    t[1] = 9
    assert.are.equal(9, s[1])
  end)

  it('reject bad sizes, indices, values and fields', function()
    local s = torch.FloatStorage(3)
    errors(function() return s[4] end, "bad argument #2 to '__index' (index 4 out of range (expected 1..3 or -3..-1))")
    errors(function() s[0] = 1 end, "bad argument #2 to '__newindex' (index 0 out of range")
    errors(function() s[1] = 'x' end, "bad argument #3 to '__newindex' (number expected, got string)")
    errors(function() s.x = 1 end, 'storage index: number expected, got string (storages have no fields)')
    errors(function() s:copy(torch.DoubleStorage(2)) end,
           "bad argument #2 to 'copy' (storage of 3 elements expected, got 2)")
    errors(function() s:resize(-1) end, 'resize: size must be non-negative, got -1')
    errors(function() torch.DoubleStorage(-1) end, 'torch.DoubleStorage: size must be non-negative, got -1')
    -- a string is a file name (Torch7's mapped storages)
    errors(function() torch.DoubleStorage('/nonexistent/x') end,
           "torch.DoubleStorage: cannot open '/nonexistent/x': No such file or directory")
    errors(function() torch.DoubleStorage(true) end,
           "bad argument #2 to 'torch.DoubleStorage' (size must be a number, got boolean)")
    errors(function() torch.DoubleStorage({1, 'x'}) end,
           'torch.DoubleStorage: table holds a string at position 2 where a number was expected')
  end)
end)
