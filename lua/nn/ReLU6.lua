-- nn.ReLU6([inplace]): y = min(max(x, 0), 6), any shape; dy/dx = 1 for
-- 0 < x < 6, else 0. Torch7's HardTanh(0, 6) kernel under another class.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local ReLU6, parent = torch.class('nn.ReLU6', 'nn.Module')

function ReLU6:__init(inplace)
  parent.__init(self)
  if inplace ~= nil and type(inplace) ~= 'boolean' then
    error(string.format('nn.ReLU6: in-place flag must be boolean, got %s', torch.type(inplace)), 2)
  end
  self.inplace = inplace or false
end

function ReLU6:updateOutput(input)
  C.HardTanh_updateOutput(self, input, self.output, self.inplace, 0, 6)
  return self.output
end

function ReLU6:updateGradInput(input, gradOutput)
  C.HardTanh_updateGradInput(self, input, gradOutput, self.gradInput, nil, self.inplace, 0, 6)
  return self.gradInput
end

function ReLU6:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false, inplace = 'inplace'}
end

-- clamped to [0, 6], an element still tells backward where it was
function ReLU6:inplaceAllowed()
  return true
end
