-- nn.SpatialReSampling{owidth=, oheight=} or {rwidth=, rheight=} (nnx):
-- bilinear resampling of the planes of a 3D (C x H x W) or 4D batch
-- (N x C x H x W) input to oheight x owidth, corners aligned: output
-- (y, x) samples input ((H-1)/(oheight-1)*y, (W-1)/(owidth-1)*x) (0-based).
-- With ratios, the output size is floor(ratio * input size), computed for
-- each input (Torch7 stored the first one in owidth/oheight).
-- Positional form: nn.SpatialReSampling(rwidth, rheight, owidth, oheight).
-- Backward spreads gradOutput over the same 4 neighbours (nnx.resample).
local resample = require 'nnx.resample'
local SpatialReSampling, parent = torch.class('nn.SpatialReSampling', 'nn.Module')

function SpatialReSampling:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialReSampling', 'bilinear resampling of image planes',
    {arg = 'rwidth', type = 'number', help = 'ratio: owidth/iwidth'},
    {arg = 'rheight', type = 'number', help = 'ratio: oheight/iheight'},
    {arg = 'owidth', type = 'number', help = 'output width'},
    {arg = 'oheight', type = 'number', help = 'output height'})
  if not (self.owidth or self.rwidth) or not (self.oheight or self.rheight) then
    error('nn.SpatialReSampling: owidth or rwidth, and oheight or rheight, expected', 2)
  end
end

-- the output size: from gradOutput in backward (Torch7's kernel read it
-- there: dpnn's SpatialGlimpse runs backward alone, with another size than
-- the module's own), else from owidth/oheight or the ratios
function SpatialReSampling:_sizes(input, gradOutput)
  if input:dim() ~= 3 and input:dim() ~= 4 then
    error(string.format('nn.SpatialReSampling: 3D (C x H x W) or 4D (N x C x H x W) input expected, got %dD',
                        input:dim()), 3)
  end
  local ydim = input:dim() - 1
  local ih, iw = input:size(ydim), input:size(ydim + 1)
  local oh = math.floor(self.oheight or self.rheight * ih)
  local ow = math.floor(self.owidth or self.rwidth * iw)
  if gradOutput then
    if gradOutput:dim() ~= input:dim() then
      error(string.format('nn.SpatialReSampling: gradOutput of %dD expected (as the input), got %dD',
                          input:dim(), gradOutput:dim()), 3)
    end
    oh, ow = gradOutput:size(ydim), gradOutput:size(ydim + 1)
  end
  if oh < 1 or ow < 1 then
    error(string.format('nn.SpatialReSampling: output size %dx%d is empty (input %dx%d)', oh, ow, ih, iw), 3)
  end
  local key = ih .. 'x' .. iw .. '>' .. oh .. 'x' .. ow
  if self._tapsKey ~= key then
    self._ytaps, self._xtaps, self._tapsKey = resample.bilinear(ih, oh), resample.bilinear(iw, ow), key
  end
  return ydim
end

function SpatialReSampling:updateOutput(input)
  local ydim = self:_sizes(input)
  return resample.forward2d(self, self.output, input, ydim, ydim + 1, self._ytaps, self._xtaps)
end

function SpatialReSampling:updateGradInput(input, gradOutput)
  local ydim = self:_sizes(input, gradOutput)
  return resample.backward2d(self, self.gradInput, input, gradOutput, ydim, ydim + 1, self._ytaps, self._xtaps)
end

function SpatialReSampling:clearState()
  self._rsTmp, self._rsGrad = nil, nil
  return parent.clearState(self)
end
