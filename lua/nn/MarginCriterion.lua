-- nn.MarginCriterion([margin]): two-class hinge loss, targets +1/-1:
-- loss = sum max(0, margin - x y) (/ n when sizeAverage, the default);
-- margin = 1 by default. Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local MarginCriterion, parent = torch.class('nn.MarginCriterion', 'nn.Criterion')

function MarginCriterion:__init(margin)
  parent.__init(self)
  if margin ~= nil and type(margin) ~= 'number' then
    error(string.format('nn.MarginCriterion: margin must be a number, got %s', torch.type(margin)), 2)
  end
  self.sizeAverage = true
  self.margin = margin or 1
end

function MarginCriterion:updateOutput(input, target)
  self.output = C.MarginCriterion_updateOutput(self, input, target, self.sizeAverage, nil,
                                               self.margin)
  return self.output
end

function MarginCriterion:updateGradInput(input, target)
  C.MarginCriterion_updateGradInput(self, input, target, self.gradInput, self.sizeAverage, nil,
                                    self.margin)
  return self.gradInput
end
