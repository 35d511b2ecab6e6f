-- nn.SpatialColorTransform(transform) (nnx): a colour-space conversion of
-- a 3 x H x W image. 'rgb2yuv', 'yuv2rgb' and 'rgb2y' are linear (an
-- nn.SpatialLinear with fixed weights, so they have a gradient);
-- 'rgb2hsl', 'hsl2rgb', 'rgb2hsv', 'hsv2rgb', 'rgb2nrgb' and 'rgb2y+nrgb'
-- (4 planes: Y, then normalised RGB) call the image package and have no
-- gradient (backward is an error).
local SpatialColorTransform, parent = torch.class('nn.SpatialColorTransform', 'nn.Module')

local linear = {
  rgb2yuv = {{0.299, 0.587, 0.114}, {-0.14713, -0.28886, 0.436}, {0.615, -0.51499, -0.10001}},
  yuv2rgb = {{1, 0, 1.13983}, {1, -0.39465, -0.58060}, {1, 2.03211, 0}},
  rgb2y = {{0.299, 0.587, 0.114}},
}
local nonlinear = {rgb2hsl = true, hsl2rgb = true, rgb2hsv = true, hsv2rgb = true, rgb2nrgb = true,
                   ['rgb2y+nrgb'] = true}

function SpatialColorTransform:__init(transform)
  parent.__init(self)
  if not (linear[transform] or nonlinear[transform]) then
    error('nn.SpatialColorTransform: transform = yuv2rgb | rgb2yuv | rgb2y | hsl2rgb | hsv2rgb | rgb2hsl | '
          .. 'rgb2hsv | rgb2nrgb | rgb2y+nrgb expected, got ' .. tostring(transform), 2)
  end
  self.transform = transform
  self.islinear = linear[transform] ~= nil
  if self.islinear then
    local w = linear[transform]
    self.linear = nn.SpatialLinear(3, #w)
    self.linear.weight:copy(torch.Tensor(w))
    self.linear.bias:zero()
  else
    require 'image'
  end
end

function SpatialColorTransform:updateOutput(input)
  if self.islinear then
    self.output = self.linear:updateOutput(input)
  elseif self.transform == 'rgb2y+nrgb' then
    self.output:resize(4, input:size(2), input:size(3))
    image.rgb2y(input, self.output:narrow(1, 1, 1))
    image.rgb2nrgb(input, self.output:narrow(1, 2, 3))
  else
    self.output = image[self.transform](input, self.output)
  end
  return self.output
end

function SpatialColorTransform:updateGradInput(input, gradOutput)
  if not self.islinear then
    error('nn.SpatialColorTransform: updateGradInput is not implemented for the non-linear transform '
          .. self.transform, 2)
  end
  self.gradInput = self.linear:updateGradInput(input, gradOutput)
  return self.gradInput
end
