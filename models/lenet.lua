-- LeNet-5 style convnet for 1x32x32 inputs (MNIST padded), as the Torch7 tutorials.
--   require('models.lenet'){batch=, type=, nClasses=10}
require 'nn'
local util = require 'models.util'

local function builder(opts)
  local o = util.options('lenet', opts, {nClasses = 10})
  local net = nn.Sequential()
  net:add(nn.SpatialConvolution(1, 6, 5, 5)):add(nn.ReLU(true)):add(nn.SpatialMaxPooling(2, 2, 2, 2))
  net:add(nn.SpatialConvolution(6, 16, 5, 5)):add(nn.ReLU(true)):add(nn.SpatialMaxPooling(2, 2, 2, 2))
  net:add(nn.View(16 * 5 * 5):setNumInputDims(3))
  net:add(nn.Linear(16 * 5 * 5, 120)):add(nn.ReLU(true))
  net:add(nn.Linear(120, 84)):add(nn.ReLU(true))
  net:add(nn.Linear(84, o.nClasses)):add(nn.LogSoftMax())
  return util.finish(net, o, 1, 32, 32)
end

return builder
