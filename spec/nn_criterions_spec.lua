-- Criterions: loss values against hand-computed sums, gradients against
-- finite differences (nn.Jacobian.testCriterion, double), sizeAverage,
-- weights, ClassNLL targets and ignoreIndex, float/double agreement and
-- error messages.
require 'torch'
require 'nn'

local precision = 1e-5

local function flat(t) return t:contiguous():view(t:nElement()) end

local function maxdiff(a, b)
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

-- sum over elements of f(x_i, y_i)
local function sum2(x, y, f)
  local fx, fy, s = flat(x), flat(y), 0
  for i = 1, fx:nElement() do s = s + f(fx[i], fy[i], i) end
  return s
end

local function signs(n)
  local t = torch.DoubleTensor(n):uniform(-1, 1)
  local f = flat(t)
  for i = 1, f:nElement() do f[i] = f[i] >= 0 and 1 or -1 end
  return t
end

-- name, constructor(sizeAverage), per-element loss, input maker, target maker
local elementwise = {
  {'MSECriterion', function(sa) return nn.MSECriterion(sa) end,
   function(x, y) return (x - y) ^ 2 end,
   function(...) return torch.randn(...) end, function(...) return torch.randn(...) end},
  {'AbsCriterion', function(sa) return nn.AbsCriterion(sa) end,
   function(x, y) return math.abs(x - y) end,
   function(...) return torch.randn(...) end, function(...) return torch.randn(...) end},
  {'SmoothL1Criterion', function(sa) return nn.SmoothL1Criterion(sa) end,
   function(x, y)
     local z = math.abs(x - y)
     return z < 1 and 0.5 * z * z or z - 0.5
   end,
   function(...) return torch.DoubleTensor(...):uniform(-3, 3) end, function(...) return torch.randn(...) end},
  {'MarginCriterion', function(sa)
     local c = nn.MarginCriterion(0.8)
     if sa ~= nil then c.sizeAverage = sa end
     return c
   end,
   function(x, y) return math.max(0, 0.8 - x * y) end,
   function(...) return torch.randn(...) end,
   function(...) local t = torch.DoubleTensor(...); return t:copy(signs(t:nElement())) end},
  {'DistKLDivCriterion', function(sa)
     local c = nn.DistKLDivCriterion()
     if sa ~= nil then c.sizeAverage = sa end
     return c
   end,
   function(x, y) return y > 0 and y * (math.log(y) - x) or 0 end,
   function(...) return torch.randn(...) end,
   function(...)
     local t = torch.DoubleTensor(...):uniform(0, 1)
     flat(t)[1] = 0  -- a zero target contributes nothing
     return t
   end},
  {'BCECriterion', function(sa) return nn.BCECriterion(nil, sa) end,
   function(x, y) return -(y * math.log(x + 1e-12) + (1 - y) * math.log(1 - x + 1e-12)) end,
   function(...) return torch.DoubleTensor(...):uniform(0.05, 0.95) end,
   function(...) return torch.DoubleTensor(...):uniform(0, 1) end},
}

describe('element-wise criterions', function()
  before_each(function() torch.manualSeed(5) end)

  for _, c in ipairs(elementwise) do
    local name, new, loss, mkx, mky = c[1], c[2], c[3], c[4], c[5]

    describe('nn.' .. name, function()
      it('computes the loss, averaged by default', function()
        for _, shape in ipairs{{7}, {3, 4}, {2, 3, 2}} do
          local x, y = mkx(table.unpack(shape)), mky(table.unpack(shape))
          local n = x:nElement()
          local expect = sum2(x, y, loss)
          local crit = new()
          assert.is_true(crit.sizeAverage)
          local out = crit:forward(x, y)
          assert.are.equal('number', type(out))
          assert.are.equal(out, crit.output)
          assert.is_true(math.abs(out - expect / n) < 1e-10)
          local cs = new(false)
          assert.is_true(math.abs(cs:forward(x, y) - expect) < 1e-10)
        end
      end)

      it('passes the finite-difference gradient check', function()
        for _, sa in ipairs{true, false} do
          for _, shape in ipairs{{6}, {3, 4}} do
            local crit = new(sa)
            local x, y = mkx(table.unpack(shape)), mky(table.unpack(shape))
            local err = nn.Jacobian.testCriterion(crit, x, y)
            assert.is_true(err < precision, name .. ' gradient error ' .. err)
          end
        end
      end)

      it('keeps its gradInput and accepts equal element counts of other shapes', function()
        local crit = new()
        local gi = crit.gradInput
        local x, y = mkx(2, 3), mky(6)
        crit:forward(x, y)
        local g = crit:backward(x, y)
        assert.are.equal(gi, g)
        assert.are.same({2, 3}, g:size():totable())
        assert.is_true(math.abs(crit:forward(x, y) - sum2(x, y, loss) / 6) < 1e-10)
      end)

      it('agrees in float and double', function()
        local crit = new()
        local x, y = mkx(4, 5), mky(4, 5)
        local ld = crit:forward(x, y)
        local gd = crit:backward(x, y):clone()
        local cf = new():float()
        local lf = cf:forward(x:float(), y:float())
        assert.is_true(math.abs(lf - ld) < 1e-5)
        assert.is_true(maxdiff(cf:backward(x:float(), y:float()):double(), gd) < 1e-5)
      end)

      it('reports mismatched targets', function()
        local crit = new()
        local ok, err = pcall(crit.forward, crit, mkx(2, 3), mky(5))
        assert.is_false(ok)
        assert.truthy(err:find('nn.' .. name .. ':updateOutput: target must have as many elements as the input (2x3, 6), got 5 (5)', 1, true))
        ok, err = pcall(crit.backward, crit, mkx(3), torch.LongTensor(3))
        assert.truthy(err:find('nn.' .. name .. ':updateGradInput: target must be a torch.DoubleTensor like the input, got torch.LongTensor', 1, true))
        ok, err = pcall(crit.forward, crit, nil, mky(3))
        assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must be a tensor, got nil', 1, true))
        ok, err = pcall(crit.forward, crit, torch.DoubleTensor(), torch.DoubleTensor())
        assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must not be empty', 1, true))
      end)
    end)
  end

  it('MSE, Abs and SmoothL1 match hand-computed values', function()
    local x = torch.DoubleTensor{1, 2, 3, -1}
    local y = torch.DoubleTensor{0, 2, 5, 1}
    assert.are.equal((1 + 0 + 4 + 4) / 4, nn.MSECriterion():forward(x, y))
    assert.are.same({0.5, 0, -1, -1}, nn.MSECriterion():backward(x, y):totable())
    assert.are.equal((1 + 0 + 2 + 2) / 4, nn.AbsCriterion():forward(x, y))
    -- x == y gives +1 (Torch7)
    assert.are.same({0.25, 0.25, -0.25, -0.25}, nn.AbsCriterion():backward(x, y):totable())
    assert.are.equal((0.5 + 0 + 1.5 + 1.5) / 4, nn.SmoothL1Criterion():forward(x, y))
    local z = torch.DoubleTensor{0.5}
    assert.are.equal(0.125, nn.SmoothL1Criterion():forward(z, torch.DoubleTensor{0}))
    assert.are.equal(1, nn.MarginCriterion().margin)
    assert.are.equal((0.5 + 3) / 2, nn.MarginCriterion():forward(torch.DoubleTensor{0.5, 2}, torch.DoubleTensor{1, -1}))
    assert.are.same({-0.5, 0.5}, nn.MarginCriterion():backward(torch.DoubleTensor{0.5, 2}, torch.DoubleTensor{1, -1}):totable())
  end)

  it('BCECriterion weights broadcast over the batch and check their size', function()
    local w = torch.DoubleTensor{0.5, 2, 1}
    local x = torch.DoubleTensor(4, 3):uniform(0.1, 0.9)
    local y = torch.DoubleTensor(4, 3):uniform(0, 1)
    local crit = nn.BCECriterion(w)
    local expect = sum2(x, y, function(a, b, i)
      return -w[(i - 1) % 3 + 1] * (b * math.log(a + 1e-12) + (1 - b) * math.log(1 - a + 1e-12))
    end) / 12
    assert.is_true(math.abs(crit:forward(x, y) - expect) < 1e-12)
    assert.is_true(nn.Jacobian.testCriterion(crit, x, y) < precision)
    -- 1D input with as many weights as elements
    local c1 = nn.BCECriterion(w, false)
    local x1, y1 = x[1]:clone(), y[1]:clone()
    assert.is_true(nn.Jacobian.testCriterion(c1, x1, y1) < precision)
    local ok, err = pcall(crit.forward, crit, torch.DoubleTensor(2, 4):fill(0.5), torch.DoubleTensor(2, 4):fill(1))
    assert.is_false(ok)
    assert.truthy(err:find("nn.BCECriterion:updateOutput: weights must have 4 elements (the size of the input's last dimension, input 2x4), got 3", 1, true))
    ok, err = pcall(nn.BCECriterion, torch.DoubleTensor(2, 2))
    assert.truthy(err:find('nn.BCECriterion: weights must be a 1D tensor, got 2D 2x2', 1, true))
  end)

  it('BCECriterion stays finite at 0 and 1', function()
    local crit = nn.BCECriterion()
    local l = crit:forward(torch.DoubleTensor{0, 1}, torch.DoubleTensor{0, 1})
    assert.is_true(math.abs(l) < 1e-11)
    local g = crit:backward(torch.DoubleTensor{0, 1}, torch.DoubleTensor{1, 0})
    assert.is_true(g[1] < 0 and g[1] > -math.huge)
    assert.is_true(g[2] > 0 and g[2] < math.huge)
  end)
end)

describe('nn.ClassNLLCriterion', function()
  before_each(function() torch.manualSeed(9) end)

  local function logprobs(...) return nn.LogSoftMax():forward(torch.randn(...)):clone() end

  it('picks -x[target] for a single sample (number or tensor target)', function()
    local x = logprobs(5)
    local crit = nn.ClassNLLCriterion()
    assert.are.equal(-x[3], crit:forward(x, 3))
    assert.are.equal(-x[4], crit:forward(x, torch.LongTensor{4}))
    assert.are.equal(-x[2], crit:forward(x, torch.DoubleTensor{2}))
    local g = crit:backward(x, 3)
    assert.are.same({0, 0, -1, 0, 0}, g:totable())
  end)

  it('averages over a batch, weighted by class weights', function()
    local x = logprobs(4, 3)
    local t = torch.LongTensor{1, 3, 3, 2}
    local crit = nn.ClassNLLCriterion()
    local s = -(x[1][1] + x[2][3] + x[3][3] + x[4][2])
    assert.is_true(math.abs(crit:forward(x, t) - s / 4) < 1e-12)
    assert.is_true(math.abs(crit:forward(x, t:double()) - s / 4) < 1e-12)
    local w = torch.DoubleTensor{0.5, 2, 1}
    local cw = nn.ClassNLLCriterion(w)
    local ws = -(0.5 * x[1][1] + x[2][3] + x[3][3] + 2 * x[4][2])
    local out, total = cw:updateOutput(x, t)   -- forward returns the loss alone
    assert.is_true(math.abs(out - ws / 4.5) < 1e-12)
    assert.are.equal(4.5, total)
    assert.are.equal(4.5, cw.total_weight_tensor[1])
    local cs = nn.ClassNLLCriterion(w, false)
    assert.is_true(math.abs(cs:forward(x, t) - ws) < 1e-12)
    for _, c in ipairs{crit, cw, cs} do
      assert.is_true(nn.Jacobian.testCriterion(c, x, t) < precision)
    end
    local c1 = nn.ClassNLLCriterion(w)
    assert.is_true(nn.Jacobian.testCriterion(c1, logprobs(3), 2) < precision)
  end)

  it('skips targets equal to ignoreIndex', function()
    local x = logprobs(3, 4)
    local crit = nn.ClassNLLCriterion(nil, true, 0)
    local out, total = crit:updateOutput(x, torch.LongTensor{2, 0, 4})
    assert.are.equal(2, total)
    assert.is_true(math.abs(out - (-(x[1][2] + x[3][4]) / 2)) < 1e-12)
    local g = crit:backward(x, torch.LongTensor{2, 0, 4})
    assert.are.same({0, 0, 0, 0}, g[2]:totable())
    assert.are.equal(-100, nn.ClassNLLCriterion().ignoreIndex)
  end)

  it('agrees in float and double', function()
    local x, t = logprobs(5, 4), torch.LongTensor{1, 2, 3, 4, 1}
    local crit = nn.ClassNLLCriterion(torch.DoubleTensor{1, 2, 3, 4})
    local ld = crit:forward(x, t)
    local gd = crit:backward(x, t):clone()
    crit:float()
    assert.are.equal('torch.FloatTensor', torch.type(crit.weights))
    assert.is_true(math.abs(crit:forward(x:float(), t) - ld) < 1e-5)
    assert.is_true(maxdiff(crit:backward(x:float(), t):double(), gd) < 1e-6)
  end)

  it('reports bad targets, inputs and weights', function()
    local crit = nn.ClassNLLCriterion()
    local ok, err = pcall(crit.forward, crit, logprobs(5), 7)
    assert.is_false(ok)
    assert.truthy(err:find('nn.ClassNLLCriterion:updateOutput: target 7 out of range (expected 1..5)', 1, true))
    ok, err = pcall(crit.forward, crit, logprobs(3, 5), torch.LongTensor{1, 0, 2})
    assert.truthy(err:find('nn.ClassNLLCriterion:updateOutput: target 0 at position 2 out of range (expected 1..5)', 1, true))
    ok, err = pcall(crit.backward, crit, logprobs(3, 5), torch.DoubleTensor{1, 2.5, 2})
    assert.truthy(err:find('nn.ClassNLLCriterion:updateGradInput: target 2.5 at position 2 is not an integer', 1, true))
    ok, err = pcall(crit.forward, crit, logprobs(3, 5), torch.LongTensor{1, 2})
    assert.truthy(err:find('nn.ClassNLLCriterion:updateOutput: target must hold 3 class numbers (one per row of the 3x5 input), got 2', 1, true))
    ok, err = pcall(crit.forward, crit, torch.randn(2, 3, 4), torch.LongTensor{1, 2})
    assert.truthy(err:find('nn.ClassNLLCriterion:updateOutput: input must be 1D (classes) or 2D (batch x classes), got 3D 2x3x4', 1, true))
    local cw = nn.ClassNLLCriterion(torch.DoubleTensor{1, 2})
    ok, err = pcall(cw.forward, cw, logprobs(2, 3), torch.LongTensor{1, 2})
    assert.truthy(err:find('nn.ClassNLLCriterion:updateOutput: weights must have one element per class (3), got 2', 1, true))
    ok, err = pcall(nn.ClassNLLCriterion, torch.DoubleTensor(2, 2))
    assert.truthy(err:find('nn.ClassNLLCriterion: weights must be a 1D tensor, got 2D 2x2', 1, true))
  end)
end)

describe('nn.CrossEntropyCriterion', function()
  before_each(function() torch.manualSeed(3) end)

  it('equals LogSoftMax followed by ClassNLLCriterion', function()
    local x = torch.randn(4, 5)
    local t = torch.LongTensor{5, 1, 2, 2}
    local w = torch.DoubleTensor{1, 2, 1, 0.5, 3}
    local ce = nn.CrossEntropyCriterion(w)
    local lsm, nll = nn.LogSoftMax(), nn.ClassNLLCriterion(w)
    local expect = nll:forward(lsm:forward(x), t)
    assert.is_true(math.abs(ce:forward(x, t) - expect) < 1e-12)
    local g = ce:backward(x, t)
    local ge = lsm:backward(x, nll:backward(lsm.output, t))
    assert.is_true(maxdiff(g, ge) < 1e-12)
    assert.are.same({4, 5}, g:size():totable())
  end)

  it('passes the gradient check for single samples and batches', function()
    local ce = nn.CrossEntropyCriterion()
    assert.is_true(nn.Jacobian.testCriterion(ce, torch.randn(6), 4) < precision)
    assert.is_true(nn.Jacobian.testCriterion(ce, torch.randn(3, 6), torch.LongTensor{1, 6, 2}) < precision)
    -- a 1 x n input is squeezed to one sample, as Torch7
    local x = torch.randn(1, 4)
    local l = ce:forward(x, torch.LongTensor{2})
    assert.is_true(math.abs(l - nn.CrossEntropyCriterion():forward(x[1]:clone(), 2)) < 1e-12)
    assert.are.same({1, 4}, ce:backward(x, torch.LongTensor{2}):size():totable())
  end)

  it('passes sizeAverage changes to the inner criterion', function()
    local x, t = torch.randn(3, 4), torch.LongTensor{1, 2, 3}
    local ce = nn.CrossEntropyCriterion()
    local avg = ce:forward(x, t)
    ce.sizeAverage = false
    assert.is_true(math.abs(ce:forward(x, t) - 3 * avg) < 1e-12)
    assert.is_false(ce.nll.sizeAverage)
  end)
end)
