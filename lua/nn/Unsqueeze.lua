-- nn.Unsqueeze(pos [, numInputDims]): the output is a view of the input with
-- a size-1 dimension inserted at 'pos' (1 <= pos <= dim + 1, counted after
-- the batch dimensions when numInputDims is set: an input of more than
-- numInputDims dimensions has the extra leading ones as batch). No copy:
-- output and gradInput view the input and gradOutput, whatever their
-- strides.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Unsqueeze, parent = torch.class('nn.Unsqueeze', 'nn.Module')

local function checkCount(v, what)
  if v ~= nil and (type(v) ~= 'number' or v % 1 ~= 0) then
    error(string.format('nn.Unsqueeze: %s must be an integer, got %s', what, tostring(v)), 3)
  end
end

function Unsqueeze:__init(pos, numInputDims)
  parent.__init(self)
  if pos == nil then error('nn.Unsqueeze: the position to insert the singleton dimension is not specified', 2) end
  checkCount(pos, 'pos')
  checkCount(numInputDims, 'numInputDims')
  self.pos = pos
  self:setNumInputDims(numInputDims)
end

function Unsqueeze:setNumInputDims(numInputDims)
  self.numInputDims = numInputDims
  return self
end

-- the dimension of the output that is inserted, batch dimensions counted.
-- (Torch7 stored the input's dimension count in numInputDims on the first
-- call; here it stays as given, so one module takes batches of any size.)
function Unsqueeze:_getActualPosition(input, who)
  local ndim = input:dim()
  local nfeat = self.numInputDims or ndim
  local offset = ndim - nfeat
  if offset < 0 then
    utils.error(who, 'input must have at least numInputDims = %d dimensions, got %s', nfeat,
                utils.shapeString(input))
  end
  local pos = self.pos + offset
  if pos < 1 or pos > ndim + 1 then
    utils.error(who, 'invalid position %d for an input of %d dimensions (numInputDims %d)', self.pos, ndim, nfeat)
  end
  return pos
end

function Unsqueeze:updateOutput(input)
  utils.checkTensor(input, 'nn.Unsqueeze:updateOutput')
  local pos = self:_getActualPosition(input, 'nn.Unsqueeze:updateOutput')
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  utils.addSingletonDimension(self.output, input, pos)
  return self.output
end

function Unsqueeze:updateGradInput(input, gradOutput)
  local who = 'nn.Unsqueeze:updateGradInput'
  utils.checkTensor(input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() then
    utils.error(who, 'gradOutput must have %d elements like the input, got %s', input:nElement(),
                utils.shapeString(gradOutput))
  end
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  local pos = self:_getActualPosition(input, who)
  if gradOutput:dim() == input:dim() + 1 and gradOutput:size(pos) == 1 and input:dim() > 0 then
    -- drop the inserted dimension: a view whatever gradOutput's strides
    local size, stride = {}, {}
    for d = 1, gradOutput:dim() do
      if d ~= pos then size[#size + 1], stride[#stride + 1] = gradOutput:size(d), gradOutput:stride(d) end
    end
    self.gradInput:set(gradOutput:storage(), gradOutput:storageOffset(), torch.LongStorage(size),
                       torch.LongStorage(stride))
  else
    utils.contiguousView(self.gradInput, gradOutput, input:size())
  end
  return self.gradInput
end

function Unsqueeze:__tostring__()
  return torch.type(self) .. '(dim ' .. tostring(self.pos) .. ')'
end

-- output and gradInput view the input and gradOutput: drop, never resize
function Unsqueeze:clearState()
  self.output:set()
  self.gradInput:set()
  return self
end

function Unsqueeze:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Unsqueeze
