-- nn.MSECriterion([sizeAverage]): loss = sum (x - y)^2, divided by the
-- element count when sizeAverage (default true). input and target: any
-- shapes with equal element counts, same tensor type.
-- Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

function MSECriterion:__init(sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
end

function MSECriterion:updateOutput(input, target)
  self.output = C.MSECriterion_updateOutput(self, input, target, self.sizeAverage)
  return self.output
end

function MSECriterion:updateGradInput(input, target)
  C.MSECriterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage)
  return self.gradInput
end
