-- nn.Min([dimension = 1 [, nInputDims]]): nn.Max with the minimum; the
-- positions of the minima are kept in '_indices' for backward.

require 'nn.Max'
local torch = torch
local nn = nn

local Min, parent = torch.class('nn.Min', 'nn.Max')

function Min:__init(dimension, nInputDims)
  parent.__init(self, dimension, nInputDims)
end

Min._reduce = 'min'

return Min
