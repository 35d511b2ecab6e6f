-- nn.SoftSign(): y = x / (1 + |x|), any shape; dy/dx = 1 / (1 + |x|)^2
-- (Torch7's 'temp'/'tempgrad' buffers are not needed: one kernel pass each way).
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local SoftSign, parent = torch.class('nn.SoftSign', 'nn.Module')

function SoftSign:__init()
  parent.__init(self)
end

function SoftSign:updateOutput(input)
  C.SoftSign_updateOutput(self, input, self.output, false)
  return self.output
end

function SoftSign:updateGradInput(input, gradOutput)
  C.SoftSign_updateGradInput(self, input, gradOutput, self.gradInput, nil, false)
  return self.gradInput
end

function SoftSign:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
