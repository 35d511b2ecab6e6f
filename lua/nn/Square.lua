-- nn.Square(): y = x^2, any shape; dy/dx = 2x.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Square, parent = torch.class('nn.Square', 'nn.Module')

function Square:__init()
  parent.__init(self)
end

function Square:updateOutput(input)
  C.Square_updateOutput(self, input, self.output, false)
  return self.output
end

function Square:updateGradInput(input, gradOutput)
  C.Square_updateGradInput(self, input, gradOutput, self.gradInput, nil, false)
  return self.gradInput
end

function Square:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
