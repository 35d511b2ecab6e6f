-- nn.CriterionTable(criterion): a module that applies a criterion to a
-- table {input, target}: output = criterion:updateOutput(input, target)
-- (a number), gradInput = {criterion.gradInput} (the gradient for input;
-- none for the target), whatever gradOutput is. Lets a loss sit at the
-- end of a container that hands it {output, target}.

local CriterionTable, parent = torch.class('nn.CriterionTable', 'nn.Module')

function CriterionTable:__init(criterion)
  parent.__init(self)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error(string.format('nn.CriterionTable: criterion expected, got %s', torch.type(criterion)), 2)
  end
  self.criterion = criterion
  self.gradInput = {criterion.gradInput}
end

local function check(input, method)
  if type(input) ~= 'table' or torch.typename(input) or input[1] == nil then
    nn.utils.error('nn.CriterionTable:' .. method, 'input must be a table {input, target}, got %s',
                   torch.type(input))
  end
end

function CriterionTable:updateOutput(input)
  check(input, 'updateOutput')
  self.output = self.criterion:updateOutput(table.unpack(input))
  return self.output
end

-- the criterion may replace its gradInput (table criterions): follow it
function CriterionTable:updateGradInput(input, gradOutput)
  check(input, 'updateGradInput')
  self.gradInput[1] = self.criterion:updateGradInput(table.unpack(input))
  return self.gradInput
end

function CriterionTable:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

function CriterionTable:clearState()
  self.criterion:clearState()
  self.gradInput = {self.criterion.gradInput}
  return self
end
