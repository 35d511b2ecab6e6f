-- nn.Collapse(nInputDim): collapses the non-batch dimensions into one. An
-- input of nInputDim dimensions becomes a vector of its nElement, one of
-- more dimensions becomes size(1) x rest (the first dimension is the
-- batch). The output is a view of the input, or of a contiguous copy of it
-- in '_input' when it is not contiguous; gradInput is gradOutput viewed in
-- the input's shape (copied into '_gradOutput' first when not contiguous).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Collapse, parent = torch.class('nn.Collapse', 'nn.Module')

function Collapse:__init(nInputDim)
  parent.__init(self)
  if type(nInputDim) ~= 'number' or nInputDim % 1 ~= 0 or nInputDim < 1 then
    error(string.format('nn.Collapse: nInputDim must be a positive integer, got %s', tostring(nInputDim)), 2)
  end
  self.nInputDim = nInputDim
end

-- a contiguous version of x: x itself or its copy in self[buffer]
local function contiguous(self, x, buffer)
  if x:isContiguous() then return x end
  local b = rawget(self, buffer)
  if not torch.isTensor(b) or torch.type(b) ~= torch.type(x) then
    b = x.new()
    self[buffer] = b
  end
  return b:resizeAs(x):copy(x)
end

function Collapse:updateOutput(input)
  utils.checkTensor(input, 'nn.Collapse:updateOutput')
  if input:dim() < self.nInputDim then
    utils.error('nn.Collapse:updateOutput', 'input must have at least %d dimensions, got %s', self.nInputDim,
                utils.shapeString(input))
  end
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  local src = contiguous(self, input, '_input')
  if input:dim() > self.nInputDim then
    self.output:view(src, input:size(1), -1)
  else
    self.output:view(src, -1)
  end
  return self.output
end

function Collapse:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Collapse:updateGradInput', 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() then
    utils.error('nn.Collapse:updateGradInput', 'gradOutput must have %d elements like the input, got %s',
                input:nElement(), utils.shapeString(gradOutput))
  end
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  self.gradInput:view(contiguous(self, gradOutput, '_gradOutput'), input:size())
  return self.gradInput
end

-- output and gradInput view other memory: drop them, never resize it away
function Collapse:clearState()
  self.output:set()
  self.gradInput:set()
  return utils.clear(self, '_input', '_gradOutput')
end

function Collapse:memoryTraits()
  return {buffers = {_input = 'forward', _gradOutput = 'backward'}, needsInput = false, needsOutput = false}
end

return Collapse
