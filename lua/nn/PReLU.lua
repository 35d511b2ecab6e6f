-- nn.PReLU([nOutputPlane]): y = x > 0 ? x : w x with learnable slopes w,
-- initialised to 0.25. Without nOutputPlane (or 0) one slope is shared by
-- every element of any input; with n, one slope per channel: the channel is
-- dimension 1 of a 1D input (n elements) and dimension 2 otherwise (batch x
-- n x ...). gradWeight accumulates sum over x <= 0 of x * gradOutput.
-- Kernel: src/nn/th_nn_prelu.c.

local C = torch._C.nn
local PReLU, parent = torch.class('nn.PReLU', 'nn.Module')

function PReLU:__init(nOutputPlane)
  parent.__init(self)
  if nOutputPlane ~= nil and (math.type(nOutputPlane) == nil or nOutputPlane < 0 or
                              nOutputPlane ~= math.floor(nOutputPlane)) then
    error(string.format('nn.PReLU: nOutputPlane must be a non-negative integer, got %s',
                        tostring(nOutputPlane)), 2)
  end
  self.nOutputPlane = nOutputPlane or 0
  self.weight = torch.Tensor(self.nOutputPlane > 0 and self.nOutputPlane or 1):fill(0.25)
  self.gradWeight = torch.Tensor(self.nOutputPlane > 0 and self.nOutputPlane or 1):zero()
end

function PReLU:updateOutput(input)
  C.PReLU_updateOutput(self, input, self.output, self.weight, self.nOutputPlane)
  return self.output
end

function PReLU:updateGradInput(input, gradOutput)
  C.PReLU_updateGradInput(self, input, gradOutput, self.gradInput, self.weight, self.nOutputPlane)
  return self.gradInput
end

function PReLU:accGradParameters(input, gradOutput, scale)
  C.PReLU_accGradParameters(self, input, gradOutput, self.gradWeight, self.nOutputPlane, scale or 1)
  return self.gradWeight
end

function PReLU:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

-- Torch7's gradWeightBuf/gradWeightBuf2 are not needed here (the kernel
-- sums per plane directly); a module loaded from Torch7 may hold them
function PReLU:clearState()
  nn.utils.clear(self, 'gradWeightBuf', 'gradWeightBuf2')
  return parent.clearState(self)
end
