-- nn.SoftShrink([lambda]): y = x - lambda where x > lambda, x + lambda
-- where x < -lambda, else 0;
-- lambda = 0.5 by default, any shape; dy/dx = 1 where |x| > lambda, else 0.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local SoftShrink, parent = torch.class('nn.SoftShrink', 'nn.Module')

function SoftShrink:__init(lam)
  parent.__init(self)
  if lam ~= nil and type(lam) ~= 'number' then
    error(string.format('nn.SoftShrink: lambda must be a number, got %s', torch.type(lam)), 2)
  end
  self.lambda = lam or 0.5
end

function SoftShrink:updateOutput(input)
  C.SoftShrink_updateOutput(self, input, self.output, false, self.lambda)
  return self.output
end

function SoftShrink:updateGradInput(input, gradOutput)
  C.SoftShrink_updateGradInput(self, input, gradOutput, self.gradInput, nil, false, self.lambda)
  return self.gradInput
end

function SoftShrink:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
