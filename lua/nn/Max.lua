-- nn.Max([dimension = 1 [, nInputDims]]): output = the maximum of the input
-- over 'dimension' (removed); the positions of the maxima are kept in the
-- LongTensor '_indices' for backward, which routes each gradOutput element
-- to its maximum. Negative dimensions count from the end; with nInputDims
-- a batch dimension shifts 'dimension' by one. nn.Min is the same with
-- the minimum.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Max, parent = torch.class('nn.Max', 'nn.Module')

function Max:__init(dimension, nInputDims)
  parent.__init(self)
  dimension = dimension or 1
  if type(dimension) ~= 'number' or dimension % 1 ~= 0 or dimension == 0 then
    error(string.format('%s: dimension must be a non-zero integer, got %s', torch.type(self), tostring(dimension)), 3)
  end
  self.dimension = dimension
  self.nInputDims = nInputDims
end

Max._reduce = 'max'

function Max:_getPositiveDimension(input, who)
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

function Max:_lazyInit()
  if not torch.isTensor(self._indices) or torch.type(self._indices) ~= 'torch.LongTensor' then
    self._indices = torch.LongTensor()
  end
end

function Max:updateOutput(input)
  local dimension = self:_getPositiveDimension(input, torch.type(self) .. ':updateOutput')
  self:_lazyInit()
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  -- values straight into output (keeping its dimension), then output
  -- becomes the view without it: output never leaves its own storage
  torch[self._reduce](self.output, self._indices, input, dimension)
  if input:dim() > 1 then self.output:set(self.output:select(dimension, 1)) end
  return self.output
end

function Max:updateGradInput(input, gradOutput)
  local dimension = self:_getPositiveDimension(input, torch.type(self) .. ':updateGradInput')
  self:_lazyInit()
  if torch.type(gradOutput) ~= torch.type(input) then
    error(string.format('%s:updateGradInput: gradOutput must be a %s like the input, got %s',
                        torch.type(self), torch.type(input), torch.type(gradOutput)), 0)
  end
  -- the indices of the last forward must belong to this input's shape
  local idx, fresh = self._indices, self._indices:dim() ~= input:dim()
  for d = 1, math.min(idx:dim(), input:dim()) do
    if d ~= dimension and idx:size(d) ~= input:size(d) then fresh = true end
  end
  if fresh then
    error(string.format('%s:updateGradInput: no forward pass for input %s: call forward with this input first',
                        torch.type(self), utils.shapeString(input)), 0)
  end
  if gradOutput:nElement() ~= self._indices:nElement() then
    error(string.format('%s:updateGradInput: gradOutput must have the size of the output (%d elements), got %s',
                        torch.type(self), self._indices:nElement(), utils.shapeString(gradOutput)), 0)
  end
  local gview = gradOutput
  if input:dim() > 1 then
    gview = gradOutput:dim() == input:dim() and gradOutput or utils.addSingletonDimension(gradOutput, dimension)
    -- same element count, other shape (say 4 for a 4x1x1 output): lay it out as the indices
    if not gview:isSameSizeAs(self._indices) then gview = gradOutput:contiguous():view(self._indices:size()) end
  end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input):zero():scatter(dimension, self._indices, gview)
  return self.gradInput
end

-- _indices stays a LongTensor whatever the module's type
function Max:type(tname, tensorCache)
  if not tname then return parent.type(self) end
  local indices = self._indices
  self._indices = nil
  parent.type(self, tname, tensorCache)
  self._indices = indices
  return self
end

function Max:clearState()
  nn.utils.clear(self, '_indices')
  return parent.clearState(self)
end

function Max:memoryTraits()
  return {buffers = {_indices = 'both'}, needsInput = false, needsOutput = false}
end

return Max
