-- nn.Abs(): y = |x|, any shape; dy/dx = 1 where x >= 0, else -1 (as Torch7,
-- which takes the derivative at 0 to be 1).
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Abs, parent = torch.class('nn.Abs', 'nn.Module')

function Abs:__init()
  parent.__init(self)
end

function Abs:updateOutput(input)
  C.Abs_updateOutput(self, input, self.output, false)
  return self.output
end

function Abs:updateGradInput(input, gradOutput)
  C.Abs_updateGradInput(self, input, gradOutput, self.gradInput, nil, false)
  return self.gradInput
end

function Abs:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
