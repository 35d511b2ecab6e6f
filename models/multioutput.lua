-- Small net: a shared trunk ending in a ConcatTable of three heads, so the
-- net's output is a table {class log-probabilities, regression, features}.
-- Input batch x 3 x 8 x 8.
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('multioutput', opts, {})
  local trunk = nn.Sequential()
    :add(nn.SpatialConvolution(3, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.View(8 * 4 * 4):setNumInputDims(3))
  local heads = nn.ConcatTable()
    :add(nn.Sequential():add(nn.Linear(128, 5)):add(nn.LogSoftMax()))
    :add(nn.Linear(128, 2))
    :add(nn.Identity())
  local net = nn.Sequential():add(trunk):add(heads)
  return util.finish(net, o, 3, 8, 8)
end
