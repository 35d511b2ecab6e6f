-- nn.GradientReversal([lambda]): the gradient reversal layer (Ganin and
-- Lempitsky 2015): y = x (the output views the input's memory), dx =
-- -lambda gradOutput. lambda = 1 by default; setLambda changes it. Files
-- of Torch7's version 1 (before lambda) load with lambda = 1.

local GradientReversal, parent = torch.class('nn.GradientReversal', 'nn.Module')

GradientReversal.__version = 2

function GradientReversal:__init(lambda)
  parent.__init(self)
  if lambda ~= nil and type(lambda) ~= 'number' then
    error(string.format('nn.GradientReversal: lambda must be a number, got %s', torch.type(lambda)), 2)
  end
  self.lambda = lambda or 1
end

function GradientReversal:setLambda(lambda)
  if type(lambda) ~= 'number' then
    error(string.format('nn.GradientReversal:setLambda: lambda must be a number, got %s',
                        torch.type(lambda)), 2)
  end
  self.lambda = lambda
end

function GradientReversal:updateOutput(input)
  if not torch.isTensor(input) then
    error(string.format('nn.GradientReversal:updateOutput: input must be a tensor, got %s',
                        torch.type(input)), 2)
  end
  return nn.utils.alias(self, 'output', input)
end

function GradientReversal:updateGradInput(input, gradOutput)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(-self.lambda)
  return self.gradInput
end

function GradientReversal:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

-- torch.load's hook: the fields, then version 1's missing lambda
function GradientReversal:read(file, version)
  local fields = file:readObject()
  for k, v in pairs(fields) do self[k] = v end
  if version < 2 then self.lambda = 1 end
end
