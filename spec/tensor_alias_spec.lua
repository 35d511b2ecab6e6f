-- Results that share a storage with an operand (src/tensor/th_math_util.c
-- th_math_out_begin): disjoint views of one storage (optnet's arena) are
-- written directly, overlapping ones through a temporary; both give the
-- numbers of separate tensors.
require 'torch'

describe('math results in a storage shared with an operand', function()
  it('disjoint views of one storage: correct, and no temporary allocated', function()
    local s = torch.FloatTensor(3 * 1000):uniform()
    local a, b, r = s:narrow(1, 1, 1000), s:narrow(1, 1001, 1000), s:narrow(1, 2001, 1000)
    local ea = a:clone():add(b:clone())
    local before = torch._C.memoryStats().total_count
    r:add(a, b)
    local after = torch._C.memoryStats().total_count
    assert.are.equal(0, (r - ea):abs():max())
    assert.are.equal(before, after)
    -- the operands were not touched
    assert.are.equal(0, (a + b - r):abs():max())
  end)

  it('overlapping views still go through a temporary and give separate-tensor numbers', function()
    for _, shift in ipairs({1, 7, 999}) do
      local s = torch.DoubleTensor(2000):uniform()
      local a = s:narrow(1, 1, 1000)
      local r = s:narrow(1, 1 + shift, 1000)
      local b = torch.DoubleTensor(1000):uniform()
      local expect = a:clone():cmul(b)
      r:cmul(a, b)
      assert.are.equal(0, (r - expect):abs():max(), 'shift ' .. shift)
    end
  end)

  it('a view ending where the other begins counts as apart; one element more does not', function()
    local s = torch.FloatTensor(20):range(1, 20)
    local a, r = s:narrow(1, 1, 10), s:narrow(1, 11, 10)
    r:mul(a, 2)
    assert.are.same(torch.range(2, 20, 2):float():totable(), r:totable())
    -- one element in common (element 10): the temporary keeps it right
    local t = torch.FloatTensor(20):range(1, 20)
    local x, y = t:narrow(1, 1, 10), t:narrow(1, 10, 10)
    y:mul(x, 3)
    assert.are.same(torch.range(3, 30, 3):float():totable(), y:totable())
  end)
end)
