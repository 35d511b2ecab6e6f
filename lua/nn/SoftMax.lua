-- nn.SoftMax(): y_i = exp(x_i) / sum_j exp(x_j) over the feature
-- dimension: 1D (features), 2D (batch x features), 3D (features x h x w,
-- per pixel) or 4D (batch x features x h x w), as Torch7. Backward reads
-- only the output. Kernel: src/nn/th_nn_softmax.c.

local C = torch._C.nn
local SoftMax = torch.class('nn.SoftMax', 'nn.Module')

function SoftMax:updateOutput(input)
  C.softmax_updateOutput(self, input, self.output, false)
  return self.output
end

function SoftMax:updateGradInput(input, gradOutput)
  C.softmax_updateGradInput(self, gradOutput, self.gradInput, self.output, false)
  return self.gradInput
end

function SoftMax:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
