-- nn.SparseLinear and nn.Kmeans (the linear family's modules whose input
-- is not a plain dense tensor, or whose backward is not a derivative):
-- harness cases, values against a dense Linear / hand computation, the
-- sparse update rules, errors.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'

local function close(a, b, eps, what)
  local d = (a:double() - b:double()):abs():max()
  assert(d <= (eps or 1e-10), string.format('%s: differs by %g', what or 'tensors', d))
end

-- an nnz x 2 sample {index, value} with distinct indices in [1, n]
local function sample(n, nnz)
  local s = torch.Tensor(nnz, 2)
  s:select(2, 1):copy(torch.randperm(n):narrow(1, 1, nnz))
  s:select(2, 2):copy(torch.randn(nnz))
  return s
end

local function dense(s, n)
  local d = torch.zeros(n)
  for i = 1, s:size(1) do d[s[i][1]] = d[s[i][1]] + s[i][2] end
  return d
end

describe('nn.SparseLinear', function()
  local why = 'the input holds indices: the gradient is checked on the values through the parameters'
  -- prefix = false: the input holds indices, so no x * 1 in front of it
  mc.module(it, {name = 'SparseLinear single', make = function() return nn.SparseLinear(10, 3, true) end, prefix = false,
                 input = function() return sample(10, 4) end, minval = 'keep', jacobian = false, why = why,
                 tostring = 'nn.SparseLinear'})
  mc.module(it, {name = 'SparseLinear batch', make = function() return nn.SparseLinear(10, 3) end,
                 input = function() return {sample(10, 4), sample(10, 2), sample(10, 5)} end,
                 input2 = function() return {sample(10, 3), sample(10, 6)} end,
                 minval = 'keep', jacobian = false, why = why})
  mc.module(it, {name = 'SparseLinear legacy batch', make = function() return nn.SparseLinear(10, 3, true) end,
                 input = function()
                   local x = torch.Tensor(3, 4, 2)
                   for i = 1, 3 do x[i]:copy(sample(10, 4)) end
                   return x
                 end,
                 minval = 'keep', jacobian = false, why = why})

  it('gives the dense Linear layer numbers', function()
    local m = nn.SparseLinear(8, 3, true)
    local l = nn.Linear(8, 3)
    l.weight:copy(m.weight)
    l.bias:copy(m.bias)
    local xs = {sample(8, 3), sample(8, 5)}
    local xd = torch.Tensor(2, 8)
    xd[1]:copy(dense(xs[1], 8))
    xd[2]:copy(dense(xs[2], 8))
    close(m:forward(xs), l:forward(xd), 1e-12)
    close(m:forward(xs[2]), l.output[2], 1e-12)
    local g = torch.randn(2, 3)
    m:zeroGradParameters()
    l:zeroGradParameters()
    local gi = m:backward(xs, g)
    l:backward(xd, g)
    close(m.gradWeight, l.gradWeight, 1e-12)
    close(m.gradBias, l.gradBias, 1e-12)
    assert.are.equal(2, #gi)
    close(gi[2]:select(2, 2), l.gradInput[2], 1e-12)
    close(gi[1]:select(2, 1), torch.range(1, 8))
    assert.are.same({}, nn.SparseLinear(8, 3):backward(xs, g))
    -- no sample: the bias
    close(m:forward({}), m.bias)
  end)

  it('updates only the touched columns after one accumulation, all after several', function()
    local m = nn.SparseLinear(6, 2)
    local x = torch.Tensor{{2, 1}, {5, 0}}          -- index 5 has value 0: untouched
    m.gradWeight:fill(1)
    m.gradBias:fill(1)
    m:zeroGradParameters()                          -- no last input: zeroes everything
    assert.are.equal(0, m.gradWeight:abs():sum())
    m:forward(x)
    m:backward(x, torch.Tensor{1, 1})
    m.gradWeight:select(2, 4):fill(7)               -- a column the input did not touch
    local w = m.weight:clone()
    m:updateParameters(0.5)
    close(m.weight:select(2, 2), w:select(2, 2) - 0.5, 1e-12)
    close(m.weight:select(2, 4), w:select(2, 4))
    close(m.weight:select(2, 5), w:select(2, 5))
    m:zeroGradParameters()
    assert.are.equal(0, m.gradWeight:select(2, 2):abs():sum())
    assert.are.equal(14, m.gradWeight:select(2, 4):sum())   -- sparse zeroing kept it
    m:zeroGradParameters()                          -- now a full zero
    assert.are.equal(0, m.gradWeight:abs():sum())
    m:forward(x); m:backward(x, torch.Tensor{1, 1})
    m:forward(x); m:backward(x, torch.Tensor{1, 1})
    m.gradWeight:select(2, 4):fill(2)
    w = m.weight:clone()
    m:updateParameters(1)
    close(m.weight:select(2, 4), w:select(2, 4) - 2, 1e-12)
  end)

  it('adds weightDecay * weight to gradWeight', function()
    local m = nn.SparseLinear(4, 2)
    m.weightDecay = 0.1
    m:zeroGradParameters()
    local x = torch.Tensor{{1, 2}}
    m:forward(x)
    m:backward(x, torch.Tensor{1, -1})
    local expect = m.weight * 0.1
    expect:select(2, 1):add(torch.Tensor{2, -2})
    close(m.gradWeight, expect, 1e-12)
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.SparseLinear(5, 2):forward(torch.Tensor{{6, 1}}) end,
             'nn.SparseLinear:updateOutput: indices must be integers in [1, 5], got values in [6, 6]')
    H.errors(function() nn.SparseLinear(5, 2):forward({torch.Tensor{{1, 1}}, torch.randn(3)}) end,
             'nn.SparseLinear:updateOutput: sample 2 must be an nnz x 2 tensor of {index, value} rows, got 1D 3')
    H.errors(function() nn.SparseLinear(5, 2):forward(torch.randn(2, 2, 3)) end,
             'nn.SparseLinear:updateOutput: input must be an nnz x 2 tensor, a table of them or a batch x nnz x 2 tensor, got 3D 2x2x3')
    local m = nn.SparseLinear(5, 2)
    local x = {torch.Tensor{{1, 1}}}
    m:forward(x)
    H.errors(function() m:backward(x, torch.randn(2)) end,
             'nn.SparseLinear:accGradParameters: gradOutput must be 1x2, got 1D 2')
  end)
end)

describe('nn.Kmeans', function()
  -- three well separated clusters: float and double agree on every assignment
  local function clusters(n)
    local x = torch.randn(n, 2):mul(0.1)
    for i = 1, n do x[i]:add((i % 3) * 10) end
    return x
  end
  local why = 'the output is cluster indices and backward is the k-means update, not a derivative'
  mc.module(it, {name = 'Kmeans', make = function()
                   local m = nn.Kmeans(3, 2)
                   m.weight:copy(torch.Tensor{{0, 0}, {10, 10}, {20, 20}})
                   return m
                 end,
                 input = function() return clusters(9) end, input2 = function() return clusters(6) end,
                 jacobian = false, params = false, why = why, tostring = 'nn.Kmeans'})
  mc.module(it, {name = 'Kmeans with scale', make = function()
                   local m = nn.Kmeans(3, 2, 0.5)
                   m.weight:copy(torch.Tensor{{0, 0}, {10, 10}, {20, 20}})
                   return m
                 end,
                 input = function() return clusters(9) end, jacobian = false, params = false, why = why})

  it('assigns the nearest centre and moves the centres to the means', function()
    local m = nn.Kmeans(2, 1)
    m.weight:copy(torch.Tensor{{0}, {10}})
    local x = torch.Tensor{{1}, {3}, {9}, {12}}
    local y = m:forward(x)
    close(y, torch.Tensor{1, 1, 2, 2})
    assert(math.abs(m.loss - (1 + 9 + 1 + 4)) < 1e-12)
    m:zeroGradParameters()
    m:backward(x, nil)
    close(m.clusterSampleCount, torch.Tensor{2, 2})
    -- c -> c + mean(x - c): gradWeight = -(mean - c) (up to the 1e-7 guard)
    close(m.gradWeight, torch.Tensor{{-2}, {-0.5}}, 1e-6)
    m.weight:add(-1, m.gradWeight)
    close(m.weight, torch.Tensor{{2}, {10.5}}, 1e-6)
    assert.are.equal(0, m.gradInput:abs():sum())
  end)

  it('initialises from the samples', function()
    torch.manualSeed(5)
    local x = clusters(30)
    local m = nn.Kmeans(3, 2):initKmeansPlus(x)
    m:forward(x)
    -- one centre per cluster: every sample within 1 of its centre
    assert(m.loss < 30)
    m = nn.Kmeans(3, 2):initRandom(x)
    for i = 1, 3 do
      local found = false
      for j = 1, 30 do if (x[j] - m.weight[i]):abs():max() == 0 then found = true end end
      assert(found, 'centre ' .. i .. ' is not a sample')
    end
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.Kmeans(3, 2):forward(torch.randn(4, 3)) end,
             'nn.Kmeans:updateOutput: input must be 2D with 2 columns, got 2D 4x3')
    H.errors(function() nn.Kmeans(3, 2):initRandom(torch.randn(2, 2)) end,
             'nn.Kmeans:initRandom: need at least k = 3 samples, got 2')
    H.errors(function() nn.Kmeans(0, 2) end, 'nn.Kmeans: k (the number of clusters) must be a positive integer, got 0')
  end)
end)

describe('nn.IndexLinear', function()
  local why = 'keys are indices; the sparse gradients live in running, checked against Linear below'
  local function keys(n, k) return torch.randperm(n):narrow(1, 1, k):long() end
  local function make()
    local m = nn.IndexLinear(10, 3, true)
    m:reset()
    return m
  end
  mc.module(it, {name = 'IndexLinear single', make = make, tostring = 'nn.IndexLinear',
                 input = function() return {keys(10, 4), torch.randn(4)} end,
                 jacobian = false, params = false, why = why})
  mc.module(it, {name = 'IndexLinear batch', make = make,
                 input = function() return {{keys(10, 4), keys(10, 2)}, {torch.randn(4), torch.randn(2)}} end,
                 input2 = function() return {{keys(10, 3)}, {torch.randn(3)}} end,
                 jacobian = false, params = false, why = why})
  mc.module(it, {name = 'IndexLinear flat', make = make,
                 input = function() return {keys(10, 5), torch.randn(5), torch.LongTensor{2, 3}} end,
                 jacobian = false, params = false, why = why})
  mc.module(it, {name = 'IndexLinear normalized', make = function()
                   local m = nn.IndexLinear(10, 3, false, nil, nil, nil, true)
                   m:reset()
                   return m
                 end,
                 input = function() return {{keys(10, 4), keys(10, 2)}, {torch.randn(4), torch.randn(2)}} end,
                 jacobian = false, params = false, why = why})

  -- Torch7's own check: the dense Linear layer with the transposed weight
  it('trains as the dense Linear layer', function()
    local ni, no = 12, 3
    local m = nn.IndexLinear(ni, no, true)
    local l = nn.Linear(ni, no)
    m.weight:copy(l.weight:t())
    m.bias:copy(l.bias)
    local ks = {keys(ni, 4), keys(ni, 5)}
    local vs = {torch.randn(4), torch.randn(5)}
    local xd = torch.zeros(2, ni)
    for i = 1, 2 do xd[i]:scatter(1, ks[i], vs[i]) end
    local g = torch.randn(2, no)
    for round = 1, 3 do
      m:zeroGradParameters()
      l:zeroGradParameters()
      for _ = 1, round do
        close(m:forward{ks, vs}, l:forward(xd), 1e-12)
        local gi = m:backward({ks, vs}, g)
        l:backward(xd, g)
        close(gi[2][2], l.gradInput[2], 1e-12)
      end
      m:updateParameters(0.1)
      l:updateParameters(0.1)
      close(m.weight:t(), l.weight, 1e-12)
      close(m.bias, l.bias, 1e-12)
    end
  end)

  it('normalises each feature by the largest |value| seen in training', function()
    local m = nn.IndexLinear(5, 2, false, nil, nil, nil, true)
    m.weight:narrow(2, 5, 2):copy(torch.Tensor{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}})
    m.bias:copy(torch.Tensor{0.5, -0.5})
    -- key 2: max 3, value -3 -> -1; key 4: max 0.5, value 0.5 -> 1
    close(m:forward{torch.LongTensor{2, 4}, torch.Tensor{-3, 0.5}}, torch.Tensor{4.5, 3.5}, 1e-12)
    close(m:forward{torch.LongTensor{2}, torch.Tensor{1.5}}, torch.Tensor{2, 1.5}, 1e-12)
    m:evaluate()                                     -- beyond the max: clamped to 1
    close(m:forward{torch.LongTensor{2}, torch.Tensor{6}}, torch.Tensor{3.5, 3.5}, 1e-12)
    assert.are.equal(3, m.weight[2][1])
    m:training()
    m:zeroGradParameters()
    local x = {{torch.LongTensor{2}}, {torch.Tensor{1.5}}}
    m:forward(x)
    m:backward(x, torch.Tensor{{1, 2}})
    m:updateParameters(0.1)
    -- offset -= lr (g . w); weights -= lr value' g; bias -= lr g
    close(m.weight[2], torch.Tensor{3, 1 / 3, 1, -1.1, 2.95, 3.9}, 1e-12)
    close(m.bias, torch.Tensor{0.4, -0.7}, 1e-12)
  end)

  it('says what it expected of a bad input', function()
    local m = nn.IndexLinear(5, 2)
    H.errors(function() m:forward{torch.LongTensor{6}, torch.Tensor{1}} end,
             'nn.IndexLinear:updateOutput: key 6 at position 1 out of range (expected 1..5)')
    H.errors(function() m:forward{torch.LongTensor{1, 2}, torch.Tensor{1}} end,
             'nn.IndexLinear:updateOutput: keys and values of sample 1 must be 1D of the same size, got 1D 2 and 1D 1')
    H.errors(function() m:forward{torch.LongTensor{1, 2}, torch.Tensor{1, 2}, torch.LongTensor{3}} end,
             'nn.IndexLinear:updateOutput: sizes must be non-negative and sum to the 2 keys, got 3 at sample 1')
    H.errors(function() m:forward(torch.randn(3)) end, 'nn.IndexLinear:updateOutput: input must be {keys, values}')
    H.errors(function() m:updateParameters() end, 'nn.IndexLinear:updateParameters: a learning rate is needed')
    local n = nn.IndexLinear(5, 2, true, nil, nil, nil, true)
    local x = {torch.LongTensor{1}, torch.Tensor{1}}
    n:forward(x)
    H.errors(function() n:backward(x, torch.randn(2)) end,
             'nn.IndexLinear:updateGradInput: gradInput is not available in max-normalize mode')
  end)
end)

describe('nn.SparseJacobian', function()
  it('checks a sparse-input module through its parameters', function()
    local m = nn.SparseLinear(10, 3)
    local x = sample(10, 4)
    assert(nn.SparseJacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-5)
    assert(nn.SparseJacobian.testJacobianParameters(m, x, m.bias, m.gradBias) < 1e-5)
    assert(nn.SparseJacobian.testJacobianUpdateParameters(m, x, m.weight) < 1e-5)
    local ferr, berr = nn.SparseJacobian.testIO(m, x)
    assert.are.equal(0, ferr)
    assert.are.equal(0, berr)
    -- only the values were drawn: the indices are the sample's
    local idx = x:select(2, 1):clone()
    nn.SparseJacobian.testJacobianParameters(m, x, m.weight, m.gradWeight)
    close(x:select(2, 1), idx)
  end)

  it('checks the value column of the input gradient', function()
    local m = nn.PartialLinear(5, 4)
    local x = torch.randn(6, 5)
    assert(nn.SparseJacobian.testJacobian(m, x) < 1e-5)
    -- a wrong gradient is seen
    local wrong = nn.Linear(5, 4)
    wrong.updateGradInput = function(self, input, go)
      nn.Linear.updateGradInput(self, input, go)
      self.gradInput:mul(2)
      return self.gradInput
    end
    assert(nn.SparseJacobian.testJacobian(wrong, x) > 1e-3)
    H.errors(function() nn.SparseJacobian.testJacobian(m, torch.randn(5)) end,
             'nn.SparseJacobian.testJacobian: input must be an nnz x 2 tensor of {index, value} rows, got 1D 5')
  end)
end)
