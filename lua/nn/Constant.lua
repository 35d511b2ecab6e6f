-- nn.Constant(value [, nInputDim]): outputs 'value' (a number, kept as a
-- 1-element tensor, or a tensor) whatever the input. With nInputDim, an
-- input of more than nInputDim dimensions is a batch and the output is
-- value repeated size(1) times along a new first dimension. The gradient
-- is zero. Use: nn.ConcatTable():add(nn.Constant(v)):add(nn.Identity())
-- appends a constant to an input.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Constant, parent = torch.class('nn.Constant', 'nn.Module')

function Constant:__init(value, nInputDim)
  if type(value) == 'number' then value = torch.Tensor{value} end
  if not torch.isTensor(value) then
    error(string.format('nn.Constant: value must be a number or a tensor, got %s', torch.type(value)), 2)
  end
  if nInputDim ~= nil and (type(nInputDim) ~= 'number' or nInputDim % 1 ~= 0) then
    error(string.format('nn.Constant: nInputDim must be an integer, got %s', tostring(nInputDim)), 2)
  end
  self.value = value
  self.nInputDim = nInputDim
  parent.__init(self)
end

function Constant:updateOutput(input)
  local value = self.value
  if torch.type(self.output) ~= torch.type(value) then self.output = value.new() end
  if self.nInputDim and torch.isTensor(input) and input:dim() > self.nInputDim then
    local size = value:size():totable()
    table.insert(size, 1, input:size(1))
    self.output:resize(torch.LongStorage(size))
    self.output:copy(utils.addSingletonDimension(value, 1):expandAs(self.output))
  else
    self.output:resizeAs(value):copy(value)
  end
  return self.output
end

-- zeros shaped like the input (a tensor, or a table of them)
function Constant:updateGradInput(input, gradOutput)
  if torch.isTensor(input) then
    if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
    self.gradInput:resizeAs(input):zero()
  elseif type(input) == 'table' then
    self.gradInput = utils.recursiveResizeAs(self.gradInput, input)
    utils.recursiveFill(self.gradInput, 0)
  else
    utils.error('nn.Constant:updateGradInput', 'input must be a tensor or a table of tensors, got %s',
                torch.type(input))
  end
  return self.gradInput
end

-- 'value' is the module's own data, neither parameter nor scratch
function Constant:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false, state = {value = true}}
end

return Constant
