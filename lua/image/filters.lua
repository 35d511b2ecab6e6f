-- image filters of Torch7's package written on image.convolve (a true
-- 2D convolution, 'valid' unless asked): the Laplacian-of-Gaussian kernel,
-- local contrast normalization, binary erosion and dilation.
local image = require 'image'
local xlua = require 'xlua'
local P = image._private
local fail = P.fail

-- Torch7's kernel: amplitude (1 - q) exp(-q), q = ((i - cx) / (sh w))^2 / 2
-- + ((j - cy) / (sv h))^2 / 2 for row i, column j, cx = mean_horz w + 0.5,
-- cy = mean_vert h + 0.5 (Torch7 pairs the rows with the horizontal
-- parameters: the same for square kernels, kept for the same numbers)
function image.laplacian(...)
  local fn = 'image.laplacian'
  local o = xlua.unpack({...}, fn, 'returns a 2D Laplacian kernel',
    {arg = 'size', type = 'number', help = 'kernel size (size x size)', default = 3},
    {arg = 'sigma', type = 'number', help = 'sigma (horizontal and vertical)', default = 0.1},
    {arg = 'amplitude', type = 'number', help = 'amplitude of the Laplacian (max value)', default = 1},
    {arg = 'normalize', type = 'number', help = 'normalize kernel (exc Amplitude)', default = false},
    {arg = 'width', type = 'number', help = 'kernel width', defaulta = 'size'},
    {arg = 'height', type = 'number', help = 'kernel height', defaulta = 'size'},
    {arg = 'sigma_horz', type = 'number', help = 'horizontal sigma', defaulta = 'sigma'},
    {arg = 'sigma_vert', type = 'number', help = 'vertical sigma', defaulta = 'sigma'},
    {arg = 'mean_horz', type = 'number', help = 'horizontal mean', default = 0.5},
    {arg = 'mean_vert', type = 'number', help = 'vertical mean', default = 0.5})
  for _, k in ipairs{'width', 'height', 'sigma_horz', 'sigma_vert', 'amplitude', 'mean_horz', 'mean_vert'} do
    if type(o[k]) ~= 'number' then fail(fn, '%s must be a number, got %s', k, type(o[k])) end
  end
  local w, h = math.floor(o.width), math.floor(o.height)
  if w < 1 or h < 1 then fail(fn, 'size must be positive, got %dx%d', h, w) end
  local cx, cy = o.mean_horz * w + 0.5, o.mean_vert * h + 0.5
  local k = torch.Tensor(h, w)
  for i = 1, h do
    for j = 1, w do
      local q = ((i - cx) / (o.sigma_horz * w)) ^ 2 / 2 + ((j - cy) / (o.sigma_vert * h)) ^ 2 / 2
      k[i][j] = (1 - q) * o.amplitude * math.exp(-q)
    end
  end
  if o.normalize then k:div(k:sum()) end
  return k
end

-- local contrast normalization of a gray image (H x W or 1 x H x W), as
-- Torch7's: standardized by its mean and std, then each pixel minus the
-- local mean over ker (a normalized 9 x 9 gaussian by default), divided by
-- the local std (at least 1); the result is the 'valid' part, double
function image.lcn(im, ker)
  local fn = 'image.lcn'
  if not torch.isTensor(im) or not (im:dim() == 2 or (im:dim() == 3 and im:size(1) == 1)) then
    fail(fn, 'grayscale image expected (H x W or 1 x H x W), got %s',
         torch.isTensor(im) and table.concat(im:size():totable(), 'x') or torch.type(im))
  end
  ker = ker or image.gaussian{size = 9, sigma = 1.591 / 9, normalize = true}
  if not torch.isTensor(ker) or ker:dim() ~= 2 then fail(fn, 'kernel must be a 2D tensor') end
  local x = im:double():clone()
  if x:dim() == 3 then x = x[1] end
  if ker:size(1) > x:size(1) or ker:size(2) > x:size(2) then
    fail(fn, 'kernel %dx%d larger than the image %dx%d', ker:size(1), ker:size(2), x:size(1), x:size(2))
  end
  local sd = x:std()
  x:add(-x:mean())
  if sd > 0 then x:div(sd) end
  local k = ker:double()
  local lmean = image.convolve(x, k)
  local lvar = image.convolve(x:clone():cmul(x), k):add(-1, lmean:clone():cmul(lmean))
  local lstd = lvar:clamp(0, math.huge):sqrt():clamp(1, math.huge)
  local si, sj = math.floor(k:size(1) / 2) + 1, math.floor(k:size(2) / 2) + 1
  local res = x:narrow(1, si, lstd:size(1)):narrow(2, sj, lstd:size(2)):clone()
  return res:add(-1, lmean):cdiv(lstd)
end

-- a binary image (H x W, values 0 and 1) padded with 'pad' around by half
-- the (odd) kernel, convolved with it ('valid': the image's size)
local function morph(fn, im, kern, pad)
  if not torch.isTensor(im) or im:dim() ~= 2 then
    fail(fn, 'a 2D binary image expected, got %s', torch.isTensor(im) and (im:dim() .. 'D') or torch.type(im))
  end
  if not torch.isTensor(kern) or kern:dim() ~= 2 or kern:size(1) % 2 == 0 or kern:size(2) % 2 == 0 then
    fail(fn, 'kernel must be a 2D tensor of odd sizes')
  end
  if type(pad) ~= 'number' then fail(fn, 'pad must be a number, got %s', type(pad)) end
  local hp, wp = (kern:size(1) - 1) // 2, (kern:size(2) - 1) // 2
  local padded = torch.DoubleTensor(im:size(1) + 2 * hp, im:size(2) + 2 * wp):fill(pad)
  padded:narrow(1, hp + 1, im:size(1)):narrow(2, wp + 1, im:size(2)):copy(im)
  return image.convolve(padded, kern:double())
end

-- 1 where every pixel under the kernel's ones is 1 (outside: pad, 1)
function image.erode(im, kern, pad)
  kern = kern or torch.ones(3, 3)
  local conv = morph('image.erode', im, kern, pad or 1)
  return conv:eq(kern:double():sum()):typeAs(im)
end

-- 1 where any pixel under the kernel's ones is 1 (outside: pad, 0)
function image.dilate(im, kern, pad)
  kern = kern or torch.ones(3, 3)
  if not torch.isTensor(kern) or kern:dim() ~= 2 then fail('image.dilate', 'kernel must be a 2D tensor') end
  -- flipped, so that the convolution reads the kernel as it is laid out
  local conv = morph('image.dilate', im, image.hflip(image.vflip(kern:double())), pad or 0)
  return conv:gt(0):typeAs(im)
end

return image
