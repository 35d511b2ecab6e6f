-- nn.ModuleFromCriterion(criterion): a criterion as a module of a graph:
-- {prediction, target} -> a one-element tensor holding the loss; backward
-- gives the criterion's gradient (times the gradOutput's one number) for
-- the prediction and zeros for the target.
local M, parent = torch.class('nn.ModuleFromCriterion', 'nn.Module')

function M:__init(criterion)
  parent.__init(self)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error('nn.ModuleFromCriterion: a criterion expected, got ' .. torch.type(criterion), 2)
  end
  self.criterion = criterion
  self.output = torch.Tensor(1)
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

function M:updateOutput(input)
  local prediction, target = input[1], input[2]
  self.output:resize(1)
  self.output[1] = self.criterion:updateOutput(prediction, target)
  return self.output
end

function M:updateGradInput(input, gradOutput)
  local prediction, target = input[1], input[2]
  local g = self.criterion:updateGradInput(prediction, target)
  local scale = gradOutput[1]
  if type(g) == 'table' then
    if type(self.gradInput[1]) ~= 'table' then
      self.gradInput[1] = {}
      for i = 1, #g do self.gradInput[1][i] = g[i].new() end
    end
    for i = 1, #g do self.gradInput[1][i]:resizeAs(g[i]):copy(g[i]):mul(scale) end
  else
    self.gradInput[1]:resizeAs(g):copy(g):mul(scale)
  end
  self.gradInput[2]:resizeAs(target):zero()
  return self.gradInput
end

function M:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

return M
