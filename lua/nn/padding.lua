-- What nn.SpatialZeroPadding, nn.SpatialReflectionPadding and
-- nn.SpatialReplicationPadding share: the constructor (pad_l [, pad_r,
-- pad_t, pad_b], the others defaulting to pad_l, a negative pad crops),
-- the memory traits (backward reads only the input's sizes) and the
-- printed form. Internal: each module's own file requires it.
local padding = {}

local function int(self, v, what)
  -- a number only: math.tointeger would take the digit string '3' too
  local i = type(v) == 'number' and math.tointeger(v) or nil
  if i == nil then
    error(string.format('%s: %s must be an integer, got %s', torch.type(self), what, tostring(v)), 3)
  end
  return i
end

-- the __init of the three classes (the error names the constructor's caller)
function padding.init(self, pad_l, pad_r, pad_t, pad_b)
  nn.Module.__init(self)
  self.pad_l = int(self, pad_l, 'pad_l')
  self.pad_r = int(self, pad_r or self.pad_l, 'pad_r')
  self.pad_t = int(self, pad_t or self.pad_l, 'pad_t')
  self.pad_b = int(self, pad_b or self.pad_l, 'pad_b')
end

function padding.memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function padding.tostring(self)
  return torch.type(self) ..
    string.format('(l=%d, r=%d, t=%d, b=%d)', self.pad_l, self.pad_r, self.pad_t, self.pad_b)
end

-- the methods of a padding class whose kernel is th_nn_pad.c's ('reflect'
-- or 'replicate')
function padding.kernelClass(cls, mode)
  local C = torch._C.nn
  cls.__init = padding.init
  function cls:updateOutput(input)
    C.pad_updateOutput(self, input, self.output, mode)
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    C.pad_updateGradInput(self, input, gradOutput, self.gradInput, mode)
    return self.gradInput
  end
  cls.memoryTraits = padding.memoryTraits
  cls.__tostring__ = padding.tostring
  return cls
end

return padding
