-- nn.MultiMarginCriterion([p=1, weights, margin=1]): multi-class hinge
-- loss. input: nClasses (target a class number) or batch x nClasses
-- (target: a 1D tensor of class numbers). Per sample with class y:
-- sum_{i ~= y} w[y] max(0, margin - x[y] + x[i])^p / nClasses, summed over
-- the batch and divided by its size when sizeAverage (default). p is 1 or
-- 2; weights (optional) one per class. Kernel: src/nn/th_nn_margin.c.

local C = torch._C.nn
local MultiMarginCriterion, parent = torch.class('nn.MultiMarginCriterion', 'nn.Criterion')

function MultiMarginCriterion:__init(p, weights, margin)
  if p ~= nil and p ~= 1 and p ~= 2 then
    error(string.format('nn.MultiMarginCriterion: p must be 1 or 2, got %s', tostring(p)), 2)
  end
  parent.__init(self)
  self.p = p or 1
  self.margin = margin or 1.0
  self.sizeAverage = true
  if weights ~= nil then
    if not torch.isTensor(weights) or weights:dim() ~= 1 then
      error(string.format('nn.MultiMarginCriterion: weights must be a 1D tensor, got %s',
                          nn.utils.shapeString(weights)), 2)
    end
    self.weights = weights
  end
end

-- a number target becomes self.target_tensor (as Torch7)
local function targetTensor(self, target)
  if type(target) == 'number' then
    self.target_tensor = self.target_tensor or torch.LongTensor(1)
    self.target_tensor:resize(1)
    self.target_tensor[1] = target
    return self.target_tensor
  end
  return target
end

function MultiMarginCriterion:updateOutput(input, target)
  self.output = C.multimargin_updateOutput(self, input, targetTensor(self, target), self.weights,
                                           self.sizeAverage, self.p or 1, self.margin)
  return self.output
end

function MultiMarginCriterion:updateGradInput(input, target)
  C.multimargin_updateGradInput(self, input, targetTensor(self, target), self.gradInput, self.weights,
                                self.sizeAverage, self.p or 1, self.margin)
  return self.gradInput
end
