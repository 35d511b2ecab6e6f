-- nn.BCECriterion([weights [, sizeAverage]]): binary cross-entropy of
-- probabilities x against targets y in [0, 1]:
-- loss = -sum w (y log(x + eps) + (1 - y) log(1 - x + eps)), eps = 1e-12,
-- / n when sizeAverage (default). weights: a 1D tensor with one entry per
-- element of the input's last dimension (per column of a batch), as Torch7.
-- The gradient is Torch7's (x - y) / (x (1 + eps - x) + eps) w.
-- Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local BCECriterion, parent = torch.class('nn.BCECriterion', 'nn.Criterion')

function BCECriterion:__init(weights, sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
  if weights ~= nil then
    if not torch.isTensor(weights) or weights:dim() ~= 1 then
      error(string.format('nn.BCECriterion: weights must be a 1D tensor, got %s',
                          nn.utils.shapeString(weights)), 2)
    end
    self.weights = weights
  end
end

function BCECriterion:updateOutput(input, target)
  self.output = C.BCECriterion_updateOutput(self, input, target, self.sizeAverage, self.weights)
  -- log(1 - x) of a probability above 1 is NaN: say so rather than return it (as THNN)
  if input:nElement() > 0 then
    local lo, hi = input:min(), input:max()
    if not (lo >= 0 and hi <= 1) then
      error(string.format('nn.BCECriterion:updateOutput: input must hold probabilities in [0, 1], got values in [%g, %g]',
                          lo, hi), 0)
    end
  end
  return self.output
end

function BCECriterion:updateGradInput(input, target)
  C.BCECriterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage,
                                 self.weights)
  return self.gradInput
end
