-- Small net: ParallelTable of two branches joined by JoinTable.
-- Input: {batch x 10, batch x 20}; output: batch x 5 log-probabilities.
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('paralleljoin', opts, {})
  local branches = nn.ParallelTable()
    :add(nn.Sequential():add(nn.Linear(10, 16)):add(nn.Tanh()))
    :add(nn.Sequential():add(nn.Linear(20, 16)):add(nn.ReLU(true)))
  local net = nn.Sequential()
    :add(branches)
    :add(nn.JoinTable(2))
    :add(nn.Linear(32, 5))
    :add(nn.LogSoftMax())
  return util.finishTable(net, o, {{10}, {20}})
end
