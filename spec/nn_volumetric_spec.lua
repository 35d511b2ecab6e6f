-- the volumetric modules (issue 16, Torch7's wider module set): every
-- module and code path through the checks of spec/support/modcheck.lua
-- (finite differences, float/double, clone, save/load, tostring, traits,
-- optnet); numbers against Torch7's formulas and hand-computed values are in
-- spec/nn_volumetric_values_spec.lua, error messages in
-- spec/nn_volumetric_errors_spec.lua.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

local function randn(...)
  local sizes = {...}
  return function() return torch.randn(table.unpack(sizes)) end
end

-- distinct values, so that max pooling has no ties finite differences could flip
local function distinct(...)
  local sizes = {...}
  return function()
    local t = torch.randperm(torch.Tensor(table.unpack(sizes)):nElement())
    return t:div(t:nElement()):mul(4):add(-2):view(table.unpack(sizes))
  end
end

describe('nn.VolumetricConvolution', function()
  mc.module(it, {name = 'single volume, stride and padding',
                 make = function() return nn.VolumetricConvolution(2, 3, 3, 2, 2, 2, 1, 1, 1, 0, 1) end,
                 input = randn(2, 5, 4, 6),
                 tostring = 'nn.VolumetricConvolution(2 -> 3, 3x2x2, 2,1,1, 1,0,1)'})
  mc.module(it, {name = 'batch',
                 make = function() return nn.VolumetricConvolution(3, 2, 2, 2, 2) end,
                 input = randn(2, 3, 4, 4, 4), input2 = randn(3, 3, 4, 4, 4),
                 tostring = 'nn.VolumetricConvolution(3 -> 2, 2x2x2)'})
  mc.module(it, {name = 'batch without bias',
                 make = function() return nn.VolumetricConvolution(2, 2, 1, 3, 2, 1, 2, 1):noBias() end,
                 input = randn(2, 2, 3, 4, 5), input2 = randn(1, 2, 3, 4, 5),
                 tostring = 'nn.VolumetricConvolution(2 -> 2, 1x3x2, 1,2,1)'})
end)

describe('nn.VolumetricDilatedConvolution', function()
  mc.module(it, {name = 'batch, dilation and padding',
                 make = function() return nn.VolumetricDilatedConvolution(2, 3, 2, 2, 3, 1, 2, 1, 1, 0, 1, 2, 1, 2) end,
                 input = randn(2, 2, 4, 5, 4), input2 = randn(3, 2, 4, 5, 4),
                 tostring = 'nn.VolumetricDilatedConvolution(2 -> 3, 2x2x3, 1,2,1, 1,0,1, 2,1,2)'})
  mc.module(it, {name = 'single volume',
                 make = function() return nn.VolumetricDilatedConvolution(1, 2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2) end,
                 input = randn(1, 4, 4, 4),
                 tostring = 'nn.VolumetricDilatedConvolution(1 -> 2, 2x2x2, 2,2,2)'})
end)

describe('nn.VolumetricFullConvolution', function()
  mc.module(it, {name = 'single volume, stride, padding, adj',
                 make = function() return nn.VolumetricFullConvolution(2, 3, 3, 3, 2, 2, 2, 1, 1, 0, 1, 1, 1, 0) end,
                 input = randn(2, 3, 2, 3),
                 tostring = 'nn.VolumetricFullConvolution(2 -> 3, 3x3x2, 2,2,1, 1,0,1, 1,1,0)'})
  mc.module(it, {name = 'batch',
                 make = function() return nn.VolumetricFullConvolution(3, 2, 2, 2, 2) end,
                 input = randn(2, 3, 2, 3, 2), input2 = randn(3, 3, 2, 3, 2),
                 tostring = 'nn.VolumetricFullConvolution(3 -> 2, 2x2x2)'})
  mc.module(it, {name = 'batch without bias',
                 make = function() return nn.VolumetricFullConvolution(2, 2, 3, 2, 2, 2, 1, 2):noBias() end,
                 input = randn(2, 2, 2, 2, 2), input2 = randn(1, 2, 2, 2, 2),
                 tostring = 'nn.VolumetricFullConvolution(2 -> 2, 3x2x2, 2,1,2)'})
  mc.module(it, {name = '{input, target} form',
                 make = function() return nn.VolumetricFullConvolution(2, 2, 3, 3, 3, 2, 2, 2, 1, 1, 1) end,
                 input = function() return {torch.randn(2, 2, 3, 2, 3), torch.randn(2, 6, 4, 5)} end,
                 input2 = function() return {torch.randn(3, 2, 3, 2, 3), torch.randn(2, 6, 4, 5)} end,
                 tostring = 'nn.VolumetricFullConvolution(2 -> 2, 3x3x3, 2,2,2, 1,1,1)'})
end)

describe('nn.VolumetricMaxPooling', function()
  mc.module(it, {name = 'batch',
                 make = function() return nn.VolumetricMaxPooling(2, 2, 2) end,
                 input = distinct(2, 2, 4, 4, 6), input2 = distinct(3, 2, 4, 4, 6), minval = 'keep',
                 tostring = 'nn.VolumetricMaxPooling(2x2x2, 2,2,2)'})
  mc.module(it, {name = 'single volume, padding, ceil mode',
                 make = function() return nn.VolumetricMaxPooling(3, 2, 2, 2, 2, 1, 1, 1, 0):ceil() end,
                 input = distinct(2, 6, 5, 5), minval = 'keep',
                 tostring = 'nn.VolumetricMaxPooling(3x2x2, 2,2,1, 1,1,0)'})
end)

describe('nn.VolumetricDilatedMaxPooling', function()
  mc.module(it, {name = 'batch, dilation, padding, ceil mode',
                 make = function() return nn.VolumetricDilatedMaxPooling(2, 3, 2, 2, 1, 2, 1, 1, 0, 2, 1, 2):ceil() end,
                 input = distinct(2, 2, 6, 6, 5), input2 = distinct(1, 2, 6, 6, 5), minval = 'keep',
                 tostring = 'nn.VolumetricDilatedMaxPooling(2x3x2, 2,1,2, 1,1,0, 2,1,2)'})
end)

describe('nn.VolumetricAveragePooling', function()
  mc.module(it, {name = 'batch',
                 make = function() return nn.VolumetricAveragePooling(2, 3, 2, 1, 2, 2) end,
                 input = randn(2, 2, 4, 5, 6), input2 = randn(3, 2, 4, 5, 6),
                 tostring = 'nn.VolumetricAveragePooling(2x3x2, 1,2,2)'})
  mc.module(it, {name = 'single volume, padding, ceil, count exclude pad',
                 make = function()
                   return nn.VolumetricAveragePooling(3, 2, 2, 2, 2, 2, 1, 1, 1):ceil():setCountExcludePad()
                 end,
                 input = randn(2, 5, 5, 6),
                 tostring = 'nn.VolumetricAveragePooling(3x2x2, 2,2,2, 1,1,1)'})
end)

describe('nn.VolumetricMaxUnpooling', function()
  local function make(batch)
    return function()
      local pool = nn.VolumetricMaxPooling(2, 2, 2)
      local x = batch and torch.randn(2, 2, 4, 4, 6) or torch.randn(2, 4, 5, 6)
      pool:forward(x)
      return nn.VolumetricMaxUnpooling(pool)
    end
  end
  mc.module(it, {name = 'batch', make = make(true), input = randn(2, 2, 2, 2, 3),
                 tostring = 'nn.VolumetricMaxUnpooling associated to nn.VolumetricMaxPooling(2x2x2, 2,2,2)'})
  mc.module(it, {name = 'single volume (input larger than the pooled one)', make = make(false),
                 input = randn(2, 2, 2, 3)})
end)

describe('nn.VolumetricFractionalMaxPooling', function()
  mc.module(it, {name = 'batch, output sizes, fixed regions', stochastic = true, minval = 'keep',
                 make = function() return nn.VolumetricFractionalMaxPooling(2, 2, 3, 3, 2, 2):fixPoolingRegions() end,
                 input = distinct(2, 2, 6, 5, 6), input2 = distinct(3, 2, 6, 5, 6),
                 tostring = 'nn.VolumetricFractionalMaxPooling(3x2x2, 2,2,3)'})
  -- the regions are drawn at make (a forward): fixed from then on, the same
  -- in every copy whatever runs forward first (optnet's trace does)
  mc.module(it, {name = 'single volume, ratios, fixed regions', stochastic = true, minval = 'keep',
                 make = function()
                   local m = nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.5, 0.5):fixPoolingRegions()
                   m:forward(torch.zeros(2, 6, 7, 8))
                   return m
                 end,
                 input = distinct(2, 6, 7, 8), tostring = 'nn.VolumetricFractionalMaxPooling(0x0x0, 2,2,2)'})
end)

describe('nn.VolumetricBatchNormalization', function()
  mc.module(it, {name = 'training',
                 make = function() return nn.VolumetricBatchNormalization(3) end,
                 input = randn(4, 3, 2, 3, 2), input2 = randn(5, 3, 2, 3, 2),
                 tostring = 'nn.VolumetricBatchNormalization (5D) (3)'})
  mc.module(it, {name = 'without affine',
                 make = function() return nn.VolumetricBatchNormalization(2, 1e-3, 0.2, false) end,
                 input = randn(3, 2, 2, 2, 3), input2 = randn(2, 2, 2, 2, 3),
                 tostring = 'nn.VolumetricBatchNormalization (5D) (2)'})
end)

describe('nn.VolumetricDropout', function()
  mc.module(it, {name = 'batch', stochastic = true, jacobian = false, why = 'a fresh mask per forward',
                 make = function() return nn.VolumetricDropout(0.4) end,
                 input = randn(2, 6, 2, 3, 2), input2 = randn(3, 6, 2, 3, 2),
                 tostring = 'nn.VolumetricDropout(0.400000)'})
  mc.module(it, {name = 'single volume', stochastic = true, jacobian = false, why = 'a fresh mask per forward',
                 make = function() return nn.VolumetricDropout() end,
                 input = randn(5, 2, 2, 2)})
end)

describe('nn.VolumetricReplicationPadding', function()
  mc.module(it, {name = 'batch, mixed pads',
                 make = function() return nn.VolumetricReplicationPadding(2, -1, 1, 0, 3, -2) end,
                 input = randn(2, 2, 4, 3, 5), input2 = randn(3, 2, 4, 3, 5),
                 tostring = 'nn.VolumetricReplicationPadding(left=2, right=-1, top=1, bottom=0, front=3, back=-2)'})
  mc.module(it, {name = 'single volume, one pad for all',
                 make = function() return nn.VolumetricReplicationPadding(1) end,
                 input = randn(2, 2, 3, 2),
                 tostring = 'nn.VolumetricReplicationPadding(left=1, right=1, top=1, bottom=1, front=1, back=1)'})
end)
