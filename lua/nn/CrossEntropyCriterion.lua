-- nn.CrossEntropyCriterion([weights [, sizeAverage]]): LogSoftMax followed
-- by ClassNLLCriterion, on unnormalised scores. input: nClasses or batch x
-- nClasses (squeezed as Torch7 does); targets as ClassNLLCriterion's.

local CrossEntropyCriterion, parent = torch.class('nn.CrossEntropyCriterion', 'nn.Criterion')

function CrossEntropyCriterion:__init(weights, sizeAverage)
  parent.__init(self)
  self.lsm = nn.LogSoftMax()
  self.nll = nn.ClassNLLCriterion(weights, sizeAverage)
  self.sizeAverage = self.nll.sizeAverage
  self.oldSizeAverage = self.sizeAverage
end

-- setting self.sizeAverage reaches the inner criterion; setting
-- self.nll.sizeAverage directly still works (Torch7's old behaviour)
local function syncSizeAverage(self)
  if self.sizeAverage ~= self.oldSizeAverage then self.nll.sizeAverage = self.sizeAverage end
end

local function squeezeTarget(target)
  if type(target) == 'number' then return target end
  if torch.isTensor(target) and target:nElement() > 1 then return target:_squeeze() end
  return target
end

function CrossEntropyCriterion:updateOutput(input, target)
  if not torch.isTensor(input) then
    error(string.format('nn.CrossEntropyCriterion:updateOutput: input must be a tensor, got %s',
                        torch.type(input)), 2)
  end
  input = input:_squeeze()
  target = squeezeTarget(target)
  syncSizeAverage(self)
  self.lsm:updateOutput(input)
  self.nll:updateOutput(self.lsm.output, target)
  self.output = self.nll.output
  self.oldSizeAverage = self.sizeAverage
  return self.output
end

function CrossEntropyCriterion:updateGradInput(input, target)
  local size = input:size()
  input = input:_squeeze()
  target = squeezeTarget(target)
  syncSizeAverage(self)
  self.nll:updateGradInput(self.lsm.output, target)
  self.lsm:updateGradInput(input, self.nll.gradInput)
  self.gradInput:view(self.lsm.gradInput, size)
  self.oldSizeAverage = self.sizeAverage
  return self.gradInput
end
