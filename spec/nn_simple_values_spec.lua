-- The simple family (simple layers and activations) against numbers worked
-- out by hand or from Torch7's formulas, in-place runs against out-of-place
-- ones, and the error messages for bad input. The generic checks (finite
-- differences, types, copies, traits, optnet) are in nn_simple_spec.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'

local T = torch.Tensor

local function near(a, b, eps)
  if type(b) == 'table' then b = T(b) end
  assert.are.same(a:nElement(), b:nElement())
  local d = (a:double():contiguous():view(-1) - b:double():contiguous():view(-1)):abs():max()
  assert(d <= (eps or 1e-12), string.format('differs by %g', d))
end

describe('simple layers: values', function()
  before_each(function() torch.manualSeed(11) end)

  it('Abs, Exp, Log, Square, Sqrt, Power', function()
    local x = T{-2, 0, 1.5}
    near(nn.Abs():forward(x), {2, 0, 1.5})
    -- Torch7 takes d|x|/dx = 1 at 0
    near(nn.Abs():backward(x, T{1, 1, 1}), {-1, 1, 1})
    local e = nn.Exp()
    near(e:forward(x), {math.exp(-2), 1, math.exp(1.5)})
    near(e:backward(x, T{1, 2, 3}), {math.exp(-2), 2, 3 * math.exp(1.5)})
    local l = nn.Log()
    near(l:forward(T{1, math.exp(2), 0.5}), {0, 2, math.log(0.5)})
    near(l:backward(T{1, 4, 0.5}, T{1, 1, 1}), {1, 0.25, 2})
    near(nn.Square():forward(x), {4, 0, 2.25})
    near(nn.Square():backward(x, T{1, 1, 2}), {-4, 0, 6})
    local s = nn.Sqrt()
    near(s:forward(T{4, 0, 2.25}), {2, 0, 1.5})
    -- no gradient where the output is 0 (Torch7's guard)
    near(s:backward(T{4, 0, 2.25}, T{1, 1, 3}), {0.25, 0, 1})
    -- eps is kept and, as in Torch7's kernel, not added
    local se = nn.Sqrt(1)
    assert.are.equal(1, se.eps)
    near(se:forward(T{4}), {2})
    local p = nn.Power(3)
    near(p:forward(T{2, -1}), {8, -1})
    near(p:backward(T{2, -1}, T{1, 2}), {12, 6})
    near(nn.Power(0.5):forward(T{4, 9}), {2, 3})
  end)

  it('HardTanh, Clamp and ReLU6: bounds inclusive in backward', function()
    local m = nn.HardTanh()
    local x = T{-2, -1, 0.5, 1, 2}
    near(m:forward(x), {-1, -1, 0.5, 1, 1})
    near(m:backward(x, T{1, 1, 1, 1, 1}), {0, 0, 1, 0, 0})
    local c = nn.Clamp(-0.5, 0.25)
    assert.is_true(torch.isTypeOf(c, 'nn.HardTanh'))
    near(c:forward(T{-1, 0, 1}), {-0.5, 0, 0.25})
    local r = nn.ReLU6()
    near(r:forward(T{-1, 3, 6, 7}), {0, 3, 6, 6})
    near(r:backward(T{-1, 3, 6, 7}, T{1, 1, 1, 1}), {0, 1, 0, 0})
    -- Torch7's test: HardTanh(1, inf) backward equals Threshold(1, 0)
    local g1 = nn.HardTanh(1, math.huge, true):backward(T{1}, T{1})
    near(g1, {0})
  end)

  it('in place equals out of place (HardTanh, ReLU6, RReLU evaluation and training)', function()
    local builders = {
      function(ip) return nn.HardTanh(-0.3, 0.6, ip) end,
      function(ip) return nn.ReLU6(ip) end,
      function(ip) return nn.RReLU(0.1, 0.4, ip):evaluate() end,
      function(ip) return nn.RReLU(0.1, 0.4, ip) end,
    }
    for _, make in ipairs(builders) do
      local x = torch.randn(4, 5):mul(4)
      local go = torch.randn(4, 5)
      local a, b = make(false), make(true)
      torch.manualSeed(5)
      local ya = a:forward(x:clone()):clone()
      local ga = a:backward(x:clone(), go:clone()):clone()
      local xi, goi = x:clone(), go:clone()
      torch.manualSeed(5)
      local yb = b:forward(xi)
      assert.is_true(yb:isSetTo(xi))
      near(yb, ya)
      local gb = b:backward(xi, goi)
      assert.is_true(gb:isSetTo(goi))
      near(gb, ga)
    end
  end)

  it('strided and empty inputs: the contiguous numbers, no error', function()
    local makers = {
      function() return nn.Abs() end, function() return nn.Sqrt() end, function() return nn.Power(2) end,
      function() return nn.HardTanh() end, function() return nn.PReLU(4) end,
      function() return nn.RReLU():evaluate() end, function() return nn.LogSigmoid() end,
      function() return nn.SoftShrink() end, function() return nn.CReLU(2) end,
      function() return nn.GatedLinearUnit() end, function() return nn.Normalize(3) end,
    }
    for _, make in ipairs(makers) do
      local x = torch.rand(4, 3):add(0.1):t()   -- 3 x 4, strided
      local a, b = make(), make()
      local ya = a:forward(x):clone()
      local go = torch.randn(ya:size())
      local ga = a:backward(x, go):clone()
      near(b:forward(x:contiguous()), ya, 0)
      near(b:backward(x:contiguous(), go), ga, 0)
    end
    for _, m in ipairs{nn.Abs(), nn.HardTanh(), nn.PReLU(), nn.RReLU(), nn.Exp()} do
      local e = torch.Tensor()
      assert.are.equal(0, m:forward(e):nElement())
      assert.are.equal(0, m:backward(e, torch.Tensor()):nElement())
    end
  end)

  it('SoftShrink, HardShrink, TanhShrink, SoftSign, LogSigmoid', function()
    local x = T{-1, -0.2, 0.7}
    near(nn.SoftShrink(0.5):forward(x), {-0.5, 0, 0.2})
    near(nn.SoftShrink(0.5):backward(x, T{1, 1, 1}), {1, 0, 1})
    near(nn.HardShrink(0.5):forward(x), {-1, 0, 0.7})
    near(nn.HardShrink():backward(x, T{2, 2, 2}), {2, 0, 2})
    local ts = nn.TanhShrink()
    near(ts:forward(x), {-1 - math.tanh(-1), -0.2 - math.tanh(-0.2), 0.7 - math.tanh(0.7)}, 1e-15)
    near(ts:backward(x, T{1, 1, 1}), {math.tanh(-1) ^ 2, math.tanh(-0.2) ^ 2, math.tanh(0.7) ^ 2}, 1e-15)
    near(nn.SoftSign():forward(T{1, -3}), {0.5, -0.75})
    near(nn.SoftSign():backward(T{1, -3}, T{1, 1}), {0.25, 1 / 16})
    local ls = nn.LogSigmoid()
    -- no overflow at large |x|
    near(ls:forward(T{0, -800, 800}), {-math.log(2), -800, 0})
    near(ls:backward(T{0, -800, 800}, T{1, 1, 1}), {0.5, 1, 0})
  end)

  it('SoftMin is softmax of -x', function()
    local x = torch.randn(3, 5)
    local y = nn.SoftMin():forward(x)
    near(y, nn.SoftMax():forward(-x), 1e-15)
    near(y:sum(2), torch.ones(3, 1), 1e-12)
    local go = torch.randn(3, 5)
    local m, sm = nn.SoftMin(), nn.SoftMax()
    m:forward(x)
    sm:forward(-x)
    near(m:backward(x, go), -sm:backward(-x, go), 0)
  end)

  it('PReLU: shared and per-channel slopes, gradWeight', function()
    local m = nn.PReLU()
    assert.are.equal(0, m.nOutputPlane)
    near(m.weight, {0.25})
    near(m:forward(T{-4, 2}), {-1, 2})
    m:zeroGradParameters()
    near(m:backward(T{-4, 2}, T{1, 3}), {0.25, 3})
    near(m.gradWeight, {-4})
    local c = nn.PReLU(2)
    c.weight:copy(T{0.1, 0.5})
    -- batch 1 x 2 planes x 2 elements
    local x = T{{{-1, 2}, {-2, -4}}}
    near(c:forward(x), {-0.1, 2, -1, -2})
    c:zeroGradParameters()
    near(c:backward(x, torch.ones(1, 2, 2)), {0.1, 1, 0.5, 0.5})
    near(c.gradWeight, {-1, -6})
    -- 1D: the channel is dimension 1
    near(c:forward(T{-10, -10}), {-1, -5})
    -- a non-contiguous input reads the same numbers
    local xt = torch.randn(2, 3, 2):transpose(1, 3)   -- 2 x 3 x 2, strided
    local p3 = nn.PReLU(3)
    p3.weight:copy(T{0.1, 0.2, 0.3})
    near(p3:forward(xt), p3:clone():forward(xt:contiguous()))
  end)

  it('RReLU: slopes in [l, u) while training, the mean in evaluation, reproducible', function()
    local m = nn.RReLU(0.2, 0.4)
    assert.is_true(m.train)
    local x = torch.randn(200):add(-0.5)
    torch.manualSeed(3)
    local y = m:forward(x):clone()
    for i = 1, 200 do
      if x[i] > 0 then
        assert.are.equal(x[i], y[i])
        assert.are.equal(1, m.noise[i])
      else
        local r = y[i] / x[i]
        assert(r >= 0.2 and r < 0.4, 'slope ' .. r)
        assert(math.abs(m.noise[i] - r) < 1e-15)
      end
    end
    torch.manualSeed(3)
    near(m:forward(x), y, 0)
    near(m:backward(x, torch.ones(200)), m.noise, 0)
    m:evaluate()
    near(m:forward(T{-2, 3}), {-0.6, 3}, 1e-15)
    near(m:backward(T{-2, 3}, T{1, 1}), {0.3, 1}, 1e-15)
    -- equal bounds: backward uses the mean slope even while training
    local f = nn.RReLU(0.25, 0.25)
    f:forward(T{-1, 1})
    near(f:backward(T{-1, 1}, T{1, 1}), {0.25, 1})
  end)

  it('CReLU: relu(x) then relu(-x) along the features', function()
    local m = nn.CReLU(1)
    near(m:forward(T{1, -2}), {1, 0, 0, 2})
    near(m:backward(T{1, -2}, T{1, 2, 3, 4}), {1, -4})
    local b = nn.CReLU(3)
    local x = torch.randn(2, 3, 2, 2)
    local y = b:forward(x)
    assert.are.same({2, 6, 2, 2}, y:size():totable())
    near(y:narrow(2, 1, 3), nn.ReLU():forward(x))
    near(y:narrow(2, 4, 3), nn.ReLU():forward(-x))
  end)

  it('GatedLinearUnit: a * sigmoid(b) along dim', function()
    local sig = function(v) return 1 / (1 + math.exp(-v)) end
    local m = nn.GatedLinearUnit()
    near(m:forward(T{{1, 2, 3, 4}}), {1 * sig(3), 2 * sig(4)}, 1e-15)
    local g = m:backward(T{{1, 2, 3, 4}}, T{{1, 1}})
    near(g, {sig(3), sig(4), sig(3) * (1 - sig(3)), 2 * sig(4) * (1 - sig(4))}, 1e-15)
    local d = nn.GatedLinearUnit(1)
    assert.are.same({1, 3}, d:forward(torch.randn(2, 3)):size():totable())
  end)

  it('Normalize: p-norms and the inf norm', function()
    near(nn.Normalize(2):forward(T{3, 4}), {0.6, 0.8}, 1e-9)
    near(nn.Normalize(1):forward(T{{1, -3}, {2, 2}}), {0.25, -0.75, 0.5, 0.5}, 1e-9)
    near(nn.Normalize(math.huge):forward(T{3, -4}), {0.75, -1}, 1e-9)
    for _, p in ipairs{1, 2, 3, 1.5} do
      local x = torch.randn(6)
      near(nn.Normalize(p):forward(x), torch.div(x, x:norm(p)), 1e-7)
    end
    -- output and gradInput keep the input's shape
    local m = nn.Normalize(2)
    local x = torch.randn(5)
    assert.are.same({5}, m:forward(x):size():totable())
    assert.are.same({5}, m:backward(x, torch.randn(5)):size():totable())
    -- the indices stay a LongTensor across :float()
    local i = nn.Normalize(math.huge):float()
    i:forward(torch.randn(2, 3):float())
    assert.are.equal('torch.LongTensor', torch.type(i._indices))
  end)

  it('LayerNormalization: zero mean, unit variance per sample, then gain and bias', function()
    local m = nn.LayerNormalization(3)
    local s = math.sqrt(3 / 2)
    near(m:forward(T{{1, 2, 3}, {5, 5, 8}}), {-s, 0, s, -1 / math.sqrt(2), -1 / math.sqrt(2), math.sqrt(2)}, 1e-8)
    local b = nn.LayerNormalization(3, 0.5)
    near(b:forward(T{1, 2, 3}), {0.5 - s, 0.5, 0.5 + s}, 1e-8)
    assert.are.equal(4, #nn.LayerNormalization(3, 0, 1e-5, false).modules)
  end)

  it('Maxout: the max over the pieces of one Linear', function()
    local m = nn.Maxout(4, 3, 2)
    local x = torch.randn(5, 4)
    local lin = m.modules[1]:forward(x):view(5, 2, 3)
    near(m:forward(x), torch.max(lin, 2):view(5, 3))
    assert.are.same({3}, m:forward(torch.randn(4)):size():totable())
  end)

  it('WhiteNoise: noise while training, the mean in evaluation', function()
    local m = nn.WhiteNoise(0.5, 0.1)
    local x = torch.zeros(2000)
    local y = m:forward(x)
    assert(math.abs(y:mean() - 0.5) < 0.02 and math.abs(y:std() - 0.1) < 0.02)
    near(m:backward(x, torch.ones(2000)), torch.ones(2000))
    m:evaluate()
    near(m:forward(T{1, 2}), {1.5, 2.5})
    H.errors(function() m:backward(T{1, 2}, T{1, 1}) end,
             'nn.WhiteNoise:updateGradInput: backprop only defined while training')
  end)

  it('L1Penalty: loss, pass-through and gradient', function()
    local m = nn.L1Penalty(0.5)
    local x = T{-1, 2, -3}
    local y = m:forward(x)
    assert.is_true(y:isSetTo(x))
    assert.are.equal(3, m.loss)
    near(m:backward(x, T{1, 1, 1}), {0.5, 1.5, 0.5})
    local a = nn.L1Penalty(0.6, true, false)
    a:forward(x)
    assert.is_true(math.abs(a.loss - 1.2) < 1e-12)
    near(a:backward(x, T{9, 9, 9}), {-0.2, 0.2, -0.2}, 1e-15)
  end)

  it('GradientReversal, ZeroGrad: pass-through forward', function()
    local g = nn.GradientReversal()
    local x = T{1, 2}
    assert.is_true(g:forward(x):isSetTo(x))
    near(g:backward(x, T{1, -2}), {-1, 2})
    g:setLambda(0.5)
    near(g:backward(x, T{1, -2}), {-0.5, 1})
    local z = nn.ZeroGrad()
    assert.is_true(z:forward(x):isSetTo(x))
    near(z:backward(x, T{3, 4}), {0, 0})
    local t = {T{1, 2}, T{3}}
    assert.are.equal(t, z:forward(t))
    local gt = z:backward(t, {T{1, 1}, T{1}})
    near(gt[1], {0, 0}); near(gt[2], {0})
  end)

  it('GradientReversal: a version 1 file (no lambda) loads with lambda 1', function()
    local g = nn.GradientReversal(0.3)
    local saved = nn.GradientReversal.__version
    nn.GradientReversal.__version = 1
    local ok, s = pcall(torch.serialize, g)
    nn.GradientReversal.__version = saved
    assert.is_true(ok)
    assert.are.equal(1, torch.deserialize(s).lambda)
    assert.are.equal(0.3, torch.deserialize(torch.serialize(g)).lambda)
  end)

  it('NaN: passes numbers through, names where a NaN came from', function()
    local lin = nn.Linear(3, 4)
    local m = nn.NaN(lin, 3)
    local x = torch.randn(2, 3)
    near(m:forward(x), lin:clone():forward(x))
    local nan = 0 / 0
    H.errors(function() m:forward(T(2, 3):fill(nan)) end, 'NaN found in input of module')
    lin.bias[1] = nan
    H.errors(function() m:forward(x) end, 'NaN found in parameters of module')
    lin.bias:zero()
    m:forward(x)
    H.errors(function() m:backward(x, T(2, 4):fill(nan)) end, 'NaN found in gradOutput of module')
    local ok, err = pcall(function() m:forward(T(2, 3):fill(nan)) end)
    assert.is_false(ok)
    H.has(tostring(err), 'nn.NaN(3) @ nn.Linear(3 -> 4)')
    assert.are.equal(nn.NaN(nn.Identity()).id + 1, nn.NaN(nn.Identity()).id)
  end)
end)

describe('simple layers: errors', function()
  it('constructors say which argument is wrong', function()
    H.errors(function() nn.HardTanh(1, -1) end, 'nn.HardTanh: max_value must be larger than min_value')
    H.errors(function() nn.HardTanh(-1, 1, 'yes') end, 'nn.HardTanh: in-place flag must be boolean')
    H.errors(function() nn.Clamp(2, 1) end, 'nn.Clamp: max_value must be larger than min_value')
    H.errors(function() nn.Power() end, 'nn.Power: the power must be a number')
    H.errors(function() nn.RReLU(0.5, 0.1) end, 'nn.RReLU: bounds must satisfy 0 <= lower <= upper')
    H.errors(function() nn.RReLU(-0.1, 0.1) end, 'nn.RReLU: bounds must satisfy 0 <= lower <= upper')
    H.errors(function() nn.PReLU(-2) end, 'nn.PReLU: nOutputPlane must be a non-negative integer')
    H.errors(function() nn.Normalize() end, 'nn.Normalize: p-norm not provided')
    H.errors(function() nn.Normalize(-1) end, 'nn.Normalize: -1-norm not supported')
    H.errors(function() nn.CReLU() end, 'nn.CReLU: nInputDims must be a positive integer')
    H.errors(function() nn.Maxout(4, 0, 2) end, 'nn.Maxout: outputSize must be a positive integer')
    H.errors(function() nn.LayerNormalization() end, 'nn.LayerNormalization: nOutput must be a positive integer')
    H.errors(function() nn.NaN(3) end, 'nn.NaN: nn.Module expected')
    H.errors(function() nn.L1Penalty() end, 'nn.L1Penalty: l1weight must be a number')
    H.errors(function() nn.GatedLinearUnit(0) end, 'nn.GatedLinearUnit: dim must be a positive integer')
  end)

  it('bad input names the class, the method, what was expected and what came', function()
    H.errors(function() nn.Abs():forward(torch.LongTensor(3)) end,
             'nn.Abs:updateOutput: input must be a torch.FloatTensor or torch.DoubleTensor, got torch.LongTensor')
    H.errors(function() nn.Exp():forward('x') end, 'nn.Exp:updateOutput: input must be a tensor, got string')
    H.errors(function() nn.SoftSign():double():forward(torch.FloatTensor(3)) end,
             'nn.SoftSign:updateOutput: input must be a torch.DoubleTensor like the module\'s output')
    local h = nn.HardTanh()
    h:forward(torch.randn(3, 4))
    H.errors(function() h:backward(torch.randn(3, 4), torch.randn(5)) end,
             'nn.HardTanh:updateGradInput: gradOutput must have as many elements as the input (3x4, 12), got 5 (5)')
    H.errors(function() nn.Sqrt():updateGradInput(torch.randn(3), torch.randn(3)) end,
             'nn.Sqrt:updateGradInput: the output is empty: call updateOutput before updateGradInput')
    H.errors(function() nn.PReLU(3):forward(torch.randn(2, 4)) end,
             'nn.PReLU:updateOutput: input must have 3 planes in dimension 2, got 2x4')
    H.errors(function() nn.PReLU(3):forward(torch.randn(4)) end,
             'nn.PReLU:updateOutput: input must have 3 planes in dimension 1, got 4')
    H.errors(function() nn.PReLU(3):float():forward(torch.randn(2, 3)) end,
             'nn.PReLU:updateOutput: input must be a torch.FloatTensor (the module\'s type), got torch.DoubleTensor')
    local p = nn.PReLU(3)
    p:forward(torch.randn(2, 3))
    H.errors(function() p:backward(torch.randn(2, 3), torch.randn(7)) end,
             'nn.PReLU:updateGradInput: gradOutput must have as many elements as the input (2x3), got 7')
    H.errors(function() nn.RReLU():updateGradInput(torch.randn(4), torch.randn(4)) end,
             'nn.RReLU:updateGradInput: the noise holds 0 slopes for an input of 4 elements')
    H.errors(function() nn.GatedLinearUnit():forward(torch.randn(2, 3)) end,
             'nn.GatedLinearUnit:updateOutput: halving dimension 2 must have an even size, got 3')
    H.errors(function() nn.GatedLinearUnit(3):forward(torch.randn(2, 4)) end,
             'nn.GatedLinearUnit:updateOutput: halving dimension 3 is out of range for a 2D input')
    H.errors(function() nn.CReLU(3):forward(torch.randn(4, 4)) end,
             'nn.CReLU:updateOutput: input must be 3D (or 4D with a batch), got 2D')
    H.errors(function() nn.Normalize(2):forward(torch.randn(2, 3, 4)) end,
             'nn.Normalize:updateOutput: input must be 1D or 2D (a vector or a batch of rows), got 3D')
    H.errors(function() nn.SoftMin():forward(torch.randn(2, 2, 2, 2, 2)) end, 'nn.SoftMin:updateOutput')
    H.errors(function() nn.Sequential():add(nn.Linear(3, 2)):add(nn.ReLU6()):forward(torch.randn(4)) end,
             'In 1 module of nn.Sequential')
  end)
end)
