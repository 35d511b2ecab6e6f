-- nn.DistKLDivCriterion(): Kullback-Leibler divergence of the target
-- distribution y from the input log-probabilities x:
-- loss = sum over y > 0 of y (log y - x), / n when sizeAverage (default).
-- Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local DistKLDivCriterion, parent = torch.class('nn.DistKLDivCriterion', 'nn.Criterion')

function DistKLDivCriterion:__init()
  parent.__init(self)
  self.sizeAverage = true
end

function DistKLDivCriterion:updateOutput(input, target)
  self.output = C.DistKLDivCriterion_updateOutput(self, input, target, self.sizeAverage)
  return self.output
end

function DistKLDivCriterion:updateGradInput(input, target)
  C.DistKLDivCriterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage)
  return self.gradInput
end
