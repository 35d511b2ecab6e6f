-- nn.NarrowTable(offset [, length = 1]): output = {input[offset], ...,
-- input[offset + length - 1]} (the elements themselves). A negative length
-- counts from the end: -1 reaches the last element. gradInput has the
-- input's structure: gradOutput's elements in the window, zeros elsewhere.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local NarrowTable, parent = torch.class('nn.NarrowTable', 'nn.Module')

function NarrowTable:__init(offset, length)
  parent.__init(self)
  if type(offset) ~= 'number' or offset % 1 ~= 0 or offset < 1 then
    error(string.format('nn.NarrowTable: offset must be a positive integer, got %s', tostring(offset)), 3)
  end
  length = length or 1
  if type(length) ~= 'number' or length % 1 ~= 0 or length == 0 then
    error(string.format('nn.NarrowTable: length must be a non-zero integer, got %s', tostring(length)), 3)
  end
  self.offset = offset
  self.length = length
  self.output = {}
  self.gradInput = {}
end

function NarrowTable:_length(input, who)
  if not utils.istable(input) then
    error(string.format('%s: input must be a table, got %s', who, torch.type(input)), 0)
  end
  local length = self.length < 0 and #input - self.offset + self.length + 2 or self.length
  if length < 1 or self.offset + length - 1 > #input then
    error(string.format('%s: cannot take %d elements from %d of an input table of %d elements', who,
                        length, self.offset, #input), 0)
  end
  return length
end

function NarrowTable:updateOutput(input)
  local length = self:_length(input, 'nn.NarrowTable:updateOutput')
  if not utils.istable(self.output) then self.output = {} end
  for i = 1, length do self.output[i] = input[self.offset + i - 1] end
  for i = #self.output, length + 1, -1 do self.output[i] = nil end
  return self.output
end

function NarrowTable:updateGradInput(input, gradOutput)
  local length = self:_length(input, 'nn.NarrowTable:updateGradInput')
  if not utils.istable(gradOutput) or #gradOutput ~= length then
    error(string.format('nn.NarrowTable:updateGradInput: gradOutput must be a table of %d elements, got %s',
                        length, utils.shapeString(gradOutput)), 0)
  end
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  -- zeros outside the window live in '_zeros', never in gradOutput's
  -- tensors (which gradInput holds inside the window)
  if not utils.istable(self._zeros) then self._zeros = {} end
  for i = 1, #input do
    if i >= self.offset and i < self.offset + length then
      self.gradInput[i] = gradOutput[i - self.offset + 1]
    else
      self._zeros[i] = utils.recursiveResizeAs(self._zeros[i], input[i])
      utils.recursiveFill(self._zeros[i], 0)
      self.gradInput[i] = self._zeros[i]
    end
  end
  for i = #self.gradInput, #input + 1, -1 do self.gradInput[i] = nil end
  return self.gradInput
end

function NarrowTable:type(tname, tensorCache)
  if tname then
    self.output, self.gradInput, self._zeros = {}, {}, nil
  end
  return parent.type(self, tname, tensorCache)
end

function NarrowTable:clearState()
  self.output, self.gradInput, self._zeros = {}, {}, nil
  return self
end

function NarrowTable:memoryTraits()
  return {buffers = {_zeros = 'backward'}, needsInput = false, needsOutput = false}
end

return NarrowTable
