-- nn.Contiguous(): output = input, made contiguous. A contiguous input is
-- passed through as a view (the module's own output tensor points at the
-- input's memory, as nn.Identity); a non-contiguous one is copied into the
-- buffer '_output', which the output then views. The same holds for
-- gradOutput -> gradInput ('_gradInput'). Copying into a buffer rather
-- than into 'output' itself matters: after a pass-through, 'output' shares
-- the previous input's memory, and writing there would overwrite it.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Contiguous, parent = torch.class('nn.Contiguous', 'nn.Module')

-- self[field] becomes x itself (contiguous) or a view of a contiguous copy
-- of x kept in self[buffer]
local function contiguousOf(self, field, buffer, x)
  local src = x
  if not x:isContiguous() then
    local b = rawget(self, buffer)
    if not torch.isTensor(b) or torch.type(b) ~= torch.type(x) then
      b = x.new()
      self[buffer] = b
    end
    b:resizeAs(x):copy(x)
    src = b
  end
  return utils.alias(self, field, src)
end

function Contiguous:updateOutput(input)
  utils.checkTensor(input, 'nn.Contiguous:updateOutput')
  return contiguousOf(self, 'output', '_output', input)
end

function Contiguous:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Contiguous:updateGradInput', 'gradOutput')
  if torch.isTensor(input) and gradOutput:nElement() ~= input:nElement() then
    utils.error('nn.Contiguous:updateGradInput', 'gradOutput must have %d elements like the input, got %s',
                input:nElement(), utils.shapeString(gradOutput))
  end
  return contiguousOf(self, 'gradInput', '_gradInput', gradOutput)
end

-- output and gradInput may view someone else's memory: drop them, never
-- resize that memory away
function Contiguous:clearState()
  for _, f in ipairs{'output', 'gradInput'} do self[f]:set() end
  return utils.clear(self, '_output', '_gradInput')
end

function Contiguous:memoryTraits()
  return {buffers = {_output = 'forward', _gradInput = 'backward'}, needsInput = false, needsOutput = false}
end

return Contiguous
