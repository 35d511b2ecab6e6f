-- The harness of spec/support/modcheck.lua on every module of the simple
-- family (simple layers and activations): one case per module and per
-- distinct code path (batch and single sample, options, in place), with an
-- input of another batch size wherever the module takes batches. Values
-- against hand-computed numbers and error messages: nn_simple_values_spec.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

local function randn(...) local a = {...}; return function() return torch.randn(table.unpack(a)) end end
local function pos(...)
  local a = {...}
  return function() return torch.rand(table.unpack(a)):add(0.1) end
end

describe('simple layers and activations: modcheck', function()
  -- parameter-free pointwise maps
  mc.module(it, {make = function() return nn.Abs() end, input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.Abs'})
  mc.module(it, {make = function() return nn.Exp() end, input = randn(3, 4), input2 = randn(2, 4),
                 tostring = 'nn.Exp'})
  mc.module(it, {make = function() return nn.Log() end, input = pos(3, 4), input2 = pos(6, 4),
                 minval = 0.1, maxval = 10, tostring = 'nn.Log'})
  mc.module(it, {make = function() return nn.Sqrt() end, input = pos(3, 4), input2 = pos(5, 4),
                 minval = 0.1, maxval = 2, tostring = 'nn.Sqrt'})
  mc.module(it, {make = function() return nn.Sqrt(1e-8) end, name = 'nn.Sqrt(eps)', input = pos(4),
                 minval = 0.1, maxval = 2})
  mc.module(it, {make = function() return nn.Square() end, input = randn(2, 3, 4),
                 input2 = randn(5, 3, 4), tostring = 'nn.Square'})
  mc.module(it, {make = function() return nn.Power(3) end, input = randn(3, 4), input2 = randn(4, 4),
                 tostring = 'nn.Power'})
  mc.module(it, {make = function() return nn.Power(2.5) end, name = 'nn.Power(2.5)', input = pos(3, 4),
                 minval = 0.1, maxval = 2})
  mc.module(it, {make = function() return nn.LogSigmoid() end, input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.LogSigmoid'})
  mc.module(it, {make = function() return nn.SoftSign() end, input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.SoftSign'})
  mc.module(it, {make = function() return nn.SoftShrink(0.3) end, input = randn(3, 4),
                 input2 = randn(5, 4), tostring = 'nn.SoftShrink'})
  mc.module(it, {make = function() return nn.HardShrink(0.3) end, input = randn(3, 4),
                 input2 = randn(5, 4), tostring = 'nn.HardShrink'})
  mc.module(it, {make = function() return nn.TanhShrink() end, input = randn(3, 4),
                 input2 = randn(5, 4), tostring = 'nn.TanhShrink'})

  -- clamps
  mc.module(it, {make = function() return nn.HardTanh() end, input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.HardTanh'})
  mc.module(it, {make = function() return nn.HardTanh(-0.5, 0.7, true) end, name = 'nn.HardTanh in place',
                 input = randn(3, 4), input2 = randn(5, 4),
                 skip = {jacobian = 'in place, the module clamps the perturbed input that finite differences restore (in-place gradients are compared with out-of-place ones in nn_simple_spec)'}})
  mc.module(it, {make = function() return nn.Clamp(-0.3, 0.4) end, input = randn(3, 5),
                 input2 = randn(2, 5), tostring = 'nn.Clamp'})
  mc.module(it, {make = function() return nn.ReLU6() end, input = function() return torch.randn(3, 4):mul(5) end,
                 input2 = randn(6, 4), minval = -8, maxval = 8, tostring = 'nn.ReLU6'})
  mc.module(it, {make = function() return nn.ReLU6(true) end, name = 'nn.ReLU6 in place',
                 input = function() return torch.randn(3, 4):mul(5) end, input2 = randn(6, 4),
                 minval = -8, maxval = 8,
                 skip = {jacobian = 'in place, the module clamps the perturbed input that finite differences restore (in-place gradients are compared with out-of-place ones in nn_simple_spec)'}})

  -- rectifiers with parameters or noise
  mc.module(it, {make = function() return nn.PReLU() end, name = 'nn.PReLU shared',
                 input = randn(2, 3, 4), input2 = randn(4, 3, 4), tostring = 'nn.PReLU'})
  mc.module(it, {make = function() return nn.PReLU(3) end, name = 'nn.PReLU 4D',
                 input = randn(2, 3, 4, 4), input2 = randn(3, 3, 4, 4)})
  mc.module(it, {make = function() return nn.PReLU(5) end, name = 'nn.PReLU 2D',
                 input = randn(4, 5), input2 = randn(2, 5)})
  mc.module(it, {make = function() return nn.PReLU(5) end, name = 'nn.PReLU 1D', input = randn(5)})
  mc.module(it, {make = function() return nn.RReLU() end, stochastic = true, jacobian = false,
                 why = 'fresh slopes each forward in training mode', input = randn(3, 4),
                 input2 = randn(5, 4), tostring = 'nn.RReLU (l:0.125000, u:0.333333)'})
  mc.module(it, {make = function() return nn.RReLU(0.1, 0.3):evaluate() end, stochastic = true,
                 name = 'nn.RReLU evaluation', input = randn(3, 4), input2 = randn(5, 4)})
  -- (RReLU in place rescales the harness's shared input at every pass, so
  -- the harness cannot compare passes; nn_simple_spec compares it with the
  -- out-of-place module instead, and optnet switches the flag itself above)
  mc.module(it, {make = function() return nn.CReLU(3) end, name = 'nn.CReLU batch',
                 input = randn(2, 3, 4, 4), input2 = randn(3, 3, 4, 4), tostring = 'CReLU()'})
  mc.module(it, {make = function() return nn.CReLU(3) end, name = 'nn.CReLU single',
                 input = randn(3, 4, 4)})

  -- normalisations and softmin
  mc.module(it, {make = function() return nn.SoftMin() end, input = randn(3, 5), input2 = randn(6, 5),
                 tostring = 'nn.SoftMin'})
  mc.module(it, {make = function() return nn.SoftMin() end, name = 'nn.SoftMin 1D', input = randn(5)})
  mc.module(it, {make = function() return nn.Normalize(2) end, input = randn(3, 5), input2 = randn(6, 5),
                 tostring = 'nn.Normalize(2)'})
  mc.module(it, {make = function() return nn.Normalize(1.5) end, name = 'nn.Normalize(1.5) 1D',
                 input = randn(6), tostring = 'nn.Normalize(1.500000)'})
  mc.module(it, {make = function() return nn.Normalize(1) end, name = 'nn.Normalize(1)',
                 input = randn(3, 5), input2 = randn(2, 5)})
  mc.module(it, {make = function() return nn.Normalize(3) end, name = 'nn.Normalize(3)',
                 input = randn(3, 5), input2 = randn(2, 5)})
  mc.module(it, {make = function() return nn.Normalize(4) end, name = 'nn.Normalize(4)',
                 input = randn(3, 5)})
  mc.module(it, {make = function() return nn.Normalize(math.huge) end, name = 'nn.Normalize(inf)',
                 input = randn(3, 5), input2 = randn(4, 5), tostring = 'nn.Normalize(inf)'})
  mc.module(it, {make = function() return nn.LayerNormalization(5) end, input = randn(4, 5),
                 input2 = randn(6, 5), tol = 1e-4})
  mc.module(it, {make = function() return nn.LayerNormalization(4, 0.5, 1e-5, false) end,
                 name = 'nn.LayerNormalization without affine', input = randn(3, 4), tol = 1e-4})

  -- gates, maxout
  mc.module(it, {make = function() return nn.GatedLinearUnit() end, input = randn(3, 6),
                 input2 = randn(5, 6), tostring = 'nn.GatedLinearUnit'})
  mc.module(it, {make = function() return nn.GatedLinearUnit(2) end, name = 'nn.GatedLinearUnit(2)',
                 input = randn(2, 4, 3), input2 = randn(3, 4, 3)})
  mc.module(it, {make = function() return nn.Maxout(4, 3, 2) end, input = randn(5, 4),
                 input2 = randn(7, 4)})
  mc.module(it, {make = function() return nn.Maxout(4, 3, 2, nn.Tanh()) end,
                 name = 'nn.Maxout with preprocess', input = randn(4)})

  -- pass-through modules
  mc.module(it, {make = function() return nn.WhiteNoise(0.2, 0.5) end, stochastic = true,
                 jacobian = false, why = 'fresh noise each forward', input = randn(3, 4),
                 input2 = randn(5, 4), tostring = 'nn.WhiteNoise mean: 0.200000, std: 0.500000'})
  mc.module(it, {make = function() return nn.NaN(nn.Linear(3, 4), 7) end, input = randn(2, 3),
                 input2 = randn(5, 3), tostring = 'nn.NaN(7) @ nn.Linear(3 -> 4)'})
  mc.module(it, {make = function() return nn.L1Penalty(0.1) end, jacobian = false,
                 why = 'backward adds the gradient of the penalty, which the output does not contain',
                 input = randn(3, 4), input2 = randn(5, 4), tostring = 'nn.L1Penalty'})
  mc.module(it, {make = function() return nn.L1Penalty(0.1, true, false) end, jacobian = false,
                 why = 'backward is the penalty gradient only (provideOutput false)',
                 name = 'nn.L1Penalty sizeAverage, no output gradient', input = randn(3, 4)})
  mc.module(it, {make = function() return nn.GradientReversal(0.5) end, jacobian = false,
                 why = 'the gradient is reversed by design', input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.GradientReversal'})
  mc.module(it, {make = function() return nn.ZeroGrad() end, jacobian = false,
                 why = 'the gradient is zero by design', input = randn(3, 4), input2 = randn(5, 4),
                 tostring = 'nn.ZeroGrad'})
end)
