-- nn.L1Penalty(l1weight [, sizeAverage [, provideOutput]]): an L1
-- regulariser on activations. Forward passes the input through (the output
-- views its memory) and sets self.loss = m ||x||_1, m = l1weight (divided
-- by the element count when sizeAverage). Backward: dx = m sign(x), plus
-- gradOutput unless provideOutput is false (default true).

local L1Penalty, parent = torch.class('nn.L1Penalty', 'nn.Module')

function L1Penalty:__init(l1weight, sizeAverage, provideOutput)
  parent.__init(self)
  if type(l1weight) ~= 'number' then
    error(string.format('nn.L1Penalty: l1weight must be a number, got %s', torch.type(l1weight)), 2)
  end
  self.l1weight = l1weight
  self.sizeAverage = sizeAverage or false
  if provideOutput == nil then
    self.provideOutput = true
  else
    self.provideOutput = provideOutput
  end
end

function L1Penalty:_weight(input, method)
  if not torch.isTensor(input) then
    error(string.format('nn.L1Penalty:%s: input must be a tensor, got %s', method, torch.type(input)), 3)
  end
  local m = self.l1weight
  if self.sizeAverage == true then m = m / input:nElement() end
  return m
end

function L1Penalty:updateOutput(input)
  local m = self:_weight(input, 'updateOutput')
  self.loss = m * input:norm(1)
  return nn.utils.alias(self, 'output', input)
end

function L1Penalty:updateGradInput(input, gradOutput)
  local m = self:_weight(input, 'updateGradInput')
  self.gradInput:resizeAs(input):copy(input):sign():mul(m)
  if self.provideOutput == true then
    if gradOutput:nElement() ~= input:nElement() then
      error(string.format('nn.L1Penalty:updateGradInput: gradOutput must have as many elements as the input (%d), got %d',
                          input:nElement(), gradOutput:nElement()), 2)
    end
    self.gradInput:add(gradOutput)
  end
  return self.gradInput
end

function L1Penalty:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
