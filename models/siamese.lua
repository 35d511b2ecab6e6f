-- Small net: a siamese pair whose second branch is a clone sharing weight,
-- bias and their gradients with the first; the two embeddings go to
-- PairwiseDistance. Input: {batch x 1 x 12 x 12, batch x 1 x 12 x 12}; output: batch distances.
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('siamese', opts, {})
  local branch = nn.Sequential()
    :add(nn.SpatialConvolution(1, 4, 3, 3)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2, 2, 2))
    :add(nn.View(4 * 5 * 5):setNumInputDims(3))
    :add(nn.Linear(4 * 5 * 5, 8))
  local twin = branch:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local net = nn.Sequential()
    :add(nn.ParallelTable():add(branch):add(twin))
    :add(nn.PairwiseDistance(2))
  return util.finishTable(net, o, {{1, 12, 12}, {1, 12, 12}})
end
