-- nn.Transpose({d1, d2}, {d3, d4}, ...): output = a contiguous copy of the
-- input with the given pairs of dimensions swapped, in order. With
-- setNumInputDims(n), dimensions count from the first of the last n input
-- dimensions (leading batch dimensions are skipped).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Transpose, parent = torch.class('nn.Transpose', 'nn.Module')

function Transpose:__init(...)
  parent.__init(self)
  self.permutations = {...}
  for i, p in ipairs(self.permutations) do
    if type(p) ~= 'table' or type(p[1]) ~= 'number' or type(p[2]) ~= 'number' then
      error(string.format('nn.Transpose: argument %d must be a pair of dimensions {d1, d2}, got %s', i,
                          torch.type(p)), 3)
    end
  end
  self.numInputDims = nil
end

function Transpose:setNumInputDims(numInputDims)
  self.numInputDims = numInputDims
  return self
end

local function permute(self, x, offset, reverse, who)
  local n = #self.permutations
  for k = 1, n do
    local p = self.permutations[reverse and (n - k + 1) or k]
    local a, b = p[1] + offset, p[2] + offset
    if a < 1 or b < 1 or a > x:dim() or b > x:dim() then
      error(string.format('%s: cannot swap dimensions %d and %d of a %s', who, a, b, utils.shapeString(x)), 0)
    end
    x = x:transpose(a, b)
  end
  return x
end

function Transpose:_offset(input)
  return self.numInputDims and input:dim() - self.numInputDims or 0
end

function Transpose:updateOutput(input)
  utils.checkTensor(input, 'nn.Transpose:updateOutput')
  local t = permute(self, input, self:_offset(input), false, 'nn.Transpose:updateOutput')
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  self.output:resizeAs(t):copy(t)
  return self.output
end

function Transpose:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Transpose:updateGradInput', 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() or gradOutput:dim() ~= input:dim() then
    error(string.format('nn.Transpose:updateGradInput: gradOutput must have the size of the output, got %s',
                        utils.shapeString(gradOutput)), 0)
  end
  local t = permute(self, gradOutput, self:_offset(input), true, 'nn.Transpose:updateGradInput')
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  self.gradInput:resizeAs(t):copy(t)
  return self.gradInput
end

function Transpose:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Transpose
