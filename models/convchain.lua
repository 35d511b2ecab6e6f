-- Small net: a deep chain of 3x3 convolutions with in-place ReLUs (and one
-- in-place Threshold), the case where in-place sharing matters most.
--   require('models.convchain'){depth=8, planes=8, size=16, batch=, type=}
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('convchain', opts, {depth = 8, planes = 8, size = 16})
  local net = nn.Sequential()
  local nIn = 3
  for i = 1, o.depth do
    net:add(nn.SpatialConvolution(nIn, o.planes, 3, 3, 1, 1, 1, 1))
    net:add(i == o.depth // 2 and nn.Threshold(0, 0, true) or nn.ReLU(true))
    nIn = o.planes
  end
  net:add(nn.SpatialAveragePooling(o.size, o.size, 1, 1))
  net:add(nn.View(o.planes):setNumInputDims(3))
  net:add(nn.Linear(o.planes, 10)):add(nn.LogSoftMax())
  return util.finish(net, o, 3, o.size, o.size)
end
