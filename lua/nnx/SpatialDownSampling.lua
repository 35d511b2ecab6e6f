-- nn.SpatialDownSampling(rW, rH) (nnx): block-average downsampling of a
-- 3D input C x H x W by integer ratios: output C x floor(H/rH) x
-- floor(W/rW), output (y, x) = mean of the rH x rW block at (y*rH, x*rW);
-- the rows and columns past the last whole block are dropped (their
-- gradient is zero). Also nn.SpatialDownSampling{rW=, rH=}.
local resample = require 'nnx.resample'
local SpatialDownSampling, parent = torch.class('nn.SpatialDownSampling', 'nn.Module')

function SpatialDownSampling:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialDownSampling', 'block-average downsampling',
    {arg = 'rW', type = 'number', help = 'ratio width', req = true},
    {arg = 'rH', type = 'number', help = 'ratio height', req = true})
  for _, k in ipairs{'rW', 'rH'} do
    local v = self[k]
    if type(v) ~= 'number' or v < 1 or v % 1 ~= 0 then
      error(string.format('nn.SpatialDownSampling: %s must be an integer >= 1, got %s', k, tostring(v)), 2)
    end
  end
end

function SpatialDownSampling:_taps(input)
  if input:dim() ~= 3 then
    error(string.format('nn.SpatialDownSampling: 3D input (C x H x W) expected, got %dD', input:dim()), 3)
  end
  local ih, iw = input:size(2), input:size(3)
  if ih < self.rH then error('nn.SpatialDownSampling: input too small in dimension 2', 3) end
  if iw < self.rW then error('nn.SpatialDownSampling: input too small in dimension 3', 3) end
  local key = ih .. 'x' .. iw
  if self._tapsKey ~= key then
    self._ytaps = resample.average(math.floor(ih / self.rH), self.rH)
    self._xtaps = resample.average(math.floor(iw / self.rW), self.rW)
    self._tapsKey = key
  end
end

function SpatialDownSampling:updateOutput(input)
  self:_taps(input)
  return resample.forward2d(self, self.output, input, 2, 3, self._ytaps, self._xtaps)
end

function SpatialDownSampling:updateGradInput(input, gradOutput)
  self:_taps(input)
  return resample.backward2d(self, self.gradInput, input, gradOutput, 2, 3, self._ytaps, self._xtaps)
end

function SpatialDownSampling:clearState()
  self._rsTmp, self._rsGrad = nil, nil
  return parent.clearState(self)
end
