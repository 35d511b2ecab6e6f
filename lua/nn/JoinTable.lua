-- nn.JoinTable(dimension [, nInputDims]): output = the input tensors
-- concatenated along 'dimension'; negative dimensions count from the end;
-- with nInputDims, inputs with one extra (batch) dimension have dimension
-- shifted by one. gradInput[i] is input i's part of gradOutput.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local JoinTable, parent = torch.class('nn.JoinTable', 'nn.Module')

function JoinTable:__init(dimension, nInputDims)
  parent.__init(self)
  if type(dimension) ~= 'number' or dimension % 1 ~= 0 or dimension == 0 then
    error(string.format('nn.JoinTable: dimension must be a non-zero integer, got %s', tostring(dimension)), 3)
  end
  self.size = torch.LongStorage()
  self.dimension = dimension
  self.gradInput = {}
  self.nInputDims = nInputDims
end

function JoinTable:_getPositiveDimension(input)
  local dimension = self.dimension
  if dimension < 0 then
    dimension = input[1]:dim() + dimension + 1
  elseif self.nInputDims and input[1]:dim() == self.nInputDims + 1 then
    dimension = dimension + 1
  end
  return dimension
end

local function check(self, input, who)
  if not utils.istable(input) or #input == 0 then
    error(string.format('%s: input must be a non-empty table of tensors, got %s', who, utils.shapeString(input)), 0)
  end
  for i = 1, #input do
    if not torch.isTensor(input[i]) then
      error(string.format('%s: input[%d] must be a tensor, got %s', who, i, torch.type(input[i])), 0)
    end
  end
  local d = self:_getPositiveDimension(input)
  local first = input[1]
  if d < 1 or d > first:dim() then
    error(string.format('%s: dimension %d out of range for input[1] %s', who, self.dimension,
                        utils.shapeString(first)), 0)
  end
  for i = 2, #input do
    local x = input[i]
    local ok = x:dim() == first:dim()
    for k = 1, first:dim() do
      if ok and k ~= d and x:size(k) ~= first:size(k) then ok = false end
    end
    if not ok then
      error(string.format('%s: input[%d] (%s) does not match input[1] (%s) outside dimension %d', who, i,
                          utils.sizeString(x), utils.sizeString(first), d), 0)
    end
  end
  return d
end

function JoinTable:updateOutput(input)
  local d = check(self, input, 'nn.JoinTable:updateOutput')
  local size = input[1]:size():totable()
  for i = 2, #input do size[d] = size[d] + input[i]:size(d) end
  self.size = torch.LongStorage(size)
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  self.output:resize(self.size)
  local offset = 1
  for i = 1, #input do
    local n = input[i]:size(d)
    if n > 0 then self.output:narrow(d, offset, n):copy(input[i]) end
    offset = offset + n
  end
  return self.output
end

function JoinTable:updateGradInput(input, gradOutput)
  local d = check(self, input, 'nn.JoinTable:updateGradInput')
  local total = 0
  for i = 1, #input do total = total + input[i]:nElement() end
  if not torch.isTensor(gradOutput) or gradOutput:dim() < d or gradOutput:nElement() ~= total then
    error(string.format('nn.JoinTable:updateGradInput: gradOutput must have the size of the output (%s), got %s',
                        utils.sizeString(self.output), utils.shapeString(gradOutput)), 0)
  end
  local g = utils.gradTable(self, #input, input[1])
  local offset = 1
  for i = 1, #input do
    local n = input[i]:size(d)
    g[i]:resizeAs(input[i])
    if n > 0 then g[i]:copy(gradOutput:narrow(d, offset, n)) end
    offset = offset + n
  end
  return g
end

function JoinTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return JoinTable
