-- nn.SpatialContrastiveNormalization([nInputPlane [, kernel [, threshold
-- [, thresval]]]]): nn.SpatialSubtractiveNormalization followed by
-- nn.SpatialDivisiveNormalization with the same kernel (normalized in
-- place by both, as Torch7), held as Torch7 does in 'normalizer' (an
-- nn.Sequential of the two). Output and gradInput are copies of the
-- normalizer's (never the same tensor objects).

local SpatialContrastiveNormalization, parent = torch.class('nn.SpatialContrastiveNormalization', 'nn.Module')

function SpatialContrastiveNormalization:__init(nInputPlane, kernel, threshold, thresval)
  parent.__init(self)
  local cls = 'nn.SpatialContrastiveNormalization'
  self.nInputPlane = nInputPlane or 1
  self.kernel = kernel or torch.Tensor(9, 9):fill(1)
  self.threshold = threshold or 1e-4
  self.thresval = thresval or threshold or 1e-4
  local k = self.kernel
  if not torch.isTensor(k) or (k:dim() ~= 1 and k:dim() ~= 2) then
    error(string.format('%s: averaging kernel must be 2D or 1D, got %s', cls,
                        torch.isTensor(k) and (k:dim() .. 'D') or torch.type(k)), 2)
  end
  if k:size(1) % 2 == 0 or (k:dim() == 2 and k:size(2) % 2 == 0) then
    error(string.format('%s: averaging kernel must have ODD dimensions, got %s', cls,
                        table.concat(k:size():totable(), 'x')), 2)
  end
  self.normalizer = nn.Sequential()
  self.normalizer:add(nn.SpatialSubtractiveNormalization(self.nInputPlane, self.kernel))
  self.normalizer:add(nn.SpatialDivisiveNormalization(self.nInputPlane, self.kernel,
                                                      self.threshold, self.thresval))
end

function SpatialContrastiveNormalization:updateOutput(input)
  local o = self.normalizer:updateOutput(input)
  self.output:resizeAs(o):copy(o)
  return self.output
end

function SpatialContrastiveNormalization:updateGradInput(input, gradOutput)
  nn.utils.needForward(self, self.output, 'output')
  local g = self.normalizer:updateGradInput(input, gradOutput)
  self.gradInput:resizeAs(g):copy(g)
  return self.gradInput
end

-- the normalizer keeps what backward needs (the input, in its divisive part)
function SpatialContrastiveNormalization:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false, state = {kernel = true}}
end

function SpatialContrastiveNormalization:clearState()
  self.normalizer:clearState()
  return parent.clearState(self)
end
