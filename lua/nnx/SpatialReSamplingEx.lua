-- nn.SpatialReSamplingEx{owidth=, oheight= | rwidth=, rheight=, mode=,
-- yDim=2, xDim=3} (nnx): resampling of dimensions yDim and xDim = yDim+1
-- of an input of any number of dimensions. Output size: owidth/oheight, or
-- round(ratio * input size). Modes:
--   'simple'   up: nearest (output o reads input floor(o / ceil(m/n)));
--              down: decimation (o reads o * floor(n/m))
--   'average'  down: mean of floor(n/m) consecutive inputs; up: as simple
--   'bilinear' corners aligned, as nn.SpatialReSampling
-- Upsampling one dimension while downsampling the other is an error.
local resample = require 'nnx.resample'
local SpatialReSamplingEx, parent = torch.class('nn.SpatialReSamplingEx', 'nn.Module')

local modes = {simple = true, average = true, bilinear = true}

function SpatialReSamplingEx:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialReSamplingEx', 'extended resampling',
    {arg = 'rwidth', type = 'number', help = 'ratio: owidth/iwidth'},
    {arg = 'rheight', type = 'number', help = 'ratio: oheight/iheight'},
    {arg = 'owidth', type = 'number', help = 'output width'},
    {arg = 'oheight', type = 'number', help = 'output height'},
    {arg = 'mode', type = 'string', help = 'simple | average | bilinear', default = 'simple'},
    {arg = 'yDim', type = 'number', help = 'image y dimension', default = 2},
    {arg = 'xDim', type = 'number', help = 'image x dimension', default = 3})
  if self.yDim + 1 ~= self.xDim then
    error('nn.SpatialReSamplingEx: yDim must be equal to xDim-1', 2)
  end
  if not modes[self.mode] then
    error(string.format("nn.SpatialReSamplingEx: mode must be simple | average | bilinear, got '%s'",
                        tostring(self.mode)), 2)
  end
  if not (self.owidth or self.rwidth) or not (self.oheight or self.rheight) then
    error('nn.SpatialReSamplingEx: owidth or rwidth, and oheight or rheight, expected', 2)
  end
end

local function axisTaps(mode, n, m)
  if mode == 'bilinear' then return resample.bilinear(n, m) end
  if m >= n then return resample.nearest(m, math.ceil(m / n)) end
  local step = math.floor(n / m)
  if mode == 'average' then return resample.average(m, step) end
  return resample.pick(m, step)
end

function SpatialReSamplingEx:_taps(input)
  if input:dim() < self.xDim then
    error(string.format('nn.SpatialReSamplingEx: input with at least %d dimensions expected, got %dD',
                        self.xDim, input:dim()), 3)
  end
  local ih, iw = input:size(self.yDim), input:size(self.xDim)
  local oh = self.oheight or math.floor(self.rheight * ih + 0.5)
  local ow = self.owidth or math.floor(self.rwidth * iw + 0.5)
  if (oh >= ih) ~= (ow >= iw) then
    error('nn.SpatialReSamplingEx: cannot upsample one dimension while downsampling the other', 3)
  end
  self.iheight, self.iwidth, self.oheightCurrent, self.owidthCurrent = ih, iw, oh, ow
  local key = ih .. 'x' .. iw .. '>' .. oh .. 'x' .. ow
  if self._tapsKey ~= key then
    self._ytaps, self._xtaps, self._tapsKey = axisTaps(self.mode, ih, oh), axisTaps(self.mode, iw, ow), key
  end
end

function SpatialReSamplingEx:updateOutput(input)
  self:_taps(input)
  return resample.forward2d(self, self.output, input, self.yDim, self.xDim, self._ytaps, self._xtaps)
end

function SpatialReSamplingEx:updateGradInput(input, gradOutput)
  self:_taps(input)
  return resample.backward2d(self, self.gradInput, input, gradOutput, self.yDim, self.xDim, self._ytaps,
                             self._xtaps)
end

function SpatialReSamplingEx:clearState()
  self._rsTmp, self._rsGrad = nil, nil
  return parent.clearState(self)
end
