-- nn.CMinTable(): output = elementwise minimum of input[1], input[2], ...
-- (tensors of equal element counts); 'minIdx' keeps which input gave it
-- (the first one on ties). The code is nn.CMaxTable's, with '<'.

require 'nn.CMaxTable'
local torch = torch
local nn = nn

local CMinTable, parent = torch.class('nn.CMinTable', 'nn.Module')

function CMinTable:__init()
  parent.__init(self)
  self.gradInput = {}
  self.minIdx = torch.Tensor()
end

function CMinTable:updateOutput(input)
  return nn.CMaxTable._forward(self, input, 'nn.CMinTable:updateOutput', 'lt', 'minIdx', 'cmin')
end

function CMinTable:updateGradInput(input, gradOutput)
  return nn.CMaxTable._backward(self, input, gradOutput, 'nn.CMinTable:updateGradInput', 'minIdx')
end

function CMinTable:memoryTraits()
  return {buffers = {minIdx = 'both', maskByteTensor = 'both', mask = 'both', minVals = 'forward',
                     gradMaxVals = 'backward'},
          needsInput = false, needsOutput = false}
end

return CMinTable
