-- nn.CMaxTable(): output = elementwise maximum of input[1], input[2], ...
-- (tensors of equal element counts). 'maxIdx' keeps, per element, which
-- input gave the maximum (the first one on ties, as Torch7's strict '>');
-- backward routes gradOutput there and zero elsewhere. nn.CMinTable shares
-- the code (CMaxTable._forward/_backward) with '<'.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local CMaxTable, parent = torch.class('nn.CMaxTable', 'nn.Module')

function CMaxTable:__init()
  parent.__init(self)
  self.gradInput = {}
  self.maxIdx = torch.Tensor()
end

-- self[field] as a tensor of x's type (made anew after a type change)
local function bufferLike(self, field, x)
  local b = rawget(self, field)
  if not torch.isTensor(b) or torch.type(b) ~= torch.type(x) then
    b = x.new()
    self[field] = b
  end
  return b
end

local function byteMask(self)
  local m = rawget(self, 'maskByteTensor')
  if torch.type(m) ~= 'torch.ByteTensor' then
    m = torch.ByteTensor()
    self.maskByteTensor = m
  end
  return m
end

-- output = input[1], then each later input wins where compare(x, output)
-- ('gt' for max, 'lt' for min); idx records the winner. (Torch7 moved the
-- winning values through maskedSelect/maskedCopy buffers, whose size
-- depends on the data; 'cmax'/'cmin' give the same numbers and every
-- buffer here has the input's size, which the memory planner needs. They
-- differ only on NaN: a NaN in a later input is taken where Torch7 kept
-- the earlier value.)
function CMaxTable._forward(self, input, who, compare, idxField, pick)
  utils.checkTensorTable(self, input, who)
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  local out = self.output:resizeAs(input[1]):copy(input[1])
  local idx = bufferLike(self, idxField, input[1]):resizeAs(input[1]):fill(1)
  local mask = byteMask(self)
  for i = 2, #input do
    local x = input[i]
    if not x:isSameSizeAs(out) then x = x:contiguous():view(out:size()) end
    mask[compare](mask, x, out)
    idx:maskedFill(mask, i)
    out[pick](out, x)
  end
  return out
end

-- gradInput[i] = gradOutput where input i won, 0 elsewhere
function CMaxTable._backward(self, input, gradOutput, who, idxField)
  utils.checkTensorTable(self, input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  local idx = rawget(self, idxField)
  if not torch.isTensor(idx) or idx:nElement() ~= input[1]:nElement() then
    utils.error(who, 'no forward pass for this input (call forward first)')
  end
  if gradOutput:nElement() ~= idx:nElement() then
    utils.error(who, 'gradOutput must have %d elements like the output, got %s', idx:nElement(),
                utils.shapeString(gradOutput))
  end
  local g = utils.gradTable(self, #input, gradOutput)
  local mask = byteMask(self)
  local go = gradOutput:isSameSizeAs(idx) and gradOutput or gradOutput:contiguous():view(idx:size())
  for i = 1, #input do
    mask:ne(idx, i)
    g[i]:resizeAs(idx):copy(go):maskedFill(mask, 0)
    if not input[i]:isSameSizeAs(idx) then g[i]:resize(input[i]:size()) end
  end
  return g
end

function CMaxTable:updateOutput(input)
  return CMaxTable._forward(self, input, 'nn.CMaxTable:updateOutput', 'gt', 'maxIdx', 'cmax')
end

function CMaxTable:updateGradInput(input, gradOutput)
  return CMaxTable._backward(self, input, gradOutput, 'nn.CMaxTable:updateGradInput', 'maxIdx')
end

-- backward reads only the winners (maxIdx) and the inputs' shapes. mask,
-- maxVals and gradMaxVals are Torch7's buffers, found in its saved modules.
function CMaxTable:memoryTraits()
  return {buffers = {maxIdx = 'both', maskByteTensor = 'both', mask = 'both', maxVals = 'forward',
                     gradMaxVals = 'backward'},
          needsInput = false, needsOutput = false}
end

return CMaxTable
