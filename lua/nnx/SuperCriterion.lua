-- nn.SuperCriterion() (nnx): a weighted sum of criterions, each applied to
-- one element of a table input: :add(criterion [, weight=1]); output =
-- sum_i weight_i * criterion_i(input[i], target[i]) (or the same target
-- for every one when target is not a table). gradInput[i] = weight_i *
-- criterion_i's gradInput.
local SuperCriterion, parent = torch.class('nn.SuperCriterion', 'nn.Criterion')

function SuperCriterion:__init()
  parent.__init(self)
  self.criterions = {}
  self.weights = {}
  self.gradInput = {}
end

function SuperCriterion:add(criterion, weight)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error('nn.SuperCriterion:add: a criterion expected, got ' .. torch.type(criterion), 2)
  end
  self.criterions[#self.criterions + 1] = criterion
  self.weights[#self.weights + 1] = weight or 1
  return self
end

local function targetOf(target, i)
  if type(target) == 'table' then return target[i] end
  return target
end

function SuperCriterion:updateOutput(input, target)
  self.output = 0
  for i, criterion in ipairs(self.criterions) do
    self.output = self.output + self.weights[i] * criterion:updateOutput(input[i], targetOf(target, i))
  end
  return self.output
end

function SuperCriterion:updateGradInput(input, target)
  for i, criterion in ipairs(self.criterions) do
    local g = criterion:updateGradInput(input[i], targetOf(target, i))
    self.gradInput[i] = self.gradInput[i] or g.new()
    self.gradInput[i]:resizeAs(g):copy(g):mul(self.weights[i])
  end
  for i = #self.criterions + 1, #self.gradInput do self.gradInput[i] = nil end
  return self.gradInput
end
