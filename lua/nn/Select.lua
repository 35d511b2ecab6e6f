-- nn.Select(dimension, index): output = a copy of input:select(dimension,
-- index), one dimension fewer. Negative dimension and index count from the
-- end (-1 = last).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Select, parent = torch.class('nn.Select', 'nn.Module')

function Select:__init(dimension, index)
  parent.__init(self)
  for _, p in ipairs{{dimension, 'dimension'}, {index, 'index'}} do
    if type(p[1]) ~= 'number' or p[1] % 1 ~= 0 or p[1] == 0 then
      error(string.format('nn.Select: %s must be a non-zero integer, got %s', p[2], tostring(p[1])), 3)
    end
  end
  self.dimension = dimension
  self.index = index
end

function Select:_resolve(input, who)
  utils.checkTensor(input, who)
  -- a 1D input would select a number, which no module output can be
  if input:dim() < 2 then
    error(string.format('%s: input must have at least 2 dimensions, got %s', who, utils.shapeString(input)), 0)
  end
  local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
  if dim < 1 or dim > input:dim() then
    error(string.format('%s: dimension %d out of range for input %s', who, self.dimension,
                        utils.shapeString(input)), 0)
  end
  local index = self.index < 0 and input:size(dim) + self.index + 1 or self.index
  if index < 1 or index > input:size(dim) then
    error(string.format('%s: index %d out of range for dimension %d of input %s', who, self.index, dim,
                        utils.shapeString(input)), 0)
  end
  return dim, index
end

function Select:updateOutput(input)
  local dim, index = self:_resolve(input, 'nn.Select:updateOutput')
  local view = input:select(dim, index)
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  self.output:resizeAs(view):copy(view)
  return self.output
end

function Select:updateGradInput(input, gradOutput)
  local dim, index = self:_resolve(input, 'nn.Select:updateGradInput')
  local window = input:select(dim, index)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= window:nElement() then
    error(string.format('nn.Select:updateGradInput: gradOutput must have the size of the output (%s), got %s',
                        utils.sizeString(window), utils.shapeString(gradOutput)), 0)
  end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input):zero()
  self.gradInput:select(dim, index):copy(gradOutput)
  return self.gradInput
end

function Select:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Select
