-- nn.Tanh(): y = tanh(x), any shape; backward reads only the output
-- (dy/dx = 1 - y^2). Kernel: src/nn/th_nn_activation.c.

local C = torch._C.nn
local Tanh = torch.class('nn.Tanh', 'nn.Module')

function Tanh:updateOutput(input)
  C.Tanh_updateOutput(self, input, self.output, false)
  return self.output
end

function Tanh:updateGradInput(input, gradOutput)
  C.Tanh_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, false)
  return self.gradInput
end

function Tanh:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
