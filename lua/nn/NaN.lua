-- nn.NaN(module [, id]): a decorator that runs 'module' and fails as soon
-- as a NaN shows: in its output (saying whether the input or the
-- parameters already held one), its gradInput (or the gradOutput), or its
-- parameter gradients. id (default: a running count) names the decorator
-- in the messages and in its text: "nn.NaN(3) @ <module>".
-- Torch7 derives it from nn.Decorator; here from nn.Container directly (the
-- same fields: modules = {module}, id), the decorator part written out.
-- A sum is NaN when an element is NaN (or holds both infinities), the test
-- Torch7 uses, so the check costs one pass over each tensor.

local NaN, parent = torch.class('nn.NaN', 'nn.Container')

local idseq = 0
function NaN.newId()
  idseq = idseq + 1
  return idseq
end

function NaN:__init(module, id)
  parent.__init(self)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('nn.NaN: nn.Module expected as the decorated module, got %s', torch.type(module)), 2)
  end
  self.modules[1] = module
  self.id = id or NaN.newId()
end

function NaN:recursiveIsNaN(t)
  if torch.isTensor(t) then
    local s = t:nElement() > 0 and t:sum() or 0
    return s ~= s
  elseif type(t) == 'table' then
    for _, v in pairs(t) do
      if self:recursiveIsNaN(v) then return true end
    end
  end
  return false
end

local function fail(self, where)
  error(string.format('nn.NaN: NaN found in %s of module :\n%s', where, self:__tostring__()), 3)
end

function NaN:updateOutput(input)
  self.output = self.modules[1]:updateOutput(input)
  if self:recursiveIsNaN(self.output) then
    if self:recursiveIsNaN(input) then fail(self, 'input') end
    if self:recursiveIsNaN(self:parameters()) then fail(self, 'parameters') end
    fail(self, 'output')
  end
  return self.output
end

function NaN:updateGradInput(input, gradOutput)
  self.gradInput = self.modules[1]:updateGradInput(input, gradOutput)
  if self:recursiveIsNaN(self.gradInput) then
    if self:recursiveIsNaN(gradOutput) then fail(self, 'gradOutput') end
    fail(self, 'gradInput')
  end
  return self.gradInput
end

function NaN:accGradParameters(input, gradOutput, scale)
  self.modules[1]:accGradParameters(input, gradOutput, scale)
  local _, gradParams = self:parameters()
  if self:recursiveIsNaN(gradParams) then fail(self, 'gradParameters') end
end

function NaN:accUpdateGradParameters(input, gradOutput, lr)
  self.modules[1]:accUpdateGradParameters(input, gradOutput, lr)
end

function NaN:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self.modules[1]:sharedAccUpdateGradParameters(input, gradOutput, lr)
end

-- what the decorated module needs; the decorator itself holds nothing
function NaN:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function NaN:__tostring__()
  local m = self.modules[1]
  local inner = m.__tostring__ and m:__tostring__() or torch.type(m)
  return torch.type(self) .. '(' .. tostring(self.id) .. ') @ ' .. inner
end
