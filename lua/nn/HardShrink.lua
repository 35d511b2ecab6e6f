-- nn.HardShrink([lambda]): y = x where |x| > lambda, else 0;
-- lambda = 0.5 by default, any shape; dy/dx = 1 where |x| > lambda, else 0.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local HardShrink, parent = torch.class('nn.HardShrink', 'nn.Module')

function HardShrink:__init(lam)
  parent.__init(self)
  if lam ~= nil and type(lam) ~= 'number' then
    error(string.format('nn.HardShrink: lambda must be a number, got %s', torch.type(lam)), 2)
  end
  self.lambda = lam or 0.5
end

function HardShrink:updateOutput(input)
  C.HardShrink_updateOutput(self, input, self.output, false, self.lambda)
  return self.output
end

function HardShrink:updateGradInput(input, gradOutput)
  C.HardShrink_updateGradInput(self, input, gradOutput, self.gradInput, nil, false, self.lambda)
  return self.gradInput
end

function HardShrink:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
