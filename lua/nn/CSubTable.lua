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

local function check(self, input, who)
  utils.checkTensorTable(self, input, who, 2)
  if #input ~= 2 then
    error(string.format('%s: input must be a table of 2 tensors, got %d', who, #input), 0)
  end
end

function CSubTable:updateOutput(input)
  check(self, input, 'nn.CSubTable:updateOutput')
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  self.output:resizeAs(input[1]):copy(input[1])
  self.output:add(-1, input[2])
  return self.output
end

function CSubTable:updateGradInput(input, gradOutput)
  check(self, input, 'nn.CSubTable:updateGradInput')
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
