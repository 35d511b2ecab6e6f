-- nn.MultiLabelMarginCriterion(): multi-class multi-label hinge loss.
-- input: nClasses or batch x nClasses; target: the same shape, each row
-- listing the sample's classes (1-based) ended by the first 0. Per sample:
-- sum over its classes j and the other classes i of max(0, 1 - x[j] + x[i])
-- / nClasses, summed over the batch and divided by its size when
-- sizeAverage (default). 'isTarget' (Torch7's field) marks each row's
-- classes. Kernel: src/nn/th_nn_margin.c.

local C = torch._C.nn
local MultiLabelMarginCriterion, parent = torch.class('nn.MultiLabelMarginCriterion', 'nn.Criterion')

function MultiLabelMarginCriterion:__init()
  parent.__init(self)
  self.sizeAverage = true
  self.isTarget = torch.Tensor()
end

function MultiLabelMarginCriterion:updateOutput(input, target)
  self.output = C.multilabelmargin_updateOutput(self, input, target, self.isTarget, self.sizeAverage)
  return self.output
end

function MultiLabelMarginCriterion:updateGradInput(input, target)
  C.multilabelmargin_updateGradInput(self, input, target, self.gradInput, self.isTarget, self.sizeAverage)
  return self.gradInput
end

function MultiLabelMarginCriterion:clearState()
  nn.utils.clear(self, 'isTarget')
  return parent.clearState(self)
end
