-- index / indexCopy / indexAdd / indexFill, gather / scatter, masks,
-- nonzero, cat, sort / topk / kthvalue / median (src/tensor/th_index.c,
-- th_sort.c, src/lua/th_lua_index.c), with Torch7's examples and errors.
require 'torch'

local function T(t) return torch.DoubleTensor(t) end
local function L(t) return torch.LongTensor(t) end
local function B(t) return torch.ByteTensor(t) end

-- asserts that f raises an error whose message contains 'text'
local function errors(f, text)
  local ok, err = pcall(f)
  assert.is_false(ok, 'expected an error containing: ' .. text)
  err = tostring(err)
  assert(err:find(text, 1, true), 'error "' .. err .. '" does not contain "' .. text .. '"')
end

local function same(expected, t)
  assert.are.same(expected, t:totable())
end

local function sizes(t) return t:size():totable() end

-- a deterministic n x m DoubleTensor with entries i*100 + j
local function grid(n, m)
  local t = torch.DoubleTensor(n, m)
  for i = 1, n do for j = 1, m do t[i][j] = i * 100 + j end end
  return t
end

describe('index', function()
  it('selects slices along dimension 1 and 2 into a new tensor', function()
    local x = grid(3, 4)
    local y = x:index(1, L{3, 1})
    same({{301, 302, 303, 304}, {101, 102, 103, 104}}, y)
    same({{104, 102}, {204, 202}, {304, 302}}, x:index(2, L{4, 2}))
    y:fill(0)  -- a copy, not a view
    assert.are.equal(301, x[3][1])
    assert.are_not.equal(torch.pointer(x:storage()), torch.pointer(y:storage()))
  end)

  it('accepts negative dimensions, repeated and empty indices', function()
    local x = grid(2, 3)
    same({{103, 103, 101}, {203, 203, 201}}, x:index(-1, L{3, 3, 1}))
    local e = x:index(1, torch.LongTensor())
    assert.are.same({0, 3}, sizes(e))
  end)

  it('works on 1D, 3D, non-contiguous and every element type', function()
    same({30, 10}, T{10, 20, 30}:index(1, L{3, 1}))
    -- small slices (row by row) and large ones (slice by slice) agree
    local x = torch.DoubleTensor(2, 20, 3)
    local n = 0
    x:apply(function() n = n + 1; return n end)
    local a = x:index(2, L{20, 1, 7})
    assert.are.same({2, 3, 3}, sizes(a))
    for i = 1, 2 do for k = 1, 3 do
      assert.are.equal(x[i][20][k], a[i][1][k])
      assert.are.equal(x[i][1][k], a[i][2][k])
      assert.are.equal(x[i][7][k], a[i][3][k])
    end end
    local b = x:index(1, L{2})
    assert.are.equal(x[2][13][2], b[1][13][2])
    local t = grid(3, 2):t()  -- 2x3, strides 1,2: 101 201 301 / 102 202 302
    same({{301, 101}, {302, 102}}, t:index(2, L{3, 1}))
    same({3, 1}, torch.FloatTensor{1, 2, 3}:index(1, L{3, 1}))
    same({7, 5}, L{5, 6, 7}:index(1, L{3, 1}))
    same({9, 8}, B{8, 9}:index(1, L{2, 1}))
  end)

  it('writes into a given result, keeping its identity, also when it is the source', function()
    local x = grid(3, 2)
    local r = torch.DoubleTensor(10)
    local st = r:storage()
    local ret = r:index(x, 1, L{2, 3})
    assert.are.equal(r, ret)
    assert.are.equal(st, r:storage())
    same({{201, 202}, {301, 302}}, r)
    x:index(x, 1, L{3, 3, 1})
    same({{301, 302}, {301, 302}, {101, 102}}, x)
    same({{201, 202}}, torch.index(grid(2, 2), 1, L{2}))
  end)

  it('backs t[LongTensor]', function()
    local x = grid(3, 2)
    same({{301, 302}, {101, 102}}, x[L{3, 1}])
  end)

  it('rejects bad indices, dimensions and types with clear messages', function()
    local x = grid(3, 2)
    errors(function() x:index(1, L{1, 4}) end,
           'index: index 4 out of range for dimension 1 of size 3 (entry 2 of the index)')
    errors(function() x:index(2, L{0}) end, 'index: index 0 out of range for dimension 2 of size 2')
    errors(function() x:index(1, L{-1}) end, 'index -1 out of range')
    errors(function() x:index(3, L{1}) end,
           "bad argument #2 to 'index' (dimension 3 out of range for a 2D tensor (expected 1..2))")
    errors(function() x:index(1, T{1}) end,
           "bad argument #3 to 'index' (torch.LongTensor expected, got torch.DoubleTensor)")
    errors(function() x:index(1, L{{1}}) end, 'index: index must be a 1D LongTensor, got 2D 1x1')
    errors(function() torch.FloatTensor():index(x, 1, L{1}) end,
           "bad argument #1 to 'index' (result must be a torch.DoubleTensor, got torch.FloatTensor)")
    errors(function() x:index(1) end, "bad argument #3 to 'index' (tensor expected, got no value)")
    errors(function() torch.DoubleTensor():index(1, L{1}) end, 'tensor is empty')
  end)
end)

describe('indexCopy, indexAdd, indexFill', function()
  it('indexCopy copies slices of the source to the indexed places (Torch7 example)', function()
    local x = grid(5, 5)
    local z = torch.DoubleTensor(5, 2)
    z:select(2, 1):fill(-1)
    z:select(2, 2):fill(-2)
    assert.are.equal(x, x:indexCopy(2, L{5, 1}, z))
    for i = 1, 5 do
      assert.are.equal(-2, x[i][1])
      assert.are.equal(-1, x[i][5])
      assert.are.equal(i * 100 + 3, x[i][3])
    end
  end)

  it('indexCopy works through non-contiguous views and large slices', function()
    local base = grid(3, 20)
    local v = base:t()  -- 20x3
    v:indexCopy(2, L{2}, torch.DoubleTensor(20, 1):fill(0))
    for j = 1, 20 do assert.are.equal(0, base[2][j]) end
    assert.are.equal(101, base[1][1])
    local y = torch.DoubleTensor(4, 20):zero()
    y:indexCopy(1, L{4, 2}, grid(2, 20))
    same(grid(2, 20)[1]:totable(), y[4])
    same(grid(2, 20)[2]:totable(), y[2])
    same(torch.DoubleTensor(20):zero():totable(), y[1])
  end)

  it('indexCopy backs t[LongTensor] = tensor and tolerates a source viewing the target', function()
    local x = grid(3, 2)
    x[L{1}] = T{{7, 8}}
    same({{7, 8}, {201, 202}, {301, 302}}, x)
    x:indexCopy(1, L{2, 3}, x:narrow(1, 1, 2))
    same({{7, 8}, {7, 8}, {201, 202}}, x)
  end)

  it('indexAdd accumulates repeated indices (Torch7 example)', function()
    local a = T{1, 2, 3, 4, 5}
    a:indexAdd(1, L{1, 1, 3, 3}, T{1, 2, 3, 4})
    same({4, 2, 10, 4, 5}, a)
    local x = torch.DoubleTensor(2, 3):zero()
    x:indexAdd(2, L{3, 1, 3}, T{{1, 2, 3}, {4, 5, 6}})
    same({{2, 0, 4}, {5, 0, 10}}, x)
    local big = torch.DoubleTensor(3, 40):fill(1)
    big:indexAdd(1, L{2, 2}, torch.DoubleTensor(2, 40):fill(2))
    assert.are.equal(5, big[2][40])
    assert.are.equal(1, big[3][40])
    local f = torch.FloatTensor(3):zero()
    f:indexAdd(1, L{2}, torch.FloatTensor{1.5})
    same({0, 1.5, 0}, f)
  end)

  it('indexFill fills the indexed slices and backs t[LongTensor] = number', function()
    local x = grid(3, 4)
    x:indexFill(2, L{4, 2}, -10)
    same({{101, -10, 103, -10}, {201, -10, 203, -10}, {301, -10, 303, -10}}, x)
    x[L{3}] = 0
    same({0, 0, 0, 0}, x[3])
    local b = torch.ByteTensor(2, 30):zero()
    b:indexFill(1, L{2}, 1)
    for j = 1, 30 do assert.are.equal(1, b[2][j]) end
    assert.are.equal(0, b[1][30])
  end)

  it('check sizes, types and indices before writing anything', function()
    local x = grid(3, 2)
    errors(function() x:indexCopy(1, L{1, 2}, torch.DoubleTensor(3, 2)) end,
           'indexCopy: source must be of size 2x2 (2 indices along dimension 1), got 3x2')
    errors(function() x:indexCopy(1, L{1}, torch.FloatTensor(1, 2)) end,
           "bad argument #4 to 'indexCopy' (torch.DoubleTensor expected, got torch.FloatTensor)")
    errors(function() x:indexAdd(1, L{1, 9}, torch.DoubleTensor(2, 2):fill(5)) end,
           'indexAdd: index 9 out of range for dimension 1 of size 3 (entry 2 of the index)')
    errors(function() x:indexFill(1, L{1, 4}, 0) end, 'indexFill: index 4 out of range')
    errors(function() x:indexFill(1, L{1}, 'a') end,
           "bad argument #4 to 'indexFill' (number expected, got string)")
    errors(function() x:indexFill(0, L{1}, 1) end, "bad argument #2 to 'indexFill' (dimension 0 out of range")
    same(grid(3, 2):totable(), x)  -- untouched by the failed calls
  end)
end)

describe('gather and scatter', function()
  it('gather follows Torch7 examples along dimension 1 and 2', function()
    local x = grid(5, 5)
    same({{101, 202, 303, 404, 505}, {201, 302, 403, 504, 105}},
         x:gather(1, L{{1, 2, 3, 4, 5}, {2, 3, 4, 5, 1}}))
    same({{101, 102}, {202, 203}, {303, 304}, {404, 405}, {505, 501}},
         x:gather(2, L{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 1}}))
  end)

  it('gather works on 3D and non-contiguous inputs, and into a result', function()
    local x = torch.DoubleTensor(2, 3, 4)
    local n = 0
    x:apply(function() n = n + 1; return n end)
    local idx = torch.LongTensor(2, 1, 4):fill(3)
    local g = x:gather(2, idx)
    assert.are.same({2, 1, 4}, sizes(g))
    assert.are.equal(x[2][3][4], g[2][1][4])
    local t = grid(3, 2):t()  -- 2x3: 101 201 301 / 102 202 302
    same({{301, 101}, {102, 302}}, t:gather(2, L{{3, 1}, {1, 3}}))
    local r = torch.DoubleTensor(4)
    local ret = r:gather(grid(2, 2), 1, L{{2, 1}})
    assert.are.equal(r, ret)
    same({{201, 102}}, r)
    same({{102}, {201}}, torch.gather(grid(2, 2), 2, L{{2}, {1}}))
  end)

  it('scatter writes a source or a value (Torch7 examples)', function()
    local x = T{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}}
    local y = torch.DoubleTensor(3, 5):zero():scatter(1, L{{1, 2, 3, 1, 1}, {3, 1, 1, 2, 3}}, x)
    same({{1, 7, 8, 4, 5}, {0, 2, 0, 9, 0}, {6, 0, 3, 0, 10}}, y)
    local z = torch.DoubleTensor(2, 4):zero():scatter(2, L{{3}, {4}}, 1.25)
    same({{0, 0, 1.25, 0}, {0, 0, 0, 1.25}}, z)
    -- a source larger than the index along dim is read from its start
    local w = torch.DoubleTensor(1, 3):zero():scatter(2, L{{3, 1}}, T{{7, 8, 9}})
    same({{8, 0, 7}}, w)
  end)

  it('reject mismatched shapes, bad indices and types', function()
    local x = grid(2, 3)
    errors(function() x:gather(1, L{1, 2}) end,
           'gather: index must have 2 dimensions like the tensor (size 2x3), got 1D 2')
    errors(function() x:gather(1, L{{1, 2}}) end,
           'gather: index of size 1x2 does not match the tensor\'s size 2x3 in dimension 2 (only dimension 1 may differ)')
    errors(function() x:gather(2, L{{1}, {4}}) end,
           'gather: index 4 out of range for dimension 2 of size 3 (entry 2 of the index)')
    errors(function() x:gather(2, T{{1}, {1}}) end,
           "bad argument #3 to 'gather' (torch.LongTensor expected, got torch.DoubleTensor)")
    errors(function() x:scatter(2, L{{1}, {0}}, 5) end,
           'scatter: index 0 out of range for dimension 2 of size 3 (entry 2 of the index)')
    errors(function() x:scatter(2, L{{1, 2}, {1, 2}}, T{{1}, {2}}) end,
           'scatter: source of size 2x1 does not fit the index of size 2x2')
    errors(function() x:scatter(2, L{{1}, {2}}, 'v') end,
           "bad argument #4 to 'scatter' (tensor or number expected, got string)")
    errors(function() x:scatter(2, L{{1}, {2}}, torch.FloatTensor(2, 1)) end,
           "bad argument #4 to 'scatter' (torch.DoubleTensor expected, got torch.FloatTensor)")
    same(grid(2, 3):totable(), x)
  end)
end)

describe('masked operations', function()
  it('maskedSelect pairs elements in row-major order (Torch7 example)', function()
    local x = torch.DoubleTensor(3, 4)
    local n = 0
    x:apply(function() n = n + 1; return n end)
    local mask = B{{1, 0, 1, 0, 0, 0}, {1, 1, 0, 0, 0, 1}}
    local y = x:maskedSelect(mask)
    same({1, 3, 7, 8, 12}, y)
    local z = torch.DoubleTensor()
    assert.are.equal(z, z:maskedSelect(x, mask))
    same({1, 3, 7, 8, 12}, z)
    same({1, 3, 7, 8, 12}, x[mask])
    same({1, 3, 7, 8, 12}, torch.maskedSelect(x, mask))
    -- selecting nothing gives an empty tensor with no dimension, as Torch7
    local none = x:maskedSelect(torch.ByteTensor(3, 4):zero())
    assert.are.same({0, 0}, {none:dim(), none:nElement()})
    assert.are.equal(0, x[torch.ByteTensor(3, 4):zero()]:dim())
  end)

  it('maskedSelect reads non-contiguous tensors in logical order', function()
    local t = grid(2, 3):t()  -- 3x2: 101 201 / 102 202 / 103 203
    same({201, 102, 203}, t:maskedSelect(B{{0, 1}, {1, 0}, {0, 1}}))
  end)

  it('maskedFill and maskedCopy write where the mask is 1 (Torch7 examples)', function()
    local x = T{{1, 2, 3, 4}}
    x:maskedFill(B{{0, 0}, {1, 1}}, -1)
    same({{1, 2, -1, -1}}, x)
    local y = T{0, 0, 0, 0}
    y:maskedCopy(B{0, 1, 0, 1}, T{10, 20})
    same({0, 10, 0, 20}, y)
    local w = torch.DoubleTensor(2, 4):fill(-1)
    w:maskedCopy(B{{0, 0, 1, 1, 1, 0, 1, 0}}, T{{1, 2}, {3, 4}})
    same({{-1, -1, 1, 2}, {3, -1, 4, -1}}, w)
    -- non-contiguous target and source
    local g = grid(2, 2)
    g:t():maskedCopy(B{{1, 0}, {0, 1}}, T{{5, 6}, {7, 8}}:t())
    same({{5, 102}, {201, 7}}, g)
  end)

  it('back t[mask] = value and t[mask] = tensor', function()
    local x = T{{1, -2}, {-3, 4}}
    x[B{{0, 1}, {1, 0}}] = 0
    same({{1, 0}, {0, 4}}, x)
    x[B{{1, 0}, {0, 1}}] = T{9, 8}
    same({{9, 0}, {0, 8}}, x)
  end)

  it('check the mask type, size and values, and the source size', function()
    local x = T{1, 2, 3}
    errors(function() x:maskedFill(T{1, 0, 1}, 0) end,
           "bad argument #2 to 'maskedFill' (torch.ByteTensor expected, got torch.DoubleTensor)")
    errors(function() x:maskedFill(B{1, 0}, 0) end,
           'maskedFill: mask of size 2 has 2 elements, the tensor has 3')
    errors(function() x:maskedSelect(B{1, 2, 0}) end,
           'maskedSelect: mask may hold only 0 and 1, found 2 at element 2')
    errors(function() x:maskedCopy(B{1, 1, 1}, T{1, 2}) end,
           'maskedCopy: source has 2 elements, fewer than the 3 ones in the mask')
    errors(function() x:maskedCopy(B{1, 1, 1}, L{1, 2, 3}) end,
           "bad argument #3 to 'maskedCopy' (torch.DoubleTensor expected, got torch.LongTensor)")
    errors(function() x:maskedFill(B{1, 1, 1}) end,
           "bad argument #3 to 'maskedFill' (number expected, got no value)")
    errors(function() return x[B{1}] end, 'maskedSelect: mask of size 1 has 1 elements, the tensor has 3')
    same({1, 2, 3}, x)
  end)
end)

describe('nonzero', function()
  it('returns the 1-based subscripts of nonzero elements, row-major (Torch7 example)', function()
    local x = T{{2, 0, 2, 0}, {0, 0, 1, 2}, {0, 2, 2, 1}, {2, 1, 2, 2}}
    local expected = {{1, 1}, {1, 3}, {2, 3}, {2, 4}, {3, 2}, {3, 3}, {3, 4},
                      {4, 1}, {4, 2}, {4, 3}, {4, 4}}
    local r = x:nonzero()
    assert.are.equal('torch.LongTensor', torch.type(r))
    same(expected, r)
    same(expected, torch.nonzero(x))
    local into = torch.LongTensor()
    assert.are.equal(into, x.nonzero(into, x))
    same(expected, into)
    same({{2}, {3}}, L{0, 5, -1}:nonzero())
    same({{1, 2}}, T{{0, 0}, {2, 0}}:t():nonzero())
  end)

  it('gives an empty result without dimension when nothing is nonzero (Torch7)', function()
    local r = torch.FloatTensor(2, 3):zero():nonzero()
    assert.are.same({0, 0}, {r:dim(), r:nElement()})
    assert.are.equal('torch.LongTensor', torch.type(r))
    assert.are.equal(0, torch.DoubleTensor():nonzero():nElement())
    errors(function() T{1}.nonzero(torch.DoubleTensor(), T{1}) end,
           "bad argument #1 to 'nonzero' (result must be a torch.LongTensor, got torch.DoubleTensor)")
  end)
end)

describe('cat', function()
  it('joins two tensors along the last dimension by default (Torch7 examples)', function()
    same({1, 1, 1, 0, 0}, torch.cat(T{1, 1, 1}, T{0, 0}))
    same({{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
         torch.cat(torch.DoubleTensor(3, 2):fill(1), torch.DoubleTensor(2, 2):fill(0), 1))
    same({{1, 1, 0, 0}, {1, 1, 0, 0}},
         torch.cat(torch.DoubleTensor(2, 2):fill(1), torch.DoubleTensor(2, 2):fill(0)))
    same({{1, 1, 0, 0}, {1, 1, 0, 0}},
         torch.cat(torch.DoubleTensor(2, 2):fill(1), torch.DoubleTensor(2, 2):fill(0), -1))
  end)

  it('joins a table of tensors, skipping empty ones', function()
    local r = torch.cat({T{{1, 2}}, torch.DoubleTensor(), T{{3, 4}, {5, 6}}, torch.DoubleTensor(0)}, 1)
    same({{1, 2}, {3, 4}, {5, 6}}, r)
    assert.are.equal(0, torch.cat({torch.DoubleTensor(), torch.DoubleTensor()}, 1):nElement())
    same({1, 2, 3}, torch.cat({T{1}, T{2}, T{3}}))
  end)

  it('treats a missing trailing dimension as size 1', function()
    same({{1, 9}, {2, 9}}, torch.cat(T{1, 2}, torch.DoubleTensor(2, 1):fill(9), 2))
  end)

  it('writes into a result, which may be one of its inputs, and works as a method', function()
    local r = torch.DoubleTensor(1)
    local st = r:storage()
    assert.are.equal(r, torch.cat(r, T{1, 2}, T{3}))
    same({1, 2, 3}, r)
    assert.are.equal(st, r:storage())
    torch.cat(r, {r, T{4}})
    same({1, 2, 3, 4}, r)
    torch.cat(r, {T{0}, r:narrow(1, 2, 2)})
    same({0, 2, 3}, r)
    local e = torch.DoubleTensor()
    torch.cat(e, {e, T{5}, e})
    same({5}, e)
    local x = grid(3, 2)
    x:index(x, 1, L{2})
    same({{201, 202}}, x)
    same({{1, 2}, {3, 4}}, T{{1, 2}}:cat(T{{3, 4}}, 1))
    same({7, 8}, torch.FloatTensor{7}:cat(torch.FloatTensor{8}))
    local nc = grid(2, 2):t()
    same({{101, 201, 101, 201}, {102, 202, 102, 202}}, torch.cat(nc, nc, 2))
  end)

  it('rejects mismatched sizes, types, dimensions and arguments', function()
    errors(function() torch.cat(torch.DoubleTensor(2, 2), torch.DoubleTensor(3, 3), 1) end,
           'cat: sizes do not match: tensor 1 is 2x2, tensor 2 is 3x3 (they may differ only in dimension 1)')
    errors(function() torch.cat(T{1}, torch.FloatTensor{2}) end,
           "bad argument #1 to 'cat' (tensor 2 is a torch.FloatTensor, tensor 1 a torch.DoubleTensor (all must have one type))")
    errors(function() torch.cat(T{1}, T{2}, 17) end,
           "bad argument #3 to 'cat' (dimension 17 out of range (a tensor has at most 16 dimensions))")
    errors(function() torch.cat({T{1}, 5}) end,
           "bad argument #1 to 'cat' (tensor expected at position 2 of the table, got number)")
    errors(function() torch.cat({}) end, "bad argument #1 to 'cat' (at least one tensor expected, got an empty table)")
    errors(function() torch.cat(T{1}) end, "bad argument #1 to 'cat' (two tensors or a table of tensors expected")
    errors(function() torch.cat(torch.FloatTensor(), {T{1}}) end,
           "bad argument #1 to 'cat' (result must be a torch.DoubleTensor, got torch.FloatTensor)")
  end)
end)

describe('sort', function()
  it('sorts along the last dimension, ascending, with indices (Torch7 example)', function()
    local x = T{{-1.2470, -0.4288, -0.5337}, {0.8836, -0.1622, 0.9604}, {0.6297, 0.2397, 0.0746}}
    local y, i = torch.sort(x)
    same({{-1.2470, -0.5337, -0.4288}, {-0.1622, 0.8836, 0.9604}, {0.0746, 0.2397, 0.6297}}, y)
    same({{1, 3, 2}, {2, 1, 3}, {3, 2, 1}}, i)
    assert.are.equal('torch.LongTensor', torch.type(i))
    local y2, i2 = x:sort(1, true)
    same({{0.8836, 0.2397, 0.9604}, {0.6297, -0.1622, 0.0746}, {-1.2470, -0.4288, -0.5337}}, y2)
    same({{2, 3, 2}, {3, 2, 3}, {1, 1, 1}}, i2)
  end)

  it('is stable in both directions and puts NaN above every number', function()
    local _, i = T{2, 1, 2, 1, 2}:sort()
    same({2, 4, 1, 3, 5}, i)
    local _, d = T{2, 1, 2, 1, 2}:sort(true)
    same({1, 3, 5, 2, 4}, d)
    local v, j = T{3, 0 / 0, 1}:sort()
    assert.are.equal(1, v[1])
    assert.are.equal(3, v[2])
    assert(v[3] ~= v[3])
    same({3, 1, 2}, j)
    local w = T{3, 0 / 0, 1}:sort(1, true)
    assert(w[1] ~= w[1])
  end)

  it('matches table.sort on a large random row, any type, any layout', function()
    math.randomseed(1234)
    local n, vals = 1000, {}
    for k = 1, n do vals[k] = math.random(1, 300) end
    local x = L(vals)
    local y, i = x:sort()
    local ref = {}
    for k = 1, n do ref[k] = vals[k] end
    table.sort(ref)
    same(ref, y)
    for k = 1, n do assert.are.equal(vals[i[k]], y[k]) end
    for k = 2, n do
      if y[k] == y[k - 1] then assert(i[k] > i[k - 1], 'stable') end
    end
    local f = torch.FloatTensor(4, 3)
    local c = 0
    f:apply(function() c = c + 1; return (c * 7) % 5 end)
    local ft = f:t()  -- 3x4, non-contiguous
    local fs, fi = ft:sort(2)
    for r = 1, 3 do
      for k = 1, 4 do assert.are.equal(ft[r][fi[r][k]], fs[r][k]) end
      for k = 2, 4 do assert(fs[r][k - 1] <= fs[r][k]) end
    end
    same({1, 2, 3}, torch.ByteTensor{3, 1, 2}:sort())
  end)

  it('writes into given results, keeping their identity, and handles empty tensors', function()
    local v, i = torch.DoubleTensor(), torch.LongTensor()
    local x = T{3, 1, 2}
    local rv, ri = torch.sort(v, i, x)
    assert.are.equal(v, rv)
    assert.are.equal(i, ri)
    same({1, 2, 3}, v)
    same({2, 3, 1}, i)
    torch.sort(x, i, x)  -- in place through the values result
    same({1, 2, 3}, x)
    local ev, ei = torch.DoubleTensor():sort()
    assert.are.equal(0, ev:nElement())
    assert.are.equal(0, ei:nElement())
  end)

  it('rejects bad dimensions, flags and result types', function()
    errors(function() T{1, 2}:sort(2) end,
           "bad argument #2 to 'sort' (dimension 2 out of range for a 1D tensor (expected 1..1))")
    errors(function() T{1, 2}:sort(1, 'yes') end,
           "bad argument #3 to 'sort' (descending must be a boolean, got string)")
    errors(function() torch.sort(torch.FloatTensor(), torch.LongTensor(), T{1}) end,
           "bad argument #1 to 'sort' (torch.DoubleTensor expected, got torch.FloatTensor)")
    errors(function() torch.sort(T{}, T{}, T{1}) end,
           "bad argument #2 to 'sort' (torch.LongTensor expected, got torch.DoubleTensor)")
    errors(function() torch.sort() end, "bad argument #1 to 'sort' (tensor expected, got no value)")
  end)
end)

describe('topk, kthvalue, median', function()
  it('topk returns the k smallest by default, or the k largest, sorted', function()
    local x = T{3, 1, 2, 5, 4}
    local v, i = x:topk(2)
    same({1, 2}, v)
    same({2, 3}, i)
    v, i = torch.topk(x, 3, 1, true)
    same({5, 4, 3}, v)
    same({4, 5, 1}, i)
    v, i = x:topk(2, true)
    same({5, 4}, v)
    local m = T{{1, 9, 5}, {8, 2, 7}}
    v, i = m:topk(1, 1, true, true)
    same({{8, 9, 7}}, v)
    same({{2, 1, 2}}, i)
    v = m:topk(0)
    assert.are.same({2, 0}, sizes(v))
    same({1, 2, 3, 4, 5}, x:topk(5))
  end)

  it('kthvalue and median keep the reduced dimension with size 1', function()
    local x = T{{3, 1, 2}, {6, 5, 4}}
    local v, i = x:kthvalue(2)
    same({{2}, {5}}, v)
    same({{3}, {2}}, i)
    v, i = torch.kthvalue(x, 1, 1)
    same({{3, 1, 2}}, v)
    same({{1, 1, 1}}, i)
    v, i = T{4, 1, 3, 2}:median()  -- lower median of an even count
    same({2}, v)
    same({4}, i)
    v, i = x:median(1)
    same({{3, 1, 2}}, v)
    v, i = torch.median(T{5, 3, 9})
    same({5}, v)
    same({1}, i)
  end)

  it('reject k out of range and empty tensors', function()
    errors(function() T{1, 2}:topk(3) end,
           'topk: k 3 out of range for dimension 1 of size 2 (expected 0..2)')
    errors(function() T{1, 2}:kthvalue(0) end,
           'kthvalue: k 0 out of range for dimension 1 of size 2 (expected 1..2)')
    errors(function() T{1, 2}:kthvalue('a') end, "bad argument #2 to 'kthvalue' (k must be a number, got string)")
    errors(function() T{1, 2}:topk(1, 1, 'x') end, "bad argument #4 to 'topk' (dir must be a boolean, got string)")
    errors(function() torch.DoubleTensor():median() end, "bad argument #2 to 'median' (tensor is empty)")
  end)
end)
