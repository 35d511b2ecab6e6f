-- nn.SpatialLogSoftMax(): log-softmax over the feature dimension at every pixel:
-- input features x h x w, or batch x features x h x w; 1D and 2D inputs
-- are features and batch x features, as Torch7 (whose module calls the
-- plain kernel). Backward reads only the output.
-- Kernel: src/nn/th_nn_softmax.c (shared with nn.LogSoftMax).

local C = torch._C.nn
local SpatialLogSoftMax = torch.class('nn.SpatialLogSoftMax', 'nn.Module')

function SpatialLogSoftMax:updateOutput(input)
  C.softmax_updateOutput(self, input, self.output, true)
  return self.output
end

function SpatialLogSoftMax:updateGradInput(input, gradOutput)
  C.softmax_updateGradInput(self, gradOutput, self.gradInput, self.output, true)
  return self.gradInput
end

function SpatialLogSoftMax:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
