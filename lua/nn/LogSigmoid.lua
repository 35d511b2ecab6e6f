-- nn.LogSigmoid(): y = log(1 / (1 + exp(-x))), any shape, computed without
-- overflow; dy/dx = 1 - sigmoid(x), from the input (Torch7 keeps exp(-x) in a
-- 'buffer' field for it; recomputing saves a tensor the size of the input).
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local LogSigmoid, parent = torch.class('nn.LogSigmoid', 'nn.Module')

function LogSigmoid:__init()
  parent.__init(self)
end

function LogSigmoid:updateOutput(input)
  C.LogSigmoid_updateOutput(self, input, self.output, false)
  return self.output
end

function LogSigmoid:updateGradInput(input, gradOutput)
  C.LogSigmoid_updateGradInput(self, input, gradOutput, self.gradInput, nil, false)
  return self.gradInput
end

function LogSigmoid:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
