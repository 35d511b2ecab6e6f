-- nn.MultiCriterion(): a weighted sum of criterions applied to the same
-- input and target: loss = sum_i weights[i] * criterions[i](input, target),
-- gradInput likewise (tensors or nested tables, as the input).
-- add(criterion [, weight=1]) returns self. 'weights' is a DoubleStorage,
-- as Torch7.

local MultiCriterion, parent = torch.class('nn.MultiCriterion', 'nn.Criterion')

function MultiCriterion:__init()
  parent.__init(self)
  self.criterions = {}
  self.weights = torch.DoubleStorage()
end

function MultiCriterion:add(criterion, weight)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error(string.format('nn.MultiCriterion:add: criterion expected, got %s', torch.type(criterion)), 2)
  end
  weight = weight or 1
  table.insert(self.criterions, criterion)
  self.weights:resize(#self.criterions, true)
  self.weights[#self.criterions] = weight
  return self
end

function MultiCriterion:updateOutput(input, target)
  self.output = 0
  for i = 1, #self.criterions do
    self.output = self.output + self.weights[i] * self.criterions[i]:updateOutput(input, target)
  end
  return self.output
end

function MultiCriterion:updateGradInput(input, target)
  self.gradInput = nn.utils.recursiveResizeAs(self.gradInput, input)
  nn.utils.recursiveFill(self.gradInput, 0)
  for i = 1, #self.criterions do
    nn.utils.recursiveAdd(self.gradInput, self.weights[i], self.criterions[i]:updateGradInput(input, target))
  end
  return self.gradInput
end

function MultiCriterion:clearState()
  for _, c in ipairs(self.criterions) do c:clearState() end
  return parent.clearState(self)
end
