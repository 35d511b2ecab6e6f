-- nn.Log(): y = log(x), any shape (x <= 0 gives -inf or nan, as Torch7);
-- dy/dx = 1 / x.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Log, parent = torch.class('nn.Log', 'nn.Module')

function Log:__init()
  parent.__init(self)
end

function Log:updateOutput(input)
  C.Log_updateOutput(self, input, self.output, false)
  return self.output
end

function Log:updateGradInput(input, gradOutput)
  C.Log_updateGradInput(self, input, gradOutput, self.gradInput, nil, false)
  return self.gradInput
end

function Log:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
