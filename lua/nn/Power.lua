-- nn.Power(p): y = x^p, any shape; dy/dx = p x^(p-1) (a negative x with a
-- fractional p gives nan, as Torch7). Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Power, parent = torch.class('nn.Power', 'nn.Module')

function Power:__init(p)
  parent.__init(self)
  if type(p) ~= 'number' then
    error(string.format('nn.Power: the power must be a number (nn.Power(power)), got %s',
                        torch.type(p)), 2)
  end
  self.pow = p
end

function Power:updateOutput(input)
  C.Power_updateOutput(self, input, self.output, false, self.pow)
  return self.output
end

function Power:updateGradInput(input, gradOutput)
  C.Power_updateGradInput(self, input, gradOutput, self.gradInput, nil, false, self.pow)
  return self.gradInput
end

function Power:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
