-- nn.LeakyReLU([negval [, inplace]]): y = x > 0 ? x : negval * x,
-- negval = 1/100 by default. As Torch7, a negative negval turns in-place
-- off (backward could not tell the elements apart from the output).
-- Kernel: src/nn/th_nn_activation.c.

local C = torch._C.nn
local LeakyReLU, parent = torch.class('nn.LeakyReLU', 'nn.Module')

function LeakyReLU:__init(negval, ip)
  parent.__init(self)
  if type(negval) == 'boolean' then
    negval, ip = nil, negval
  end
  if negval ~= nil and type(negval) ~= 'number' then
    error(string.format('nn.LeakyReLU: negval must be a number, got %s', type(negval)), 2)
  end
  self.negval = negval or 1 / 100
  self.inplace = ip or false
  if self.negval < 0 then self.inplace = false end
end

function LeakyReLU:updateOutput(input)
  C.LeakyReLU_updateOutput(self, input, self.output, self.inplace, self.negval)
  return self.output
end

function LeakyReLU:updateGradInput(input, gradOutput)
  C.LeakyReLU_updateGradInput(self, input, gradOutput, self.gradInput, nil, self.inplace,
                              self.negval)
  return self.gradInput
end

function LeakyReLU:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false, inplace = 'inplace'}
end

-- in place, backward tells the elements apart by the sign of the
-- overwritten input: a negative negval would flip it (the kernel's check)
function LeakyReLU:inplaceAllowed()
  if self.negval < 0 then
    return false, string.format('in-place processing requires a non-negative negval, got %g', self.negval)
  end
  return true
end

function LeakyReLU:__tostring__()
  return torch.type(self) .. string.format('(%g)', self.negval)
end
