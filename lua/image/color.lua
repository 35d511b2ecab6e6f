-- image colour spaces (Torch7's conventions): RGB, Y, YUV, HSL, HSV and
-- CIE Lab images are 3 x H x W (Y is 1 x H x W); every component in [0, 1]
-- except U and V (signed) and Lab (L in [0, 100], a and b signed). YUV are
-- linear combinations (tensor ops here); HSL, HSV and Lab run in C
-- (torch._C.image.color). Each takes an optional
-- destination first, as Torch7's: image.rgb2yuv([dst,] src).
-- ByteTensors hold components in 0..255: Y, HSL and HSV convert them as
-- floats in [0, 1] and round the result back (Torch7's byte kernels did
-- the same); Lab refuses them (its components do not fit in 0..255).
local image = require 'image'
local C = torch._C.image
local P = image._private

-- (dst, src) or (src): returns dst (or nil), src
local function args(fn, a, b)
  local dst, src = nil, a
  if b ~= nil then dst, src = a, b end
  P.checkimage(fn, src, 'input')
  return dst, src
end

local function rgbcheck(fn, src)
  if src:dim() ~= 3 or src:size(1) ~= 3 then
    P.fail(fn, 'input must be a 3-channel image 3 x H x W, got %s',
           table.concat(src:size():totable(), 'x'))
  end
end

-- out[k] = m[k][1] * in[1] + m[k][2] * in[2] + m[k][3] * in[3]
local function linear(fn, dst, src, m)
  rgbcheck(fn, src)
  local f = P.floating(src)
  local res = f.new(#m, f:size(2), f:size(3)):zero()
  for k = 1, #m do
    for j = 1, 3 do res[k]:add(m[k][j], f[j]) end
  end
  return P.finish(res, src, dst)
end

local Y = {0.299, 0.587, 0.114}

local function isbyte(t) return torch.typename(t) == 'torch.ByteTensor' end

-- conv(x) of a ByteTensor x as conv(x / 255) * 255 in float, rounded
local function onbytes(conv, dst, src)
  local res = conv(src:float():div(255)):mul(255)
  return P.finish(res, src, dst)
end

function image.rgb2y(a, b)
  local dst, src = args('image.rgb2y', a, b)
  if isbyte(src) then
    rgbcheck('image.rgb2y', src)
    return onbytes(image.rgb2y, dst, src)
  end
  return linear('image.rgb2y', dst, src, {Y})
end

function image.rgb2yuv(a, b)
  local dst, src = args('image.rgb2yuv', a, b)
  return linear('image.rgb2yuv', dst, src,
                {Y, {-0.14713, -0.28886, 0.436}, {0.615, -0.51499, -0.10001}})
end

function image.yuv2rgb(a, b)
  local dst, src = args('image.yuv2rgb', a, b)
  return linear('image.yuv2rgb', dst, src,
                {{1, 0, 1.13983}, {1, -0.39465, -0.58060}, {1, 2.03211, 0}})
end

for _, conv in ipairs{'rgb2hsl', 'hsl2rgb', 'rgb2hsv', 'hsv2rgb', 'rgb2lab', 'lab2rgb'} do
  local fn = 'image.' .. conv
  image[conv] = function(a, b)
    local dst, src = args(fn, a, b)
    rgbcheck(fn, src)
    if isbyte(src) then
      if conv:find('lab') then
        P.fail(fn, 'a ByteTensor cannot hold Lab components (L in [0, 100], signed a and b): convert a float image')
      end
      return onbytes(image[conv], dst, src)
    end
    return P.finish(C.color(P.floating(src), conv, fn), src, dst)
  end
end

return image
