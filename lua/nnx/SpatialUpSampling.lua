-- nn.SpatialUpSampling(dW, dH [, yDim=2, xDim=3]) (nnx): nearest-neighbour
-- upsampling by integer factors of dimensions yDim and xDim = yDim+1:
-- output (y, x) = input (floor(y/dH), floor(x/dW)), output size
-- H*dH x W*dW. Also nn.SpatialUpSampling{dW=, dH=, yDim=, xDim=}.
-- Backward sums each dH x dW block of gradOutput.
local resample = require 'nnx.resample'
local SpatialUpSampling, parent = torch.class('nn.SpatialUpSampling', 'nn.Module')

function SpatialUpSampling:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialUpSampling', 'nearest-neighbour upsampling',
    {arg = 'dW', type = 'number', help = 'stride width', req = true},
    {arg = 'dH', type = 'number', help = 'stride height', req = true},
    {arg = 'yDim', type = 'number', help = 'image y dimension', default = 2},
    {arg = 'xDim', type = 'number', help = 'image x dimension', default = 3})
  for _, k in ipairs{'dW', 'dH'} do
    local v = self[k]
    if type(v) ~= 'number' or v < 1 or v % 1 ~= 0 then
      error(string.format('nn.SpatialUpSampling: %s must be an integer >= 1, got %s', k, tostring(v)), 2)
    end
  end
  if self.yDim + 1 ~= self.xDim then error('nn.SpatialUpSampling: yDim must be equal to xDim-1', 2) end
end

function SpatialUpSampling:_taps(input)
  if input:dim() < self.xDim then
    error(string.format('nn.SpatialUpSampling: input with at least %d dimensions expected, got %dD',
                        self.xDim, input:dim()), 3)
  end
  local ih, iw = input:size(self.yDim), input:size(self.xDim)
  local key = ih .. 'x' .. iw
  if self._tapsKey ~= key then
    self._ytaps = resample.nearest(ih * self.dH, self.dH)
    self._xtaps = resample.nearest(iw * self.dW, self.dW)
    self._tapsKey = key
  end
end

function SpatialUpSampling:updateOutput(input)
  self:_taps(input)
  return resample.forward2d(self, self.output, input, self.yDim, self.xDim, self._ytaps, self._xtaps)
end

function SpatialUpSampling:updateGradInput(input, gradOutput)
  self:_taps(input)
  return resample.backward2d(self, self.gradInput, input, gradOutput, self.yDim, self.xDim, self._ytaps,
                             self._xtaps)
end

function SpatialUpSampling:clearState()
  self._rsTmp, self._rsGrad = nil, nil
  return parent.clearState(self)
end
