-- nn.Linear: values against hand-computed sums, gradients against finite
-- differences (nn.Jacobian, double), batch and single vectors, bias and no
-- bias, float/double agreement, buffers, traits and error messages.
require 'torch'
require 'nn'

local precision = 1e-5

-- y = W x + b by explicit loops
local function naive(w, b, x)
  local out, inn = w:size(1), w:size(2)
  if x:dim() == 1 then
    local y = torch.DoubleTensor(out)
    for o = 1, out do
      local s = b and b[o] or 0
      for i = 1, inn do s = s + w[o][i] * x[i] end
      y[o] = s
    end
    return y
  end
  local y = torch.DoubleTensor(x:size(1), out)
  for n = 1, x:size(1) do y[n]:copy(naive(w, b, x[n])) end
  return y
end

local maxdiff = require('spec.support.helpers').maxAbsDiff

-- a (n x k) times b (k x m) by loops
local function mm(a, b)
  local r = torch.DoubleTensor(a:size(1), b:size(2))
  for i = 1, a:size(1) do
    for j = 1, b:size(2) do
      local s = 0
      for k = 1, a:size(2) do s = s + a[i][k] * b[k][j] end
      r[i][j] = s
    end
  end
  return r
end

local function scaled(t, c)
  local r = t:clone()
  local f = r:view(r:nElement())
  for i = 1, f:nElement() do f[i] = f[i] * c end
  return r
end

describe('nn.Linear', function()
  before_each(function() torch.manualSeed(123) end)

  it('has Torch7 fields, sizes and initialisation', function()
    local m = nn.Linear(10, 4)
    assert.are.same({4, 10}, {m.weight:size(1), m.weight:size(2)})
    assert.are.same({4, 10}, {m.gradWeight:size(1), m.gradWeight:size(2)})
    assert.are.equal(4, m.bias:size(1))
    assert.are.equal(4, m.gradBias:size(1))
    local bound = 1 / math.sqrt(10)
    for o = 1, 4 do
      assert.is_true(math.abs(m.bias[o]) <= bound)
      for i = 1, 10 do assert.is_true(math.abs(m.weight[o][i]) <= bound) end
    end
    assert.are.equal('nn.Linear(10 -> 4)', tostring(m))
    m:reset(0.1)
    local b2 = 0.1 * math.sqrt(3)
    for o = 1, 4 do for i = 1, 10 do assert.is_true(math.abs(m.weight[o][i]) <= b2) end end
  end)

  it('noBias() and bias = false drop the bias', function()
    local m = nn.Linear(3, 2):noBias()
    assert.is_nil(m.bias)
    assert.is_nil(m.gradBias)
    assert.are.equal('nn.Linear(3 -> 2) without bias', tostring(m))
    local m2 = nn.Linear(3, 2, false)
    assert.is_nil(m2.bias)
    local x = torch.randn(3)
    assert.is_true(maxdiff(m2:forward(x), naive(m2.weight, nil, x)) < 1e-12)
    local params = m2:parameters()
    assert.are.equal(1, #params)
  end)

  it('computes W x + b for a vector and a batch', function()
    local m = nn.Linear(5, 3)
    local x = torch.randn(5)
    local y = m:forward(x)
    assert.are.same({3}, {y:size(1)})
    assert.are.equal(1, y:dim())
    assert.is_true(maxdiff(y, naive(m.weight, m.bias, x)) < 1e-12)
    local xb = torch.randn(7, 5)
    local yb = m:forward(xb)
    assert.are.same({7, 3}, {yb:size(1), yb:size(2)})
    assert.is_true(maxdiff(yb, naive(m.weight, m.bias, xb)) < 1e-12)
    -- a batch of one stays 2D
    local y1 = m:forward(torch.randn(1, 5))
    assert.are.equal(2, y1:dim())
  end)

  it('keeps its output and gradInput objects and refills addBuffer per batch size', function()
    local m = nn.Linear(4, 2)
    local out, gin = m.output, m.gradInput
    for _, b in ipairs{3, 5, 1, 5} do
      local x = torch.randn(b, 4)
      m:forward(x)
      m:backward(x, torch.randn(b, 2))
      assert.are.equal(out, m.output)
      assert.are.equal(gin, m.gradInput)
      assert.are.equal(b, m.addBuffer:nElement())
      assert.is_true(maxdiff(m.output, naive(m.weight, m.bias, x)) < 1e-12)
    end
    -- garbage in the buffer (as when its memory is lent out) does not matter
    local x = torch.randn(5, 4)
    m.addBuffer:fill(7)
    assert.is_true(maxdiff(m:forward(x), naive(m.weight, m.bias, x)) < 1e-12)
  end)

  it('accepts non-contiguous inputs', function()
    local m = nn.Linear(4, 3)
    local xt = torch.randn(4, 6):t()  -- 6x4, transposed strides
    assert.is_false(xt:isContiguous())
    assert.is_true(maxdiff(m:forward(xt), naive(m.weight, m.bias, xt)) < 1e-12)
    local go = torch.randn(3, 6):t()
    local gi = m:backward(xt, go)
    assert.is_true(maxdiff(gi, mm(go, m.weight)) < 1e-12)
  end)

  it('passes the input Jacobian check (vector and batch)', function()
    local m = nn.Linear(6, 4)
    assert.is_true(nn.Jacobian.testJacobian(m, torch.DoubleTensor(6)) < precision)
    assert.is_true(nn.Jacobian.testJacobian(m, torch.DoubleTensor(3, 6)) < precision)
    local nb = nn.Linear(6, 4, false)
    assert.is_true(nn.Jacobian.testJacobian(nb, torch.DoubleTensor(3, 6)) < precision)
  end)

  it('passes the parameter Jacobian checks (vector and batch)', function()
    for _, x in ipairs{torch.DoubleTensor(5), torch.DoubleTensor(4, 5)} do
      local m = nn.Linear(5, 3)
      assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < precision)
      assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias) < precision)
      assert.is_true(nn.Jacobian.testJacobianUpdateParameters(m, x, m.weight) < precision)
      assert.is_true(nn.Jacobian.testJacobianUpdateParameters(m, x, m.bias) < precision)
    end
  end)

  it('accumulates gradients with the scale', function()
    local m = nn.Linear(3, 2)
    local x, go = torch.randn(4, 3), torch.randn(4, 2)
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, go)
    local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
    m:backward(x, go, 0.5)
    assert.is_true(maxdiff(m.gradWeight, scaled(gw, 1.5)) < 1e-12)
    assert.is_true(maxdiff(m.gradBias, scaled(gb, 1.5)) < 1e-12)
    -- gradWeight = go^T x, gradBias = column sums of go
    assert.is_true(maxdiff(gw, mm(go:t(), x)) < 1e-12)
    for o = 1, 2 do
      local s = 0
      for n = 1, 4 do s = s + go[n][o] end
      assert.is_true(math.abs(gb[o] - s) < 1e-12)
    end
  end)

  it('sums gradBias over blocks of 256 columns: 1, 255-257 and 600 outputs, float and double', function()
    for _, typ in ipairs{'torch.DoubleTensor', 'torch.FloatTensor'} do
      for _, nout in ipairs{1, 255, 256, 257, 600} do
        local m = nn.Linear(3, nout):type(typ)
        local x = torch.randn(5, 3):type(typ)
        local go = torch.randn(5, nout):type(typ)
        m.gradBias:fill(0.25)
        m:forward(x)
        m:accGradParameters(x, go, 0.5)
        local worst = 0
        for o = 1, nout do
          local sum = 0
          for n = 1, 5 do sum = sum + go[n][o] end
          worst = math.max(worst, math.abs(m.gradBias[o] - (0.25 + 0.5 * sum)))
        end
        assert.is_true(worst < (typ == 'torch.FloatTensor' and 1e-5 or 1e-12), typ .. ' ' .. nout)
      end
    end
    -- a strided gradBias (a view with stride 2) gets the same sums
    local m = nn.Linear(3, 300)
    local x, go = torch.randn(4, 3), torch.randn(4, 300)
    m.gradBias = torch.zeros(600):view(300, 2):select(2, 1)
    m:accGradParameters(x, go)
    assert.is_true(maxdiff(m.gradBias, go:sum(1):view(300)) < 1e-12)
  end)

  it('writes gradients into non-contiguous views of a flat parameter vector', function()
    local m = nn.Linear(3, 2)
    local x, go = torch.randn(4, 3), torch.randn(4, 2)
    local flat = torch.DoubleTensor(2 * 3 * 2):zero()
    -- gradWeight as a transposed view: not contiguous
    m.gradWeight = flat:narrow(1, 1, 6):view(3, 2):t()
    m.gradBias:zero()
    m:forward(x)
    m:backward(x, go)
    assert.is_true(maxdiff(m.gradWeight, mm(go:t(), x)) < 1e-12)
  end)

  it('gives the same results in float and double', function()
    local m = nn.Linear(8, 5)
    local x, go = torch.randn(6, 8), torch.randn(6, 5)
    local yd = m:forward(x):clone()
    m:zeroGradParameters()
    local gd = m:backward(x, go):clone()
    local gwd = m.gradWeight:clone()
    local mf = m:clone():float()
    mf:zeroGradParameters()
    local yf = mf:forward(x:float())
    local gf = mf:backward(x:float(), go:float())
    assert.are.equal('torch.FloatTensor', torch.type(yf))
    assert.are.equal('torch.FloatTensor', torch.type(mf.addBuffer))
    assert.is_true(maxdiff(yf:double(), yd) < 1e-5)
    assert.is_true(maxdiff(gf:double(), gd) < 1e-5)
    assert.is_true(maxdiff(mf.gradWeight:double(), gwd) < 1e-5)
  end)

  it('gives the same results after a save/load round trip', function()
    for _, m in ipairs{nn.Linear(4, 3), nn.Linear(4, 3, false)} do
      local ef, eb = nn.Jacobian.testIO(m, torch.randn(5, 4))
      assert.are.equal(0, ef)
      assert.are.equal(0, eb)
    end
  end)

  it('declares its memory traits', function()
    local t = nn.Linear(2, 2):memoryTraits()
    assert.are.equal('both', t.buffers.addBuffer)
    assert.is_true(t.needsInput)
    assert.is_false(t.needsOutput)
    assert.is_nil(t.inplace)
  end)

  it('clearState empties output, gradInput and addBuffer', function()
    local m = nn.Linear(2, 2)
    local x = torch.randn(3, 2)
    m:forward(x)
    m:backward(x, torch.randn(3, 2))
    m:clearState()
    assert.are.equal(0, m.output:nElement())
    assert.are.equal(0, m.addBuffer:nElement())
  end)

  it('reports misuse clearly', function()
    local m = nn.Linear(784, 10)
    local ok, err = pcall(m.forward, m, torch.randn(2, 3, 4))
    assert.is_false(ok)
    assert.truthy(err:find('nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 784 columns, got 3D 2x3x4', 1, true))
    ok, err = pcall(m.forward, m, torch.randn(2, 5))
    assert.truthy(err:find('size mismatch: input must be 1D or 2D with 784 columns, got 2D 2x5', 1, true))
    ok, err = pcall(m.forward, m, torch.FloatTensor(2, 784))
    assert.truthy(err:find('nn.Linear:updateOutput: input must be a torch.DoubleTensor like the weight, got torch.FloatTensor', 1, true))
    ok, err = pcall(m.forward, m, 'x')
    assert.truthy(err:find('nn.Linear:updateOutput: input must be a tensor, got string', 1, true))
    local x = torch.randn(2, 784)
    m:forward(x)
    ok, err = pcall(m.backward, m, x, torch.randn(3, 10))
    assert.truthy(err:find('nn.Linear:updateGradInput: gradOutput must be 2x10 (batch x outputSize), got 3x10', 1, true))
    ok, err = pcall(m.accGradParameters, m, x, torch.randn(2, 9))
    assert.truthy(err:find('nn.Linear:accGradParameters: gradOutput must be 2x10', 1, true))
    ok, err = pcall(nn.Linear, 0, 3)
    assert.truthy(err:find('nn.Linear: inputSize must be a positive integer, got 0', 1, true))
    ok, err = pcall(nn.Linear, 3, 2.5)
    assert.truthy(err:find('nn.Linear: outputSize must be a positive integer, got 2.5', 1, true))
  end)
end)

describe('nn.Mul, nn.CMul and nn.Add', function()
  before_each(function() torch.manualSeed(31) end)

  local function map(t, f)
    local r = t:clone()
    local fr = r:view(r:nElement())
    for i = 1, fr:nElement() do fr[i] = f(fr[i], i) end
    return r
  end

  it('nn.Mul scales by its one weight and passes the Jacobian checks', function()
    local m = nn.Mul()
    assert.are.equal(1, m.weight:nElement())
    assert.is_true(math.abs(m.weight[1]) <= 1)
    local x = torch.randn(3, 4)
    local w = m.weight[1]
    assert.is_true(maxdiff(m:forward(x), map(x, function(v) return v * w end)) < 1e-12)
    for _, xi in ipairs{torch.DoubleTensor(5), torch.DoubleTensor(2, 3)} do
      assert.is_true(nn.Jacobian.testJacobian(m, xi) < precision)
      assert.is_true(nn.Jacobian.testJacobianParameters(m, xi, m.weight, m.gradWeight) < precision)
    end
  end)

  it('nn.CMul multiplies element-wise: same shape, broadcast and batch', function()
    local m = nn.CMul(3, 4)
    assert.are.same({3, 4}, m.weight:size():totable())
    local x = torch.randn(3, 4)
    local y = m:forward(x)
    for i = 1, 3 do for j = 1, 4 do
      assert.is_true(math.abs(y[i][j] - x[i][j] * m.weight[i][j]) < 1e-12)
    end end
    -- batch of 3x4 inputs
    local xb = torch.randn(2, 3, 4)
    local yb = m:forward(xb)
    for b = 1, 2 do for i = 1, 3 do for j = 1, 4 do
      assert.is_true(math.abs(yb[b][i][j] - xb[b][i][j] * m.weight[i][j]) < 1e-12)
    end end end
    -- a 1x4 weight broadcast over the rows
    local mb = nn.CMul(1, 4)
    local yr = mb:forward(x)
    for i = 1, 3 do for j = 1, 4 do
      assert.is_true(math.abs(yr[i][j] - x[i][j] * mb.weight[1][j]) < 1e-12)
    end end
    local cases = {{nn.CMul(3, 4), torch.DoubleTensor(3, 4)}, {nn.CMul(3, 4), torch.DoubleTensor(2, 3, 4)},
                   {nn.CMul(1, 4), torch.DoubleTensor(3, 4)}, {nn.CMul(5), torch.DoubleTensor(5)},
                   {nn.CMul(torch.LongStorage{2, 1}), torch.DoubleTensor(2, 3)}}
    for _, c in ipairs(cases) do
      local mod, xi = c[1], c[2]
      assert.is_true(nn.Jacobian.testJacobian(mod, xi) < precision)
      assert.is_true(nn.Jacobian.testJacobianParameters(mod, xi, mod.weight, mod.gradWeight) < precision)
    end
    local ok, err = pcall(m.forward, m, torch.randn(5))
    assert.is_false(ok)
    assert.truthy(err:find("nn.CMul:updateOutput: input must have the weight's 12 elements (3x4), a batch of them, or its dimensions with size-1 weight dimensions broadcast, got 1D 5", 1, true))
    ok, err = pcall(nn.CMul, 0)
    assert.truthy(err:find('nn.CMul: size 1 must be a positive integer, got 0', 1, true))
    assert.are.equal('nn.CMul', tostring(m))   -- Torch7 prints the class only
  end)

  it('round-trip through save/load and agree in float', function()
    for _, c in ipairs{{nn.Mul(), {3, 4}}, {nn.CMul(4), {3, 4}}, {nn.CMul(1, 4), {3, 4}}, {nn.Add(4), {3, 4}},
                       {nn.Add(4, true), {3, 4}}} do
      local m, shape = c[1], c[2]
      local ef, eb = nn.Jacobian.testIO(m, torch.randn(table.unpack(shape)))
      assert.are.equal(0, ef)
      assert.are.equal(0, eb)
      local x, go = torch.randn(table.unpack(shape)), torch.randn(table.unpack(shape))
      m:zeroGradParameters()
      local y = m:forward(x):clone()
      local gi = m:backward(x, go):clone()
      local _, gp = m:parameters()
      local g1 = gp[1]:clone()
      local mf = m:clone():float()
      mf:zeroGradParameters()
      assert.is_true(maxdiff(mf:forward(x:float()):double(), y) < 1e-5)
      assert.is_true(maxdiff(mf:backward(x:float(), go:float()):double(), gi) < 1e-5)
      local _, gpf = mf:parameters()
      assert.is_true(maxdiff(gpf[1]:double(), g1) < 1e-5)
    end
  end)

  it('nn.Add adds its bias to a vector, a batch, or a scalar to everything', function()
    local m = nn.Add(4)
    local x = torch.randn(4)
    local y = m:forward(x)
    for j = 1, 4 do assert.is_true(math.abs(y[j] - x[j] - m.bias[j]) < 1e-12) end
    local xb = torch.randn(3, 4)
    local yb = m:forward(xb)
    for i = 1, 3 do for j = 1, 4 do
      assert.is_true(math.abs(yb[i][j] - xb[i][j] - m.bias[j]) < 1e-12)
    end end
    local s = nn.Add(4, true)
    assert.are.equal(1, s.bias:nElement())
    local ys = s:forward(xb)
    assert.is_true(maxdiff(ys, map(xb, function(v) return v + s.bias[1] end)) < 1e-12)
    for _, c in ipairs{{nn.Add(4), torch.DoubleTensor(4)}, {nn.Add(4), torch.DoubleTensor(3, 4)},
                       {nn.Add(4, true), torch.DoubleTensor(3, 4)}} do
      local mod, xi = c[1], c[2]
      assert.is_true(nn.Jacobian.testJacobian(mod, xi) < precision)
      assert.is_true(nn.Jacobian.testJacobianParameters(mod, xi, mod.bias, mod.gradBias) < precision)
    end
    local ok, err = pcall(m.forward, m, torch.randn(3, 5))
    assert.is_false(ok)
    assert.truthy(err:find("nn.Add:updateOutput: input must be the bias's size (4) or a batch of it, got 2D 3x5", 1, true))
  end)
end)
