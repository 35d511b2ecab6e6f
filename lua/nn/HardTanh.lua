-- nn.HardTanh([min_value [, max_value [, inplace]]]): y = clamp(x, min, max),
-- defaults -1 and 1, any shape; dy/dx = 1 strictly between the bounds, 0 at
-- and beyond them (Torch7: HardTanh(1, math.huge) backward equals
-- Threshold(1)). In place, the input is clamped and the output is a view of
-- it: a clamped element equals a bound, so backward still finds it.
-- Kernel: src/nn/th_nn_pointwise.c (shared with Clamp and ReLU6).

local C = torch._C.nn
local HardTanh, parent = torch.class('nn.HardTanh', 'nn.Module')

function HardTanh:__init(min_value, max_value, inplace)
  parent.__init(self)
  local cls = torch.type(self)
  if (min_value ~= nil and type(min_value) ~= 'number') or
     (max_value ~= nil and type(max_value) ~= 'number') then
    error(string.format('%s: min_value and max_value must be numbers, got %s and %s', cls,
                        torch.type(min_value), torch.type(max_value)), 2)
  end
  if inplace ~= nil and type(inplace) ~= 'boolean' then
    error(string.format('%s: in-place flag must be boolean, got %s', cls, torch.type(inplace)), 2)
  end
  self.min_val = min_value or -1
  self.max_val = max_value or 1
  self.inplace = inplace or false
  if not (self.max_val > self.min_val) then
    error(string.format('%s: max_value must be larger than min_value, got min %g and max %g', cls,
                        self.min_val, self.max_val), 2)
  end
end

function HardTanh:updateOutput(input)
  self.min_val = self.min_val or -1
  self.max_val = self.max_val or 1
  C.HardTanh_updateOutput(self, input, self.output, self.inplace, self.min_val, self.max_val)
  return self.output
end

function HardTanh:updateGradInput(input, gradOutput)
  C.HardTanh_updateGradInput(self, input, gradOutput, self.gradInput, nil, self.inplace,
                             self.min_val, self.max_val)
  return self.gradInput
end

function HardTanh:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false, inplace = 'inplace'}
end

-- the clamped input selects the same elements as the original (the bounds
-- are ordered: the constructor checks it)
function HardTanh:inplaceAllowed()
  return true
end
