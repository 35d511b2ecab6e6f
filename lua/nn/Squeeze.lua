-- nn.Squeeze([dim [, numInputDims]]): output = a view of the input without
-- its size-1 dimensions (or only 'dim'). With numInputDims, an input with
-- one extra (batch) dimension has dim shifted by one, and a batch of size 1
-- keeps its batch dimension.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Squeeze, parent = torch.class('nn.Squeeze', 'nn.Module')

function Squeeze:__init(dim, numInputDims)
  parent.__init(self)
  if dim ~= nil and (type(dim) ~= 'number' or dim % 1 ~= 0 or dim < 1) then
    error(string.format('nn.Squeeze: dim must be a positive integer, got %s', tostring(dim)), 3)
  end
  self.dim = dim
  self:setNumInputDims(numInputDims)
end

function Squeeze:setNumInputDims(numInputDims)
  self.numInputDims = numInputDims
  return self
end

function Squeeze:updateOutput(input)
  utils.checkTensor(input, 'nn.Squeeze:updateOutput')
  local dim = self.dim
  local keepBatch = false
  if self.numInputDims and input:dim() == self.numInputDims + 1 then
    if dim then
      dim = dim + 1
    elseif input:size(1) == 1 then
      keepBatch = true
    end
  end
  if dim and dim > input:dim() then
    error(string.format('nn.Squeeze:updateOutput: dimension %d out of range for input %s', dim,
                        utils.shapeString(input)), 0)
  end
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  local v = input:_squeeze(dim)
  if keepBatch then v = utils.addSingletonDimension(v, 1) end
  self.output:set(v)
  return self.output
end

function Squeeze:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Squeeze:updateGradInput', 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() then
    error(string.format('nn.Squeeze:updateGradInput: gradOutput must have %d elements like the input, got %s',
                        input:nElement(), utils.shapeString(gradOutput)), 0)
  end
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  if gradOutput:isContiguous() then
    self.gradInput:view(gradOutput, input:size())
  else
    self.gradInput:set()
    self.gradInput:resize(input:size()):copy(gradOutput)
  end
  return self.gradInput
end

function Squeeze:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Squeeze
