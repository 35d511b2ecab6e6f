-- Bad input to torch: every misuse gets a Lua error naming the function,
-- what it expected and what came; never a crash, an OOM kill or a silent
-- wrong answer. Each case asserts the message text.
require 'torch'

local F, D, L, B = torch.FloatTensor, torch.DoubleTensor, torch.LongTensor, torch.ByteTensor

-- asserts that f(...) raises and that the message holds every plain pattern
local function fails(patterns, f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  err = tostring(err)
  for _, p in ipairs(type(patterns) == 'table' and patterns or {patterns}) do
    if not err:find(p, 1, true) then
      error(string.format('message %q lacks %q', err, p), 2)
    end
  end
  return err
end

describe('torch constructors and storages refuse bad sizes', function()
  it('wrong argument types', function()
    fails({"'torch.FloatTensor'", 'got string'}, F, 'x')
    fails({"'torch.FloatTensor'", 'size must be an integer, got inf'}, F, 1 / 0)
    fails({"'torch.FloatTensor'", 'must be an integer'}, F, 0 / 0)
    fails({'torch.Tensor', 'string where a number was expected'}, F, {1, 'a'})
    fails({"'torch.FloatTensor'", 'at most 16 sizes'}, F, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
  end)

  it('negative sizes', function()
    fails('torch.FloatTensor: size must be non-negative, got -1 at dimension 1', F, -1)
    fails('torch.FloatStorage: size must be non-negative, got -1', torch.FloatStorage, -1)
    fails('zeros: size must be non-negative, got -2 at dimension 1', torch.zeros, -2)
    fails('resize: size must be non-negative, got -3 at dimension 2', F(2).resize, F(2), 2, -3)
  end)

  it('absurd sizes are errors, not allocations', function()
    fails('torch.FloatTensor: size 4611686018427387904 is too large for Float elements', F, 2 ^ 62)
    fails('torch.DoubleTensor: size overflows: more than 2^63 elements', D, 2 ^ 31, 2 ^ 31, 2 ^ 31)
    fails({'torch.FloatTensor: cannot allocate 4398046511104 bytes', "more than the machine's memory"}, F, 2 ^ 40)
    fails('torch.FloatStorage: size 4611686018427387904 is too large', torch.FloatStorage, 2 ^ 62)
    fails({"'torch.FloatStorage'", 'size must be an integer, got 1e+300'}, torch.FloatStorage, 1e300)
    local t = F(3)
    fails('resize: size 4611686018427387904 is too large for Float elements', t.resize, t, 2 ^ 62)
    fails('resize: size overflows: more than 2^63 elements', t.resize, t, 2 ^ 32, 2 ^ 32)
    -- a zero among the sizes must not hide an overflowing product (the strides multiply them)
    fails('resize: size overflows', t.resize, t, 0, 2 ^ 62, 8)
    assert.are.equal(3, t:nElement())  -- a failed resize leaves the tensor as it was
    fails({"'resize'", 'sizes must be integers, got -nan'}, t.resize, t, {0 / 0})
    fails({"'view'", 'sizes must be integers, got 1e+300'}, t.view, t, {1e300})
    assert.are.same({3}, t:view({3.5}):size():totable())   -- truncated, as Torch7
    fails({"'resize'", '0 to 16 sizes expected, got 17'}, t.resize, t, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
  end)
end)

describe('torch views check dimensions, ranges and overflow', function()
  local t
  before_each(function() t = F(3, 4):uniform() end)

  it('narrow', function()
    fails({"'narrow'", 'dimension 3 out of range for a 2D tensor (expected 1..2)'}, t.narrow, t, 3, 1, 1)
    fails({"'narrow'", 'index 5 out of range for dimension 1 of size 3'}, t.narrow, t, 1, 5, 1)
    fails({"'narrow'", 'size 3 from index 2 exceeds dimension 1 of size 3'}, t.narrow, t, 1, 2, 3)
    fails({"'narrow'", 'dimension must be a number, got string'}, t.narrow, t, 'a', 1, 1)
    fails({"'narrow'", 'got no value'}, t.narrow, t)
    -- huge lengths do not wrap around when added to the start
    fails({"'narrow'", 'size 9223372036854775807 from index 2 exceeds dimension 1 of size 3'},
          t.narrow, t, 1, 2, math.maxinteger)
    fails({"'narrow'", 'index -9223372036854775808 out of range'}, t.narrow, t, 1, math.mininteger, 1)
  end)

  it('select, transpose, unfold, expand, view', function()
    fails({"'select'", 'index 4 out of range (expected 1..3 or -3..-1)'}, t.select, t, 1, 4)
    fails({"'select'", 'index 0 out of range'}, t.select, t, 1, 0)
    fails({"'transpose'", 'dimension 3 out of range for a 2D tensor'}, t.transpose, t, 1, 3)
    fails('unfold: unfold size 5 out of range for dimension 1 of size 3', t.unfold, t, 1, 5, 1)
    fails('unfold: unfold step must be positive, got 0', t.unfold, t, 1, 2, 0)
    fails('expand: cannot expand size 3x4 to 4x4: dimension 1 is 3, not 1', t.expand, t, 4, 4)
    -- a negative size is named as such (said 'dimension 1 is 1, not 1')
    fails('expand: cannot expand size 1x3 to -1x3: size -1 at dimension 1 must be non-negative',
          F(1, 3).expand, F(1, 3), -1, 3)
    fails('unfold: unfold of dimension 1 (size 2305843009213693952, step 1) gives more than 2^63 elements',
          F(1):expand(2 ^ 62).unfold, F(1):expand(2 ^ 62), 1, 2 ^ 61, 1)
    fails('expand: size overflows: more than 2^63 elements', F(1, 1).expand, F(1, 1), 2 ^ 40, 2 ^ 40)
    fails('view: cannot view a tensor of size 3x4 (12 elements) as 5x3 (15 elements)', t.view, t, 5, 3)
    fails('view: cannot view a non-contiguous tensor of size 4x3 as 12 (call :contiguous() first)',
          t:t().view, t:t(), 12)
    fails('view: only one size may be -1', t.view, t, -1, -1)
    -- a size-1 dimension between two others must not hide the gap (found by fuzz_view)
    local gap = F(torch.FloatStorage(160), 7, torch.LongStorage({6, 1, 6}), torch.LongStorage({6, 6, 6}))
    fails('view: cannot view a non-contiguous tensor of size 6x1x6 as 36 (call :contiguous() first)', gap.view, gap, 36)
    fails('view: size overflows', F(0).view, F(0), 0, 2 ^ 62, 4)
  end)

  it('unsqueeze of an empty tensor is an error, not a view without storage', function()
    fails('cannot unsqueeze an empty tensor', F().unsqueeze, F(), 1)
  end)

  it('set: strides and offsets that reach past 2^63 elements', function()
    local s = torch.FloatStorage(4)
    fails('set: view of size 3 reaches past 2^63 elements (offset 0, stride 4611686018427387904 at dimension 1)',
          t.set, t, s, 1, torch.LongStorage({3}), torch.LongStorage({2 ^ 62}))
    fails('set: view of size 2x3 reaches past 2^63 elements',
          t.set, t, s, 1, torch.LongStorage({2, 3}), torch.LongStorage({2 ^ 62, 2 ^ 61}))
    fails({"'set'", 'torch.FloatStorage expected, got torch.DoubleStorage'}, t.set, t, torch.DoubleStorage(4))
    assert.are.same({3, 4}, {t:size(1), t:size(2)})  -- untouched by the failures
    -- an empty view with a huge stride is refused too: narrowing it later must stay in range
    fails('reaches past 2^63', t.set, t, s, 1, torch.LongStorage({0, 3}), torch.LongStorage({1, 2 ^ 62}))
    -- empty, but within the bound: unfolding it must not multiply its stride past 2^63 (found by fuzz_view)
    t:set(s, 1, torch.LongStorage({0, 2}), torch.LongStorage({1, 2 ^ 62}))
    fails('unfold: unfold step 2 times stride 4611686018427387904 overflows', t.unfold, t, 2, 0, 2)
  end)

  it('views of views stay inside the storage (non-contiguous sources)', function()
    local nc = F(5, 6):uniform():t()          -- 6x5, strides 1, 6
    local u = nc:narrow(1, 2, 4):unfold(2, 2, 2)  -- 4x2x2
    assert.are.same({4, 2, 2}, {u:size(1), u:size(2), u:size(3)})
    assert.are.equal(nc[2][1], u[1][1][1])
    assert.are.equal(nc[5][4], u[4][2][2])
    fails({"'select'", 'out of range'}, u.select, u, 3, 3)
  end)
end)

describe('torch indexing', function()
  local t
  before_each(function() t = F(3, 4):zero() end)

  it('out-of-range and wrongly typed indices', function()
    fails({"'__index'", 'index 4 out of range (expected 1..3 or -3..-1)'}, function() return t[4] end)
    fails({"'__index'", 'index 0 out of range'}, function() return t[0] end)
    fails({"'__newindex'", 'index 4 out of range'}, function() t[4] = 1 end)
    fails({"'__index'", 'index 5 out of range'}, function() return F(3)[5] end)
    fails({"'__index'", 'index 4 out of range'}, function() return torch.FloatStorage(3)[4] end)
    fails('index: index 5 out of range for dimension 1 of size 3 (entry 2 of the index)', t.index, t, 1, L({1, 5}))
    -- (an IntTensor: once cutorch is required, float indices are CudaTensor ones)
    fails({"'index'", 'torch.LongTensor expected, got torch.IntTensor'}, t.index, t, 1, torch.IntTensor({1, 2}))
    fails('gather: index 9 out of range for dimension 1 of size 3', t.gather, t, 1, L(3, 4):fill(9))
    fails('scatter: index 9 out of range for dimension 1 of size 3', t.scatter, t, 1, L(3, 4):fill(9), F(3, 4))
    fails('indexFill: index 0 out of range for dimension 1 of size 3', t.indexFill, t, 1, L({0}), 1)
    fails('maskedFill: mask of size 2x2 has 4 elements, the tensor has 12', t.maskedFill, t, B(2, 2), 1)
  end)

  it('NaN stored through an index is kept, not turned into a number', function()
    local v = F(2)
    v[1] = 0 / 0
    assert.is_true(v[1] ~= v[1])
  end)
end)

describe('torch math', function()
  local t
  before_each(function() t = F(3, 4):uniform() end)

  it('size and type mismatches', function()
    fails('add: element counts differ: a tensor of size 3x4 (12 elements) and one of size 5 (5 elements)', t.add, t, F(5))
    fails({"'add'", 'torch.FloatTensor expected, got torch.DoubleTensor'}, t.add, t, D(3, 4))
    fails({'add: invalid arguments (torch.FloatTensor, string)', 'expected [result,] tensor, number'}, t.add, t, 'x')
    fails('cmul: element counts differ: a tensor of size 3x4 (12 elements) and one of size 2x2 (4 elements)', t.cmul, t, F(2, 2))
    fails('mm: size mismatch, 2x3 and 4x2', torch.mm, F(2, 3), F(4, 2))
    fails('mm: mat1 must be a 2D tensor, got 1D 3', torch.mm, F(3), F(3))
    fails('mv: size mismatch, 2x3 and 2', torch.mv, F(2, 3), F(2))
    fails('dot: element counts differ: a tensor of size 3 (3 elements) and one of size 4 (4 elements)', torch.dot, F(3), F(4))
    fails('copy: element counts differ: destination of size 3x4 has 12, source of size 5 has 5', t.copy, t, F(5))
    fails({"'copy'", 'tensor expected, got string'}, t.copy, t, 'x')
    fails({"'fill'", 'value must be a number, got string'}, t.fill, t, 'x')
    fails({"'fill'", 'value must be a number, got table'}, torch.FloatStorage(2).fill, torch.FloatStorage(2), {})
    fails('clamp: invalid arguments (torch.FloatTensor, string, number)', t.clamp, t, 'a', 1)
    fails('cat: sizes do not match: tensor 1 is 2x3, tensor 2 is 3x3', torch.cat, F(2, 3), F(3, 3), 2)
  end)

  it('reductions: dimensions and empty tensors', function()
    fails({"'sum'", 'dimension 3 out of range for a 2D tensor'}, t.sum, t, 3)
    fails({"'max'", 'dimension 0 out of range'}, t.max, t, 0)
    fails('max: tensor is empty', F().max, F())
    fails({"'sort'", 'dimension 3 out of range'}, t.sort, t, 3)
    fails('topk: k 10 out of range for dimension 2 of size 4 (expected 0..4)', t.topk, t, 10)
  end)

  it('NaN and inf propagate where they matter', function()
    local x = F({1, 0 / 0, 3})
    assert.is_true(x:sum() ~= x:sum())
    assert.are.equal(math.huge, F({1, math.huge}):max())
    local m = F(2, 2):fill(0 / 0)
    local r = torch.mm(m, F(2, 2):fill(1))
    assert.is_true(r[1][1] ~= r[1][1])
  end)

  it('kernels read non-contiguous views correctly', function()
    local a = F(4, 6):uniform()
    local nc = a:t()                             -- 6x4, not contiguous
    assert.is_false(nc:isContiguous())
    local c = nc:contiguous()
    assert.are.equal(c:sum(), nc:sum())
    assert.are.equal(0, (torch.mm(nc, F(4, 2):fill(1)) - torch.mm(c, F(4, 2):fill(1))):abs():max())
    local s = nc:clone():add(nc)
    assert.are.equal(0, (s - c * 2):abs():max())
    assert.are.equal(0, (nc:index(1, L({2, 5})) - c:index(1, L({2, 5}))):abs():max())
  end)

  it('constructors of sequences', function()
    fails('linspace: invalid number of points -1', torch.linspace, 0, 1, -1)
    fails('range: step must be nonzero', torch.range, 1, 10, 0)
    fails({"'randperm'", 'n must be strictly positive, got -1'}, torch.randperm, -1)
    fails('eye: sizes must be positive, got -1x-1', torch.eye, -1)
  end)
end)

describe('torch sugar written in Lua names itself', function()
  local t
  before_each(function() t = F(3, 4):uniform() end)

  it('reshape', function()
    fails('reshape: size must be non-negative, got -1 at dimension 1', t.reshape, t, -1)
    fails('reshape: cannot reshape a tensor of size 3x4 (12 elements) into 5 (5 elements)', t.reshape, t, 5)
    assert.are.same({2, 6}, {t:reshape(2, 6):size(1), t:reshape(2, 6):size(2)})
  end)

  it('typeAs, apply, map', function()
    fails('typeAs: tensor expected, got nil', t.typeAs, t, nil)
    fails('apply: function expected, got number', t.apply, t, 3)
    fails('map: tensor expected as argument 1, got number', t.map, t, 3, function(a) return a end)
    fails('map: element counts differ: a tensor of size 3x4 (12 elements) and one of size 2 (2 elements)', t.map, t, F(2), function(a) return a end)
    fails('map: function expected, got nil', t.map, t, F(3, 4))
  end)

  it('freed tensors', function()
    local u = F(3)
    u:free()
    fails({"'sum'", 'tensor was freed (used after :free()/:dispose())'}, u.sum, u)
  end)
end)

describe('torch.save, torch.load, torch.deserialize', function()
  it('bad names and modes', function()
    fails('torch.save: file name (string) expected, got nil', torch.save, nil, F(2))
    fails({'torch.save: /nonexistent/x.t7: cannot open for writing'}, torch.save, '/nonexistent/x.t7', F(2))
    fails({'torch.load: /nonexistent/x.t7: cannot open for reading'}, torch.load, '/nonexistent/x.t7')
    fails("torch.load: mode 'binary' or 'ascii' expected, got foo", torch.load, 'x', 'foo')
    fails('torch.deserialize: string expected, got number', torch.deserialize, 3)
    fails('torch.serialize: <string>: cannot save a C function (at <?>)', torch.serialize, print)
  end)

  it('corrupt and truncated data', function()
    fails('torch.deserialize: <string>: corrupt at byte 0: unknown type tag 1651663207', torch.deserialize, 'garbage')
    local s = torch.serialize(F(3, 4))
    fails({'torch.deserialize: <string>: truncated at byte', 'tensor sizes'}, torch.deserialize, s:sub(1, 40))
    for cut = 1, #s - 1, 7 do  -- every prefix is an error, never a crash
      fails('torch.deserialize: ', torch.deserialize, s:sub(1, cut))
    end
  end)

  it('a tensor in a file that reaches outside its storage is refused', function()
    -- a 2x2 Float tensor whose stride 5 would read past its 4-element storage
    local good = torch.serialize(F(2, 2):fill(1))
    local bad = good:gsub(string.pack('<i4<i8<i8<i8<i8', 2, 2, 2, 2, 1), string.pack('<i4<i8<i8<i8<i8', 2, 2, 2, 5, 1), 1)
    assert.are_not.equal(good, bad)
    fails({'torch.deserialize: ', 'lies outside its storage of 4 elements'}, torch.deserialize, bad)
  end)
end)
