-- nn.LogSoftMax(): y_i = x_i - log sum_j exp(x_j) over the feature
-- dimension, with SoftMax's shapes (1D, 2D batch, 3D/4D per pixel).
-- Backward reads only the output. Kernel: src/nn/th_nn_softmax.c.

local C = torch._C.nn
local LogSoftMax = torch.class('nn.LogSoftMax', 'nn.Module')

function LogSoftMax:updateOutput(input)
  C.softmax_updateOutput(self, input, self.output, true)
  return self.output
end

function LogSoftMax:updateGradInput(input, gradOutput)
  C.softmax_updateGradInput(self, gradOutput, self.gradInput, self.output, true)
  return self.gradInput
end

function LogSoftMax:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
