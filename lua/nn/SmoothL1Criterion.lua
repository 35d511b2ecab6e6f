-- nn.SmoothL1Criterion([sizeAverage]): the Huber loss, per element
-- 0.5 (x - y)^2 where |x - y| < 1, else |x - y| - 0.5; summed, / n when
-- sizeAverage (default). Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local SmoothL1Criterion, parent = torch.class('nn.SmoothL1Criterion', 'nn.Criterion')

function SmoothL1Criterion:__init(sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
end

function SmoothL1Criterion:updateOutput(input, target)
  self.output = C.SmoothL1Criterion_updateOutput(self, input, target, self.sizeAverage)
  return self.output
end

function SmoothL1Criterion:updateGradInput(input, target)
  C.SmoothL1Criterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage)
  return self.gradInput
end
