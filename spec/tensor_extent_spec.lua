-- Issue #32: no kernel touches memory outside its tensors. A view can
-- outlive a shrink of its storage (storage:resize(0) while a tensor still
-- views it); every binding that reads or writes elements checks, once per
-- call, that offset + sum((size-1)*stride) lies inside the storage
-- (th_tensor_check_extent), so such a view is a clear error naming the
-- call, never a wild access. Views, sizes, resize and set stay usable;
-- a result the kernel resizes (torch.add(r, ...), a module's output)
-- gets its storage grown by that resize. Run under ASan too:
-- make test-asan SPEC=spec/tensor_extent_spec.lua
require 'nn'

local fails = require('spec.support.helpers').fails

-- a tensor of type 'T' ('Double', 'Float') and sizes 'sizes' viewing a
-- storage that shrank to 'keep' elements (0 when nil)
local function shrunk(T, sizes, keep)
  local n = 1
  for _, d in ipairs(sizes) do n = n * d end
  local s = torch[T .. 'Storage'](n + 1):fill(1)  -- one spare element: the view starts at offset 2
  local t = torch[T .. 'Tensor'](s, 2, torch.LongStorage(sizes))
  s:resize(keep or 0)
  return t
end

describe('a view past its storage', function()
  it('is an error for reductions and fills, naming the call and the sizes', function()
    local t = shrunk('Double', {10})
    fails({'sum: tensor argument #1 of size 10 extends past its storage (needs 11 elements, storage has 0)'},
          function() return t:sum() end)
    fails({'fill: tensor argument #1 of size 10 extends past its storage (needs 11 elements, storage has 0)'},
          function() t:fill(2) end)
    fails({'max: ', 'extends past its storage'}, function() return t:max() end)
    fails({'sum: ', 'needs 11 elements, storage has 5'},
          function() return shrunk('Float', {10}, 5):sum(1) end)
  end)

  it('is an error for pointwise math as input, and as an in-place result', function()
    local t, y = shrunk('Double', {2, 5}), torch.ones(2, 5)
    fails({'add: tensor argument #1 of size 2x5 extends past its storage'}, function() t:add(1) end)
    fails({'cmul: tensor argument #2 of size 2x5 extends past its storage'}, function() y:cmul(t) end)
    fails({'add: ', 'of size 2x5 extends past its storage'}, function() return torch.add(y, t) end)
    fails({'exp: ', 'extends past its storage'}, function() return torch.exp(t) end)
  end)

  it('is an error for copy, clone and indexing on either side', function()
    local t, y = shrunk('Float', {3, 4}), torch.FloatTensor(3, 4):zero()
    fails({'copy: tensor argument #2 of size 3x4 extends past its storage (needs 13 elements, storage has 0)'},
          function() y:copy(t) end)
    fails({'copy: tensor argument #1 of size 3x4 extends past its storage'}, function() t:copy(y) end)
    fails({'clone: ', 'extends past its storage'}, function() return t:clone() end)
    fails({'tensor index: tensor of size 3x4 extends past its storage'}, function() return t[2][3] end)
    fails({'tensor index: ', 'extends past its storage'}, function() t[{1, 1}] = 5 end)
    fails({'__newindex: value of size 3x4 extends past its storage'}, function() y[{}] = t end)
    fails({'cat: tensor at position 2 of the table of size 3x4 extends past its storage'},
          function() return torch.cat({y, t}, 1) end)
  end)

  it('is an error for BLAS operands and for the M of addmm', function()
    local a, b = shrunk('Double', {4, 3}), torch.ones(3, 2)
    fails({'mm: tensor argument #1 of size 4x3 extends past its storage'}, function() return torch.mm(a, b) end)
    fails({'addmm: ', 'of size 4x3 extends past its storage'},
          function() return torch.addmm(torch.ones(4, 2), torch.ones(4, 4), a) end)
    local m = shrunk('Double', {4, 2})
    fails({'addmm: tensor argument #1 of size 4x2 extends past its storage'},
          function() m:addmm(torch.ones(4, 3), b) end)  -- M is m itself: read
    fails({'addmv: ', 'extends past its storage'},
          function() return torch.addmv(torch.ones(4), a, torch.ones(3)) end)
  end)

  it('covers stride-0 expansions: the extent is offset + 1 element', function()
    local s = torch.DoubleStorage(4):fill(3)
    local e = torch.DoubleTensor(s, 4, torch.LongStorage{1}):expand(1000)
    assert.are.equal(3000, e:sum())
    s:resize(3)
    fails({'sum: tensor argument #1 of size 1000 extends past its storage (needs 4 elements, storage has 3)'},
          function() return e:sum() end)
  end)

  it('keeps views, shapes, resize and set usable; an empty view is no error', function()
    local t = shrunk('Double', {2, 5})
    assert.are.same({2, 5}, {t:size(1), t:size(2)})
    assert.are.equal(2, t:storageOffset())
    local v = t:narrow(2, 2, 3):t()
    assert.are.same({3, 2}, {v:size(1), v:size(2)})
    fails({'sum: tensor argument #1 of size 3x2 extends past its storage'}, function() return v:sum() end)
    local empty = t:narrow(1, 1, 0)
    assert.are.equal(0, empty:sum())
    t:resize(2, 5)             -- resize grows the storage to fit the view again
    assert.are.equal(11, t:storage():size())
    t:fill(1)
    assert.are.equal(10, t:sum())
    local u = shrunk('Double', {6})
    u:set(torch.DoubleStorage(6):fill(2))
    assert.are.equal(12, u:sum())
  end)

  it('lets a result the kernel resizes grow its storage', function()
    local r = shrunk('Double', {2, 3})
    torch.add(r, torch.ones(2, 3), torch.ones(2, 3))
    assert.are.equal(12, r:sum())
    assert.are.equal(7, r:storage():size())
    local p = shrunk('Double', {2, 2})
    torch.mm(p, torch.ones(2, 3), torch.ones(3, 2))
    assert.are.equal(12, p:sum())
  end)
end)

describe('nn kernels given a view past its storage', function()
  it('name the module, the method and the argument', function()
    torch.manualSeed(1)
    local conv = nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1):double()
    local x = shrunk('Double', {1, 2, 6, 6})
    fails({'nn.SpatialConvolution:updateOutput: input of size 1x2x6x6 extends past its storage (needs 73 elements, storage has 0)'},
          function() conv:forward(x) end)
    fails({'nn.ReLU:updateOutput: input of size 1x2x6x6 extends past its storage'},
          function() nn.ReLU():double():forward(x) end)
    fails({'nn.SpatialMaxPooling:updateOutput: input of size 1x2x6x6 extends past its storage'},
          function() nn.SpatialMaxPooling(2, 2):double():forward(x) end)
    fails({'nn.SpatialBatchNormalization:updateOutput: input of size 1x2x6x6 extends past its storage'},
          function() nn.SpatialBatchNormalization(2):double():evaluate():forward(x) end)
    fails({'extends past its storage'}, function() nn.Linear(6, 2):double():forward(x[1][1]:view(6, 6)) end)
  end)

  it('check gradOutput and the parameters, and the output read by backward', function()
    torch.manualSeed(1)
    local conv = nn.SpatialConvolution(2, 3, 3, 3):double()
    local x = torch.randn(1, 2, 5, 5)
    local y = conv:forward(x)
    local go = shrunk('Double', {1, 3, 3, 3})
    fails({'nn.SpatialConvolution:updateGradInput: gradOutput of size 1x3x3x3 extends past its storage'},
          function() conv:updateGradInput(x, go) end)
    conv.weight:storage():resize(10)
    fails({'nn.SpatialConvolution:updateOutput: weight of size 3x2x3x3 extends past its storage (needs 54 elements, storage has 10)'},
          function() conv:forward(x) end)
    local sig = nn.Sigmoid():double()
    sig:forward(torch.randn(2, 3))
    sig.output:storage():resize(0)
    fails({'nn.Sigmoid:updateGradInput: output of size 2x3 extends past its storage'},
          function() sig:updateGradInput(torch.randn(2, 3), torch.randn(2, 3)) end)
    assert.are.equal(27, y:nElement())
  end)

  it('let a module output whose storage shrank be resized by its kernel', function()
    torch.manualSeed(1)
    local conv = nn.SpatialConvolution(2, 3, 3, 3):double()
    local x = torch.randn(2, 2, 5, 5)
    local a = conv:forward(x):clone()
    conv.output:storage():resize(0)
    assert.are.equal(0, (conv:forward(x) - a):abs():max())
    local relu = nn.ReLU():double()
    local b = relu:forward(x):clone()
    relu.output:storage():resize(0)
    assert.are.equal(0, (relu:forward(x) - b):abs():max())
  end)
end)

describe('serialization of a view past its storage', function()
  it('is refused at write time, naming the writer', function()
    local t = shrunk('Double', {4})
    fails({'torch.serialize', 'tensor of size 4 extends past its storage (needs 5 elements, storage has 0)'},
          function() return torch.serialize(t) end)
  end)
end)
