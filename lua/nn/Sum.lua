-- nn.Sum([dimension = 1 [, nInputDims [, sizeAverage = false [, squeeze = true]]]]):
-- output = the input summed over 'dimension' (averaged with sizeAverage);
-- negative dimensions count from the end; with nInputDims, an input with
-- one extra (batch) dimension has dimension shifted by one. squeeze drops
-- the summed dimension (when the output keeps at least one).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Sum, parent = torch.class('nn.Sum', 'nn.Module')

function Sum:__init(dimension, nInputDims, sizeAverage, squeeze)
  parent.__init(self)
  dimension = dimension or 1
  if type(dimension) ~= 'number' or dimension % 1 ~= 0 or dimension == 0 then
    error(string.format('%s: dimension must be a non-zero integer, got %s', torch.type(self), tostring(dimension)), 3)
  end
  if squeeze ~= nil and type(squeeze) ~= 'boolean' then
    error(string.format('%s: squeeze must be true or false, got %s', torch.type(self), torch.type(squeeze)), 3)
  end
  self.dimension = dimension
  self.nInputDims = nInputDims   -- no default: Torch7 scripts rely on nil
  self.sizeAverage = sizeAverage or false
  if squeeze == nil then squeeze = true end
  self.squeeze = squeeze
end

function Sum:_getPositiveDimension(input, who)
  utils.checkTensor(input, who)
  local dimension = self.dimension
  if dimension < 0 then
    dimension = input:dim() + dimension + 1
  elseif self.nInputDims and input:dim() == self.nInputDims + 1 then
    dimension = dimension + 1
  end
  if dimension < 1 or dimension > input:dim() then
    error(string.format('%s: dimension %d exceeds the dimensions of input %s', who, self.dimension,
                        utils.shapeString(input)), 0)
  end
  return dimension
end

function Sum:updateOutput(input)
  local dimension = self:_getPositiveDimension(input, torch.type(self) .. ':updateOutput')
  if not torch.isTensor(self.output) or torch.type(self.output) ~= torch.type(input) then
    self.output = input.new()
  end
  torch.sum(self.output, input, dimension)
  if self.sizeAverage then self.output:div(input:size(dimension)) end
  if self.squeeze and self.output:dim() > 1 then
    self.output:set(self.output:select(dimension, 1))
  end
  return self.output
end

function Sum:updateGradInput(input, gradOutput)
  local dimension = self:_getPositiveDimension(input, torch.type(self) .. ':updateGradInput')
  local size = input:size()
  size[dimension] = 1
  local n = 1
  for i = 1, #size do n = n * size[i] end
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= n then
    error(string.format('%s:updateGradInput: gradOutput must have the size of the output (%d elements), got %s',
                        torch.type(self), n, utils.shapeString(gradOutput)), 0)
  end
  if not gradOutput:isContiguous() then
    self._gradOutput = self._gradOutput or gradOutput.new()
    self._gradOutput:resizeAs(gradOutput):copy(gradOutput)
    gradOutput = self._gradOutput
  end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input)
  self.gradInput:copy(gradOutput:view(size):expandAs(input))
  if self.sizeAverage then self.gradInput:div(input:size(dimension)) end
  return self.gradInput
end

function Sum:memoryTraits()
  return {buffers = {_gradOutput = 'backward'}, needsInput = false, needsOutput = false}
end

return Sum
