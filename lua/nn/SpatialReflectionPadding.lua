-- nn.SpatialReflectionPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two
-- dimensions of a 3D or 4D (batch) input with their mirror image (the
-- border not repeated: column -1 is column 1); each pad must be smaller
-- than the size it mirrors. pad_r, pad_t, pad_b default to pad_l; a negative
-- pad crops. Backward adds each output gradient to the input element it
-- came from. Kernel: src/nn/th_nn_pad.c.

local C = torch._C.nn
local SpatialReflectionPadding, parent = torch.class('nn.SpatialReflectionPadding', 'nn.Module')

local function int(v, what)
  local i = math.tointeger(v)
  if i == nil then
    error(string.format('nn.SpatialReflectionPadding: %s must be an integer, got %s', what, tostring(v)), 3)
  end
  return i
end

function SpatialReflectionPadding:__init(pad_l, pad_r, pad_t, pad_b)
  parent.__init(self)
  self.pad_l = int(pad_l, 'pad_l')
  self.pad_r = int(pad_r or self.pad_l, 'pad_r')
  self.pad_t = int(pad_t or self.pad_l, 'pad_t')
  self.pad_b = int(pad_b or self.pad_l, 'pad_b')
end

function SpatialReflectionPadding:updateOutput(input)
  C.pad_updateOutput(self, input, self.output, 'reflect')
  return self.output
end

function SpatialReflectionPadding:updateGradInput(input, gradOutput)
  C.pad_updateGradInput(self, input, gradOutput, self.gradInput, 'reflect')
  return self.gradInput
end

-- backward reads only the input's sizes
function SpatialReflectionPadding:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function SpatialReflectionPadding:__tostring__()
  return torch.type(self) .. string.format('(l=%d, r=%d, t=%d, b=%d)', self.pad_l, self.pad_r,
                                           self.pad_t, self.pad_b)
end
