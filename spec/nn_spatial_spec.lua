-- Torch7's wider spatial family: pooling (dilated, adaptive, fractional,
-- LP, feature LP), sampling (up-sampling, PixelShuffle), padding,
-- spatial (log-)softmax and dropout, local normalization. Every module
-- and code path through the harness of spec/support/modcheck.lua, then
-- values against numbers worked out by hand or from Torch7's formulas, and
-- error messages for bad input.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'
local errorOf = H.errorOf

local function T(t) return torch.DoubleTensor(t) end
local function close(a, b, eps)
  assert.are.same(a:size():totable(), b:size():totable())
  local d = (a:double() - b:double()):abs():max()
  assert(d <= (eps or 1e-12), 'max difference ' .. d)
end

describe('nn spatial family: module checks', function()
  -- pooling
  mc.module(it, {name = 'SpatialDilatedMaxPooling batch',
                 make = function() return nn.SpatialDilatedMaxPooling(3, 2, 1, 2, 1, 1, 2, 1) end,
                 input = function() return torch.randn(2, 3, 7, 8) end,
                 input2 = function() return torch.randn(3, 3, 7, 8) end,
                 tostring = 'nn.SpatialDilatedMaxPooling(3x2, 1,2, 1,1, 2,1)'})
  mc.module(it, {name = 'SpatialDilatedMaxPooling single ceil',
                 make = function() return nn.SpatialDilatedMaxPooling(2, 2, 2, 2, 0, 0, 2, 2):ceil() end,
                 input = function() return torch.randn(3, 8, 9) end,
                 tostring = 'nn.SpatialDilatedMaxPooling(2x2, 2,2, 2,2)'})
  mc.module(it, {name = 'SpatialAdaptiveMaxPooling batch',
                 make = function() return nn.SpatialAdaptiveMaxPooling(3, 2) end,
                 input = function() return torch.randn(2, 3, 7, 5) end,
                 input2 = function() return torch.randn(4, 3, 7, 5) end,
                 tostring = 'nn.SpatialAdaptiveMaxPooling'})
  mc.module(it, {name = 'SpatialAdaptiveMaxPooling single, output larger than input',
                 make = function() return nn.SpatialAdaptiveMaxPooling(4, 5) end,
                 input = function() return torch.randn(2, 3, 3) end})
  mc.module(it, {name = 'SpatialAdaptiveAveragePooling batch',
                 make = function() return nn.SpatialAdaptiveAveragePooling(3, 2) end,
                 input = function() return torch.randn(2, 3, 7, 5) end,
                 input2 = function() return torch.randn(1, 3, 7, 5) end,
                 tostring = 'nn.SpatialAdaptiveAveragePooling'})
  mc.module(it, {name = 'SpatialAdaptiveAveragePooling single',
                 make = function() return nn.SpatialAdaptiveAveragePooling(4, 4) end,
                 input = function() return torch.randn(2, 6, 5) end})
  mc.module(it, {name = 'SpatialFractionalMaxPooling size, fixed regions',
                 make = function()
                   local m = nn.SpatialFractionalMaxPooling(2, 3, 4, 3):fixPoolingRegions()
                   m.randomSamples = torch.Tensor{{{0.1, 0.7}, {0.5, 0.25}, {0.9, 0.05}},
                                                  {{0.3, 0.3}, {0.0, 0.99}, {0.6, 0.4}}}
                   return m
                 end,
                 input = function() return torch.randn(2, 3, 8, 9) end,
                 tostring = 'nn.SpatialFractionalMaxPooling(4x3, 2,3)'})
  mc.module(it, {name = 'SpatialFractionalMaxPooling ratio, fresh regions', stochastic = true,
                 make = function() return nn.SpatialFractionalMaxPooling(2, 2, 0.5, 0.6) end,
                 input = function() return torch.randn(2, 9, 8) end,
                 jacobian = false, why = 'fresh random regions at every forward',
                 tostring = 'nn.SpatialFractionalMaxPooling(0.5x0.6, 2,2)'})
  mc.module(it, {name = 'SpatialLPPooling p=2',
                 make = function() return nn.SpatialLPPooling(3, 2, 2, 2) end,
                 input = function() return torch.rand(3, 6, 4):add(0.5) end,
                 input2 = function() return torch.rand(2, 3, 6, 4):add(0.5) end,
                 minval = 0.5, maxval = 2,
                 tostring = 'nn.Sequential {\n  [input -> (1) -> (2) -> (3) -> (4) -> output]\n' ..
                            '  (1): nn.Square\n  (2): nn.SpatialAveragePooling(2x2, 2,2)\n' ..
                            '  (3): nn.MulConstant\n  (4): nn.Sqrt\n}'})
  mc.module(it, {name = 'SpatialLPPooling p=3 strided',
                 make = function() return nn.SpatialLPPooling(2, 3, 3, 2, 1, 2) end,
                 input = function() return torch.rand(2, 2, 6, 5):add(0.5) end,
                 minval = 0.5, maxval = 2})
  mc.module(it, {name = 'FeatureLPPooling batch 4D',
                 make = function() return nn.FeatureLPPooling(3, 2, 2, true) end,
                 input = function() return torch.randn(2, 9, 3, 2) end,
                 input2 = function() return torch.randn(3, 9, 3, 2) end,
                 tostring = 'nn.FeatureLPPooling(w3 s2 power 2 batch 1)'})
  mc.module(it, {name = 'FeatureLPPooling 1D p=3',
                 make = function() return nn.FeatureLPPooling(2, 1, 3, false) end,
                 input = function() return torch.rand(7):add(0.5) end, minval = 0.5, maxval = 2})
  -- sampling
  mc.module(it, {name = 'SpatialUpSamplingNearest batch',
                 make = function() return nn.SpatialUpSamplingNearest(2) end,
                 input = function() return torch.randn(2, 3, 4, 5) end,
                 input2 = function() return torch.randn(1, 3, 4, 5) end,
                 tostring = 'nn.SpatialUpSamplingNearest'})
  mc.module(it, {name = 'SpatialUpSamplingNearest single',
                 make = function() return nn.SpatialUpSamplingNearest(3) end,
                 input = function() return torch.randn(2, 3, 2) end})
  mc.module(it, {name = 'SpatialUpSamplingBilinear scale',
                 make = function() return nn.SpatialUpSamplingBilinear(2) end,
                 input = function() return torch.randn(2, 2, 3, 4) end,
                 input2 = function() return torch.randn(3, 2, 3, 4) end,
                 tostring = 'nn.SpatialUpSamplingBilinear(2)'})
  mc.module(it, {name = 'SpatialUpSamplingBilinear size, single',
                 make = function() return nn.SpatialUpSamplingBilinear({oheight = 5, owidth = 7}) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 tostring = 'nn.SpatialUpSamplingBilinear(5, 7)'})
  mc.module(it, {name = 'UpSampling nearest 5D',
                 make = function() return nn.UpSampling(2) end,
                 input = function() return torch.randn(2, 2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(2x, nearest)'})
  mc.module(it, {name = 'UpSampling linear 4D',
                 make = function() return nn.UpSampling(3, 'bilinear') end,
                 input = function() return torch.randn(2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(3x, linear)'})
  mc.module(it, {name = 'UpSampling linear 5D to a size',
                 make = function() return nn.UpSampling({odepth = 3, oheight = 4, owidth = 5}, 'trilinear') end,
                 input = function() return torch.randn(2, 2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(3x4x5, linear)'})
  mc.module(it, {name = 'PixelShuffle batch',
                 make = function() return nn.PixelShuffle(2) end,
                 input = function() return torch.randn(2, 8, 3, 2) end,
                 input2 = function() return torch.randn(3, 8, 3, 2) end,
                 tostring = 'nn.PixelShuffle'})
  mc.module(it, {name = 'PixelShuffle single',
                 make = function() return nn.PixelShuffle(3) end,
                 input = function() return torch.randn(9, 2, 2) end})
  -- padding
  mc.module(it, {name = 'SpatialReflectionPadding batch',
                 make = function() return nn.SpatialReflectionPadding(2, 1, 0, 3) end,
                 input = function() return torch.randn(2, 2, 5, 4) end,
                 input2 = function() return torch.randn(3, 2, 5, 4) end,
                 tostring = 'nn.SpatialReflectionPadding(l=2, r=1, t=0, b=3)'})
  mc.module(it, {name = 'SpatialReflectionPadding single, cropping',
                 make = function() return nn.SpatialReflectionPadding(-1, 2, 1, -2) end,
                 input = function() return torch.randn(2, 5, 4) end})
  mc.module(it, {name = 'SpatialReplicationPadding batch',
                 make = function() return nn.SpatialReplicationPadding(3) end,
                 input = function() return torch.randn(2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 3, 2) end,
                 tostring = 'nn.SpatialReplicationPadding(l=3, r=3, t=3, b=3)'})
  mc.module(it, {name = 'SpatialReplicationPadding single, cropping',
                 make = function() return nn.SpatialReplicationPadding(1, -1, -2, 4) end,
                 input = function() return torch.randn(2, 4, 3) end})
  -- softmax, dropout
  mc.module(it, {name = 'SpatialSoftMax batch',
                 make = function() return nn.SpatialSoftMax() end,
                 input = function() return torch.randn(2, 4, 3, 3) end,
                 input2 = function() return torch.randn(3, 4, 3, 3) end,
                 tostring = 'nn.SpatialSoftMax'})
  mc.module(it, {name = 'SpatialSoftMax single',
                 make = function() return nn.SpatialSoftMax() end,
                 input = function() return torch.randn(4, 2, 3) end})
  mc.module(it, {name = 'SpatialLogSoftMax batch',
                 make = function() return nn.SpatialLogSoftMax() end,
                 input = function() return torch.randn(2, 4, 3, 3) end,
                 input2 = function() return torch.randn(1, 4, 3, 3) end,
                 tostring = 'nn.SpatialLogSoftMax'})
  mc.module(it, {name = 'SpatialLogSoftMax single',
                 make = function() return nn.SpatialLogSoftMax() end,
                 input = function() return torch.randn(4, 2, 3) end})
  mc.module(it, {name = 'SpatialDropout batch', stochastic = true,
                 make = function() return nn.SpatialDropout(0.4) end,
                 input = function() return torch.randn(2, 6, 3, 3) end,
                 input2 = function() return torch.randn(3, 6, 3, 3) end,
                 jacobian = false, why = 'a fresh mask per forward',
                 tostring = 'nn.SpatialDropout(0.400000)'})
  mc.module(it, {name = 'SpatialDropout single', stochastic = true,
                 make = function() return nn.SpatialDropout() end,
                 input = function() return torch.randn(6, 3, 2) end,
                 jacobian = false, why = 'a fresh mask per forward'})
  -- normalization
  mc.module(it, {name = 'SpatialSubtractiveNormalization 2D kernel batch',
                 make = function() return nn.SpatialSubtractiveNormalization(3, torch.ones(3, 5)) end,
                 input = function() return torch.rand(2, 3, 6, 7) end,
                 input2 = function() return torch.rand(3, 3, 6, 7) end,
                 tostring = 'nn.SpatialSubtractiveNormalization'})
  mc.module(it, {name = 'SpatialSubtractiveNormalization 1D kernel single',
                 make = function() return nn.SpatialSubtractiveNormalization(2, torch.Tensor{1, 2, 1}) end,
                 input = function() return torch.rand(2, 5, 4) end})
  mc.module(it, {name = 'SpatialDivisiveNormalization 2D kernel batch',
                 make = function() return nn.SpatialDivisiveNormalization(3, torch.ones(3, 3)) end,
                 input = function() return torch.rand(2, 3, 5, 6) end,
                 input2 = function() return torch.rand(1, 3, 5, 6) end,
                 tostring = 'nn.SpatialDivisiveNormalization'})
  mc.module(it, {name = 'SpatialDivisiveNormalization 1D kernel single, thresholds',
                 make = function() return nn.SpatialDivisiveNormalization(2, torch.ones(3), 0.3, 0.5) end,
                 input = function() return torch.rand(2, 5, 4) end})
  mc.module(it, {name = 'SpatialContrastiveNormalization batch',
                 make = function() return nn.SpatialContrastiveNormalization(2, torch.ones(3, 3)) end,
                 input = function() return torch.rand(2, 2, 5, 6) end,
                 input2 = function() return torch.rand(3, 2, 5, 6) end,
                 tostring = 'nn.SpatialContrastiveNormalization'})
  mc.module(it, {name = 'SpatialContrastiveNormalization 1D kernel single',
                 make = function() return nn.SpatialContrastiveNormalization(3, torch.ones(5)) end,
                 input = function() return torch.rand(3, 6, 6) end})
end)
