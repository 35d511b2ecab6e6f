-- nn.Sigmoid(): y = 1 / (1 + exp(-x)), any shape; backward reads only the
-- output (dy/dx = y (1 - y)). Kernel: src/nn/th_nn_activation.c.

local C = torch._C.nn
local Sigmoid = torch.class('nn.Sigmoid', 'nn.Module')

function Sigmoid:updateOutput(input)
  C.Sigmoid_updateOutput(self, input, self.output, false)
  return self.output
end

function Sigmoid:updateGradInput(input, gradOutput)
  C.Sigmoid_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, false)
  return self.gradInput
end

function Sigmoid:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
