-- nn.AbsCriterion([sizeAverage]): loss = sum |x - y| (/ n when sizeAverage,
-- the default). Gradient sign(x - y), +1 where x == y (as Torch7).
-- Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local AbsCriterion, parent = torch.class('nn.AbsCriterion', 'nn.Criterion')

function AbsCriterion:__init(sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
end

function AbsCriterion:updateOutput(input, target)
  self.output = C.AbsCriterion_updateOutput(self, input, target, self.sizeAverage)
  return self.output
end

function AbsCriterion:updateGradInput(input, target)
  C.AbsCriterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage)
  return self.gradInput
end
