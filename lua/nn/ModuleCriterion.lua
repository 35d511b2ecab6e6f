-- nn.ModuleCriterion(criterion [, inputModule, targetModule, castTarget=true]):
-- a criterion applied after modules: loss = criterion(inputModule(input),
-- targetModule(target)); backward goes back through inputModule (whose
-- parameters are not trained: Torch7 warns, so do we). type() converts
-- the target module only when castTarget.

local ModuleCriterion, parent = torch.class('nn.ModuleCriterion', 'nn.Criterion')

function ModuleCriterion:__init(criterion, inputModule, targetModule, castTarget)
  parent.__init(self)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error(string.format('nn.ModuleCriterion: criterion expected, got %s', torch.type(criterion)), 2)
  end
  self.inputModule = inputModule
  self.targetModule = targetModule
  self.castTarget = (castTarget == nil) and true or castTarget
  if self.inputModule then
    local params = self.inputModule:parameters()
    if params and #params > 0 then
      io.stderr:write("Warning: nn.ModuleCriterion doesn't support parameter updates\n")
    end
  end
  self.criterion = criterion
end

function ModuleCriterion:updateOutput(input, target)
  if self.inputModule then self.input = self.inputModule:forward(input) end
  if self.targetModule then self.target = self.targetModule:forward(target) end
  self.output = self.criterion:forward(self.input or input, self.target or target)
  return self.output
end

function ModuleCriterion:updateGradInput(input, target)
  self.gradInput = self.criterion:backward(self.input or input, self.target or target)
  if self.inputModule then
    self.gradInput = self.inputModule:backward(input, self.gradInput)
  end
  return self.gradInput
end

-- the target module keeps its type unless castTarget
function ModuleCriterion:type(tname, tensorCache)
  tensorCache = tensorCache or {}
  local keep = not self.castTarget and self.targetModule
  if keep then self.targetModule = nil end
  parent.type(self, tname, tensorCache)
  if keep then self.targetModule = keep end
  return self
end

function ModuleCriterion:clearState()
  if self.inputModule then self.inputModule:clearState() end
  if self.targetModule then self.targetModule:clearState() end
  self.criterion:clearState()
  self.input, self.target = nil, nil
  self.gradInput = self.criterion.gradInput
  return self
end
