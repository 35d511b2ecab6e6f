-- nn.SpatialCrossMapLRN(size [, alpha, beta, k]): local response
-- normalization across channels of a 3D or 4D (batch) input (AlexNet):
-- scale = k + alpha/size * sum of squares over 'size' neighbouring channels,
-- output = input * scale^-beta. Defaults alpha 1e-4, beta 0.75, k 1.
-- 'scale' is written by forward and read by backward; 'paddedRatio' is
-- backward scratch. Kernel: src/nn/th_nn_lrn.c.

local C = torch._C.nn
local SpatialCrossMapLRN, parent = torch.class('nn.SpatialCrossMapLRN', 'nn.Module')

function SpatialCrossMapLRN:__init(size, alpha, beta, k)
  parent.__init(self)
  local n = math.tointeger(size)
  if n == nil or n < 1 then
    error(string.format('nn.SpatialCrossMapLRN: size must be a positive integer, got %s', tostring(size)), 2)
  end
  self.size = n
  self.alpha = alpha or 0.0001
  self.beta = beta or 0.75
  self.k = k or 1
end

function SpatialCrossMapLRN:updateOutput(input)
  self.scale = self.scale or self.output.new()
  C.lrn_updateOutput(self, input, self.output, self.scale)
  return self.output
end

function SpatialCrossMapLRN:updateGradInput(input, gradOutput)
  nn.utils.workspaceField(self, 'paddedRatio', self.output)
  if self.scale == nil then
    error(string.format('%s:updateGradInput: run forward first', torch.type(self)), 2)
  end
  C.lrn_updateGradInput(self, input, gradOutput, self.gradInput, self.scale, self.output,
                        self.paddedRatio)
  return self.gradInput
end

function SpatialCrossMapLRN:memoryTraits()
  return {buffers = {scale = 'both', paddedRatio = 'backward'}, needsInput = true, needsOutput = true}
end

function SpatialCrossMapLRN:clearState()
  nn.utils.clear(self, 'scale', 'paddedRatio', 'accumRatio')
  return parent.clearState(self)
end
