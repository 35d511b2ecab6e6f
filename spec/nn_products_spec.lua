-- The linear family, distances and products (issue 16): every module
-- through the harness of spec/support/modcheck.lua (finite differences,
-- float/double, clone, save/load, traits, optnet), batch and single
-- sample; values against hand computation or Torch7's formulas; error
-- messages. Sparse modules and Kmeans: spec/nn_products_sparse_spec.lua.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'

local function close(a, b, eps, what)
  local d = (a:double() - b:double()):abs():max()
  assert(d <= (eps or 1e-10), string.format('%s: differs by %g', what or 'tensors', d))
end

describe('nn.CAdd', function()
  mc.module(it, {name = 'CAdd(5) batch', make = function() return nn.CAdd(5) end,
                 input = function() return torch.randn(4, 5) end,
                 input2 = function() return torch.randn(6, 5) end, tostring = 'nn.CAdd'})
  mc.module(it, {name = 'CAdd(2,3) same size', make = function() return nn.CAdd(2, 3) end,
                 input = function() return torch.randn(2, 3) end})
  mc.module(it, {name = 'CAdd(3,1,1) broadcast', make = function() return nn.CAdd(3, 1, 1) end,
                 input = function() return torch.randn(3, 4, 5) end})
  mc.module(it, {name = 'CAdd(1,4,1) broadcast', make = function() return nn.CAdd(torch.LongStorage{1, 4, 1}) end,
                 input = function() return torch.randn(3, 4, 2) end})

  it('adds the bias per channel, per row and per batch sample', function()
    local m = nn.CAdd(2, 1, 1)
    m.bias:copy(torch.Tensor{1, -2}:view(2, 1, 1))
    local y = m:forward(torch.zeros(2, 3, 3))
    close(y[1], torch.Tensor(3, 3):fill(1))
    close(y[2], torch.Tensor(3, 3):fill(-2))
    m = nn.CAdd(3)
    m.bias:copy(torch.Tensor{1, 2, 3})
    close(m:forward(torch.ones(2, 3)), torch.Tensor{{2, 3, 4}, {2, 3, 4}})
    m:zeroGradParameters()
    m:backward(torch.ones(2, 3), torch.Tensor{{1, 2, 3}, {10, 20, 30}})
    close(m.gradBias, torch.Tensor{11, 22, 33})
    m = nn.CAdd(2, 1, 1)
    m:zeroGradParameters()
    m:backward(torch.zeros(2, 3, 3), torch.ones(2, 3, 3), 0.5)
    close(m.gradBias:view(-1), torch.Tensor{4.5, 4.5})
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.CAdd(3):forward(torch.randn(2, 4)) end,
             "nn.CAdd:updateOutput: input must have the bias's 3 elements (3), a batch of them")
    H.errors(function() nn.CAdd(3):forward('x') end, 'nn.CAdd:updateOutput: input must be a tensor, got string')
    H.errors(function() nn.CAdd(0) end, 'nn.CAdd: size 1 must be a positive integer, got 0')
  end)
end)

describe('nn.MM', function()
  for _, t in ipairs{{false, false}, {true, false}, {false, true}, {true, true}} do
    local ta, tb = t[1], t[2]
    local function pair(b, n, k, m)
      local a = ta and {k, n} or {n, k}
      local c = tb and {m, k} or {k, m}
      if b then table.insert(a, 1, b); table.insert(c, 1, b) end
      return {torch.randn(table.unpack(a)), torch.randn(table.unpack(c))}
    end
    mc.module(it, {name = string.format('MM(%s, %s) 2D', ta, tb), make = function() return nn.MM(ta, tb) end,
                   input = function() return pair(nil, 3, 4, 2) end, tostring = 'nn.MM'})
    mc.module(it, {name = string.format('MM(%s, %s) batched', ta, tb), make = function() return nn.MM(ta, tb) end,
                   input = function() return pair(2, 3, 4, 2) end,
                   input2 = function() return pair(5, 3, 4, 2) end})
  end

  it('multiplies as the loops do, transposed as asked', function()
    local a, b = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    local y = nn.MM():forward{a, b}
    for i = 1, 2 do close(y[i], a[i] * b[i], 1e-12) end
    y = nn.MM(true, true):forward{a:transpose(2, 3):contiguous(), b:transpose(2, 3):contiguous()}
    for i = 1, 2 do close(y[i], a[i] * b[i], 1e-12) end
    local g = torch.randn(2, 3, 5)
    local gi = nn.MM():backward({a, b}, g)
    close(gi[1][2], g[2] * b[2]:t(), 1e-12)
    close(gi[2][2], a[2]:t() * g[2], 1e-12)
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.MM():forward{torch.randn(2, 3), torch.randn(4, 2)} end,
             'nn.MM:updateOutput: matrix sizes do not match: 2x3 times 4x2')
    H.errors(function() nn.MM():forward{torch.randn(2, 3), torch.randn(2, 3, 2)} end,
             'nn.MM:updateOutput: inputs must be two 2D matrices or two 3D batches of matrices, got 2D 2x3 and 3D 2x3x2')
    H.errors(function() nn.MM():forward{torch.randn(2, 3, 3), torch.randn(3, 3, 2)} end,
             'nn.MM:updateOutput: inputs must hold the same number of matrices, got 2x3x3 and 3x3x2')
    H.errors(function() nn.MM():forward(torch.randn(2, 2)) end, 'nn.MM:updateOutput: input must be a table of two tensors')
    local m = nn.MM()
    local x = {torch.randn(2, 3), torch.randn(3, 4)}
    m:forward(x)
    H.errors(function() m:backward(x, torch.randn(2, 5)) end, 'nn.MM:updateGradInput: gradOutput must be 2x4, got 2D 2x5')
  end)
end)

describe('nn.MV', function()
  for _, tr in ipairs{false, true} do
    mc.module(it, {name = 'MV(' .. tostring(tr) .. ') single', make = function() return nn.MV(tr) end,
                   input = function() return {tr and torch.randn(4, 3) or torch.randn(3, 4), torch.randn(4)} end,
                   tostring = 'nn.MV'})
    mc.module(it, {name = 'MV(' .. tostring(tr) .. ') batched', make = function() return nn.MV(tr) end,
                   input = function() return {tr and torch.randn(2, 4, 3) or torch.randn(2, 3, 4), torch.randn(2, 4)} end,
                   input2 = function() return {tr and torch.randn(5, 4, 3) or torch.randn(5, 3, 4), torch.randn(5, 4)} end})
  end

  it('multiplies as mv does', function()
    local m, v = torch.randn(3, 3, 4), torch.randn(3, 4)
    local y = nn.MV():forward{m, v}
    for i = 1, 3 do close(y[i], torch.mv(m[i], v[i]), 1e-12) end
    y = nn.MV(true):forward{m:transpose(2, 3):contiguous(), v}
    for i = 1, 3 do close(y[i], torch.mv(m[i], v[i]), 1e-12) end
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.MV():forward{torch.randn(3, 4), torch.randn(3)} end,
             'nn.MV:updateOutput: matrix 3x4 and vector 3 do not match')
    H.errors(function() nn.MV():forward{torch.randn(3, 4), torch.randn(2, 4)} end,
             'nn.MV:updateOutput: input must be a 2D matrix and a 1D vector, or a 3D batch of matrices and a 2D batch of vectors, got 2D 3x4 and 2D 2x4')
    H.errors(function() nn.MV(1) end, 'nn.MV: trans must be a boolean')
  end)
end)

describe('nn.DotProduct and nn.CosineDistance', function()
  for _, cls in ipairs{'DotProduct', 'CosineDistance'} do
    mc.module(it, {name = cls .. ' single', make = function() return nn[cls]() end,
                   input = function() return {torch.randn(5), torch.randn(5)} end, tostring = 'nn.' .. cls})
    mc.module(it, {name = cls .. ' batch', make = function() return nn[cls]() end,
                   input = function() return {torch.randn(3, 5), torch.randn(3, 5)} end,
                   input2 = function() return {torch.randn(4, 5), torch.randn(4, 5)} end})
  end

  it('compute x1.x2 and x1.x2 / (|x1| |x2|)', function()
    local a, b = torch.Tensor{1, 2, 3}, torch.Tensor{4, 5, 6}
    assert.are.equal(32, nn.DotProduct():forward{a, b}[1])
    local c = nn.CosineDistance():forward{a, b}[1]
    assert(math.abs(c - 32 / math.sqrt((14 + 1e-12) * (77 + 1e-12))) < 1e-15)
    local y = nn.CosineDistance():forward{torch.Tensor{{1, 0}, {1, 1}}, torch.Tensor{{0, 1}, {2, 2}}}
    close(y, torch.Tensor{0, 1}, 1e-12)
    local g = nn.DotProduct():backward({a, b}, torch.Tensor{2})
    close(g[1], b * 2)
    close(g[2], a * 2)
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.DotProduct():forward{torch.randn(3), torch.randn(4)} end,
             'nn.DotProduct:updateOutput: inputs must be two vectors or two matrices of the same size, got 1D 3 and 1D 4')
    H.errors(function() nn.CosineDistance():forward{torch.randn(2, 2, 2), torch.randn(2, 2, 2)} end,
             'nn.CosineDistance:updateOutput: inputs must be two vectors or two matrices of the same size')
    local m = nn.CosineDistance()
    local x = {torch.randn(3, 2), torch.randn(3, 2)}
    m:forward(x)
    H.errors(function() m:backward(x, torch.randn(4)) end,
             'nn.CosineDistance:updateGradInput: gradOutput must have 3 elements, got 1D 4')
  end)
end)

describe('nn.Cosine', function()
  mc.module(it, {name = 'Cosine single', make = function() return nn.Cosine(5, 3) end,
                 input = function() return torch.randn(5) end, tostring = 'nn.Cosine'})
  mc.module(it, {name = 'Cosine batch', make = function() return nn.Cosine(5, 3) end,
                 input = function() return torch.randn(4, 5) end, input2 = function() return torch.randn(2, 5) end})

  it('gives the cosine of the input with each weight row', function()
    local m = nn.Cosine(2, 3)
    m.weight:copy(torch.Tensor{{1, 0}, {0, 2}, {-1, -1}})
    local y = m:forward(torch.Tensor{3, 3})
    close(y, torch.Tensor{1 / math.sqrt(2), 1 / math.sqrt(2), -1}, 1e-10)
    y = m:forward(torch.Tensor{{3, 3}, {0, -5}})
    close(y[2], torch.Tensor{0, -1, 1 / math.sqrt(2)}, 1e-10)
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.Cosine(5, 3):forward(torch.randn(2, 4)) end,
             'nn.Cosine:updateOutput: input must be 1D or 2D with 5 columns, got 2D 2x4')
    H.errors(function() nn.Cosine(5) end, 'nn.Cosine: outputSize must be a positive integer, got nil')
  end)
end)

describe('nn.Euclidean and nn.WeightedEuclidean', function()
  for _, cls in ipairs{'Euclidean', 'WeightedEuclidean'} do
    local function make()
      local m = nn[cls](5, 3)
      if m.diagCov then m.diagCov:uniform(0.5, 1.5) end
      return m
    end
    mc.module(it, {name = cls .. ' single', make = make, input = function() return torch.randn(5) end,
                   tostring = 'nn.' .. cls, tol = 1e-5})
    mc.module(it, {name = cls .. ' batch', make = make, input = function() return torch.randn(4, 5) end,
                   input2 = function() return torch.randn(6, 5) end})
  end

  it('give the (weighted) distances to the templates', function()
    local m = nn.Euclidean(2, 2)
    m.weight:copy(torch.Tensor{{0, 3}, {0, 4}})        -- templates (0,0) and (3,4)
    close(m:forward(torch.Tensor{0, 0}), torch.Tensor{0, 5}, 1e-12)
    close(m:forward(torch.Tensor{{3, 4}, {6, 8}}), torch.Tensor{{5, 0}, {10, 5}}, 1e-12)
    local w = nn.WeightedEuclidean(2, 2)
    w.weight:copy(m.weight)
    w.diagCov:copy(torch.Tensor{{2, 1}, {1, 0.5}})
    close(w:forward(torch.Tensor{3, 4}), torch.Tensor{math.sqrt(36 + 16), 0}, 1e-12)
    -- d y_j / d c_ij = c_ij (x_i - w_ij)^2 / y_j
    w:zeroGradParameters()
    w:forward(torch.Tensor{1, 1})
    w:backward(torch.Tensor{1, 1}, torch.Tensor{1, 0})
    local y1 = math.sqrt(4 + 1)
    close(w.gradDiagCov:select(2, 1), torch.Tensor{2 / (y1 + 1e-7), 1 / (y1 + 1e-7)}, 1e-12)
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.Euclidean(5, 3):forward(torch.randn(2, 2, 5)) end,
             'nn.Euclidean:updateOutput: input must be 1D or 2D with 5 columns, got 3D 2x2x5')
    H.errors(function() nn.WeightedEuclidean(5, 3):forward(torch.randn(4)) end,
             'nn.WeightedEuclidean:updateOutput: input must be 1D or 2D with 5 columns, got 1D 4')
    local m = nn.Euclidean(5, 3)
    m:forward(torch.randn(2, 5))
    H.errors(function() m:backward(torch.randn(2, 5), torch.randn(3)) end,
             'nn.Euclidean:updateGradInput: gradOutput must be 2x3 (the output), got 1D 3')
  end)
end)

describe('nn.Bilinear', function()
  mc.module(it, {name = 'Bilinear', make = function() return nn.Bilinear(4, 3, 2) end,
                 input = function() return {torch.randn(5, 4), torch.randn(5, 3)} end,
                 input2 = function() return {torch.randn(2, 4), torch.randn(2, 3)} end,
                 tostring = 'nn.Bilinear(4x3 -> 2) '})
  mc.module(it, {name = 'Bilinear without bias', make = function() return nn.Bilinear(4, 3, 2, false) end,
                 input = function() return {torch.randn(5, 4), torch.randn(5, 3)} end,
                 tostring = 'nn.Bilinear(4x3 -> 2)  without bias'})

  it("computes x1' W_k x2 + b_k", function()
    local m = nn.Bilinear(2, 2, 1)
    m.weight[1]:copy(torch.Tensor{{1, 2}, {3, 4}})
    m.bias:fill(0.5)
    -- [1 1] W [1 -1]' = (1 - 2) + (3 - 4) = -2
    close(m:forward{torch.Tensor{{1, 1}}, torch.Tensor{{1, -1}}}, torch.Tensor{{-1.5}})
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.Bilinear(4, 3, 2):forward{torch.randn(5, 4), torch.randn(5, 2)} end,
             'nn.Bilinear:updateOutput: input must be two 2D tensors n x 4 and n x 3, got 2D 5x4 and 2D 5x2')
    H.errors(function() nn.Bilinear(4, 0, 2) end, 'nn.Bilinear: inputSize2 must be a positive integer, got 0')
  end)
end)

describe('nn.PartialLinear', function()
  mc.module(it, {name = 'PartialLinear all', make = function() return nn.PartialLinear(5, 4) end,
                 input = function() return torch.randn(3, 5) end, input2 = function() return torch.randn(6, 5) end,
                 tostring = 'nn.PartialLinear(5 -> 4)'})
  mc.module(it, {name = 'PartialLinear partition', make = function()
                   local m = nn.PartialLinear(5, 6)
                   m.bias:uniform()
                   return m:setPartition(torch.Tensor{5, 2, 3})
                 end,
                 input = function() return torch.randn(3, 5) end})

  it('is the Linear layer of the chosen rows', function()
    local m = nn.PartialLinear(4, 6)
    m.bias:uniform()
    local l = nn.Linear(4, 6)
    l.weight:copy(m.network:get(1):get(2).weight)
    l.bias:copy(m.bias)
    local x = torch.randn(3, 4)
    close(m:forward(x), l:forward(x), 1e-12)
    m:setPartition(torch.LongTensor{6, 1})
    local y = m:forward(x)
    close(y:select(2, 1), l.output:select(2, 6), 1e-12)
    close(y:select(2, 2), l.output:select(2, 1), 1e-12)
    m:zeroGradParameters()
    m:backward(x, torch.ones(3, 2))
    assert.are.equal(0, m.gradBias:narrow(2, 2, 4):abs():sum())
    close(m.gradBias:narrow(2, 1, 1), torch.Tensor{{3}})
    m:resetPartition()
    assert.are.equal(6, m:forward(x):size(2))
  end)

  it('says what it expected of a bad input', function()
    H.errors(function() nn.PartialLinear(4, 6):setPartition(torch.Tensor{0, 2}) end,
             'nn.PartialLinear:setPartition: indices must be integers in [1, 6], got values in [0, 2]')
    H.errors(function() nn.PartialLinear(4, 6):forward(torch.randn(4)) end,
             'nn.PartialLinear:updateOutput: input must be 2D with 4 columns, got 1D 4')
  end)
end)

describe('nn.LinearWeightNorm', function()
  mc.module(it, {name = 'LinearWeightNorm single', make = function() return nn.LinearWeightNorm(5, 3) end,
                 input = function() return torch.randn(5) end, tostring = 'nn.LinearWeightNorm(5 -> 3)'})
  mc.module(it, {name = 'LinearWeightNorm batch', make = function() return nn.LinearWeightNorm(5, 3) end,
                 input = function() return torch.randn(4, 5) end, input2 = function() return torch.randn(2, 5) end})
  mc.module(it, {name = 'LinearWeightNorm without bias', make = function() return nn.LinearWeightNorm(5, 3, false) end,
                 input = function() return torch.randn(4, 5) end, tostring = 'nn.LinearWeightNorm(5 -> 3) without bias'})

  it('is w = g v/||v||, and converts from and to Linear', function()
    local m = nn.LinearWeightNorm(2, 2)
    m.v:copy(torch.Tensor{{3, 4}, {0, 2}})
    m.g:copy(torch.Tensor{{10}, {1}})
    m.bias:zero()
    close(m:forward(torch.Tensor{1, 1}), torch.Tensor{14, 1}, 1e-12)
    close(m.weight, torch.Tensor{{6, 8}, {0, 1}}, 1e-12)
    local l = nn.Linear(3, 2)
    local x = torch.randn(4, 3)
    local w = nn.LinearWeightNorm.fromLinear(l)
    close(w:forward(x), l:forward(x), 1e-12)
    close(w:toLinear():forward(x), l.output, 1e-12)
  end)

  it('accumulates gradients over calls', function()
    local m = nn.LinearWeightNorm(3, 2)
    local x, g = torch.randn(4, 3), torch.randn(4, 2)
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, g)
    local gv, gg = m.gradV:clone(), m.gradG:clone()
    m:backward(x, g)
    close(m.gradV, gv * 2, 1e-12)
    close(m.gradG, gg * 2, 1e-12)
  end)
end)

describe('nn.WeightNorm', function()
  mc.module(it, {name = 'WeightNorm(Linear)', make = function() return nn.WeightNorm(nn.Linear(5, 3)) end,
                 input = function() return torch.randn(4, 5) end, input2 = function() return torch.randn(2, 5) end,
                 tostring = 'nn.WeightNorm @ nn.Linear(5 -> 3)'})
  mc.module(it, {name = 'WeightNorm(Euclidean)', make = function() return nn.WeightNorm(nn.Euclidean(5, 3)) end,
                 input = function() return torch.randn(4, 5) end, tostring = 'nn.WeightNorm @ nn.Euclidean'})
  mc.module(it, {name = 'WeightNorm(SpatialConvolution, 2)',
                 make = function() return nn.WeightNorm(nn.SpatialConvolution(2, 3, 2, 2), 2) end,
                 input = function() return torch.randn(2, 4, 4) end})

  it('writes w = g v/||v|| into the module', function()
    local m = nn.WeightNorm(nn.Linear(2, 2))
    m.v:copy(torch.Tensor{{3, 4}, {0, 2}})
    m.g:copy(torch.Tensor{10, 1})
    m:forward(torch.randn(2))
    local n1, n2 = math.sqrt(25 + 1e-4), math.sqrt(4 + 1e-4)
    close(m.modules[1].weight, torch.Tensor{{30 / n1, 40 / n1}, {0, 2 / n2}}, 1e-12)
    assert.are.equal(m.weight, m.modules[1].weight)
  end)

  it('loads a Torch7 file that left out the weight', function()
    local m = nn.WeightNorm(nn.Linear(3, 2))
    local x = torch.randn(4, 3)
    local y = m:forward(x):clone()
    local w, gw = m.weight, m.gradWeight
    m.weight, m.gradWeight, m.modules[1].weight, m.modules[1].gradWeight = nil, nil, nil, nil
    local s = torch.serialize(m)
    m.weight, m.gradWeight, m.modules[1].weight, m.modules[1].gradWeight = w, gw, w, gw
    local l = torch.deserialize(s)
    close(l:forward(x), y, 1e-12)
  end)

  it('says what it expected', function()
    H.errors(function() nn.WeightNorm(nn.Tanh()) end, 'nn.WeightNorm: a module with a weight expected, got nn.Tanh')
    H.errors(function() nn.WeightNorm(nn.Linear(2, 2), 3) end,
             'nn.WeightNorm: outputDim must be a dimension of the weight (1..2), got 3')
  end)
end)

describe('backward before forward', function()
  it('is refused with a message, not a wrong number', function()
    H.errors(function() nn.Euclidean(3, 2):backward(torch.randn(4, 3), torch.randn(4, 2)) end,
             'nn.Euclidean:updateGradInput: forward the same 4 samples first')
    H.errors(function() nn.Cosine(3, 2):backward(torch.randn(3), torch.randn(2)) end,
             'nn.Cosine:updateGradInput: forward the same 1 samples first')
    H.errors(function() nn.CosineDistance():backward({torch.randn(3), torch.randn(3)}, torch.randn(1)) end,
             'nn.CosineDistance:updateGradInput: forward the same 1 samples first')
    local m = nn.Euclidean(3, 2)
    m:forward(torch.randn(4, 3))
    H.errors(function() m:backward(torch.randn(5, 3), torch.randn(5, 2)) end,
             'nn.Euclidean:updateGradInput: forward the same 5 samples first')
  end)
end)
