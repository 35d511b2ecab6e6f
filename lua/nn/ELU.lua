-- nn.ELU([alpha [, inplace]]): y = x > 0 ? x : alpha * (exp(x) - 1),
-- alpha = 1 by default (non-negative). Backward reads only the output:
-- dy/dx = y + alpha where x <= 0.
-- Kernel: src/nn/th_nn_activation.c.

local C = torch._C.nn
local ELU, parent = torch.class('nn.ELU', 'nn.Module')

function ELU:__init(alpha, inplace)
  parent.__init(self)
  if alpha ~= nil and type(alpha) ~= 'number' then
    error(string.format('nn.ELU: alpha must be a number, got %s', type(alpha)), 2)
  end
  if inplace ~= nil and type(inplace) ~= 'boolean' then
    error(string.format('nn.ELU: in-place flag must be boolean, got %s', type(inplace)), 2)
  end
  self.alpha = alpha or 1
  self.inplace = inplace or false
  C.act_check(self, 'ELU', self.inplace, self.alpha)
end

function ELU:updateOutput(input)
  C.ELU_updateOutput(self, input, self.output, self.inplace, self.alpha)
  return self.output
end

function ELU:updateGradInput(input, gradOutput)
  C.ELU_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, self.inplace,
                        self.alpha)
  return self.gradInput
end

function ELU:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true, inplace = 'inplace'}
end

-- backward reads only the output, which in place is where it was anyway
-- (alpha >= 0, checked at construction, keeps the output's sign the input's)
function ELU:inplaceAllowed()
  return true
end

function ELU:__tostring__()
  return string.format('%s (alpha:%f)', torch.type(self), self.alpha)   -- Torch7's text
end
