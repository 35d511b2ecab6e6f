-- nn.CMulTable: output = input[1] * input[2] * ... elementwise;
-- gradInput[i] = gradOutput * the product of the other inputs (computed
-- without dividing, so zeros in the inputs are fine).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local CMulTable, parent = torch.class('nn.CMulTable', 'nn.Module')

function CMulTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CMulTable:updateOutput(input)
  utils.checkTensorTable(self, input, 'nn.CMulTable:updateOutput')
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  self.output:resizeAs(input[1]):copy(input[1])
  for i = 2, #input do self.output:cmul(input[i]) end
  return self.output
end

function CMulTable:updateGradInput(input, gradOutput)
  utils.checkTensorTable(self, input, 'nn.CMulTable:updateGradInput')
  utils.checkTensor(gradOutput, 'nn.CMulTable:updateGradInput', 'gradOutput')
  local g = utils.gradTable(self, #input, input[1])
  for i = 1, #input do
    g[i]:resizeAs(input[i]):copy(gradOutput)
    for j = 1, #input do
      if i ~= j then g[i]:cmul(input[j]) end
    end
  end
  return g
end

function CMulTable:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

return CMulTable
