-- Small net: an encoder-decoder whose SpatialMaxUnpooling modules are tied
-- to the encoder's pooling modules (they read the pools' indices).
-- Input batch x 3 x 16 x 16; output batch x 3 x 16 x 16.
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('unpool', opts, {})
  local pool1 = nn.SpatialMaxPooling(2, 2, 2, 2)
  local pool2 = nn.SpatialMaxPooling(2, 2, 2, 2)
  local net = nn.Sequential()
    :add(nn.SpatialConvolution(3, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(pool1)
    :add(nn.SpatialConvolution(8, 16, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(pool2)
    :add(nn.SpatialConvolution(16, 16, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialMaxUnpooling(pool2))
    :add(nn.SpatialConvolution(16, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialMaxUnpooling(pool1))
    :add(nn.SpatialConvolution(8, 3, 3, 3, 1, 1, 1, 1))
  return util.finish(net, o, 3, 16, 16)
end
