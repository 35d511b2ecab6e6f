-- nn.Padding(dim, pad [, nInputDim, value=0, index=1]): inserts |pad|
-- entries of 'value' along dimension 'dim'. With pad < 0 they go before
-- position 'index' counted from the start (index 1: in front); with pad > 0
-- before position 'index' counted from the end (index 1: at the end). With
-- nInputDim, an input of another dimension count has a leading batch
-- dimension and 'dim' shifts by one. Output size along dim: size + |pad|.
-- gradInput is gradOutput without the padded entries.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Padding, parent = torch.class('nn.Padding', 'nn.Module')

local function checkInt(v, what, optional)
  if (v ~= nil or not optional) and (type(v) ~= 'number' or v % 1 ~= 0) then
    error(string.format('nn.Padding: %s must be an integer, got %s', what, tostring(v)), 3)
  end
end

function Padding:__init(dim, pad, nInputDim, value, index)
  checkInt(dim, 'dim')
  checkInt(pad, 'pad')
  checkInt(nInputDim, 'nInputDim', true)
  checkInt(index, 'index', true)
  if value ~= nil and type(value) ~= 'number' then
    error(string.format('nn.Padding: value must be a number, got %s', torch.type(value)), 2)
  end
  self.value = value or 0
  self.index = index or 1
  self.dim = dim
  self.pad = pad
  self.nInputDim = nInputDim
  self.outputSize = torch.LongStorage()
  parent.__init(self)
end

-- the padded dimension, the first padded position (1-based, in the
-- output) and the pad count, checked against the input
function Padding:_layout(input, who)
  local dim = self.dim
  if self.nInputDim and input:dim() ~= self.nInputDim then dim = dim + 1 end
  if dim < 1 or dim > input:dim() then
    utils.error(who, 'dim %d is out of range for input %s%s', self.dim, utils.shapeString(input),
                self.nInputDim and string.format(' (nInputDim %d)', self.nInputDim) or '')
  end
  local n = input:size(dim)
  local index, pad = self.index, self.pad
  if pad > 0 then index = n - index + 2 else pad = -pad end
  if index < 1 or index > n + 1 then
    utils.error(who, 'index %d is out of range for size %d along dimension %d (1 to %d)', self.index, n, dim, n + 1)
  end
  return dim, index, pad
end

function Padding:updateOutput(input)
  local who = 'nn.Padding:updateOutput'
  utils.checkTensor(input, who)
  local dim, index, pad = self:_layout(input, who)
  local n = input:size(dim)
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  self.outputSize:resize(input:dim()):copy(input:size())
  self.outputSize[dim] = n + pad
  self.output:resize(self.outputSize):fill(self.value)
  -- entries before 'index' stay in place, the rest move up by pad
  if index > 1 then
    self.output:narrow(dim, 1, index - 1):copy(input:narrow(dim, 1, index - 1))
  end
  if index <= n then
    self.output:narrow(dim, index + pad, n - index + 1):copy(input:narrow(dim, index, n - index + 1))
  end
  return self.output
end

function Padding:updateGradInput(input, gradOutput)
  local who = 'nn.Padding:updateGradInput'
  utils.checkTensor(input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  local dim, index, pad = self:_layout(input, who)
  local n = input:size(dim)
  local ok = gradOutput:dim() == input:dim()
  for d = 1, input:dim() do
    if not ok then break end
    ok = gradOutput:size(d) == (d == dim and n + pad or input:size(d))
  end
  if not ok then
    local expect = input:size():totable()
    expect[dim] = n + pad
    utils.error(who, 'gradOutput must be %s, got %s', table.concat(expect, 'x'), utils.shapeString(gradOutput))
  end
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  self.gradInput:resizeAs(input)
  if index > 1 then
    self.gradInput:narrow(dim, 1, index - 1):copy(gradOutput:narrow(dim, 1, index - 1))
  end
  if index <= n then
    self.gradInput:narrow(dim, index, n - index + 1):copy(gradOutput:narrow(dim, index + pad, n - index + 1))
  end
  return self.gradInput
end

-- backward reads only the input's shape
function Padding:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Padding
