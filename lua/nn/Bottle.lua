-- nn.Bottle(module [, nInputDim=2, nOutputDim=nInputDim]): applies a module
-- made for nInputDim-dimensional inputs to inputs with more dimensions.
-- The leading dimensions (all but the last nInputDim - 1) are folded into
-- the module's first dimension, the module runs once, and its output
-- (nOutputDim dimensions) is unfolded back: an input n1 x n2 x ... x d to
-- Bottle(Linear(d, k)) gives n1 x n2 x ... x k. Inputs of nInputDim or fewer
-- dimensions go to the module as they are. Folding is a view; a
-- non-contiguous input (gradOutput, module output) is copied into a buffer
-- first. inShape/outShape hold the folded shapes, as in Torch7.

require 'nn.Decorator'
local torch = torch
local nn = nn
local utils = nn.utils

local Bottle, parent = torch.class('nn.Bottle', 'nn.Decorator')

function Bottle:__init(module, nInputDim, nOutputDim)
  parent.__init(self, module)
  for _, v in ipairs{{nInputDim, 'nInputDim'}, {nOutputDim, 'nOutputDim'}} do
    if v[1] ~= nil and (type(v[1]) ~= 'number' or v[1] % 1 ~= 0 or v[1] < 1) then
      error(string.format('nn.Bottle: %s must be a positive integer, got %s', v[2], tostring(v[1])), 2)
    end
  end
  self.nInputDim = nInputDim or 2
  self.nOutputDim = nOutputDim or self.nInputDim
  self.dimDelta = self.nInputDim - self.nOutputDim
  -- used to reshape the gradients
  self.inShape = torch.Tensor(self.nInputDim)
  self.outShape = torch.Tensor(self.nOutputDim)
end

-- x viewed with 'sizes' (a table); copied into self[buffer] first when not
-- contiguous, or taken from there as it is when 'reuse' (backward)
local function viewOf(self, x, sizes, buffer, reuse)
  if not x:isContiguous() then
    local b = rawget(self, buffer)
    if not (reuse and torch.isTensor(b) and b:nElement() == x:nElement()) then
      if not torch.isTensor(b) or torch.type(b) ~= torch.type(x) then
        b = x.new()
        self[buffer] = b
      end
      b:resizeAs(x):copy(x)
    end
    x = b
  end
  return x:view(torch.LongStorage(sizes))
end

-- the folded input shape, and how many leading dimensions were folded
function Bottle:_fold(input)
  local nfold = input:dim() - self.nInputDim
  local squeeze = 1
  for d = 1, nfold + 1 do squeeze = squeeze * input:size(d) end
  local inShape = {squeeze}
  for d = nfold + 2, input:dim() do inShape[#inShape + 1] = input:size(d) end
  return inShape, nfold
end

-- the module's input (and, in backward, gradOutput) as the module sees them
function Bottle:_inner(input, gradOutput, backward)
  utils.checkTensor(input, backward and 'nn.Bottle:updateGradInput' or 'nn.Bottle:updateOutput')
  if input:dim() <= self.nInputDim then return input, gradOutput, false end
  local inShape = self:_fold(input)
  local x = viewOf(self, input, inShape, '_input', backward)
  if gradOutput then
    local out = self.modules[1].output
    local who = 'nn.Bottle:updateGradInput'
    utils.checkTensor(gradOutput, who, 'gradOutput')
    if gradOutput:nElement() ~= out:nElement() then
      utils.error(who, 'gradOutput must have %d elements like the output, got %s', out:nElement(),
                  utils.shapeString(gradOutput))
    end
    gradOutput = viewOf(self, gradOutput, out:size():totable(), '_gradOutput')
  end
  return x, gradOutput, true
end

function Bottle:updateOutput(input)
  local x, _, folded = self:_inner(input)
  local out = self:rethrowErrors(self.modules[1], 1, 'updateOutput', x)
  if not torch.isTensor(out) then
    utils.error('nn.Bottle:updateOutput', "the module's output must be a tensor, got %s", torch.type(out))
  end
  if torch.type(self.output) ~= torch.type(out) or rawequal(self.output, out) then self.output = out.new() end
  if not folded then
    self.output:set(out)
    return self.output
  end
  if out:dim() ~= self.nOutputDim then
    utils.error('nn.Bottle:updateOutput', "the module's output must have nOutputDim = %d dimensions, got %s",
                self.nOutputDim, utils.shapeString(out))
  end
  local inShape, nfold = self:_fold(input)
  local lead = 1
  for d = 1, nfold do lead = lead * input:size(d) end
  if lead == 0 or out:size(1) % lead ~= 0 then
    utils.error('nn.Bottle:updateOutput', "the module's output %s does not keep the %d folded samples",
                utils.shapeString(out), lead)
  end
  self.inShape:resize(#inShape):copy(torch.Tensor(inShape))
  self.outShape:resize(out:dim()):copy(torch.Tensor(out:size():totable()))
  -- unfold: the leading input dimensions, then the module's output shape
  local outSize = {}
  for d = 1, nfold do outSize[d] = input:size(d) end
  outSize[#outSize + 1] = out:size(1) // lead
  for d = 2, out:dim() do outSize[#outSize + 1] = out:size(d) end
  self.output:set(viewOf(self, out, outSize, '_output'))
  return self.output
end

function Bottle:updateGradInput(input, gradOutput)
  local x, go, folded = self:_inner(input, gradOutput, true)
  local gi = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', x, go)
  if not torch.isTensor(gi) then
    self.gradInput = gi
    return gi
  end
  if torch.type(self.gradInput) ~= torch.type(gi) or rawequal(self.gradInput, gi) then self.gradInput = gi.new() end
  if folded then
    self.gradInput:set(viewOf(self, gi, input:size():totable(), '_gradInput'))
  else
    self.gradInput:set(gi)
  end
  return self.gradInput
end

function Bottle:accGradParameters(input, gradOutput, scale)
  local x, go = self:_inner(input, gradOutput, true)
  self:rethrowErrors(self.modules[1], 1, 'accGradParameters', x, go, scale)
end

function Bottle:accUpdateGradParameters(input, gradOutput, lr)
  local x, go = self:_inner(input, gradOutput, true)
  self:rethrowErrors(self.modules[1], 1, 'accUpdateGradParameters', x, go, lr)
end

function Bottle:sharedAccUpdateGradParameters(input, gradOutput, lr)
  local x, go = self:_inner(input, gradOutput, true)
  self:rethrowErrors(self.modules[1], 1, 'sharedAccUpdateGradParameters', x, go, lr)
end

-- output and gradInput view the module's: drop them, never resize them
function Bottle:clearState()
  self.output = self.output.new()
  self.gradInput = self.gradInput.new()
  utils.clear(self, '_input', '_gradOutput', '_output', '_gradInput')
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

-- copies of non-contiguous tensors go to the buffers ('_input' is read
-- again in backward); inShape/outShape are the module's shape records
function Bottle:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.buffers = {_input = 'both', _output = 'forward', _gradOutput = 'backward', _gradInput = 'backward'}
  tr.state = {inShape = true, outShape = true}
  return tr
end

return Bottle
