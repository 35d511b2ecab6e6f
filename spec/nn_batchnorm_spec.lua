-- nn.BatchNormalization and nn.SpatialBatchNormalization: values and running
-- statistics against a direct computation, train vs evaluate, gradients
-- (finite differences, double), the fused backward, errors.
require 'torch'
require 'nn'

local function flat(t) return t:contiguous():view(t:nElement()) end

local function maxdiff(a, b)
  assert.are.equal(a:nElement(), b:nElement())
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

-- gradient checks through the project's nn.Jacobian (double): input, and
-- weight and bias when the module is affine
local function checkGradients(m, x)
  local errs = {nn.Jacobian.testJacobian(m, x)}
  if m.weight then
    errs[2] = nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight)
    errs[3] = nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias)
  end
  return math.max(table.unpack(errs))
end

local errorOf = require('spec.support.helpers').errorOf

-- statistics of feature f over dimension 1 and all dimensions after 2
local function featureValues(x, f)
  local v = {}
  local xs = x:select(2, f):contiguous()
  local fx = flat(xs)
  for i = 1, fx:nElement() do v[i] = fx[i] end
  return v
end

local function meanVar(v)
  local s = 0
  for _, a in ipairs(v) do s = s + a end
  local mean, q = s / #v, 0
  for _, a in ipairs(v) do q = q + (a - mean) ^ 2 end
  return mean, q / #v, q / (#v - 1)
end

describe('nn.BatchNormalization', function()
  before_each(function() torch.manualSeed(11) end)

  it('has Torch7 fields and printing', function()
    local m = nn.BatchNormalization(4)
    assert.are.equal(1e-5, m.eps); assert.are.equal(0.1, m.momentum)
    assert.is_true(m.affine); assert.is_true(m.train)
    assert.are.same({4}, m.running_mean:size():totable())
    assert.are.same({4}, m.running_var:size():totable())
    assert.are.equal(0, m.bias[1]); assert.are.equal(1, m.running_var[1])
    assert.are.equal('nn.BatchNormalization (2D) (4)', tostring(m))
    assert.are.equal('nn.SpatialBatchNormalization (4D) (3)', tostring(nn.SpatialBatchNormalization(3)))
    local na = nn.BatchNormalization(4, 1e-3, 0.2, false)
    assert.is_nil(na.weight); assert.is_false(na.affine); assert.are.equal(0.2, na.momentum)
  end)

  it('normalizes with batch statistics in training and running ones in evaluation', function()
    for _, case in ipairs{{nn.BatchNormalization(4), {6, 4}}, {nn.SpatialBatchNormalization(3), {4, 3, 3, 5}}} do
      local m, size = case[1], case[2]
      m.weight:uniform(0.5, 1.5); m.bias:uniform(-1, 1)
      m.running_mean:uniform(-1, 1); m.running_var:uniform(0.5, 2)
      local rm0, rv0 = m.running_mean:clone(), m.running_var:clone()
      local x = torch.DoubleTensor(table.unpack(size)):uniform(-2, 3)
      local y = m:forward(x)
      for f = 1, size[2] do
        local mean, var, unbiased = meanVar(featureValues(x, f))
        local xf, yf = featureValues(x, f), featureValues(y, f)
        for i = 1, #xf do
          local ref = (xf[i] - mean) / math.sqrt(var + m.eps) * m.weight[f] + m.bias[f]
          assert.is_true(math.abs(ref - yf[i]) < 1e-12)
        end
        assert.is_true(math.abs(m.running_mean[f] - (0.9 * rm0[f] + 0.1 * mean)) < 1e-12)
        assert.is_true(math.abs(m.running_var[f] - (0.9 * rv0[f] + 0.1 * unbiased)) < 1e-12)
        assert.is_true(math.abs(m.save_mean[f] - mean) < 1e-12)
        assert.is_true(math.abs(m.save_std[f] - 1 / math.sqrt(var + m.eps)) < 1e-12)   -- inverse std
      end
      m:evaluate()
      local rm, rv = m.running_mean:clone(), m.running_var:clone()
      y = m:forward(x):clone()
      for f = 1, size[2] do
        local xf, yf = featureValues(x, f), featureValues(y, f)
        for i = 1, #xf do
          local ref = (xf[i] - rm[f]) / math.sqrt(rv[f] + m.eps) * m.weight[f] + m.bias[f]
          assert.is_true(math.abs(ref - yf[i]) < 1e-12)
        end
      end
      assert.are.equal(0, maxdiff(rm, m.running_mean))   -- evaluation leaves them alone
      -- one sample (evaluation only) gives the same as a batch of one, in its own shape
      local one = m:forward(x[2]):clone()
      assert.are.same(x[2]:size():totable(), one:size():totable())
      assert.is_true(maxdiff(one, y[2]) < 1e-12)
    end
  end)

  it('has exact gradients in training and evaluation, affine or not (double)', function()
    for _, make in ipairs{function() return nn.BatchNormalization(3) end,
                          function() return nn.BatchNormalization(3, 1e-5, 0.1, false) end,
                          function() return nn.SpatialBatchNormalization(2) end} do
      local m = make()
      if m.weight then m.weight:uniform(0.5, 1.5); m.bias:uniform(-1, 1) end
      local x = m.nDim == 2 and torch.DoubleTensor(5, 3):uniform(-1, 1)
                or torch.DoubleTensor(3, 2, 2, 3):uniform(-1, 1)
      assert.is_true(checkGradients(m, x) < 1e-5, tostring(m) .. ' train')
      m:evaluate()
      assert.is_true(checkGradients(m, x) < 1e-5, tostring(m) .. ' evaluate')
      assert.is_true(checkGradients(m, x[1]:clone()) < 1e-5, tostring(m) .. ' one sample')
    end
  end)

  it('gives the same gradients through backward as through the two separate calls', function()
    local m = nn.SpatialBatchNormalization(3)
    m.weight:uniform(0.5, 1.5)
    local x = torch.DoubleTensor(4, 3, 5, 5):uniform(-1, 1)
    local go = torch.DoubleTensor(4, 3, 5, 5):uniform(-1, 1)
    m:forward(x)
    m:zeroGradParameters()
    local gi = m:backward(x, go, 0.5):clone()
    local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
    m:zeroGradParameters()
    assert.is_true(maxdiff(gi, m:updateGradInput(x, go)) < 1e-14)
    m:accGradParameters(x, go, 0.5)
    assert.is_true(maxdiff(gw, m.gradWeight) < 1e-13)
    assert.is_true(maxdiff(gb, m.gradBias) < 1e-13)
    -- the sums are not reused across a separate accGradParameters with another gradOutput
    m:zeroGradParameters()
    m:updateGradInput(x, go)
    local go2 = go:clone():uniform(-1, 1)
    m:accGradParameters(x, go2, 1)
    local ref = nn.SpatialBatchNormalization(3)
    ref.weight:copy(m.weight); ref.bias:copy(m.bias)
    ref:forward(x); ref:zeroGradParameters(); ref:accGradParameters(x, go2, 1)
    assert.is_true(maxdiff(ref.gradWeight, m.gradWeight) < 1e-13)
  end)

  it('agrees between float and double and keeps its tensors', function()
    local m = nn.SpatialBatchNormalization(4)
    local mf = nn.SpatialBatchNormalization(4):float()
    mf.weight:copy(m.weight)
    local out, gin = m.output, m.gradInput
    local x = torch.DoubleTensor(8, 4, 6, 6):uniform(-1, 2)
    local go = torch.DoubleTensor(8, 4, 6, 6):uniform(-1, 1)
    assert.is_true(maxdiff(m:forward(x), mf:forward(x:float()):double()) < 1e-5)
    m:zeroGradParameters(); mf:zeroGradParameters()
    assert.is_true(maxdiff(m:backward(x, go), mf:backward(x:float(), go:float()):double()) < 1e-4)
    assert.is_true(maxdiff(m.gradWeight, mf.gradWeight:double()) < 1e-3)
    assert.is_true(maxdiff(m.running_var, mf.running_var:double()) < 1e-5)
    assert.are.equal(out, m.output); assert.are.equal(gin, m.gradInput)
    local tr = m:memoryTraits()
    assert.are.equal('both', tr.buffers.save_mean); assert.are.equal('both', tr.buffers.save_std)
    assert.is_true(tr.needsInput); assert.is_false(tr.needsOutput)
  end)

  it('reads running_std from files of old Torch7 versions', function()
    local m = nn.BatchNormalization(2)
    m.running_var = nil
    m.running_std = torch.DoubleTensor({0.5, 2})
    m:evaluate()
    m:forward(torch.DoubleTensor(3, 2):uniform())
    assert.is_nil(m.running_std)
    assert.is_true(math.abs(m.running_var[1] - (4 - m.eps)) < 1e-12)
    assert.is_true(math.abs(m.running_var[2] - (0.25 - m.eps)) < 1e-12)
  end)

  it('round-trips through save/load (nn.Jacobian.testIO)', function()
    for _, m in ipairs{nn.BatchNormalization(3), nn.SpatialBatchNormalization(2, 1e-3, 0.2, false)} do
      local x = m.nDim == 2 and torch.DoubleTensor(4, 3):uniform() or torch.DoubleTensor(2, 2, 3, 3):uniform()
      local errf, errb = nn.Jacobian.testIO(m, x)
      assert.are.equal(0, errf); assert.are.equal(0, errb)
    end
  end)

  it('normalizes a batch of one sample with the running estimates in training mode, as Torch7', function()
    local m = nn.BatchNormalization(4)
    m.running_mean:uniform(); m.running_var:uniform(0.5, 2)
    local rm, rv = m.running_mean:clone(), m.running_var:clone()
    local x = torch.Tensor(1, 4):uniform()
    local y = m:forward(x):clone()
    local e = m:clone():evaluate()
    assert.is_true(y:equal(e:forward(x)))
    assert.is_true(m.running_mean:equal(rm) and m.running_var:equal(rv))
    local go = torch.Tensor(1, 4):uniform()
    m:zeroGradParameters(); e:zeroGradParameters()
    assert.is_true(m:backward(x, go):equal(e:backward(x, go)))
    assert.is_true(m.gradWeight:equal(e.gradWeight) and m.gradBias:equal(e.gradBias))
  end)

  it('gives clear errors', function()
    local m = nn.BatchNormalization(4)
    assert.are.equal('nn.BatchNormalization:updateOutput: input must be 2D (batch x 4 features) in training mode, got 3D 2x4x3',
                     errorOf(function() m:forward(torch.Tensor(2, 4, 3)) end))
    assert.are.equal('nn.BatchNormalization:updateOutput: input must be 2D (batch x 4 features) in training mode, got 1D 4',
                     errorOf(function() m:forward(torch.Tensor(4)) end))
    assert.are.equal('nn.BatchNormalization:updateOutput: input must have 4 features (dimension 2), got 2D 3x5',
                     errorOf(function() m:forward(torch.Tensor(3, 5)) end))
    assert.are.equal('nn.SpatialBatchNormalization:updateOutput: input must be 4D (batch x 3 features x height x width) in training mode, got 3D 3x4x4',
                     errorOf(function() nn.SpatialBatchNormalization(3):forward(torch.Tensor(3, 4, 4)) end))
    assert.are.equal("nn.BatchNormalization:updateOutput: input must be a torch.FloatTensor or torch.DoubleTensor, got torch.LongTensor",
                     errorOf(function() m:forward(torch.LongTensor(2, 4)) end))
    assert.are.equal("nn.BatchNormalization:updateOutput: input must be a torch.DoubleTensor (the module's type), got torch.FloatTensor",
                     errorOf(function() m:forward(torch.FloatTensor(2, 4)) end))
    m:forward(torch.Tensor(3, 4):uniform())
    assert.are.equal('nn.BatchNormalization:updateGradInput: gradOutput must be 2D (batch x 4 features) in training mode, got 1D 4',
                     errorOf(function() m:backward(torch.Tensor(3, 4), torch.Tensor(4)) end))
    assert.is_truthy(errorOf(function() nn.BatchNormalization(0) end)
                     :find('nn.BatchNormalization: nOutput (the number of features) must be a positive integer, got 0', 1, true))
  end)
end)

describe('nn.BatchNormalization with outputs sharing memory with its vectors', function()
  -- a resize of output/gradInput moves the data of a storage it shares with
  -- save_mean or the backward statistics (an optimized net's arena after a
  -- load at a larger batch): the kernel must point at the vectors again
  it('gives the numbers of private tensors when output and gradInput grow their shared storage', function()
    torch.manualSeed(4)
    local ref = nn.BatchNormalization(3)
    local m = ref:clone()
    local x, g = torch.randn(6, 3), torch.randn(6, 3)
    local shared = torch.DoubleStorage(8)
    m.save_mean = torch.DoubleTensor(shared, 1, torch.LongStorage{3})
    m.save_std = torch.DoubleTensor(shared, 4, torch.LongStorage{3})
    m.output:set(shared, 7, torch.LongStorage{0})
    local yr, ym = ref:forward(x), m:forward(x)
    assert.are.equal(0, (yr - ym):abs():max())
    local shared2 = torch.DoubleStorage(6)
    m._gradStats = torch.DoubleTensor(shared2, 1, torch.LongStorage{6})
    m.gradInput:set(shared2, 7, torch.LongStorage{0})
    ref:zeroGradParameters(); m:zeroGradParameters()
    local gr, gm = ref:backward(x, g), m:backward(x, g)
    assert.is_true((gr - gm):abs():max() < 1e-12)
    assert.is_true((ref.gradWeight - m.gradWeight):abs():max() < 1e-12)
  end)
end)

-- above TH_NN_PAR_MIN_BN (131072 elements) features are spread over the
-- threads: each feature's sums stay on one thread, so the numbers are
-- those of one thread, bit for bit
describe('nn.SpatialBatchNormalization on two threads', function()
  it('gives the bits of one thread, float and double, forward and backward', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      torch.manualSeed(5)
      local x = torch.randn(3, 9, 71, 73):type(T)  -- 140k elements, odd sizes
      local go = torch.randn(3, 9, 71, 73):type(T)
      local res = {}
      for _, nt in ipairs{1, 2} do
        local old = torch.getnumthreads()
        torch.setnumthreads(nt)
        local m = nn.SpatialBatchNormalization(9):type(T)
        m.weight:copy(torch.linspace(0.5, 2, 9)); m.bias:copy(torch.linspace(-1, 1, 9))
        local y = m:forward(x):clone()
        m:zeroGradParameters()
        local gi = m:backward(x, go):clone()
        res[nt] = {y, gi, m.gradWeight:clone(), m.gradBias:clone(), m.running_var:clone()}
        torch.setnumthreads(old)
      end
      for i = 1, 5 do assert.is_true(res[1][i]:eq(res[2][i]):all(), T .. ' #' .. i) end
    end
  end)
end)

describe('batch norm + in-place ReLU in a Sequential (one pass, nn.fuse)', function()
  -- the same net twice: the first fused by nn.fuse, the second's ReLUs
  -- override updateOutput, which keeps nn.fuse from fusing them
  local function pair(build, ty)
    local a = build():type(ty)
    a:zeroGradParameters()
    local b = a:clone()
    assert.is_true(select(2, nn.fuse(a)) > 0)
    for _, r in ipairs(b:findModules('nn.ReLU')) do
      r.updateOutput = function(self, x) return nn.ReLU.updateOutput(self, x) end
    end
    return a, b
  end

  local function spatial()
    return nn.Sequential():add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1))
      :add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(true))
      :add(nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1))
      :add(nn.SpatialBatchNormalization(4, 1e-5, 0.1, false)):add(nn.ReLU(true))
  end
  local function flat()
    return nn.Sequential():add(nn.Linear(6, 5)):add(nn.BatchNormalization(5)):add(nn.ReLU(true))
      :add(nn.Linear(5, 3)):add(nn.BatchNormalization(3)):add(nn.ReLU(false))
  end

  for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
    for _, case in ipairs{{'spatial', spatial, {5, 3, 7, 7}}, {'flat', flat, {9, 6}}} do
      it(case[1] .. ', ' .. ty .. ': the same numbers bit for bit, training and evaluation', function()
        torch.manualSeed(3)
        local a, b = pair(case[2], ty)
        for _, mode in ipairs{'training', 'evaluate'} do
          a[mode](a); b[mode](b)
          for _ = 1, 2 do
            local x = torch.randn(table.unpack(case[3])):type(ty)
            local ya, yb = a:forward(x), b:forward(x)
            assert.is_true(torch.equal(ya, yb))
            assert.is_true(ya:min() >= 0 or case[1] == 'flat')
            local go = torch.randn(ya:size()):type(ty)
            assert.is_true(torch.equal(a:backward(x, go), b:backward(x, go)))
            local pa, ga = a:parameters()
            local pb, gb = b:parameters()
            for i = 1, #ga do assert.is_true(torch.equal(ga[i], gb[i])) end
            for _, cls in ipairs{'nn.BatchNormalization', 'nn.SpatialBatchNormalization'} do
              local bn = b:findModules(cls)
              for i, m in ipairs(a:findModules(cls)) do
                assert.is_true(torch.equal(m.running_mean, bn[i].running_mean))
                assert.is_true(torch.equal(m.running_var, bn[i].running_var))
              end
            end
          end
        end
      end)
    end
  end

  it('leaves the ReLU output sharing the batch norm output, as in-place ReLU does', function()
    local s = nn.fuse(nn.Sequential():add(nn.SpatialBatchNormalization(2)):add(nn.ReLU(true)))
    local y = s:forward(torch.randn(3, 2, 4, 4))
    assert.are.equal(torch.pointer(s.modules[1].output:storage()), torch.pointer(y:storage()))
    assert.is_true(y:isSameSizeAs(s.modules[1].output))
    assert.are.equal(s.modules[2].output, y)
    assert.is_true(s.modules[1].output:min() >= 0)
  end)

  it('does not fuse a ReLU that is not in place, nor a threshold other than 0', function()
    local s = nn.fuse(nn.Sequential():add(nn.BatchNormalization(3)):add(nn.ReLU(false)))
    assert.is_nil(s.modules[1].fuseReLU)
    local y = s:forward(torch.randn(6, 3))
    assert.is_true(s.modules[1].output:min() < 0)   -- the batch norm's own output is untouched
    assert.is_true(y:min() >= 0)
    local t = nn.fuse(nn.Sequential():add(nn.BatchNormalization(3)):add(nn.Threshold(0.5, 0, true)))
    assert.is_nil(t.modules[1].fuseReLU)
    local z = t:forward(torch.randn(6, 3))
    assert.is_true(torch.le(z, 0):add(torch.gt(z, 0.5)):min() == 1)
  end)

  it('fuses a residual add (in-place CAddTable of two tensors) with the ReLU after it, bit for bit', function()
    local function block()
      local body = nn.Sequential():add(nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1))
        :add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(true))
        :add(nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(4))
      return nn.Sequential():add(nn.ConcatTable():add(body):add(nn.Identity()))
        :add(nn.CAddTable(true)):add(nn.ReLU(true))
    end
    for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      torch.manualSeed(5)
      local a, b = pair(block, ty)
      local x = torch.randn(3, 4, 5, 5):type(ty)
      local ya, yb = a:forward(x), b:forward(x)
      assert.is_true(torch.equal(ya, yb))
      assert.are.equal(0, ya:min())
      assert.are.equal(torch.pointer(a.modules[2].output:storage()), torch.pointer(ya:storage()))
      local go = torch.randn(ya:size()):type(ty)
      assert.is_true(torch.equal(a:backward(x, go), b:backward(x, go)))
    end
  end)

  it('falls back to the add and the ReLU when the operands do not suit one pass', function()
    local function run(inputs)
      local s = nn.fuse(nn.Sequential():add(nn.CAddTable(true)):add(nn.ReLU(true)))
      assert.is_true(s.modules[1].fuseReLU)
      local want = inputs[1]:clone()
      for i = 2, #inputs do want:add(inputs[i]) end
      want:clamp(0, math.huge)
      local y = s:forward(inputs)
      assert.is_true(torch.equal(want, y))
    end
    run({torch.randn(4, 5), torch.randn(4, 5), torch.randn(4, 5)})     -- three terms
    run({torch.randn(5, 4):t(), torch.randn(4, 5)})                    -- not contiguous
    run({torch.randn(4, 5), torch.randn(20)})                          -- other shape, same count
    local x = torch.randn(30)
    run({x:narrow(1, 1, 20), x:narrow(1, 6, 20)})                      -- overlapping views
    assert.has_error(function()
      nn.fuse(nn.Sequential():add(nn.CAddTable(true)):add(nn.ReLU(true))):forward({torch.randn(3), torch.randn(4)})
    end)
  end)
end)

describe('nn.BatchNormalization re-made from its kept coefficients (optnet recompute)', function()
  it('gives the forward\'s bits, clipped as an in-place ReLU with relu, statistics untouched', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      for _, case in ipairs{{nn.BatchNormalization(5), {7, 5}}, {nn.SpatialBatchNormalization(3), {4, 3, 5, 6}},
                            {nn.SpatialBatchNormalization(3, 1e-5, 0.1, false), {2, 3, 4, 4}}} do
        local m, size = case[1]:type(T), case[2]
        m:training()
        local x = torch.randn(table.unpack(size)):type(T):mul(3):add(1)
        assert.is_false(m:_canReapply(x))
        m:_keepCoefficients(true)
        local y = m:forward(x):clone()
        local stats = {m.running_mean:clone(), m.running_var:clone(), m.save_mean:clone(), m.save_std:clone()}
        assert.is_true(m:_canReapply(x))
        assert.is_false(m:_canReapply(x:narrow(1, 1, 1)))
        m.output:fill(7)
        assert.is_true(m:_reapplyNext(x, false))
        assert.is_true(m:forward(x):eq(y):all(), T)
        local relu = nn.ReLU(true):type(T)
        local clipped = relu:forward(y:clone())
        m.output:fill(7)
        assert.is_true(m:_reapplyNext(x, true))
        assert.is_true(m:forward(x):eq(clipped):all(), T .. ' relu')
        -- the next forward is a training forward again: the statistics move
        for i, s in ipairs{m.running_mean, m.running_var, m.save_mean, m.save_std} do
          assert.is_true(s:eq(stats[i]):all(), 'statistic ' .. i)
        end
        m:forward(x)
        assert.is_false(m.running_mean:eq(stats[1]):all())
        -- evaluate mode keeps none; off keeps none
        m:evaluate()
        m:forward(x)
        assert.is_false(m:_reapplyNext(x, false))
        m:training()
        m:_keepCoefficients(false)
        m:forward(x)
        assert.is_false(m:_canReapply(x))
      end
    end
  end)

  it('a ReLU told its input is clipped makes its output a view of it, once', function()
    local r = nn.ReLU(true)
    local x = torch.Tensor{-1, 2, -3}
    assert.is_true(r:_inputClipped())
    assert.are.equal(x:_storageId(), r:forward(x):_storageId())
    assert.are.same({-1, 2, -3}, x:totable())
    r:forward(x)
    assert.are.same({0, 2, 0}, x:totable())
    assert.is_false(nn.ReLU():_inputClipped())
    assert.is_false(nn.Threshold(0.5, 0, true):_inputClipped())
  end)
end)

-- features run in blocks read in memory order (generic/batchnorm.c): many
-- features of small planes make blocks of uneven sizes; each feature's
-- numbers do not depend on its block or the thread count, and match a
-- double computation of Torch7's formulas
describe('nn.BatchNormalization over blocks of features', function()
  -- per feature (rows) x all its values (columns), in double
  local function byFeature(t)
    local n, f = t:size(1), t:size(2)
    return t:double():contiguous():view(n, f, -1):transpose(1, 2):contiguous():view(f, -1)
  end

  local function reference(x, go, w, b, eps)
    local X, D = byFeature(x), byFeature(go)
    local n = X:size(2)
    local mean = X:mean(2)
    local xc = X - mean:expandAs(X)
    local var = xc:clone():pow(2):sum(2):div(n)
    local invstd = var:clone():add(eps):sqrt():pow(-1)
    local wv = w:double():view(-1, 1)
    local y = xc:clone():cmul(invstd:expandAs(X)):cmul(wv:expandAs(X)):add(b:double():view(-1, 1):expandAs(X))
    local sum, dotp = D:sum(2), xc:clone():cmul(D):sum(2)
    local gi = D - (sum / n):expandAs(D)
    gi:add(-1, xc:clone():cmul((dotp:clone():cmul(invstd):cmul(invstd) / n):expandAs(X)))
    gi:cmul((invstd:clone():cmul(wv)):expandAs(X))
    return y, gi, dotp:cmul(invstd):view(-1), sum:view(-1)
  end

  it('matches a double computation and gives the same bits on one and two threads', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      local tol = T == 'torch.FloatTensor' and 2e-5 or 1e-11
      for _, size in ipairs{{5, 300, 3, 3}, {7, 513}, {1, 40, 7, 7}, {33, 70, 8, 8}, {2, 3, 130, 131}} do
        torch.manualSeed(11)
        local x = torch.randn(table.unpack(size)):type(T):add(2)
        local go = torch.randn(table.unpack(size)):type(T)
        local res = {}
        for _, nt in ipairs{1, 2} do
          local old = torch.getnumthreads()
          torch.setnumthreads(nt)
          local m = (#size == 2 and nn.BatchNormalization(size[2]) or nn.SpatialBatchNormalization(size[2])):type(T)
          m.weight:copy(torch.linspace(0.5, 2, size[2])); m.bias:copy(torch.linspace(-1, 1, size[2]))
          m:zeroGradParameters()
          local y = m:forward(x):clone()
          local gi = m:backward(x, go):clone()
          res[nt] = {y, gi, m.gradWeight:clone(), m.gradBias:clone(), m.running_mean:clone(), m.running_var:clone()}
          if nt == 1 and size[1] > 1 then
            local ry, rgi, rgw, rgb = reference(x, go, m.weight, m.bias, m.eps)
            local scale = math.max(1, torch.abs(rgi):max())
            assert.is_true((byFeature(y) - ry):abs():max() < tol * 10, T .. ' y ' .. table.concat(size, 'x'))
            assert.is_true((byFeature(gi) - rgi):abs():max() < tol * 10 * scale, T .. ' gi ' .. table.concat(size, 'x'))
            assert.is_true((m.gradWeight:double() - rgw):abs():max() < tol * 100 * math.max(1, torch.abs(rgw):max()))
            assert.is_true((m.gradBias:double() - rgb):abs():max() < tol * 100 * math.max(1, torch.abs(rgb):max()))
          end
          m:evaluate()
          res[nt][7] = m:forward(x):clone()
          res[nt][8] = m:backward(x, go):clone()
          torch.setnumthreads(old)
        end
        for i = 1, 8 do
          assert.is_true(res[1][i]:eq(res[2][i]):all(), T .. ' #' .. i .. ' ' .. table.concat(size, 'x'))
        end
      end
    end
  end)

  it('has exact gradients with blocks of features (double, finite differences)', function()
    torch.manualSeed(3)
    for _, m in ipairs{nn.SpatialBatchNormalization(260):double(), nn.BatchNormalization(300):double()} do
      local x = torch.DoubleTensor(3, m.running_mean:nElement(), table.unpack(
        torch.isTypeOf(m, 'nn.SpatialBatchNormalization') and {1, 2} or {})):uniform(-1, 2)
      assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-6, tostring(m))
      m:evaluate()
      assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-6, tostring(m))
    end
  end)
end)
