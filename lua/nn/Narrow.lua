-- nn.Narrow(dimension, offset [, length = 1]): output = a copy of
-- input:narrow(dimension, offset, length). For inputs of unknown size, as
-- Torch7: a negative dimension counts from the end (-1 = last); a negative
-- length reaches to the end (-1 = up to the last element, -2 = one before
-- it); a negative offset (any value) starts at 1 and leaves out the last
-- 'length' elements (nn.Narrow(2, -1, 7) on 10 columns takes columns 1..3).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Narrow, parent = torch.class('nn.Narrow', 'nn.Module')

local function checkInt(v, what, allowZero)
  if type(v) ~= 'number' or v % 1 ~= 0 or (v == 0 and not allowZero) then
    error(string.format('nn.Narrow: %s must be a non-zero integer, got %s', what, tostring(v)), 4)
  end
end

function Narrow:__init(dimension, offset, length)
  parent.__init(self)
  checkInt(dimension, 'dimension')
  checkInt(offset, 'offset')
  length = length or 1
  checkInt(length, 'length')
  self.dimension = dimension
  self.index = offset
  self.length = length
end

-- (dimension, index, length) resolved against this input
function Narrow:_range(input, who)
  utils.checkTensor(input, who)
  local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
  if dim < 1 or dim > input:dim() then
    error(string.format('%s: dimension %d out of range for input %s', who, self.dimension,
                        utils.shapeString(input)), 0)
  end
  local n = input:size(dim)
  local length = self.length < 0 and n - self.index + self.length + 2 or self.length
  local index = self.index
  if index < 0 then  -- Torch7's rule: from 1, leaving out the last 'length'
    index = 1
    length = n - length
  end
  if index < 1 or length < 1 or index + length - 1 > n then
    error(string.format('%s: cannot take %d elements from %d in dimension %d of input %s', who,
                        length, index, dim, utils.shapeString(input)), 0)
  end
  return dim, index, length
end

function Narrow:updateOutput(input)
  local dim, index, length = self:_range(input, 'nn.Narrow:updateOutput')
  local view = input:narrow(dim, index, length)
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  self.output:resizeAs(view):copy(view)
  return self.output
end

function Narrow:updateGradInput(input, gradOutput)
  local dim, index, length = self:_range(input, 'nn.Narrow:updateGradInput')
  local window_n = input:narrow(dim, index, length):nElement()
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= window_n then
    error(string.format('nn.Narrow:updateGradInput: gradOutput must have the size of the output (%s), got %s',
                        utils.sizeString(input:narrow(dim, index, length)), utils.shapeString(gradOutput)), 0)
  end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input):zero()
  self.gradInput:narrow(dim, index, length):copy(gradOutput)
  return self.gradInput
end

function Narrow:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Narrow
