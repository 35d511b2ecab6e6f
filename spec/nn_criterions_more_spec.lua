-- Torch7's wider set of criterions and nn.StochasticGradient: the modcheck
-- harness on each criterion and code path (single sample, batch,
-- sizeAverage, weights, p, table inputs), loss values computed by hand
-- from Torch7's formulas, and the error messages of bad input.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'

local function near(a, b, eps)
  assert(math.abs(a - b) <= (eps or 1e-12), string.format('%.17g vs %.17g', a, b))
end

local function tnear(t, expect, eps)
  local v = t:contiguous():view(-1)
  assert.are.equal(#expect, v:nElement())
  for i = 1, #expect do near(v[i], expect[i], eps) end
end

local function labels(n)
  local t = torch.Tensor(n)
  for i = 1, n do t[i] = (i % 2 == 0) and 1 or -1 end
  return t
end

local function logprobs(...) return nn.LogSoftMax():forward(torch.randn(...)):clone() end

describe('criterions: modcheck', function()
  local C = mc.criterion
  C(it, {make = function() return nn.L1Cost() end, input = function() return torch.randn(3, 4) end,
         target = function() return torch.randn(3, 4) end, tostring = 'nn.L1Cost'})
  C(it, {name = 'SoftMarginCriterion', make = function() return nn.SoftMarginCriterion() end,
         input = function() return torch.randn(3, 4) end,
         target = function() return labels(12):view(3, 4) end, tostring = 'nn.SoftMarginCriterion'})
  C(it, {name = 'SoftMarginCriterion (sum)', make = function()
           local c = nn.SoftMarginCriterion(); c.sizeAverage = false; return c end,
         input = function() return torch.randn(5) end, target = function() return labels(5) end})
  C(it, {make = function() return nn.HingeEmbeddingCriterion(0.7) end,
         input = function() return torch.rand(6):mul(2) end, target = function() return labels(6) end,
         tostring = 'nn.HingeEmbeddingCriterion'})
  C(it, {name = 'L1HingeEmbeddingCriterion y=1', make = function() return nn.L1HingeEmbeddingCriterion(2) end,
         input = function() return {torch.randn(5), torch.randn(5)} end, target = function() return 1 end,
         tostring = 'nn.L1HingeEmbeddingCriterion'})
  C(it, {name = 'L1HingeEmbeddingCriterion y=-1', make = function() return nn.L1HingeEmbeddingCriterion(20) end,
         input = function() return {torch.randn(5), torch.randn(5)} end, target = function() return -1 end})
  C(it, {name = 'MarginRankingCriterion (batch)', make = function() return nn.MarginRankingCriterion(0.5) end,
         input = function() return {torch.randn(6), torch.randn(6)} end, target = function() return labels(6) end,
         tostring = 'nn.MarginRankingCriterion'})
  C(it, {name = 'MarginRankingCriterion (one pair)', make = function() return nn.MarginRankingCriterion(0.5) end,
         input = function() return {torch.Tensor{0.3}, torch.Tensor{-0.6}} end, target = function() return -1 end})
  C(it, {name = 'CosineEmbeddingCriterion (batch)', make = function() return nn.CosineEmbeddingCriterion(-0.9) end,
         input = function() return {torch.randn(4, 3), torch.randn(4, 3)} end,
         target = function() return labels(4) end, tostring = 'nn.CosineEmbeddingCriterion'})
  C(it, {name = 'CosineEmbeddingCriterion (one pair)', make = function() return nn.CosineEmbeddingCriterion() end,
         input = function() return {torch.randn(5), torch.randn(5)} end, target = function() return 1 end})
  C(it, {name = 'DistanceRatioCriterion', make = function() return nn.DistanceRatioCriterion() end,
         input = function() return {torch.rand(5, 1), torch.rand(5, 1)} end, target = function() return nil end,
         tostring = 'nn.DistanceRatioCriterion'})
  C(it, {name = 'DistanceRatioCriterion (sum)', make = function() return nn.DistanceRatioCriterion(false) end,
         input = function() return {torch.rand(4), torch.rand(4)} end, target = function() return nil end})
  C(it, {name = 'WeightedMSECriterion (batch)', make = function() return nn.WeightedMSECriterion(torch.randn(4)) end,
         input = function() return torch.randn(3, 4) end, target = function() return torch.randn(3, 4) end,
         tostring = 'nn.WeightedMSECriterion'})
  C(it, {name = 'WeightedMSECriterion (same shape)', make = function() return nn.WeightedMSECriterion(torch.randn(2, 3)) end,
         input = function() return torch.randn(2, 3) end, target = function() return torch.randn(2, 3) end})
  C(it, {name = 'ClassSimplexCriterion (one)', make = function() return nn.ClassSimplexCriterion(5) end,
         input = function() return torch.rand(5) end, target = function() return 3 end,
         tostring = 'nn.ClassSimplexCriterion'})
  C(it, {name = 'ClassSimplexCriterion (batch)', make = function() return nn.ClassSimplexCriterion(4) end,
         input = function() return torch.rand(3, 4) end, target = function() return torch.LongTensor{4, 1, 2} end})
  C(it, {name = 'SpatialAutoCropMSECriterion (batch)', make = function() return nn.SpatialAutoCropMSECriterion() end,
         input = function() return torch.randn(2, 3, 3, 4) end, target = function() return torch.randn(2, 3, 6, 5) end,
         tostring = 'nn.SpatialAutoCropMSECriterion'})
  C(it, {name = 'SpatialAutoCropMSECriterion (3D, sum)', make = function() return nn.SpatialAutoCropMSECriterion(false) end,
         input = function() return torch.randn(2, 3, 3) end, target = function() return torch.randn(2, 4, 3) end})
  C(it, {name = 'MultiMarginCriterion p=1', make = function() return nn.MultiMarginCriterion() end,
         input = function() return torch.randn(4, 5) end, target = function() return torch.LongTensor{1, 5, 2, 2} end,
         tostring = 'nn.MultiMarginCriterion'})
  C(it, {name = 'MultiMarginCriterion p=2 weights margin', make = function()
           return nn.MultiMarginCriterion(2, torch.Tensor{0.5, 1, 2, 1.5, 1}, 0.6) end,
         input = function() return torch.randn(3, 5) end, target = function() return torch.LongTensor{3, 4, 1} end})
  C(it, {name = 'MultiMarginCriterion (one sample)', make = function() return nn.MultiMarginCriterion() end,
         input = function() return torch.randn(6) end, target = function() return 4 end})
  C(it, {name = 'MultiLabelMarginCriterion (batch)', make = function() return nn.MultiLabelMarginCriterion() end,
         input = function() return torch.randn(2, 4) end,
         target = function() return torch.LongTensor{{3, 1, 0, 0}, {4, 0, 2, 0}} end,
         tostring = 'nn.MultiLabelMarginCriterion'})
  C(it, {name = 'MultiLabelMarginCriterion (one sample)', make = function() return nn.MultiLabelMarginCriterion() end,
         input = function() return torch.randn(5) end, target = function() return torch.LongTensor{2, 5, 1, 0, 0} end})
  C(it, {name = 'MultiLabelSoftMarginCriterion', make = function() return nn.MultiLabelSoftMarginCriterion() end,
         input = function() return torch.randn(3, 4) end, target = function() return torch.Tensor(3, 4):random(0, 1) end,
         tostring = 'nn.MultiLabelSoftMarginCriterion'})
  C(it, {name = 'MultiLabelSoftMarginCriterion (weights, one sample)', make = function()
           return nn.MultiLabelSoftMarginCriterion(torch.Tensor{1, 2, 0.5}, false) end,
         input = function() return torch.randn(3) end, target = function() return torch.Tensor{1, 0, 1} end})
  C(it, {name = 'SpatialClassNLLCriterion', make = function() return nn.SpatialClassNLLCriterion() end,
         input = function() return torch.randn(2, 3, 2, 4) end,
         target = function() return torch.LongTensor(2, 2, 4):random(1, 3) end,
         tostring = 'nn.SpatialClassNLLCriterion'})
  C(it, {name = 'SpatialClassNLLCriterion (weights, sum)', make = function()
           return nn.SpatialClassNLLCriterion(torch.Tensor{0.2, 1, 3}, false) end,
         input = function() return torch.randn(1, 3, 3, 2) end,
         target = function() return torch.LongTensor(1, 3, 2):random(1, 3) end})
  C(it, {name = 'ModuleCriterion', make = function() return nn.ModuleCriterion(nn.MSECriterion(), nn.Tanh()) end,
         input = function() return torch.randn(3, 4) end, target = function() return torch.randn(3, 4) end,
         tostring = 'nn.ModuleCriterion'})
  C(it, {name = 'MultiCriterion', make = function()
           return nn.MultiCriterion():add(nn.MSECriterion(), 0.5):add(nn.AbsCriterion()) end,
         input = function() return torch.randn(3, 4) end, target = function() return torch.randn(3, 4) end,
         tostring = 'nn.MultiCriterion'})
  C(it, {name = 'ParallelCriterion', make = function()
           return nn.ParallelCriterion():add(nn.MSECriterion(), 0.3)
             :add(nn.ParallelCriterion():add(nn.AbsCriterion()):add(nn.MSECriterion(), 2)) end,
         input = function() return {torch.randn(3), {torch.randn(2, 2), torch.randn(4)}} end,
         target = function() return {torch.randn(3), {torch.randn(2, 2), torch.randn(4)}} end,
         tostring = 'nn.ParallelCriterion'})
  C(it, {name = 'ParallelCriterion (repeatTarget)', make = function()
           return nn.ParallelCriterion(true):add(nn.MSECriterion(), 0.5):add(nn.AbsCriterion()) end,
         input = function() return {torch.randn(5), torch.randn(5)} end, target = function() return torch.randn(5) end})
end)

describe('criterions: values from Torch7\'s formulas', function()
  before_each(function() torch.manualSeed(11) end)

  it('labels may come in another tensor type', function()
    local x, y = torch.randn(4), torch.Tensor{1, -1, 1, -1}
    for _, c in ipairs{nn.SoftMarginCriterion(), nn.HingeEmbeddingCriterion(), nn.MultiLabelSoftMarginCriterion()} do
      local t = torch.type(c) == 'nn.MultiLabelSoftMarginCriterion' and y:clone():clamp(0, 1) or y
      assert.are.equal(c:forward(x, t), c:forward(x, t:long()))
      assert.is_true(c:backward(x, t):clone():equal(c:backward(x, t:long())))
    end
    local m = nn.MarginRankingCriterion()
    local xx = {torch.randn(4), torch.randn(4)}
    assert.are.equal(m:forward(xx, y), m:forward(xx, y:long()))
  end)

  it('L1Cost sums |x|, gradient sign(x)', function()
    local c, x = nn.L1Cost(), torch.Tensor{1, -2, 0, 3}
    assert.are.equal(6, c:forward(x))
    assert.are.same({1, -1, 0, 1}, c:backward(x):totable())
  end)

  it('SoftMarginCriterion', function()
    local c, x, y = nn.SoftMarginCriterion(), torch.Tensor{0, 1}, torch.Tensor{1, -1}
    near(c:forward(x, y), (math.log(2) + math.log(1 + math.exp(1))) / 2)
    tnear(c:backward(x, y), {-0.25, 1 / (1 + math.exp(-1)) / 2})
    -- large margins stay finite
    near(c:forward(torch.Tensor{-800}, torch.Tensor{1}), 800 / 1)
  end)

  it('HingeEmbeddingCriterion (Torch7\'s test)', function()
    local c = nn.HingeEmbeddingCriterion(2)
    local x, y = torch.Tensor{0.3, 2.1, 1.8, 0}, torch.Tensor{1, -1, -1, 1}
    near(c:forward(x, y), (0.3 + 0.2) / 4)
    tnear(c:backward(x, y), {0.25, 0, -0.25, 0.25})
    c.sizeAverage = false
    near(c:forward(x, y), 0.5)
    near(c:forward(torch.Tensor{0.5}, -1), 1.5)
  end)

  it('L1HingeEmbeddingCriterion', function()
    local c = nn.L1HingeEmbeddingCriterion(4)
    local x = {torch.Tensor{1, 2, 3}, torch.Tensor{2, 2, 1}}
    assert.are.equal(3, c:forward(x, 1))
    assert.are.same({-1, 0, 1}, c:backward(x, 1)[1]:totable())
    assert.are.same({1, 0, -1}, c.gradInput[2]:totable())
    assert.are.equal(1, c:forward(x, -1))
    assert.are.same({1, 0, -1}, c:backward(x, -1)[1]:totable())
    c.margin = 2
    assert.are.equal(0, c:forward(x, -1))
    assert.are.same({0, 0, 0}, c:backward(x, -1)[1]:totable())
  end)

  it('MarginRankingCriterion', function()
    local c = nn.MarginRankingCriterion()
    local x = {torch.Tensor{1, 2}, torch.Tensor{2, 0}}
    local y = torch.Tensor{1, 1}
    near(c:forward(x, y), (2 + 0) / 2)
    local g = c:backward(x, y)
    assert.are.same({-0.5, 0}, g[1]:totable())
    assert.are.same({0.5, 0}, g[2]:totable())
    near(c:forward({torch.Tensor{1}, torch.Tensor{2}}, -1), 0)
    assert.are.same({0}, c:backward({torch.Tensor{1}, torch.Tensor{3}}, -1)[1]:totable())
  end)

  it('CosineEmbeddingCriterion', function()
    local x = {torch.Tensor{{1, 0}, {3, 4}}, torch.Tensor{{0, 1}, {3, 4}}}
    local c = nn.CosineEmbeddingCriterion(-0.5)
    -- cos = 0 and 1: y = 1 gives 1 - cos, y = -1 gives max(0, cos + 0.5)
    near(c:forward(x, torch.Tensor{1, 1}), (1 + 0) / 2, 1e-10)
    near(c:forward(x, torch.Tensor{-1, -1}), (0.5 + 1.5) / 2, 1e-10)
    near(c:forward(x, torch.Tensor{-1, 1}), (0.5 + 0) / 2, 1e-10)
    assert.is_true(nn.Jacobian.testCriterion(c, {torch.randn(3, 4), torch.randn(3, 4)}, torch.Tensor{1, -1, 1}) < 1e-5)
  end)

  it('DistanceRatioCriterion (Torch7\'s test)', function()
    local c = nn.DistanceRatioCriterion(true)
    local X, Y = torch.Tensor(32, 1):fill(1), torch.Tensor(32, 1):fill(1)
    near(c:forward({X, Y}), 1 + math.log(2 * math.exp(-1)))
    local g = c:backward({X, Y})
    near(g[1]:sum(), 0.5)
    near(g[2]:sum(), -0.5)
  end)

  it('WeightedMSECriterion weights the target only, per sample in a batch', function()
    local c = nn.WeightedMSECriterion(torch.Tensor{2, 3})
    near(c:forward(torch.Tensor{1, 2}, torch.Tensor{1, 1}), ((1 - 2) ^ 2 + (2 - 3) ^ 2) / 2)
    near(c:forward(torch.Tensor{{1, 2}, {0, 0}}, torch.Tensor{{1, 1}, {1, 1}}), (1 + 1 + 4 + 9) / 4)
  end)

  it('ClassSimplexCriterion embeds classes on a regular simplex', function()
    local c = nn.ClassSimplexCriterion(6)
    local s = c.simplex
    local gram = s * s:t()
    for i = 1, 6 do
      for j = 1, 6 do near(gram[i][j], i == j and 1 or -1 / 5, 1e-12) end
    end
    assert.are.equal(0, c:forward(s[4]:clone(), 4))
    near(c:forward(torch.zeros(6), 2), 1 / 6)
    local x = torch.randn(3, 6)
    assert.are.same({3}, c:getTopPrediction(x):size():totable())
    assert.are.equal(5, c:getTopPrediction(s[5]:clone())[1])
  end)

  it('SpatialAutoCropMSECriterion is MSE against the centred crop', function()
    for _, avg in ipairs{true, false} do
      local x, t = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 7, 6)
      local crop = t[{{}, {}, {2, 5}, {1, 5}}]
      local c, m = nn.SpatialAutoCropMSECriterion(avg), nn.MSECriterion(avg)
      assert.are.equal(m:forward(x, crop), c:forward(x, t))
      assert.is_true(c:backward(x, t):equal(m:backward(x, crop)))
      -- a target of the input's size (Torch7's backward) is its own crop
      assert.is_true(c:backward(x, crop:clone()):equal(m:backward(x, crop)))
    end
  end)

  it('MultiMarginCriterion', function()
    local x = torch.Tensor{0.1, 0.2, 0.4, 0.8}
    near(nn.MultiMarginCriterion():forward(x, 3), (0.7 + 0.8 + 1.4) / 4)
    near(nn.MultiMarginCriterion(2):forward(x, 3), (0.49 + 0.64 + 1.96) / 4)
    near(nn.MultiMarginCriterion(1, torch.Tensor{1, 1, 3, 1}, 0.5):forward(x, 3), 3 * (0.2 + 0.3 + 0.9) / 4)
    tnear(nn.MultiMarginCriterion():backward(x, 3), {0.25, 0.25, -0.75, 0.25})
    local xb = torch.Tensor{{0.1, 0.2, 0.4, 0.8}, {5, 0, 0, 0}}
    near(nn.MultiMarginCriterion():forward(xb, torch.LongTensor{3, 1}), (2.9 / 4 + 0) / 2)
    local c = nn.MultiMarginCriterion(); c.sizeAverage = false
    near(c:forward(xb, torch.Tensor{3, 1}), 2.9 / 4)
  end)

  it('MultiLabelMarginCriterion', function()
    local c = nn.MultiLabelMarginCriterion()
    local x = torch.Tensor{0.1, 0.2, 0.4, 0.8}
    near(c:forward(x, torch.LongTensor{3, 0, 0, 0}), (0.7 + 0.8 + 1.4) / 4)
    -- targets after the first 0 do not count
    near(c:forward(x, torch.LongTensor{3, 0, 1, 0}), (0.7 + 0.8 + 1.4) / 4)
    near(c:forward(x, torch.LongTensor{3, 1, 0, 0}), (0.8 + 1.4 + 1.1 + 1.7) / 4)
    assert.are.same({1, 0, 1, 0}, c.isTarget:totable())
    tnear(c:backward(x, torch.LongTensor{3, 1, 0, 0}), {-0.5, 0.5, -0.5, 0.5})
  end)

  it('MultiLabelSoftMarginCriterion', function()
    local c = nn.MultiLabelSoftMarginCriterion()
    near(c:forward(torch.Tensor{0, 2}, torch.Tensor{1, 0}), (math.log(2) + math.log(1 + math.exp(2))) / 2)
    tnear(c:backward(torch.Tensor{0, 2}, torch.Tensor{1, 0}), {-0.25, 1 / (1 + math.exp(-2)) / 2})
    near(c:forward(torch.Tensor{900}, torch.Tensor{1}), 0)
  end)

  it('SpatialClassNLLCriterion is ClassNLL over every pixel', function()
    local w = torch.Tensor{0.5, 1, 2}
    local x, t = logprobs(2, 3, 4, 5), torch.LongTensor(2, 4, 5):random(1, 3)
    local c = nn.SpatialClassNLLCriterion(w)
    local flat = x:permute(1, 3, 4, 2):contiguous():view(-1, 3)
    local nll = nn.ClassNLLCriterion(w)
    near(c:forward(x, t), nll:forward(flat, t:view(-1)))
    local out, tw = c:updateOutput(x, t)
    near(out, c.output)
    near(tw, c.total_weight_tensor[1])
    local g = nll:backward(flat, t:view(-1)):view(2, 4, 5, 3):permute(1, 4, 2, 3)
    assert.is_true(c:backward(x, t):equal(g:contiguous()))
    assert.are.same({3}, (#c):totable())   -- #weights, a size, as Torch7
    assert.are.equal(0, #nn.SpatialClassNLLCriterion())
    assert.are.equal(1, select('#', c:forward(x, t)))
  end)

  it('ModuleCriterion, MultiCriterion and ParallelCriterion combine their parts', function()
    local x, y = torch.randn(3, 4), torch.randn(3, 4)
    local mc2 = nn.ModuleCriterion(nn.MSECriterion(), nn.Tanh(), nn.Sigmoid())
    near(mc2:forward(x, y), nn.MSECriterion():forward(torch.tanh(x), torch.sigmoid(y)))
    local m = nn.MultiCriterion():add(nn.MSECriterion(), 0.5):add(nn.AbsCriterion())
    near(m:forward(x, y), 0.5 * nn.MSECriterion():forward(x, y) + nn.AbsCriterion():forward(x, y))
    assert.are.equal('torch.DoubleStorage', torch.type(m.weights))
    local p = nn.ParallelCriterion():add(nn.MSECriterion(), 0.5):add(nn.AbsCriterion(), 2)
    near(p:forward({x, y}, {y, x}), 0.5 * nn.MSECriterion():forward(x, y) + 2 * nn.AbsCriterion():forward(y, x))
    local g = p:backward({x, y}, {y, x})
    assert.is_true(g[1]:equal(nn.MSECriterion():backward(x, y):mul(0.5)))
    m:float()
    assert.are.equal('torch.FloatTensor', torch.type(m.criterions[1].gradInput))
  end)
end)

describe('nn.CriterionTable', function()
  it('applies its criterion to {input, target}', function()
    local x, y = torch.randn(3, 4), torch.randn(3, 4)
    local ct = nn.CriterionTable(nn.MSECriterion())
    near(ct:forward({x, y}), nn.MSECriterion():forward(x, y))
    local g = ct:backward({x, y}, 1)
    assert.are.equal(1, #g)
    assert.is_true(g[1]:equal(nn.MSECriterion():backward(x, y)))
    assert.are.equal('nn.CriterionTable', tostring(ct))
    local ct2 = torch.deserialize(torch.serialize(ct))
    near(ct2:forward({x, y}), ct.output)
    H.has(H.errmsg(function() ct:forward(x) end), 'nn.CriterionTable:updateOutput: input must be a table {input, target}, got torch.DoubleTensor')
    H.has(H.errmsg(function() nn.CriterionTable(nn.Linear(2, 2)) end), 'nn.CriterionTable: criterion expected, got nn.Linear')
  end)
end)

describe('criterions: clearState keeps them usable', function()
  it('table gradInputs are emptied, not dropped', function()
    local cases = {
      {nn.MarginRankingCriterion(), {torch.rand(3), torch.rand(3)}, torch.Tensor{1, -1, 1}},
      {nn.CosineEmbeddingCriterion(), {torch.rand(3, 2), torch.rand(3, 2)}, torch.Tensor{1, -1, 1}},
      {nn.DistanceRatioCriterion(), {torch.rand(3), torch.rand(3)}},
      {nn.L1HingeEmbeddingCriterion(), {torch.rand(3), torch.rand(3)}, 1},
    }
    for _, case in ipairs(cases) do
      local c, x, y = case[1], case[2], case[3]
      c:forward(x, y)
      local g1 = c:backward(x, y)[1]:clone()
      assert.are.equal(c, c:clearState())
      assert.are.equal(0, c.gradInput[1]:nElement())
      c:forward(x, y)
      assert.is_true(c:backward(x, y)[1]:equal(g1))
    end
  end)
end)

describe('criterions: errors', function()
  local function has(f, text) H.has(H.errmsg(f), text) end

  it('name the class, the method, what was expected and what came', function()
    has(function() nn.MultiMarginCriterion():forward(torch.randn(3, 4), torch.LongTensor{1, 5, 2}) end,
        'nn.MultiMarginCriterion:updateOutput: target 5 at position 2 out of range (expected 1..4)')
    has(function() nn.MultiMarginCriterion():forward(torch.randn(3, 4), torch.LongTensor{1, 2}) end,
        'nn.MultiMarginCriterion:updateOutput: target must hold 3 class numbers (one per row of the 3x4 input), got 2')
    has(function() nn.MultiMarginCriterion():forward(torch.randn(2, 3, 4), torch.LongTensor{1, 2}) end,
        'nn.MultiMarginCriterion:updateOutput: input must be 1D (classes) or 2D (batch x classes), got 3D 2x3x4')
    has(function() nn.MultiMarginCriterion(3) end, 'nn.MultiMarginCriterion: p must be 1 or 2, got 3')
    has(function() nn.MultiMarginCriterion(1, torch.Tensor(3)):forward(torch.randn(4), 1) end,
        'nn.MultiMarginCriterion:updateOutput: weights must have one element per class (4), got 3')
    has(function() nn.MultiLabelMarginCriterion():forward(torch.randn(2, 4), torch.LongTensor{{1, 5, 0, 0}, {1, 0, 0, 0}}) end,
        'nn.MultiLabelMarginCriterion:updateOutput: target 5 at position 2 out of range (expected 1..4)')
    has(function() nn.MultiLabelMarginCriterion():forward(torch.randn(2, 4), torch.LongTensor{1, 2}) end,
        'nn.MultiLabelMarginCriterion:updateOutput: target must have the input\'s size 2x4 (class numbers, 0 ends a row), got 2')
    has(function() nn.SpatialClassNLLCriterion():forward(torch.randn(2, 3, 4), torch.LongTensor(2, 4)) end,
        'nn.SpatialClassNLLCriterion:updateOutput: input must be 4D (batch x classes x height x width), got 3D 2x3x4')
    has(function() nn.SpatialClassNLLCriterion():forward(torch.randn(2, 3, 4, 4), torch.LongTensor(2, 4, 3):fill(1)) end,
        'nn.SpatialClassNLLCriterion:updateOutput: target must be 3D 2x4x4 (batch x height x width of the input 2x3x4x4), got 3D 2x4x3')
    has(function() nn.SpatialClassNLLCriterion():forward(torch.randn(1, 3, 1, 2), torch.LongTensor{{{1, 4}}}) end,
        'nn.SpatialClassNLLCriterion:updateOutput: target 4 at position 2 out of range (expected 1..3)')
    has(function() nn.SpatialAutoCropMSECriterion():forward(torch.randn(2, 5, 5), torch.randn(2, 5, 4)) end,
        'nn.SpatialAutoCropMSECriterion:updateOutput: input resolution 5x5 must be at most the target\'s, got 5x4')
    has(function() nn.SpatialAutoCropMSECriterion():forward(torch.randn(3, 3, 3), torch.randn(4, 3, 3)) end,
        'nn.SpatialAutoCropMSECriterion:updateOutput: target must have the input\'s number of channels (3x3x3), got 4x3x3')
    has(function() nn.SpatialAutoCropMSECriterion():forward(torch.randn(2, 3, 3, 3), torch.randn(1, 3, 3, 3)) end,
        'nn.SpatialAutoCropMSECriterion:updateOutput: target must have the input\'s batch size (2x3x3x3), got 1x3x3x3')
    has(function() nn.ClassSimplexCriterion(4):forward(torch.randn(4), 5) end,
        'nn.ClassSimplexCriterion:updateOutput: target 5 out of range (expected a class number in 1..4)')
    has(function() nn.ClassSimplexCriterion(4):forward(torch.randn(5), 2) end,
        'nn.ClassSimplexCriterion:updateOutput: input must have 4 elements (1 targets x 4 classes), got 1D 5')
    has(function() nn.ClassSimplexCriterion(1) end, 'nn.ClassSimplexCriterion: nClasses must be an integer > 1, got 1')
    has(function() nn.CosineEmbeddingCriterion():forward({torch.randn(3, 2), torch.randn(3, 3)}, 1) end,
        'nn.CosineEmbeddingCriterion:updateOutput: x1 and x2 must be vectors or batches (n x d) of one size, got 2D 3x2 and 2D 3x3')
    has(function() nn.CosineEmbeddingCriterion():forward({torch.randn(3, 2), torch.randn(3, 2)}, torch.Tensor{1, 1}) end,
        'nn.CosineEmbeddingCriterion:updateOutput: target must have one label per pair (3), got 1D 2')
    has(function() nn.MarginRankingCriterion():forward(torch.randn(3), 1) end,
        'nn.MarginRankingCriterion:updateOutput: input must be a table of two tensors {x1, x2}, got 1D 3')
    has(function() nn.HingeEmbeddingCriterion():forward(torch.randn(3), torch.Tensor{1, -1}) end,
        'nn.HingeEmbeddingCriterion:updateOutput: target must have one label (1 or -1) per input element (1D 3), got 1D 2')
    has(function() nn.L1HingeEmbeddingCriterion():forward({torch.randn(3), torch.randn(3)}, 0) end,
        'nn.L1HingeEmbeddingCriterion:updateOutput: target must be 1 or -1, got 0')
    has(function() nn.DistanceRatioCriterion():forward({torch.randn(3), torch.randn(2)}) end,
        'nn.DistanceRatioCriterion:updateOutput: X and Y must hold as many distances, got 1D 3 and 1D 2')
    has(function() nn.SoftMarginCriterion():forward(torch.randn(3), torch.randn(4)) end,
        'nn.SoftMarginCriterion:updateOutput: target must have as many elements as the input (1D 3), got 1D 4')
    has(function() nn.WeightedMSECriterion(torch.randn(5)):forward(torch.randn(2, 3), torch.randn(2, 3)) end,
        'nn.WeightedMSECriterion:updateOutput: weight 1D 5 fits neither the input 2D 2x3 nor one of its samples')
    has(function() nn.MultiLabelSoftMarginCriterion(torch.randn(2)):forward(torch.randn(2, 3), torch.randn(2, 3)) end,
        'nn.MultiLabelSoftMarginCriterion:updateOutput: weights must have one element per class (3, the input\'s last dimension), got 2')
    has(function() nn.L1Cost():forward({}) end, 'nn.L1Cost:updateOutput: input must be a tensor, got table')
    has(function() nn.ParallelCriterion():add(nn.MSECriterion()):forward(torch.randn(3), {torch.randn(3)}) end,
        'nn.ParallelCriterion:updateOutput: input must be a table of 1 elements (one per criterion), got 1D 3')
    has(function() nn.MultiCriterion():add(nn.Linear(2, 2)) end, 'nn.MultiCriterion:add: criterion expected, got nn.Linear')
  end)
end)

describe('nn.StochasticGradient', function()
  -- y = 2x1 - x2 + 0.5 on 20 fixed points
  local function dataset()
    torch.manualSeed(3)
    local d = {}
    for i = 1, 20 do
      local x = torch.randn(2)
      d[i] = {x, torch.Tensor{2 * x[1] - x[2] + 0.5}}
    end
    function d:size() return #self end
    return d
  end

  local quiet = {__close = function(g) _G.print = g[1] end}

  it('trains a module with Torch7\'s loop, hooks and learning-rate decay', function()
    local printed = {}
    local _ <close> = setmetatable({print}, quiet)
    _G.print = function(s) printed[#printed + 1] = s end
    local net = nn.Linear(2, 1)
    local t = nn.StochasticGradient(net, nn.MSECriterion())
    assert.are.equal(0.01, t.learningRate)
    assert.are.equal(25, t.maxIteration)
    assert.is_true(t.shuffleIndices and t.verbose)
    t.learningRate, t.maxIteration, t.learningRateDecay = 0.05, 30, 0.01
    local errs, examples = {}, 0
    t.hookIteration = function(self, it, err) errs[it] = err end
    t.hookExample = function(self, ex) examples = examples + 1 end
    t:train(dataset())
    assert.are.equal(30, #errs)
    assert.are.equal(600, examples)
    assert.is_true(errs[30] < errs[1] / 100, errs[1] .. ' -> ' .. errs[30])
    near(net.weight[1][1], 2, 0.05)
    assert.are.equal('# StochasticGradient: training', printed[1])
    assert.are.equal('# current error = ' .. errs[1], printed[2])
    assert.are.equal('# training error = ' .. errs[30], printed[#printed])
  end)

  it('visits examples in order without shuffling, and reports a bad dataset', function()
    local _ <close> = setmetatable({print}, quiet)
    _G.print = function() end
    local t = nn.StochasticGradient(nn.Linear(2, 1), nn.MSECriterion())
    t.shuffleIndices, t.maxIteration, t.verbose = false, 1, false
    local d, seen = dataset(), {}
    t.hookExample = function(self, ex) seen[#seen + 1] = ex end
    t:train(d)
    for i = 1, 20 do assert.are.equal(d[i], seen[i]) end
    H.has(H.errmsg(function() t:train({}) end), 'nn.StochasticGradient:train: dataset must answer dataset:size()')
  end)
end)
