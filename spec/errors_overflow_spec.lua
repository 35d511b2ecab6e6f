-- Sizes, strides, offsets and indices at the edges of int64 (2^63-1, -2^63,
-- 2^62): each is a Lua error that names the function and shows the value
-- the user passed, never a wrapped number or undefined behaviour (these
-- specs run under UBSan in `make test-asan`, where a signed overflow aborts).
require 'nn'

local MIN, MAX = math.mininteger, math.maxinteger

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  return tostring(err)
end

-- the message, without the position of the caller (this file)
local function plain(f, ...)
  return (errmsg(f, ...):gsub('^[^:\n]+:%d+: ', ''))
end

describe('int64 edges', function()
  it('index, indexFill, indexCopy, indexAdd, gather, scatter with index -2^63', function()
    local x = torch.zeros(3, 2)
    local idx = torch.LongTensor({MIN})
    local want = 'index -9223372036854775808 out of range for dimension 1 of size 3 (entry 1 of the index)'
    assert.are.equal('index: ' .. want, plain(x.index, x, 1, idx))
    assert.are.equal('indexFill: ' .. want, plain(x.indexFill, x, 1, idx, 1))
    assert.are.equal('indexCopy: ' .. want, plain(x.indexCopy, x, 1, idx, torch.zeros(1, 2)))
    assert.are.equal('indexAdd: ' .. want, plain(x.indexAdd, x, 1, idx, torch.zeros(1, 2)))
    local g = torch.LongTensor(1, 2):fill(MIN)
    assert.are.equal('gather: ' .. want, plain(x.gather, x, 1, g))
    assert.are.equal('scatter: ' .. want, plain(x.scatter, x, 1, g, 0))
    -- and 2^63-1
    assert.are.equal('index: index 9223372036854775807 out of range for dimension 1 of size 3 (entry 1 of the index)',
                     plain(x.index, x, 1, torch.LongTensor({MAX})))
  end)

  it('a .t7 tensor reaching element 2^63 is a load error that prints it', function()
    local s = torch.serialize(torch.FloatTensor(3):fill(1))
    -- the payload: 1 dimension, size 3, stride 1, offset 1 (1-based)
    local payload = string.pack('<i4i8i8i8', 1, 3, 1, 1)
    local at = assert(s:find(payload, 1, true))
    local bad = s:sub(1, at - 1) .. string.pack('<i4i8i8i8', 1, MAX, 1, 2) .. s:sub(at + #payload)
    assert.is_truthy(errmsg(torch.deserialize, bad):find(
      'a 9223372036854775807 tensor at offset 2 with strides reaching element 9223372036854775808 lies outside its storage of 3 elements',
      1, true))
  end)

  it('expand names a negative size', function()
    local t = torch.Tensor(1, 3)
    assert.are.equal('expand: cannot expand size 1x3 to -1x3: size -1 at dimension 1 must be non-negative',
                     plain(t.expand, t, -1, 3))
  end)

  it('diag of a vector on a far diagonal', function()
    local v = torch.Tensor(3)
    assert.are.equal('diag: diagonal 9223372036854775806 of a 3-element vector needs a matrix of more than 2^63 elements',
                     plain(torch.diag, v, MAX - 1))
    assert.are.equal('diag: diagonal -9223372036854775808 of a 3-element vector needs a matrix of more than 2^63 elements',
                     plain(torch.diag, v, MIN))
    -- 2^63 - 2 as a float is 2^63: not an integer
    assert.are.equal("bad argument #3 to 'diag' (integer diagonal index expected, got number)",
                     plain(torch.diag, v, 2 ^ 63 - 2))
    assert.are.equal('diag: diagonal 9223372036854775806 out of range for a 3x3 matrix',
                     plain(torch.diag, torch.zeros(3, 3), MAX - 1))
  end)

  it('unfold of a huge stride-0 view: the result count must fit', function()
    local e = torch.Tensor(1):expand(2 ^ 62)
    assert.are.equal('unfold: unfold of dimension 1 (size 2305843009213693952, step 1) gives more than 2^63 elements',
                     plain(e.unfold, e, 1, 2 ^ 61, 1))
    -- windows that fit are fine (2^61 windows of 2: 2^62 elements, all one)
    assert.are.equal(2 ^ 62, e:unfold(1, 2, 2):nElement())
  end)

  it('narrow, select, sub show the value passed', function()
    local x = torch.zeros(3, 3)
    assert.matches("bad argument #3 to 'narrow' %(index %-9223372036854775808 out of range", plain(x.narrow, x, 1, MIN, 1))
    assert.matches("bad argument #4 to 'narrow' %(size 9223372036854775807 from index 2", plain(x.narrow, x, 1, 2, MAX))
    assert.matches("bad argument #3 to 'select' %(index %-9223372036854775808 out of range", plain(x.select, x, 1, MIN))
    assert.are.equal("bad argument #2 to 'sub' (start -9223372036854775808 out of range for dimension 1 of size 3)",
                     plain(x.sub, x, MIN, MAX))
    assert.are.equal("bad argument #3 to 'sub' (end -9223372036854775808 out of range for dimension 1 (start -1, size 3))",
                     plain(x.sub, x, -1, MIN))
  end)

  it('sizes whose product overflows', function()
    assert.are.equal('resize: size overflows: more than 2^63 elements', plain(function() torch.Tensor():resize(MAX, 2) end))
    assert.are.equal("repeatTensor: the result's size overflows (more than 2^63 elements)",
                     plain(function() local r = torch.Tensor(2):repeatTensor(2 ^ 62, 4) return r end))
    assert.are.equal('eye: size overflows: more than 2^63 elements', plain(function() local r = torch.eye(MAX, 2) return r end))
    assert.are.equal('view: size must be non-negative or -1, got -9223372036854775808',
                     plain(function() local x = torch.zeros(3, 3) local r = x:view(MIN, -1) return r end))
  end)

  it('nn index readers take -2^63 and 2^63-1 as out of range (not as "not an integer")', function()
    assert.are.equal('nn.LookupTable:updateOutput: index -9223372036854775808 at position 1 out of range (expected 1..5)',
                     plain(function() local y = nn.LookupTable(5, 2):forward(torch.LongTensor({MIN})) return y end))
    assert.are.equal('nn.ClassNLLCriterion:updateOutput: target -9223372036854775808 at position 1 out of range (expected 1..3)',
                     plain(function() local y = nn.ClassNLLCriterion():forward(torch.randn(2, 3), torch.LongTensor({MIN, 1})) return y end))
    assert.are.equal('nn.Index:updateOutput: index: index -9223372036854775808 out of range for dimension 1 of size 3 (entry 1 of the index)',
                     plain(function() local y = nn.Index(1):forward({torch.randn(3), torch.LongTensor({MIN})}) return y end))
  end)
end)

describe('the place of an error is the user\'s call', function()
  local here = '^spec/errors_overflow_spec%.lua:%d+: '
  local function placed(f)
    local e = errmsg(f)
    assert.matches(here, e)
    assert.is_falsy(e:find('/lua/torch/', 1, true) or e:find('/lua/nn/', 1, true), e)
    return e
  end

  it('for tensor methods and torch functions written in Lua', function()
    placed(function() local r = torch.Tensor(2):repeatTensor(2 ^ 62, 4) return r end)
    placed(function() local r = torch.Tensor(3):diag(MAX - 1) return r end)
    placed(function() local r = torch.range(1, MAX) return r end)
    placed(function() local r = torch.linspace(0, 1, MAX) return r end)
    placed(function() local r = torch.multinomial(torch.Tensor({1, 1}), MAX, true) return r end)
    placed(function() local r = torch.randperm(MAX) return r end)
  end)

  it('for constructors: an inner error is the constructor\'s', function()
    assert.are.equal('nn.SpatialConvolution: torch.DoubleTensor: size 9223372036854775807 is too large for Double elements',
                     errmsg(function() local m = nn.SpatialConvolution(1, 1, MAX, 1) return m end))
  end)

  it('for nn modules and criterions, also inside containers', function()
    placed(function() local y = nn.Linear(3, 2):forward(torch.randn(4)) return y end)
    placed(function() local y = nn.Padding(1, MIN):forward(torch.randn(3)) return y end)
    local e = placed(function()
      local y = nn.Sequential():add(nn.Linear(3, 3)):add(nn.Linear(2, 2)):forward(torch.randn(3))
      return y
    end)
    assert.matches('In 2 module of nn.Sequential:\nnn.Linear', e)
    placed(function() local y = nn.MSECriterion():forward(torch.randn(3), torch.randn(4)) return y end)
    -- an error in the user's own module keeps its own place
    local Mine = torch.class('nn.ErrorsOverflowSpecMine', 'nn.Module')
    function Mine:updateOutput() error('mine') end
    assert.matches(here .. 'mine$', errmsg(function() local y = Mine():forward(torch.randn(2)) return y end))
  end)

  it('closing a module\'s output with <close> is refused at once, with the reason', function()
    local optnet = require 'optnet'
    local net = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
    local x = torch.randn(2, 4)
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local e = errmsg(function()
      local out <close> = net:forward(x)
      local _ = out:sum()
    end)
    assert.is_truthy(e:find('free: this tensor belongs to a module (its output, gradInput, a parameter or a buffer)', 1, true), e)
    -- the net is intact: it runs, and its optimization can be removed
    assert.are.same({2, 2}, net:forward(x):size():totable())
    optnet.removeOptimization(net)
    assert.are.same({2, 2}, net:forward(x):size():totable())
    -- a tensor of the user's own is freed as before
    local t = torch.Tensor(3)
    t:free()
    assert.is_true(t:isFreed())
  end)
end)
