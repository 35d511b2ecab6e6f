-- nn.Mean([dimension = 1 [, nInputDims]]): nn.Sum with sizeAverage, i.e.
-- the input averaged over 'dimension' (which is removed).

require 'nn.Sum'
local torch = torch
local nn = nn

local Mean, parent = torch.class('nn.Mean', 'nn.Sum')

function Mean:__init(dimension, nInputDims)
  parent.__init(self, dimension, nInputDims, true)
end

return Mean
