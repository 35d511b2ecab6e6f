-- Bit operations on integer tensors, as Torch7's THTensorMath: bitand,
-- bitor, bitxor, lshift, rshift with a number, cbitand ... crshift with a
-- tensor; shifts are logical in the type's width ((ureal) x << n); floating
-- tensors refuse the bit ops and shift by multiplying by 2^n.
require 'torch'
local H = require 'spec.support.helpers'

local INT = {'Byte', 'Char', 'Short', 'Int', 'Long'}

describe('bitand / bitor / bitxor', function()
  it('compute the bitwise operations for every integer type (hand values)', function()
    for _, n in ipairs(INT) do
      local T = torch[n .. 'Tensor']
      local x = T{12, 10, 0, 7}
      assert.are.same({8, 10, 0, 2}, x:clone():bitand(10):totable(), n)
      assert.are.same({14, 10, 10, 15}, x:clone():bitor(10):totable(), n)
      assert.are.same({6, 0, 10, 13}, x:clone():bitxor(10):totable(), n)
      local y = T{10, 3, 5, 7}
      assert.are.same({8, 2, 0, 7}, torch.cbitand(x, y):totable(), n)
      assert.are.same({14, 11, 5, 7}, torch.cbitor(x, y):totable(), n)
      assert.are.same({6, 9, 5, 0}, torch.cbitxor(x, y):totable(), n)
    end
  end)

  it('work on negative values in two\'s complement', function()
    assert.are.same({-8, 8}, torch.LongTensor{-7, 8}:bitand(-2):totable())
    assert.are.same({-1, -1}, torch.CharTensor{-128, 127}:cbitor(torch.CharTensor{127, -128}):totable())
    assert.are.same({-1}, torch.IntTensor{0}:bitxor(-1):totable())
  end)

  it('take Torch7\'s result forms and leave the input of the functional form alone', function()
    local x = torch.IntTensor{6, 5}
    local r = torch.IntTensor()
    assert.are.equal(r, torch.bitand(r, x, 4))
    assert.are.same({4, 4}, r:totable())
    assert.are.same({6, 5}, x:totable())
    local s = torch.bitor(x, 1)
    assert.are.same({7, 5}, s:totable())
    assert.are.same({6, 5}, x:totable())
    -- a non-contiguous target: Torch7's own test writes a column
    local m = torch.LongTensor{{33, 66}, {34, 70}}
    m[{{}, 2}]:bitand(31)
    assert.are.same({{33, 2}, {34, 6}}, m:totable())
  end)

  it('refuse floating tensors and mismatched tensors', function()
    H.errors(function() torch.DoubleTensor{1}:bitand(1) end,
             'bitand: not available for DoubleTensor (integer types only)')
    H.errors(function() torch.cbitxor(torch.FloatTensor{1}, torch.FloatTensor{1}) end,
             'cbitxor: not available for FloatTensor (integer types only)')
    H.errors(function() torch.cbitor(torch.IntTensor{1}, torch.LongTensor{1}) end, 'cbitor')
    H.errors(function() torch.IntTensor{1}:bitor('x') end, 'bitor: invalid arguments')
    H.errors(function() torch.IntTensor{1}:bitor(0 / 0) end, 'bitor: cannot convert nan to an integer')
  end)
end)

describe('lshift / rshift', function()
  it('shift the bits of the unsigned value of the type\'s width', function()
    assert.are.same({4, 40}, torch.LongTensor{1, 10}:lshift(2):totable())
    assert.are.same({2, 0}, torch.LongTensor{8, 1}:rshift(2):totable())
    -- logical, not arithmetic: -8 >> 1 in 32 bits is 0x7ffffffc
    assert.are.same({2147483644}, torch.IntTensor{-8}:rshift(1):totable())
    assert.are.same({127}, torch.CharTensor{-1}:rshift(1):totable())
    assert.are.same({32767}, torch.ShortTensor{-1}:rshift(1):totable())
    assert.are.same({math.maxinteger}, torch.LongTensor{-1}:rshift(1):totable())
    -- bits leave at the top and the value wraps in the type
    assert.are.same({-128, -128}, torch.CharTensor{-1, 3}:lshift(7):totable())
    assert.are.same({144}, torch.ByteTensor{201}:lshift(4):totable())
    assert.are.same({math.mininteger}, torch.LongTensor{1}:lshift(63):totable())
    -- a count of the width or more shifts every bit out
    assert.are.same({0, 0}, torch.ByteTensor{255, 1}:lshift(8):totable())
    assert.are.same({0}, torch.IntTensor{-1}:rshift(40):totable())
    assert.are.same({0}, torch.LongTensor{-1}:lshift(64):totable())
  end)

  it('clshift / crshift take per-element counts', function()
    local x = torch.ShortTensor{1, 3, -1, 256}
    local c = torch.ShortTensor{0, 2, 15, 8}
    assert.are.same({1, 12, -32768, 0}, torch.clshift(x, c):totable())
    assert.are.same({1, 0, 1, 1}, torch.crshift(x, c):totable())
    H.errors(function() torch.clshift(x, torch.ShortTensor{1, -1, 0, 0}) end,
             'clshift: shift counts must be non-negative')
    H.errors(function() x:lshift(-1) end, 'lshift: shift count must be a non-negative integer, got -1')
    H.errors(function() x:rshift(1.5) end, 'rshift: shift count must be a non-negative integer, got 1.5')
  end)

  it('multiply or divide floating tensors by 2^n, as Torch7', function()
    assert.are.same({12, -2, 0.75}, torch.DoubleTensor{3, -0.5, 0.1875}:lshift(2):totable())
    assert.are.same({0.75, 2}, torch.FloatTensor{3, 8}:rshift(2):totable())
    assert.are.same({6, 0.5}, torch.clshift(torch.DoubleTensor{3, 2}, torch.DoubleTensor{1, -2}):totable())
    assert.are.same({1.5, 8}, torch.crshift(torch.FloatTensor{3, 2}, torch.FloatTensor{1, -2}):totable())
  end)
end)
