-- VGG as OptNet's own test zoo (fmassa/optimize-net, models.lua) has it,
-- from soumith's imagenet-multiGPU: configuration A by default (B, D, E as
-- well), every 3x3 convolution followed by an in-place ReLU, then a
-- classifier without dropout whose activations are nn.Threshold(0, 1e-6):
-- y = x > 0 ? x : 1e-6, which may not run in place (value above threshold).
--   require('models.optnet_vgg'){modelType='A', batch=, type=, imageSize=224, nClasses=1000}
-- As in OptNet, the View has no setNumInputDims: at batch 1 the classifier
-- runs on a 1D vector and the output is 1D. imageSize (a multiple of 32)
-- below 224 shrinks the maps and the first Linear, for quick tests.
require 'nn'
local util = require 'models.util'

local cfgs = util.VGG

local function builder(opts)
  local o = util.options('optnet_vgg', opts, {modelType = 'A', imageSize = 224, nClasses = 1000})
  local cfg = cfgs[o.modelType]
  if not cfg then
    error("models.optnet_vgg: modelType must be 'A', 'B', 'D' or 'E', got " .. tostring(o.modelType), 2)
  end
  local size = o.imageSize
  if math.type(size) ~= 'integer' or size < 32 or size % 32 ~= 0 then
    error('models.optnet_vgg: imageSize must be a positive multiple of 32, got ' .. tostring(size), 2)
  end
  local features = nn.Sequential()
  local nIn = 3
  for _, v in ipairs(cfg) do
    if v == 'M' then
      features:add(nn.SpatialMaxPooling(2, 2, 2, 2))
    else
      features:add(nn.SpatialConvolution(nIn, v, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
      nIn = v
    end
  end
  local f = size // 32
  local n = 512 * f * f
  local classifier = util.thresholdClassifier(n, o.nClasses)
  local net = nn.Sequential():add(features):add(classifier)
  return util.finish(net, o, 3, size, size)
end

return builder
