-- nn.CDivTable(): output = input[1] ./ input[2] (equal element counts).
-- gradInput[1] = gradOutput ./ input[2];
-- gradInput[2] = -gradOutput .* input[1] ./ input[2]^2.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local CDivTable, parent = torch.class('nn.CDivTable', 'nn.Module')

function CDivTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CDivTable:updateOutput(input)
  utils.checkTensorTable(self, input, 'nn.CDivTable:updateOutput', 2, 2)
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  self.output:resizeAs(input[1]):copy(input[1]):cdiv(input[2])
  return self.output
end

function CDivTable:updateGradInput(input, gradOutput)
  local who = 'nn.CDivTable:updateGradInput'
  utils.checkTensorTable(self, input, who, 2, 2)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  if gradOutput:nElement() ~= input[1]:nElement() then
    utils.error(who, 'gradOutput must have %d elements like the output, got %s', input[1]:nElement(),
                utils.shapeString(gradOutput))
  end
  local g = utils.gradTable(self, 2, input[1])
  g[1]:resizeAs(input[1]):copy(gradOutput):cdiv(input[2])
  g[2]:resizeAs(input[2]):zero():addcdiv(-1, g[1], input[2]):cmul(input[1])
  return g
end

function CDivTable:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

return CDivTable
