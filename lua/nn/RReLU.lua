-- nn.RReLU([l [, u [, inplace]]]): the randomized leaky rectifier (Xu et al.
-- 2015). Training: y = x for x > 0, else a x with a drawn uniformly from
-- [l, u) for each element and each forward (kept in 'noise' for backward).
-- Evaluation: a = (l + u) / 2, as LeakyReLU. Defaults l = 1/8, u = 1/3; the
-- module starts in training mode, as Torch7's. In place, the input is
-- overwritten and the output is a view of it: slopes are >= 0, so the
-- overwritten input keeps every sign backward looks at.
-- Kernel: src/nn/th_nn_rrelu.c (slopes from torch's default generator).

local C = torch._C.nn
local RReLU, parent = torch.class('nn.RReLU', 'nn.Module')

function RReLU:__init(l, u, ip)
  parent.__init(self)
  if (l ~= nil and type(l) ~= 'number') or (u ~= nil and type(u) ~= 'number') then
    error(string.format('nn.RReLU: lower and upper bounds must be numbers, got %s and %s',
                        torch.type(l), torch.type(u)), 2)
  end
  if ip ~= nil and type(ip) ~= 'boolean' then
    error(string.format('nn.RReLU: in-place flag must be boolean, got %s', torch.type(ip)), 2)
  end
  self.lower = l or 1 / 8
  self.upper = u or 1 / 3
  if not (self.lower >= 0 and self.upper >= self.lower) then
    error(string.format('nn.RReLU: bounds must satisfy 0 <= lower <= upper, got lower %g and upper %g',
                        self.lower, self.upper), 2)
  end
  self.noise = torch.Tensor()
  self.train = true
  self.inplace = ip or false
end

function RReLU:updateOutput(input)
  C.RReLU_updateOutput(self, input, self.output, self.noise, self.lower, self.upper,
                       self.train ~= false, self.inplace)
  return self.output
end

function RReLU:updateGradInput(input, gradOutput)
  C.RReLU_updateGradInput(self, input, gradOutput, self.gradInput, self.noise, self.lower,
                          self.upper, self.train ~= false, self.inplace)
  return self.gradInput
end

-- noise: drawn in forward, read in backward (training mode)
function RReLU:memoryTraits()
  return {buffers = {noise = 'both'}, needsInput = true, needsOutput = false, inplace = 'inplace'}
end

-- slopes are >= 0 (checked at construction): the overwritten input keeps
-- the sign backward reads
function RReLU:inplaceAllowed()
  return true
end

function RReLU:__tostring__()
  return string.format('%s (l:%f, u:%f)', torch.type(self), self.lower, self.upper)
end
