-- nn.CSubTable: output = input[1] - input[2]; gradInput = {gradOutput,
-- -gradOutput}.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local CSubTable, parent = torch.class('nn.CSubTable', 'nn.Module')

function CSubTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CSubTable:updateOutput(input)
  utils.checkTensorTable(self, input, 'nn.CSubTable:updateOutput', 2, 2)
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  self.output:resizeAs(input[1]):copy(input[1])
  self.output:add(-1, input[2])
  return self.output
end

function CSubTable:updateGradInput(input, gradOutput)
  utils.checkTensorTable(self, input, 'nn.CSubTable:updateGradInput', 2, 2)
  utils.checkTensor(gradOutput, 'nn.CSubTable:updateGradInput', 'gradOutput')
  local g = utils.gradTable(self, 2, input[1])
  g[1]:resizeAs(input[1]):copy(gradOutput)
  g[2]:resizeAs(input[2]):copy(gradOutput):mul(-1)
  return g
end

function CSubTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return CSubTable
