-- nn.SoftMin(): y = softmax(-x) over the feature dimension, with SoftMax's
-- shapes (1D features, 2D batch x features, 3D features x h x w, 4D batch x
-- features x h x w). Backward reads only the output:
-- dx = -(softmax backward of gradOutput). 'mininput' holds -x for forward.
-- Kernel: src/nn/th_nn_softmax.c (SoftMax's).

local C = torch._C.nn
local SoftMin, parent = torch.class('nn.SoftMin', 'nn.Module')

function SoftMin:updateOutput(input)
  self.mininput = self.mininput or input.new()
  if not torch.isTensor(input) then
    error(string.format('nn.SoftMin:updateOutput: input must be a tensor, got %s', torch.type(input)), 2)
  end
  self.mininput:resizeAs(input):copy(input):mul(-1)
  C.softmax_updateOutput(self, self.mininput, self.output, false)
  return self.output
end

function SoftMin:updateGradInput(input, gradOutput)
  C.softmax_updateGradInput(self, gradOutput, self.gradInput, self.output, false)
  self.gradInput:mul(-1)
  return self.gradInput
end

function SoftMin:memoryTraits()
  return {buffers = {mininput = 'forward'}, needsInput = false, needsOutput = true}
end
