-- VGG (Simonyan & Zisserman 2014), configurations A, B, D, E (11, 13, 16, 19
-- weight layers), without batch normalisation, as in the paper.
--   require('models.vgg'){modelType='A'|'B'|'D'|'E', batch=, type=, imageSize=224}
require 'nn'
local util = require 'models.util'

local cfgs = util.VGG

local function builder(opts)
  local o = util.options('vgg', opts, {modelType = 'A', nClasses = 1000})
  local cfg = cfgs[o.modelType]
  if not cfg then error("models.vgg: modelType must be 'A', 'B', 'D' or 'E', got " .. tostring(o.modelType), 2) end
  local size = o.imageSize or 224
  if size % 32 ~= 0 then error('models.vgg: imageSize must be a multiple of 32, got ' .. size, 2) end
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
  local classifier = nn.Sequential()
  classifier:add(nn.View(512 * f * f):setNumInputDims(3))
  classifier:add(nn.Linear(512 * f * f, 4096)):add(nn.ReLU(true)):add(nn.Dropout(0.5))
  classifier:add(nn.Linear(4096, 4096)):add(nn.ReLU(true)):add(nn.Dropout(0.5))
  classifier:add(nn.Linear(4096, o.nClasses)):add(nn.LogSoftMax())
  local net = nn.Sequential():add(features):add(classifier)
  return util.finish(net, o, 3, size, size)
end

return builder
