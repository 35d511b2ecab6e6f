-- nn.View(sizes...): the output is a view of the input with the given
-- sizes; one size may be -1 (inferred). Extra leading dimensions of the
-- input are taken as a batch: with setNumInputDims(n), the last n input
-- dimensions are the ones viewed and the rest is the batch. A
-- non-contiguous input (or gradOutput) is copied first, since a view needs
-- contiguous memory.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local View, parent = torch.class('nn.View', 'nn.Module')

function View:resetSize(...)
  local n = select('#', ...)
  local first = select(1, ...)
  local sizes
  if n == 1 and torch.typename(first) == 'torch.LongStorage' then
    sizes = first:totable()
  elseif n == 1 and type(first) == 'table' then
    sizes = first
  else
    sizes = {...}
  end
  if #sizes == 0 then error('nn.View: at least one size expected', 3) end
  self.numElements = 1
  local inferdim = false
  for i, v in ipairs(sizes) do
    if type(v) ~= 'number' or v % 1 ~= 0 or (v < 0 and v ~= -1) then
      error(string.format('nn.View: size %d must be a non-negative integer or -1, got %s', i, tostring(v)), 3)
    end
    if v == -1 then
      if inferdim then error('nn.View: only one size can be -1', 3) end
      inferdim = true
    else
      self.numElements = self.numElements * v
    end
  end
  self.size = torch.LongStorage(sizes)
  return self
end

function View:__init(...)
  parent.__init(self)
  self:resetSize(...)
  self.numInputDims = nil
end

function View:setNumInputDims(numInputDims)
  self.numInputDims = numInputDims
  return self
end

-- the batch size to put in front, or nil when the view has no batch
-- dimension (Torch7's rule, including its special case for batch 1)
function View:_batchsize(input)
  local ind = input:dim()
  local maxdim = self.numInputDims or ind
  if maxdim > ind then
    error(string.format('nn.View:updateOutput: input must have at least %d dimensions, got %s', maxdim,
                        utils.shapeString(input)), 0)
  end
  local ine = 1
  for i = ind, ind - maxdim + 1, -1 do ine = ine * input:size(i) end
  if self.numElements == 0 and ine ~= 0 or (self.numElements > 0 and ine % self.numElements ~= 0) then
    error(string.format('nn.View:updateOutput: input view (%s) and desired view (%s) do not match',
                        utils.sizeString(input), table.concat(self.size:totable(), 'x')), 0)
  end
  local bsz = self.numElements > 0 and ine // self.numElements or 1
  for i = 1, #self.size do
    if self.size[i] == -1 then bsz = 1 break end
  end
  for i = ind - maxdim, 1, -1 do bsz = bsz * input:size(i) end
  if bsz == 1 and (not self.numInputDims or ind <= self.numInputDims) then return nil end
  return bsz
end

-- dst becomes a view of src with 'sizes'; src is copied into 'buffer'
-- first when it is not contiguous
function View:_viewOf(dst, src, sizes, bufferField)
  if not src:isContiguous() then
    local b = self[bufferField]
    if not torch.isTensor(b) or torch.type(b) ~= torch.type(src) then
      b = src.new()
      self[bufferField] = b
    end
    b:resizeAs(src):copy(src)
    src = b
  end
  dst:view(src, sizes)
  return dst
end

function View:updateOutput(input)
  utils.checkTensor(input, 'nn.View:updateOutput')
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  local bsz = self:_batchsize(input)
  local sizes = self.size:totable()
  if bsz then table.insert(sizes, 1, bsz) end
  local ok, err = pcall(self._viewOf, self, self.output, input, torch.LongStorage(sizes), '_input')
  if not ok then
    error(string.format('nn.View:updateOutput: cannot view input %s as %s (%s)', utils.shapeString(input),
                        table.concat(sizes, 'x'), tostring(err)), 0)
  end
  return self.output
end

function View:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.View:updateGradInput', 'gradOutput')
  if gradOutput:nElement() ~= input:nElement() then
    error(string.format('nn.View:updateGradInput: gradOutput must have %d elements like the input, got %s',
                        input:nElement(), utils.shapeString(gradOutput)), 0)
  end
  if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
  self:_viewOf(self.gradInput, gradOutput, input:size(), '_gradOutput')
  return self.gradInput
end

function View:memoryTraits()
  return {buffers = {_input = 'forward', _gradOutput = 'backward'}, needsInput = false, needsOutput = false}
end

function View:__tostring__()
  return torch.type(self) .. '(' .. table.concat(self.size:totable(), ', ') .. ')'
end

return View
