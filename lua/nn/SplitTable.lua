-- nn.SplitTable(dimension [, nInputDims]): output = the table of slices
-- input:select(dimension, i) (views, no copy); negative dimensions count
-- from the end; with nInputDims, an input with one extra (batch) dimension
-- has dimension shifted by one. gradInput stacks the gradOutput slices.
-- A 1D input splits into numbers (Torch7's select on a vector).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local SplitTable, parent = torch.class('nn.SplitTable', 'nn.Module')

function SplitTable:__init(dimension, nInputDims)
  parent.__init(self)
  if type(dimension) ~= 'number' or dimension % 1 ~= 0 or dimension == 0 then
    error(string.format('nn.SplitTable: dimension must be a non-zero integer, got %s', tostring(dimension)), 3)
  end
  self.dimension = dimension
  self.nInputDims = nInputDims
  self.output = {}
end

function SplitTable:_getPositiveDimension(input, who)
  utils.checkTensor(input, who)
  local dimension = self.dimension
  if dimension < 0 then
    dimension = input:dim() + dimension + 1
  elseif self.nInputDims and input:dim() == self.nInputDims + 1 then
    dimension = dimension + 1
  end
  if dimension < 1 or dimension > input:dim() then
    error(string.format('%s: dimension %d out of range for input %s', who, self.dimension,
                        utils.shapeString(input)), 0)
  end
  return dimension
end

function SplitTable:updateOutput(input)
  local d = self:_getPositiveDimension(input, 'nn.SplitTable:updateOutput')
  local slices = input:size(d)
  -- a new table of new views every call, as Torch7: a caller may keep the
  -- table of one call while splitting another tensor (rnn's tests do)
  local out = {}
  for i = 1, slices do
    out[i] = input:select(d, i)   -- a 1D input splits into numbers, as in Torch7
  end
  self.output = out
  return out
end

function SplitTable:updateGradInput(input, gradOutput)
  local d = self:_getPositiveDimension(input, 'nn.SplitTable:updateGradInput')
  local slices = input:size(d)
  if not utils.istable(gradOutput) or #gradOutput ~= slices then
    error(string.format('nn.SplitTable:updateGradInput: gradOutput must be a table of %d tensors, got %s',
                        slices, utils.shapeString(gradOutput)), 0)
  end
  -- gradInput = nil computes nothing (Torch7's `if self.gradInput then`)
  if self.gradInput == nil then return nil end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input)
  if input:dim() == 1 then
    for i = 1, slices do
      local v = gradOutput[i]
      if torch.isTensor(v) and v:nElement() == 1 then v = v:storage()[v:storageOffset()] end
      if type(v) ~= 'number' then
        error(string.format('nn.SplitTable:updateGradInput: gradOutput[%d] must be a number, got %s', i,
                            torch.type(gradOutput[i])), 0)
      end
      self.gradInput[i] = v
    end
    return self.gradInput
  end
  for i = 1, slices do
    local slice = self.gradInput:select(d, i)
    if not torch.isTensor(gradOutput[i]) or gradOutput[i]:nElement() ~= slice:nElement() then
      error(string.format('nn.SplitTable:updateGradInput: gradOutput[%d] must have size %s, got %s', i,
                          utils.sizeString(slice), utils.shapeString(gradOutput[i])), 0)
    end
    slice:copy(gradOutput[i])
  end
  return self.gradInput
end

function SplitTable:clearState()
  self.output = {}
  return parent.clearState(self)
end

function SplitTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return SplitTable
