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

-- normalized RGB: each component over R + G + B + 1e-6 (floating images)
function image.rgb2nrgb(a, b)
  local fn = 'image.rgb2nrgb'
  local dst, src = args(fn, a, b)
  rgbcheck(fn, src)
  local t = torch.typename(src)
  if t ~= 'torch.FloatTensor' and t ~= 'torch.DoubleTensor' then
    P.fail(fn, 'a Float or Double image expected, got %s', torch.typename(src))
  end
  local sum = src[1]:clone():add(src[2]):add(src[3]):add(1e-6)
  local res = src:clone()
  for k = 1, 3 do res[k]:cdiv(sum) end
  return P.finish(res, src, dst)
end

----------------------------------------------------------------------
-- colour maps

-- Torch7's jet map of n colours (n x 3, components in [0, 1]): blue to
-- cyan, yellow, red as 4 i / n goes from 0 to 4
function image.jetColormap(n)
  local fn = 'image.jetColormap'
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    P.fail(fn, 'number of colours must be a positive integer, got %s', tostring(n))
  end
  local map = torch.Tensor(n, 3)
  for i = 1, n do
    local f = 4 * i / n
    map[i][1] = math.max(math.min(f - 1.5, 4.5 - f, 1), 0)
    map[i][2] = math.max(math.min(f - 0.5, 3.5 - f, 1), 0)
    map[i][3] = math.max(math.min(f + 0.5, 2.5 - f, 1), 0)
  end
  return map
end

-- n well-spaced colours (n x 3): HSL with the hue stepping by 39 degrees,
-- saturation 0.3 + (k / 9 mod 0.7), lightness 0.5, as Torch7's
function image.colormap(n)
  local fn = 'image.colormap'
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    P.fail(fn, 'number of colours must be a positive integer, got %s', tostring(n))
  end
  local map = torch.Tensor(n, 3)
  for i = 1, n do
    local hue = math.fmod(39 * (i - 1), 360)
    local sat = math.fmod((i - 1) / 9, 0.7) + 0.3
    local c = (1 - math.abs(2 * 0.5 - 1)) * sat
    local hp = hue / 60
    local x = c * (1 - math.abs(math.fmod(hp, 2) - 1))
    local rgb
    if hp < 1 then rgb = {c, x, 0} elseif hp < 2 then rgb = {x, c, 0}
    elseif hp < 3 then rgb = {0, c, x} elseif hp < 4 then rgb = {0, x, c}
    elseif hp < 5 then rgb = {x, 0, c} else rgb = {c, 0, x} end
    for k = 1, 3 do map[i][k] = rgb[k] + 0.5 - c / 2 end
  end
  return map
end

-- ([dst,] levels): levels (N, H x W or 1 x H x W) hold integers 1..L;
-- the result is 3 x H x W (3 x 1 x N), each pixel the colour of its level
-- in the jet map of L = max(levels) colours (components 0..255 for bytes)
function image.y2jet(a, b)
  local fn = 'image.y2jet'
  local dst, src = nil, a
  if b ~= nil then dst, src = a, b end
  if not torch.isTensor(src) then P.fail(fn, 'levels must be a tensor, got %s', torch.type(src)) end
  if src:dim() == 3 and src:size(1) == 1 then src = src[1] end
  if src:dim() == 1 then src = src:view(1, src:size(1)) end
  if src:dim() ~= 2 then P.fail(fn, 'levels must be N, H x W or 1 x H x W, got %dD', src:dim()) end
  local idx = src:contiguous():view(-1):long()
  local top = idx:max()
  if idx:min() < 1 then P.fail(fn, 'levels must be integers from 1, got %s', tostring(src:min())) end
  local map = image.jetColormap(top)
  if isbyte(src) then
    map = map:mul(255):round():clamp(0, 255)
  end
  map = map:type(torch.typename(src))
  local res = map:index(1, idx):t():contiguous():view(3, src:size(1), src:size(2))
  if dst then return dst:resize(res:size()):copy(res) end
  return res
end

return image
