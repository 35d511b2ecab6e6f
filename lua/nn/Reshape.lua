-- nn.Reshape(sizes... [, batchMode]): the output is a view of the input
-- with the given sizes. Without batchMode, an input whose element count
-- equals the sizes' product (and whose first dimension is not 1) is not a
-- batch; otherwise the first dimension is kept as the batch. batchMode
-- true/false forces either reading.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Reshape, parent = torch.class('nn.Reshape', 'nn.Module')

function Reshape:__init(...)
  parent.__init(self)
  local arg = {...}
  if type(arg[#arg]) == 'boolean' then
    self.batchMode = arg[#arg]
    table.remove(arg, #arg)
  end
  local sizes
  if #arg == 1 and torch.typename(arg[1]) == 'torch.LongStorage' then
    sizes = arg[1]:totable()
  else
    sizes = arg
  end
  if #sizes == 0 then error('nn.Reshape: at least one size expected', 3) end
  self.nelement = 1
  for i, v in ipairs(sizes) do
    if type(v) ~= 'number' or v % 1 ~= 0 or v < 0 then
      error(string.format('nn.Reshape: size %d must be a non-negative integer, got %s', i, tostring(v)), 3)
    end
    self.nelement = self.nelement * v
  end
  self.size = torch.LongStorage(sizes)
  local b = {1}
  for i, v in ipairs(sizes) do b[i + 1] = v end
  self.batchsize = torch.LongStorage(b)
end

local function contiguous(self, x, field)
  if x:isContiguous() then return x end
  local b = self[field]
  if not torch.isTensor(b) or torch.type(b) ~= torch.type(x) then
    b = x.new()
    self[field] = b
  end
  b:resizeAs(x):copy(x)
  return b
end

function Reshape:updateOutput(input)
  utils.checkTensor(input, 'nn.Reshape:updateOutput')
  input = contiguous(self, input, '_input')
  local sizes
  if self.batchMode == false or
     (self.batchMode == nil and input:nElement() == self.nelement and input:size(1) ~= 1) then
    sizes = self.size
  else
    self.batchsize[1] = input:dim() > 0 and input:size(1) or 0
    sizes = self.batchsize
  end
  local n = 1
  for i = 1, #sizes do n = n * sizes[i] end
  if n ~= input:nElement() then
    error(string.format('nn.Reshape:updateOutput: input %s has %d elements, cannot reshape to %s',
                        utils.shapeString(input), input:nElement(), table.concat(sizes:totable(), 'x')), 0)
  end
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  self.output:view(input, sizes)
  return self.output
end

function Reshape:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Reshape:updateGradInput', 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() then
    error(string.format('nn.Reshape:updateGradInput: gradOutput must have %d elements like the input, got %s',
                        input:nElement(), utils.shapeString(gradOutput)), 0)
  end
  gradOutput = contiguous(self, gradOutput, '_gradOutput')
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  self.gradInput:view(gradOutput, input:size())
  return self.gradInput
end

function Reshape:memoryTraits()
  return {buffers = {_input = 'forward', _gradOutput = 'backward'}, needsInput = false, needsOutput = false}
end

function Reshape:__tostring__()
  return torch.type(self) .. '(' .. table.concat(self.size:totable(), 'x') .. ')'
end

return Reshape
