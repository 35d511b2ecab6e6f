require 'torch'

describe('tensor core', function()
  it('constructs from sizes and tables', function()
    local t = torch.Tensor(2, 3)
    assert.are.equal(2, t:dim())
    assert.are.equal(6, t:nElement())
    local u = torch.FloatTensor({{1, 2, 3}, {4, 5, 6}})
    assert.are.equal(6, u[2][3])
    assert.are.equal('torch.FloatTensor', torch.type(u))
  end)
end)
