-- nn checked against Torch7's nn sources: constructor argument orders and
-- defaults, batch rules of the shape modules, criterion options, and the
-- text tostring gives (Torch7 printed only the class for modules without
-- their own __tostring__).
require 'nn'

local T = torch.DoubleTensor

local function sizes(t) return t:size():totable() end

describe('nn constructors as in Torch7', function()
  it('SpatialConvolution: dW = dH = 1, padW = 0, padH = padW', function()
    local m = nn.SpatialConvolution(3, 4, 5, 3)
    assert.are.same({1, 1, 0, 0}, {m.dW, m.dH, m.padW, m.padH})
    assert.are.same({4, 3, 3, 5}, sizes(m.weight))
    local p = nn.SpatialConvolution(3, 4, 3, 3, 2, 2, 1)
    assert.are.same({2, 2, 1, 1}, {m.dW + 1, p.dH, p.padW, p.padH})
    assert.are.same({4, 3, 3}, sizes(p:forward(torch.rand(3, 5, 5))))
  end)

  it('pooling: max pools step by the kernel, average pools by 1', function()
    local mp, ap = nn.SpatialMaxPooling(3, 2), nn.SpatialAveragePooling(3, 2)
    assert.are.same({3, 2, 0, 0, false}, {mp.dW, mp.dH, mp.padW, mp.padH, mp.ceil_mode})
    assert.are.same({1, 1, true}, {ap.dW, ap.dH, ap.count_include_pad})
  end)

  it('Dropout(p, v1, inplace, stochasticInference)', function()
    local d = nn.Dropout()
    assert.are.same({0.5, true, false}, {d.p, d.v2, d.stochastic_inference})
    local d1 = nn.Dropout(0.25, true, true, true)
    assert.are.same({0.25, false, true, true}, {d1.p, d1.v2, d1.inplace, d1.stochastic_inference})
    d1:evaluate()
    -- v1 scales by (1 - p) at evaluation, and in place returns the input's memory
    local x = torch.ones(4)
    torch.manualSeed(1)
    local y = nn.Dropout(0.25, true):evaluate():forward(x)
    assert.are.same({0.75, 0.75, 0.75, 0.75}, y:totable())
    assert.are.equal(torch.pointer(x:storage()), torch.pointer(nn.Dropout(0.5, false, true):forward(x):storage()))
    assert.has_error(function() nn.Dropout(1) end)
  end)

  it('View with -1, setNumInputDims and an implicit batch', function()
    assert.are.same({2, 60}, sizes(nn.View(-1):setNumInputDims(3):forward(torch.rand(2, 3, 4, 5))))
    assert.are.same({60}, sizes(nn.View(-1):setNumInputDims(3):forward(torch.rand(3, 4, 5))))
    assert.are.same({5, 12}, sizes(nn.View(12):forward(torch.rand(5, 3, 4))))
    assert.are.same({2, 6}, sizes(nn.View(2, -1):forward(torch.rand(4, 3))))
    assert.are.same({2, 6}, sizes(nn.View(torch.LongStorage{2, 6}):forward(torch.rand(4, 3))))
  end)

  it('Reshape: batch unless the element count matches, or as batchMode says', function()
    assert.are.same({6}, sizes(nn.Reshape(6):forward(torch.rand(2, 3))))
    assert.are.same({4, 6}, sizes(nn.Reshape(6):forward(torch.rand(4, 2, 3))))
    assert.are.same({6, 3, 2}, sizes(nn.Reshape(3, 2, true):forward(torch.rand(6, 3, 2))))
    assert.are.same({1, 6}, sizes(nn.Reshape(6, true):forward(torch.rand(1, 2, 3))))
    assert.are.same({6}, sizes(nn.Reshape(6, false):forward(torch.rand(1, 2, 3))))
  end)

  it('JoinTable(dimension, nInputDims) and SplitTable(dimension, nInputDims)', function()
    local a, b = torch.rand(2, 3), torch.rand(2, 3)
    assert.are.same({4, 3}, sizes(nn.JoinTable(1):forward({a, b})))
    assert.are.same({2, 6}, sizes(nn.JoinTable(1, 1):forward({a, b})))
    assert.are.same({2, 6}, sizes(nn.JoinTable(-1):forward({a, b})))
    assert.are.equal(2, #nn.SplitTable(1):forward(a))
    local s = nn.SplitTable(1, 1):forward(torch.rand(4, 3))
    assert.are.equal(3, #s)
    assert.are.same({4}, sizes(s[1]))
    assert.are.equal(3, #nn.SplitTable(-1):forward(a))
  end)

  it('Narrow(dimension, offset, length): negative length and offset as Torch7', function()
    local x = torch.range(1, 5)
    assert.are.same({2, 3, 4, 5}, nn.Narrow(1, 2, -1):forward(x):totable())
    assert.are.same({2, 3, 4}, nn.Narrow(1, 2, -2):forward(x):totable())
    assert.are.same({1, 2, 3}, nn.Narrow(1, -2, 2):forward(x):totable())
    assert.are.equal(1, nn.Narrow(1, 2).length)
  end)

  it('Max, Min, Sum, Mean(dimension, nInputDims [, sizeAverage])', function()
    local x = T{{1, 5}, {3, 2}}
    assert.are.same({3, 5}, nn.Max(1):forward(x):totable())
    assert.are.same({5, 3}, nn.Max(1, 1):forward(x):totable())
    assert.are.same({1, 2}, nn.Min(2):forward(x):totable())
    assert.are.same({3, 2.5}, nn.Sum(1, 1, true):forward(x):totable())
    assert.are.same({6, 5}, nn.Sum(2):forward(x):totable())
    assert.are.same({2, 1}, sizes(nn.Sum(2, nil, nil, false):forward(x)))
    assert.are.same({2, 3.5}, nn.Mean():forward(x):totable())
    assert.are.same({1, true}, {nn.Mean().dimension, nn.Mean().sizeAverage})
    assert.are.same({3, 2.5}, nn.Mean(1, 1):forward(x):totable())
  end)

  it('Replicate(nfeature, dim, ndim) and PairwiseDistance(p)', function()
    assert.are.same({3, 2}, sizes(nn.Replicate(3):forward(T{1, 2})))
    assert.are.same({2, 3}, sizes(nn.Replicate(3, 2):forward(T{1, 2})))
    assert.are.same({4, 3, 2}, sizes(nn.Replicate(3, 1, 1):forward(torch.rand(4, 2))))
    assert.are.same({5}, nn.PairwiseDistance(1):forward({T{1, 2}, T{3, 5}}):totable())
    assert.are.same({3}, sizes(nn.PairwiseDistance(2):forward({torch.rand(3, 4), torch.rand(3, 4)})))
  end)

  it('LookupTable(nIndex, nOutput, paddingValue, maxNorm, normType)', function()
    local m = nn.LookupTable(5, 3)
    assert.are.same({0}, {m.paddingValue, m.maxNorm, m.normType})
    local p = nn.LookupTable(5, 3, 2, 1, 1)
    assert.are.same({2, 1, 1}, {p.paddingValue, p.maxNorm, p.normType})
    -- the padding row gets no gradient
    p:zeroGradParameters()
    p:forward(torch.LongTensor{1, 2, 2})
    p:backward(torch.LongTensor{1, 2, 2}, torch.ones(3, 3))
    assert.are.equal(0, p.gradWeight[2]:abs():sum())
    assert.are.equal(3, p.gradWeight[1]:sum())
    -- maxNorm renormalises the rows it looks up (here in L1)
    assert.is_true(p.weight[1]:norm(1) <= 1 + 1e-6)
  end)
end)

describe('constructor errors', function()
  it('carry no position of the class system, as Torch7 called __init from C', function()
    local ok, err = pcall(function() return nn.Linear('a', 2) end)
    assert.is_false(ok)
    assert.are.equal('nn.Linear: inputSize must be a positive integer, got a', err)
    local ok2, err2 = pcall(function() return nn.Dropout(2) end)
    assert.is_false(ok2)
    assert.are.equal('nn.Dropout: illegal percentage, must be 0 <= p < 1, got 2', err2)
    -- non-string errors pass through unchanged
    local C = torch.class('nnSemanticsSpecThrower')
    function C:__init() error({code = 7}) end
    local ok3, err3 = pcall(function() return nnSemanticsSpecThrower() end)
    assert.is_false(ok3)
    assert.are.equal(7, err3.code)
  end)
end)

describe('nn criterions as in Torch7', function()
  it('ClassNLLCriterion(weights, sizeAverage, ignoreIndex)', function()
    local c = nn.ClassNLLCriterion()
    assert.are.same({true, -100}, {c.sizeAverage, c.ignoreIndex})
    local logp = torch.log(T{{0.3, 0.7}, {0.6, 0.4}})
    local w = nn.ClassNLLCriterion(T{1, 2}, false, 2)
    assert.is_true(math.abs(w:forward(logp, torch.LongTensor{1, 2}) + math.log(0.3)) < 1e-12)
    local avg = nn.ClassNLLCriterion(T{1, 2})
    local expect = -(math.log(0.3) + 2 * math.log(0.4)) / 3   -- divided by the weights' sum
    assert.is_true(math.abs(avg:forward(logp, torch.LongTensor{1, 2}) - expect) < 1e-12)
    assert.are.equal(2, nn.ClassNLLCriterion():forward(T{-1, -2}, 2))
  end)

  it('CrossEntropyCriterion(weights) is LogSoftMax + weighted ClassNLL', function()
    local x, y = T{{1, 2}, {3, 1}}, torch.LongTensor{1, 2}
    local w = T{1, 2}
    local ref = nn.ClassNLLCriterion(w):forward(nn.LogSoftMax():forward(x), y)
    assert.is_true(math.abs(nn.CrossEntropyCriterion(w):forward(x, y) - ref) < 1e-12)
  end)

  it('BCECriterion(weights) and MarginCriterion(margin)', function()
    local b = nn.BCECriterion(T{1, 2})
    local expect = -(math.log(0.7) + 2 * math.log(0.6)) / 2
    assert.is_true(math.abs(b:forward(T{0.3, 0.6}, T{0, 1}) - expect) < 1e-9)   -- log(x + 1e-12) as Torch7
    assert.are.equal(1, nn.MarginCriterion().margin)
    local m = nn.MarginCriterion(0.5)
    assert.is_true(math.abs(m:forward(T{0.3, -0.6}, T{1, -1}) - 0.1) < 1e-12)
  end)
end)

describe('tostring as in Torch7', function()
  it('modules with their own text', function()
    assert.are.equal('nn.Linear(2 -> 3)', tostring(nn.Linear(2, 3)))
    assert.are.equal('nn.Dropout(0.300000)', tostring(nn.Dropout(0.3)))
    assert.are.equal('nn.View(2, -1)', tostring(nn.View(2, -1)))
    assert.are.equal('nn.Reshape(3x2)', tostring(nn.Reshape(3, 2)))
    assert.are.equal('nn.SpatialMaxPooling(2x2, 2,2)', tostring(nn.SpatialMaxPooling(2, 2)))
    assert.are.equal('nn.SpatialAveragePooling(3x3, 1,1, 1,1)', tostring(nn.SpatialAveragePooling(3, 3, 1, 1, 1, 1)))
    assert.are.equal('nn.LeakyReLU(0.2)', tostring(nn.LeakyReLU(0.2)))
    assert.are.equal('nn.ELU (alpha:0.500000)', tostring(nn.ELU(0.5)))
    assert.are.equal('nn.SelectTable(2)', tostring(nn.SelectTable(2)))
    assert.are.equal('nn.SpatialZeroPadding(l=1, r=2, t=3, b=4)', tostring(nn.SpatialZeroPadding(1, 2, 3, 4)))
    assert.are.equal('nn.SpatialMaxUnpooling associated to nn.SpatialMaxPooling(2x2, 2,2)',
                     tostring(nn.SpatialMaxUnpooling(nn.SpatialMaxPooling(2, 2))))
  end)

  it('modules without: the class name only', function()
    for _, m in ipairs{nn.JoinTable(2), nn.SplitTable(1), nn.LookupTable(3, 4), nn.Narrow(1, 2, 3),
                       nn.Max(2), nn.Sum(1), nn.Mean(1), nn.Replicate(3), nn.Select(1, 2), nn.CAddTable(true),
                       nn.MulConstant(2), nn.CMul(3), nn.Add(3), nn.PairwiseDistance(2), nn.Transpose({1, 2}),
                       nn.Squeeze(), nn.NarrowTable(1, 2), nn.ReLU(), nn.Tanh(), nn.Identity(),
                       nn.Copy('torch.DoubleTensor', 'torch.FloatTensor')} do
      assert.are.equal(torch.type(m), tostring(m))
    end
    assert.are.equal('nn.MSECriterion', tostring(nn.MSECriterion()))
  end)

  it('containers print as trees', function()
    local s = nn.Sequential():add(nn.Linear(3, 4)):add(nn.JoinTable(1))
    assert.are.equal('nn.Sequential {\n  [input -> (1) -> (2) -> output]\n  (1): nn.Linear(3 -> 4)\n  (2): nn.JoinTable\n}',
                     tostring(s))
  end)
end)

describe('Module methods as in Torch7', function()
  it('findModules returns the modules and their containers', function()
    local inner = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Tanh())
    local c = nn.Concat(1):add(nn.Linear(2, 3)):add(inner)
    local ms, cs = c:findModules('nn.Linear')
    assert.are.equal(2, #ms)
    assert.are.equal(c, cs[1])
    assert.are.equal(inner, cs[2])
    assert.are.equal(5, #c:listModules())
  end)

  it('topk takes k = 1 by default, smallest first', function()
    local v, i = T{5, 1, 3}:topk()
    assert.are.same({{1}, {2}}, {v:totable(), i:totable()})
    local v2 = T{5, 1, 3}:topk(2, true)
    assert.are.same({5, 3}, v2:totable())
  end)
end)
