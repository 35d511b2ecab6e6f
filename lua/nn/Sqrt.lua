-- nn.Sqrt([eps]): y = sqrt(x), any shape; dy/dx = 0.5 / y, taken as 0 where
-- y = 0 (Torch7's guard against the singularity). Backward reads only the
-- output. 'eps' (default 0) is kept as Torch7 keeps it, and, as in Torch7's
-- kernel, not added to the input: a Torch7 net gives the same numbers here.
-- Kernel: src/nn/th_nn_pointwise.c.

local C = torch._C.nn
local Sqrt, parent = torch.class('nn.Sqrt', 'nn.Module')

function Sqrt:__init(b)
  parent.__init(self)
  if b ~= nil and type(b) ~= 'number' then
    error(string.format('nn.Sqrt: eps must be a number, got %s', torch.type(b)), 2)
  end
  self.eps = b or 0
end

function Sqrt:updateOutput(input)
  self.eps = self.eps or 0
  C.Sqrt_updateOutput(self, input, self.output, false)
  return self.output
end

function Sqrt:updateGradInput(input, gradOutput)
  C.Sqrt_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, false)
  return self.gradInput
end

function Sqrt:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
