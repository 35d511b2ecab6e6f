-- nn.Exp(): y = exp(x), any shape; backward reads only the output
-- (dy/dx = y).
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Exp, parent = torch.class('nn.Exp', 'nn.Module')

function Exp:__init()
  parent.__init(self)
end

function Exp:updateOutput(input)
  C.Exp_updateOutput(self, input, self.output, false)
  return self.output
end

function Exp:updateGradInput(input, gradOutput)
  C.Exp_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, false)
  return self.gradInput
end

function Exp:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
