-- nn.CAdd(size...): y = x + b with a learnable bias of the given size
-- (numbers or a LongStorage). The input is either the bias's size (any
-- shape with as many elements), of the bias's dimension count with size-1
-- bias dimensions broadcast, or a batch of the bias (first dimension the
-- batch). Initialised uniform(-1/sqrt(n), 1/sqrt(n)), n = bias elements.
-- Lua over tensor ops; with a broadcast bias, gradBias sums gradOutput over
-- the broadcast dimensions.

local CAdd, parent = torch.class('nn.CAdd', 'nn.Module')
local ep = require 'nn.elementparam'

function CAdd:__init(...)
  parent.__init(self)
  self.size = ep.size('nn.CAdd', 'bias', ...)
  self.bias = torch.Tensor(self.size)
  self.gradBias = torch.Tensor(self.size)
  self.output:resize(self.size)
  self:reset()
end

function CAdd:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.bias:nElement())
  end
  self.bias:uniform(-stdv, stdv)
  return self
end

-- how the bias meets an input (nn/elementparam.lua)
local function mode(self, input, method)
  -- not a tail call: an error's level counts this frame
  local m = ep.mode(self, self.bias, 'bias', input, method)
  return m
end

function CAdd:updateOutput(input)
  local m = mode(self, input, 'updateOutput')
  local out = self.output:resizeAs(input):copy(input)
  if m == 'same' then
    out:view(-1):add(self.bias:contiguous():view(-1))
  elseif m == 'broadcast' then
    out:add(self.bias:expandAs(out))
  else
    local b, n = input:size(1), self.bias:nElement()
    out:view(b, n):add(self.bias:contiguous():view(1, n):expand(b, n))
  end
  return self.output
end

function CAdd:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  mode(self, input, 'updateGradInput')
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    error(string.format('nn.CAdd:updateGradInput: gradOutput must have the size of the input (%s), got %s',
                        nn.utils.sizeString(input), nn.utils.shapeString(gradOutput)), 0)
  end
  self.gradInput:resizeAs(input):copy(gradOutput)
  return self.gradInput
end

function CAdd:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local m = mode(self, input, 'accGradParameters')
  local go = gradOutput:contiguous()
  if m == 'same' then
    self.gradBias:view(-1):add(scale, go:view(-1))
    return
  end
  local s
  if m == 'batch' then
    local b, n = input:size(1), self.bias:nElement()
    s = go:view(b, n):sum(1)
  else
    -- sum over every broadcast dimension (fresh temporaries: their sizes
    -- change from one dimension to the next)
    s = go:viewAs(input)
    for i = 1, self.bias:dim() do
      if self.bias:size(i) ~= input:size(i) then s = s:sum(i) end
    end
  end
  self.gradBias:view(-1):add(scale, s:contiguous():view(-1))
end

-- backward reads neither the input's values nor the output
function CAdd:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end
