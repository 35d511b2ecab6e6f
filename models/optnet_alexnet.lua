-- AlexNet as OptNet's own test zoo (fmassa/optimize-net, models.lua) has it,
-- from soumith's imagenet-multiGPU: two towers of 48-128-192-192-128
-- convolutions side by side (Concat(2); the second a clone with its
-- convolutions re-initialised), then a classifier without dropout whose
-- activations are nn.Threshold(0, 1e-6): y = x > 0 ? x : 1e-6, which may not
-- run in place (value above threshold), while the towers' ReLUs already do.
--   require('models.optnet_alexnet'){batch=, type=, imageSize=224, nClasses=1000}
-- As in OptNet, the View has no setNumInputDims: at batch 1 the classifier
-- runs on a 1D vector and the output is 1D. imageSize (>= 63) below 224
-- shrinks the maps and the first Linear, for quick tests.
require 'nn'
local util = require 'models.util'

-- a convolution or pooling's output size along one dimension
local function out(size, k, stride, pad)
  return (size + 2 * (pad or 0) - k) // stride + 1
end

local function tower()
  local t = nn.Sequential()
  t:add(nn.SpatialConvolution(3, 48, 11, 11, 4, 4, 2, 2)):add(nn.ReLU(true))
  t:add(nn.SpatialMaxPooling(3, 3, 2, 2))
  t:add(nn.SpatialConvolution(48, 128, 5, 5, 1, 1, 2, 2)):add(nn.ReLU(true))
  t:add(nn.SpatialMaxPooling(3, 3, 2, 2))
  t:add(nn.SpatialConvolution(128, 192, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
  t:add(nn.SpatialConvolution(192, 192, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
  t:add(nn.SpatialConvolution(192, 128, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
  t:add(nn.SpatialMaxPooling(3, 3, 2, 2))
  return t
end

local function builder(opts)
  local o = util.options('optnet_alexnet', opts, {imageSize = 224, nClasses = 1000})
  local size = o.imageSize
  if math.type(size) ~= 'integer' or size < 63 then
    error('models.optnet_alexnet: imageSize must be an integer of at least 63, got ' .. tostring(size), 2)
  end
  -- 224 -> 55 -> 27 -> 13 -> 6
  local s = out(out(out(out(size, 11, 4, 2), 3, 2), 3, 2), 3, 2)
  local t1 = tower()
  local t2 = t1:clone()
  for _, m in ipairs(t2:findModules('nn.SpatialConvolution')) do m:reset() end
  local features = nn.Concat(2):add(t1):add(t2)
  local classifier = util.thresholdClassifier(256 * s * s, o.nClasses)
  local net = nn.Sequential():add(features):add(classifier)
  return util.finish(net, o, 3, size, size)
end

return builder
