-- AlexNet as the classic Torch7 imagenet scripts define it.
--   require('models.alexnet'){variant='owt'|'twotower', batch=, type=, nClasses=1000}
-- 'owt' (default): Krizhevsky's "one weird trick" single tower, 64-192-384-256-256
-- (the architecture of the peer benchmark). 'twotower': the original two-GPU
-- layout as a Concat(2) of two towers (48-128-192-192-128 each), the second a
-- clone with its convolutions re-initialised.
require 'nn'
local util = require 'models.util'

local function classifier(nClasses, threshold)
  local c = nn.Sequential()
  local act = function() return threshold and nn.Threshold(0, 1e-6) or nn.ReLU(true) end
  c:add(nn.View(256 * 6 * 6):setNumInputDims(3))
  c:add(nn.Dropout(0.5)):add(nn.Linear(256 * 6 * 6, 4096)):add(act())
  c:add(nn.Dropout(0.5)):add(nn.Linear(4096, 4096)):add(act())
  c:add(nn.Linear(4096, nClasses)):add(nn.LogSoftMax())
  return c
end

local function builder(opts)
  local o = util.options('alexnet', opts, {variant = 'owt', nClasses = 1000})
  local features
  if o.variant == 'owt' then
    features = nn.Sequential()
    features:add(nn.SpatialConvolution(3, 64, 11, 11, 4, 4, 2, 2)):add(nn.ReLU(true))
    features:add(nn.SpatialMaxPooling(3, 3, 2, 2))
    features:add(nn.SpatialConvolution(64, 192, 5, 5, 1, 1, 2, 2)):add(nn.ReLU(true))
    features:add(nn.SpatialMaxPooling(3, 3, 2, 2))
    features:add(nn.SpatialConvolution(192, 384, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    features:add(nn.SpatialConvolution(384, 256, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    features:add(nn.SpatialConvolution(256, 256, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    features:add(nn.SpatialMaxPooling(3, 3, 2, 2))
  elseif o.variant == 'twotower' then
    local fb1 = nn.Sequential()
    fb1:add(nn.SpatialConvolution(3, 48, 11, 11, 4, 4, 2, 2)):add(nn.ReLU(true))
    fb1:add(nn.SpatialMaxPooling(3, 3, 2, 2))
    fb1:add(nn.SpatialConvolution(48, 128, 5, 5, 1, 1, 2, 2)):add(nn.ReLU(true))
    fb1:add(nn.SpatialMaxPooling(3, 3, 2, 2))
    fb1:add(nn.SpatialConvolution(128, 192, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    fb1:add(nn.SpatialConvolution(192, 192, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    fb1:add(nn.SpatialConvolution(192, 128, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    fb1:add(nn.SpatialMaxPooling(3, 3, 2, 2))
    local fb2 = fb1:clone()
    for _, m in ipairs(fb2:findModules('nn.SpatialConvolution')) do m:reset() end
    features = nn.Concat(2):add(fb1):add(fb2)
  else
    error("models.alexnet: variant must be 'owt' or 'twotower', got " .. tostring(o.variant), 2)
  end
  local net = nn.Sequential():add(features):add(classifier(o.nClasses, o.variant == 'twotower'))
  return util.finish(net, o, 3, 224, 224)
end

return builder
