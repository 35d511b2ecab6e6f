-- nn table modules: CAddTable (in place too), CSubTable, CMulTable,
-- JoinTable, SplitTable, SelectTable, NarrowTable, FlattenTable,
-- PairwiseDistance. Values by hand, gradients with nn.Jacobian (table
-- inputs included), error messages.
require 'torch'
require 'nn'

local function T(t) return torch.DoubleTensor(t) end

local same = require('spec.support.helpers').same

local function sizes(t) return table.concat(t:size():totable(), 'x') end

local errorMessage = require('spec.support.helpers').errorMessage

local function jacobianOK(m, input, tol)
  local err = nn.Jacobian.testJacobian(m, input)
  assert.is_true(err < (tol or 1e-5), 'Jacobian error ' .. err)
end

torch.manualSeed(7)

describe('nn.CAddTable', function()
  it('adds its inputs; every gradInput is gradOutput', function()
    local m = nn.CAddTable()
    local x = {T{1, 2}, T{10, 20}, T{100, 200}}
    assert.is_true(same(m:forward(x), T{111, 222}))
    assert.is_true(same(x[1], T{1, 2}))
    local gi = m:backward(x, T{3, 4})
    assert.are.equal(3, #gi)
    for i = 1, 3 do assert.is_true(same(gi[i], T{3, 4})) end
    jacobianOK(m, {torch.randn(2, 3), torch.randn(2, 3)})
  end)

  it('in place gives the same values and writes into input[1]', function()
    local x1, x2 = torch.randn(3, 2), torch.randn(3, 2)
    local ref = nn.CAddTable():forward({x1:clone(), x2})
    local m = nn.CAddTable(true)
    local a = x1:clone()
    local y = m:forward({a, x2})
    assert.is_true(same(y, ref))
    assert.are.equal(a:storage(), y:storage())
    assert.is_true(same(a, ref))
    local go = torch.randn(3, 2)
    local gi = m:backward({a, x2}, go)
    assert.are.equal(go:storage(), gi[2]:storage())
    assert.is_true(same(gi[1], go))
    assert.are.equal('inplace', m:memoryTraits().inplace)
  end)

  it('drops stale gradInput entries when the table shrinks', function()
    local m = nn.CAddTable()
    m:forward({T{1}, T{2}, T{3}}) m:backward({T{1}, T{2}, T{3}}, T{1})
    m:forward({T{1}, T{2}}) local gi = m:backward({T{1}, T{2}}, T{1})
    assert.are.equal(2, #gi)
  end)

  it('checks its inputs', function()
    local m = nn.CAddTable()
    assert.are.equal('nn.CAddTable:updateOutput: input[2] (3) and input[1] (2) must have the same number of elements',
                     errorMessage(m.forward, m, {T{1, 2}, T{1, 2, 3}}))
    assert.are.equal('nn.CAddTable:updateOutput: input must be a table of at least 1 tensors, got 1D 2',
                     errorMessage(m.forward, m, T{1, 2}))
  end)
end)

describe('nn.CSubTable and nn.CMulTable', function()
  it('CSubTable subtracts the second input', function()
    local m = nn.CSubTable()
    local x = {T{5, 7}, T{1, 2}}
    assert.is_true(same(m:forward(x), T{4, 5}))
    local gi = m:backward(x, T{1, 2})
    assert.is_true(same(gi[1], T{1, 2}))
    assert.is_true(same(gi[2], T{-1, -2}))
    jacobianOK(m, {torch.randn(4), torch.randn(4)})
    assert.are.equal('nn.CSubTable:updateOutput: input must be a table of 2 tensors, got 3',
                     errorMessage(m.forward, m, {T{1}, T{1}, T{1}}))
  end)

  it('CMulTable multiplies, with zeros in the inputs', function()
    local m = nn.CMulTable()
    local x = {T{2, 0, 1}, T{3, 4, -1}, T{1, 2, 5}}
    assert.is_true(same(m:forward(x), T{6, 0, -5}))
    local gi = m:backward(x, T{1, 1, 1})
    assert.is_true(same(gi[1], T{3, 8, -5}))
    assert.is_true(same(gi[2], T{2, 0, 5}))
    assert.is_true(same(gi[3], T{6, 0, -1}))
    jacobianOK(m, {torch.randn(2, 2), torch.randn(2, 2), torch.randn(2, 2)})
  end)
end)

describe('nn.JoinTable', function()
  it('joins along a dimension and splits the gradient back', function()
    local m = nn.JoinTable(1)
    local x = {T{{1, 2}}, T{{3, 4}, {5, 6}}}
    local y = m:forward(x)
    assert.is_true(same(y, T{{1, 2}, {3, 4}, {5, 6}}))
    local gi = m:backward(x, T{{1, 1}, {2, 2}, {3, 3}})
    assert.are.equal('1x2', sizes(gi[1]))
    assert.is_true(same(gi[2], T{{2, 2}, {3, 3}}))
    jacobianOK(m, {torch.randn(2, 3), torch.randn(1, 3), torch.randn(3, 3)})
  end)

  it('shifts the dimension for batches with nInputDims and counts negative dimensions from the end', function()
    local m = nn.JoinTable(1, 1)
    assert.are.equal('5', sizes(m:forward({torch.randn(2), torch.randn(3)})))
    assert.are.equal('4x5', sizes(m:forward({torch.randn(4, 2), torch.randn(4, 3)})))
    local n = nn.JoinTable(-1)
    assert.are.equal('4x5', sizes(n:forward({torch.randn(4, 2), torch.randn(4, 3)})))
    jacobianOK(m, {torch.randn(2, 2), torch.randn(2, 3)})
  end)

  it('rejects mismatched inputs', function()
    local m = nn.JoinTable(2)
    assert.are.equal('nn.JoinTable:updateOutput: input[2] (3x2) does not match input[1] (2x2) outside dimension 2',
                     errorMessage(m.forward, m, {torch.randn(2, 2), torch.randn(3, 2)}))
    assert.are.equal('nn.JoinTable:updateOutput: dimension 2 out of range for input[1] 1D 2',
                     errorMessage(m.forward, m, {torch.randn(2)}))
  end)
end)

describe('nn.SplitTable', function()
  it('splits into views along a dimension', function()
    local m = nn.SplitTable(2)
    local x = T{{1, 2, 3}, {4, 5, 6}}
    local y = m:forward(x)
    assert.are.equal(3, #y)
    assert.is_true(same(y[2], T{2, 5}))
    assert.are.equal(x:storage(), y[1]:storage())
    -- each call gives a new table of new views (Torch7): the table of the
    -- first call still holds the first input's slices
    local y2 = m:forward(T{{7, 8, 9}, {10, 11, 12}})
    assert.are_not.equal(y, y2)
    assert.is_true(same(y[1], T{1, 4}))
    assert.is_true(same(y2[1], T{7, 10}))
    local gi = m:backward(x, {T{1, 1}, T{2, 2}, T{3, 3}})
    assert.is_true(same(gi, T{{1, 2, 3}, {1, 2, 3}}))
    jacobianOK(m, torch.randn(3, 2))
  end)

  it('handles nInputDims batches, negative dimensions and fewer slices', function()
    local m = nn.SplitTable(1, 1)
    local v = m:forward(T{4, 5, 6})
    assert.are.same({4, 5, 6}, v)   -- a vector splits into numbers, as in Torch7
    assert.is_true(same(m:backward(T{4, 5, 6}, {1, 2, 3}), T{1, 2, 3}))
    assert.are.equal(2, #m:forward(torch.randn(4, 2)))
    local n = nn.SplitTable(-1)
    assert.are.equal(5, #n:forward(torch.randn(2, 5)))
    assert.are.equal(2, #n:forward(torch.randn(2, 2)))
    assert.are.equal('nn.SplitTable:updateGradInput: gradOutput must be a table of 2 tensors, got table of 1 elements',
                     errorMessage(n.backward, n, torch.randn(2, 2), {torch.randn(2)}))
  end)
end)

describe('nn.SelectTable', function()
  it('selects an element, with negative indices', function()
    local x = {T{1}, T{2, 3}, {T{4}, T{5}}}
    local m = nn.SelectTable(2)
    assert.is_true(same(m:forward(x), T{2, 3}))
    local gi = m:backward(x, T{7, 8})
    assert.is_true(same(gi[1], T{0}))
    assert.is_true(same(gi[2], T{7, 8}))
    assert.is_true(same(gi[3][2], T{0}))
    local last = nn.SelectTable(-1)
    local y = last:forward(x)
    assert.are.equal(x[3], y)
    local g2 = last:backward(x, {T{1}, T{2}})
    assert.is_true(same(g2[3][2], T{2}))
    assert.is_true(same(g2[2], T{0, 0}))
    jacobianOK(nn.SelectTable(-2), {torch.randn(2), torch.randn(3), torch.randn(1)})
  end)

  it('errors on a missing index', function()
    local m = nn.SelectTable(4)
    assert.are.equal('nn.SelectTable:updateOutput: index 4 does not exist in an input table of 2 elements',
                     errorMessage(m.forward, m, {T{1}, T{2}}))
  end)
end)

describe('nn.NarrowTable', function()
  it('takes a window of the table', function()
    local x = {T{1}, T{2}, T{3}, T{4}}
    local m = nn.NarrowTable(2, 2)
    local y = m:forward(x)
    assert.are.equal(2, #y)
    assert.are.equal(x[2], y[1])
    assert.are.equal(x[3], y[2])
    local gi = m:backward(x, {T{5}, T{6}})
    assert.are.equal(4, #gi)
    assert.is_true(same(gi[1], T{0}))
    assert.is_true(same(gi[3], T{6}))
    assert.is_true(same(gi[4], T{0}))
    jacobianOK(m, {torch.randn(2), torch.randn(3), torch.randn(1), torch.randn(2)})
  end)

  it('counts a negative length from the end', function()
    local m = nn.NarrowTable(2, -1)
    assert.are.equal(3, #m:forward({T{1}, T{2}, T{3}, T{4}}))
    assert.are.equal(1, #m:forward({T{1}, T{2}}))
    assert.are.equal('nn.NarrowTable:updateOutput: cannot take 2 elements from 1 of an input table of 1 elements',
                     errorMessage(nn.NarrowTable(1, 2).forward, nn.NarrowTable(1, 2), {T{1}}))
  end)

  it('never zeroes a gradOutput tensor it handed out before', function()
    local x = {T{1}, T{2}}
    local a, b = nn.NarrowTable(1), nn.NarrowTable(2)
    local go = {T{9}}
    a:forward(x) a:backward(x, go)
    b:forward(x) b:backward(x, go)
    a:backward(x, go)
    assert.are.equal(9, go[1][1])
  end)
end)

describe('nn.FlattenTable', function()
  it('flattens nested tables depth first and rebuilds the nesting', function()
    local a, b, c, d = T{1}, T{2}, T{3}, T{4}
    local m = nn.FlattenTable()
    local y = m:forward({a, {b, {c}}, d})
    assert.are.equal(4, #y)
    assert.are.equal(a, y[1]) assert.are.equal(c, y[3]) assert.are.equal(d, y[4])
    local g = {T{10}, T{20}, T{30}, T{40}}
    local gi = m:backward({a, {b, {c}}, d}, g)
    assert.are.equal(g[1], gi[1])
    assert.are.equal(g[3], gi[2][2][1])
    assert.are.equal(g[4], gi[3])
    -- a different structure is re-mapped
    y = m:forward({{a, b}})
    assert.are.equal(2, #y)
    jacobianOK(m, {torch.randn(2), {torch.randn(3), {torch.randn(1)}}})
  end)
end)

describe('nn.PairwiseDistance', function()
  local function dist(a, b, p)
    local s = 0
    for i = 1, a:size(1) do s = s + math.abs(a[i] - b[i]) ^ p end
    return s ^ (1 / p)
  end

  for _, p in ipairs{1, 2, 3} do
    it('p = ' .. p .. ' on vectors and batches, with gradients', function()
      local m = nn.PairwiseDistance(p)
      local a, b = torch.randn(5), torch.randn(5)
      local y = m:forward({a, b})
      assert.are.equal('1', sizes(y))
      assert.is_true(math.abs(y[1] - dist(a, b, p)) < 1e-12)
      local A, B = torch.randn(4, 3), torch.randn(4, 3)
      y = m:forward({A, B})
      assert.are.equal('4', sizes(y))
      for i = 1, 4 do assert.is_true(math.abs(y[i] - dist(A[i], B[i], p)) < 1e-12) end
      -- (the 1e-6 guard against division by zero shifts gradients by ~1e-6)
      jacobianOK(m, {torch.randn(5), torch.randn(5)})
      jacobianOK(m, {torch.randn(3, 4), torch.randn(3, 4)})
    end)
  end

  it('gradients are opposite and scaled by gradOutput', function()
    local m = nn.PairwiseDistance(2)
    local x = {T{{3, 0}, {0, 0}}, T{{0, 4}, {1, 0}}}
    assert.is_true(same(m:forward(x), T{5, 1}))
    local gi = m:backward(x, T{10, 1})
    assert.is_true(same(gi[1], T{{6, -8}, {-1, 0}}, 1e-4))
    assert.is_true(same(gi[2], T{{-6, 8}, {1, 0}}, 1e-4))
  end)

  it('rejects mismatched inputs', function()
    local m = nn.PairwiseDistance()
    assert.are.equal('nn.PairwiseDistance:updateOutput: inputs must be two vectors or two matrices of the same size, got 1D 2 and 1D 3',
                     errorMessage(m.forward, m, {T{1, 2}, T{1, 2, 3}}))
  end)
end)
