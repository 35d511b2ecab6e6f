-- nn.ClassNLLCriterion([weights [, sizeAverage [, ignoreIndex]]]): negative
-- log-likelihood of 1-based class targets, given log-probabilities.
-- input: nClasses (target: a number or a tensor whose first element is
-- read, as Torch7) or batch x
-- nClasses (target: batch class numbers). loss = -sum w[t] x[t], divided by
-- sum w[t] when sizeAverage (default). Targets equal to ignoreIndex (default
-- -100) are skipped; any other target outside 1..nClasses is an error.
-- Targets may be Long, Double, Float or Byte tensors holding integers.
-- Kernel: src/nn/th_nn_criterion.c.

local C = torch._C.nn
local ClassNLLCriterion, parent = torch.class('nn.ClassNLLCriterion', 'nn.Criterion')

function ClassNLLCriterion:__init(weights, sizeAverage, ignoreIndex)
  parent.__init(self)
  if sizeAverage == nil then sizeAverage = true end
  self.sizeAverage = sizeAverage
  self.ignoreIndex = ignoreIndex or -100
  if weights ~= nil then
    if not torch.isTensor(weights) or weights:dim() ~= 1 then
      error(string.format('nn.ClassNLLCriterion: weights must be a 1D tensor, got %s',
                          nn.utils.shapeString(weights)), 2)
    end
    self.weights = weights
  end
  self.output_tensor = torch.Tensor(1):fill(0)
  self.total_weight_tensor = torch.Tensor(1):fill(1)
  self.target = torch.LongTensor(1):fill(0)
end

-- a number target becomes self.target (a 1-element LongTensor, as Torch7);
-- for a 1D input, Torch7's kernel read the first element of a longer 1D
-- target and ignored the rest (rnn's tests give such targets)
local function targetTensor(self, target, input)
  if type(target) == 'number' then
    self.target = self.target or torch.LongTensor(1)
    self.target:resize(1)
    self.target[1] = target
    return self.target
  end
  if torch.isTensor(input) and input:dim() == 1 and torch.isTensor(target) and target:dim() == 1
     and target:size(1) > 1 then
    return target:narrow(1, 1, 1)
  end
  return target
end

function ClassNLLCriterion:updateOutput(input, target)
  local out, tw = C.classnll_updateOutput(self, input, targetTensor(self, target, input), self.weights,
                                          self.sizeAverage, self.ignoreIndex)
  self.output_tensor[1] = out
  self.total_weight_tensor[1] = tw
  self.output = out
  return self.output, tw
end

function ClassNLLCriterion:updateGradInput(input, target)
  C.classnll_updateGradInput(self, input, targetTensor(self, target, input), self.gradInput,
                             self.weights, self.sizeAverage, self.ignoreIndex,
                             self.total_weight_tensor[1])
  return self.gradInput
end
