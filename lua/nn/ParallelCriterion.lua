-- nn.ParallelCriterion([repeatTarget=false]): a weighted sum of
-- criterions, the i-th applied to input[i] and target[i] (or to the whole
-- target, when repeatTarget): loss = sum_i weights[i] *
-- criterions[i](input[i], target[i]); gradInput[i] likewise. Inputs may be
-- nested tables (a ParallelCriterion inside another). add(criterion [,
-- weight=1]) returns self.

local ParallelCriterion, parent = torch.class('nn.ParallelCriterion', 'nn.Criterion')

function ParallelCriterion:__init(repeatTarget)
  parent.__init(self)
  self.criterions = {}
  self.weights = {}
  self.gradInput = {}
  self.repeatTarget = repeatTarget
end

function ParallelCriterion:add(criterion, weight)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error(string.format('nn.ParallelCriterion:add: criterion expected, got %s', torch.type(criterion)), 2)
  end
  weight = weight or 1
  table.insert(self.criterions, criterion)
  table.insert(self.weights, weight)
  return self
end

local function check(self, input, target, method)
  local who = 'nn.ParallelCriterion:' .. method
  if type(input) ~= 'table' or torch.typename(input) or #input < #self.criterions then
    nn.utils.error(who, 'input must be a table of %d elements (one per criterion), got %s',
                   #self.criterions, nn.utils.shapeString(input))
  end
  if not self.repeatTarget and (type(target) ~= 'table' or torch.typename(target) or #target < #self.criterions) then
    nn.utils.error(who, 'target must be a table of %d elements (one per criterion), got %s',
                   #self.criterions, nn.utils.shapeString(target))
  end
end

function ParallelCriterion:updateOutput(input, target)
  check(self, input, target, 'updateOutput')
  self.output = 0
  for i, criterion in ipairs(self.criterions) do
    local t = self.repeatTarget and target or target[i]
    self.output = self.output + self.weights[i] * criterion:updateOutput(input[i], t)
  end
  return self.output
end

function ParallelCriterion:updateGradInput(input, target)
  check(self, input, target, 'updateGradInput')
  self.gradInput = nn.utils.recursiveResizeAs(self.gradInput, input)
  nn.utils.recursiveFill(self.gradInput, 0)
  for i, criterion in ipairs(self.criterions) do
    local t = self.repeatTarget and target or target[i]
    nn.utils.recursiveAdd(self.gradInput[i], self.weights[i], criterion:updateGradInput(input[i], t))
  end
  return self.gradInput
end

function ParallelCriterion:clearState()
  for _, c in ipairs(self.criterions) do c:clearState() end
  self.gradInput = {}
  return self
end
