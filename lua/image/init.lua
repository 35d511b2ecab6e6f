-- image: Torch7's image package (load/save, geometry, colour, kernels).
--
-- Images are tensors C x H x W (H x W for one channel); loaded images are of
-- the default tensor type (or 'float'/'double'/'byte' on request) with values
-- in [0, 1] (0..255 for 'byte'). Codecs and the numeric kernels (scale,
-- rotate, HSL/HSV, convolution) run in C (src/image, torch._C.image); the
-- rest are tensor operations here. Every error names the function called:
-- "image.load: cannot open x.png: No such file or directory".
require 'torch'
require 'dok'  -- sets the global, as Torch7's image did (its scripts call dok.unpack)

local C = torch._C.image
local image = {}
package.loaded.image = image  -- the submodules below require it
-- Torch7 scripts (and image's own test suite) use the global, as Torch7's
-- libimage set it
rawset(_G, 'image', rawget(_G, 'image') or image)

-- the errors point at the caller of the image function: the first stack
-- level outside this folder (fail may be called from a public function or
-- from a helper such as readfile or checkquality, one level deeper)
local folder = debug.getinfo(1, 'S').source:match('^@(.*[/\\])') or ''

local function fail(fn, fmt, ...)
  local level = 2
  while true do
    local info = debug.getinfo(level + 1, 'S')
    if info == nil or info.source:sub(2, #folder + 1) ~= folder or info.source:sub(1, 1) ~= '@' then break end
    level = level + 1
  end
  error(fn .. ': ' .. string.format(fmt, ...), level + 1)
end

local function checkimage(fn, img, what)
  if not torch.isTensor(img) then
    fail(fn, '%s must be a tensor, got %s', what or 'image', torch.typename(img) or type(img))
  end
  if img:dim() ~= 2 and img:dim() ~= 3 then
    fail(fn, '%s must be C x H x W or H x W, got %dD', what or 'image', img:dim())
  end
  return img
end

local function isfloating(t)
  local n = torch.typename(t)
  return n == 'torch.FloatTensor' or n == 'torch.DoubleTensor'
end

-- a Float/Double view or copy of img for the C kernels
local function floating(img)
  if isfloating(img) then return img end
  return img:double()
end

-- the result in img's type (bytes rounded and clamped), copied into dst
-- when the caller gave one
local function finish(res, img, dst)
  if torch.typename(img) == 'torch.ByteTensor' and isfloating(res) then
    res = res:clone():round():clamp(0, 255)
  end
  if dst then
    dst:resize(res:size()):copy(res)
    return dst
  end
  if torch.typename(res) ~= torch.typename(img) then return img.new(res:size()):copy(res) end
  return res
end

-- shared with the submodules
image._private = {fail = fail, checkimage = checkimage, floating = floating, finish = finish}

----------------------------------------------------------------------
-- load and save

local tensortypes = {float = 'torch.FloatTensor', double = 'torch.DoubleTensor', byte = 'torch.ByteTensor'}

-- converts a decoded image to the wanted channels: Torch7's depth argument
local function todepth(fn, img, depth)
  if depth == nil then return img end
  local c = img:dim() == 2 and 1 or img:size(1)
  if depth == 1 then
    if img:dim() == 2 then return img end
    -- Torch7's shapes: H x W from colour, 1 x H x W from gray (+ alpha)
    if c == 3 or c == 4 then return image.rgb2y(img:narrow(1, 1, 3))[1] end
    if c == 1 then return img end
    if c == 2 then return img:narrow(1, 1, 1) end
  elseif depth == 3 then
    if c == 3 then return img end
    if c == 4 then return img:narrow(1, 1, 3) end
    if c == 1 or c == 2 then
      local plane = img:dim() == 2 and img or img[1]
      local rgb = img.new(3, plane:size(1), plane:size(2))
      for k = 1, 3 do rgb[k]:copy(plane) end
      return rgb
    end
  else
    fail(fn, 'depth must be 1 or 3, got %s', tostring(depth))
  end
  fail(fn, 'image has %d channels, cannot make depth %d', c, depth)
end

-- decoded samples (a ByteTensor, or an IntTensor of 16-bit samples when
-- bits is 16) -> the requested type in [0, 1]; 16-bit samples become their
-- high byte for 'byte' (as Torch7's)
local function frombytes(fn, bytes, depth, tensortype, bits)
  local img
  if tensortype and not tensortypes[tensortype] then
    fail(fn, "tensortype must be 'byte', 'float' or 'double', got '%s'", tostring(tensortype))
  end
  if tensortype == 'byte' then
    img = bits == 16 and bytes:double():div(256):floor():byte() or bytes
  else
    local tname = tensortype and tensortypes[tensortype] or torch.getdefaulttensortype()
    img = torch.Tensor():type(tname):resize(bytes:size()):copy(bytes):div(bits == 16 and 65535 or 255)
  end
  if depth ~= nil and depth ~= 1 and depth ~= 3 then
    fail(fn, 'depth must be 1 or 3, got %s', tostring(depth))
  end
  return todepth(fn, img, depth)
end

-- image -> ByteTensor of 8-bit samples: floating values are clamped to
-- [0, 1] (NaN to 0) and rounded to the nearest 1/255
local function tobytes(fn, img)
  checkimage(fn, img)
  if torch.typename(img) == 'torch.ByteTensor' then return img end
  if not isfloating(img) then img = img:double() end
  local t = img:clone()
  t:maskedFill(t:ne(t), 0)  -- NaN is written as 0
  return t:clamp(0, 1):mul(255):add(0.5):floor():byte()
end

local function readfile(fn, path)
  if type(path) ~= 'string' then fail(fn, 'file name (string) expected, got %s', type(path)) end
  local f, err = io.open(path, 'rb')
  if not f then fail(fn, 'cannot open %s', err) end
  local data = f:read('a')
  f:close()
  return data
end

local function writefile(fn, path, data)
  if type(path) ~= 'string' then fail(fn, 'file name (string) expected, got %s', type(path)) end
  local f, err = io.open(path, 'wb')
  if not f then fail(fn, 'cannot write %s', err) end
  f:write(data)
  f:close()
end

local function checkquality(fn, q)
  if q == nil then return 75 end
  if type(q) ~= 'number' or q < 1 or q > 100 then
    fail(fn, 'quality must be a number in 1..100, got %s', tostring(q))
  end
  return math.floor(q)
end

-- decodes data (a string or a 1D ByteTensor) of the format k
local function decode(fn, data, k, depth, tensortype)
  local samples, bits = C.decode(data, k, fn)
  return frombytes(fn, samples, depth, tensortype, bits)
end

function image.loadPNG(path, depth, tensortype)
  return decode('image.loadPNG', readfile('image.loadPNG', path), 'png', depth, tensortype)
end

function image.loadJPG(path, depth, tensortype)
  return decode('image.loadJPG', readfile('image.loadJPG', path), 'jpg', depth, tensortype)
end

-- PGM (P2, P5) and PPM (P3, P6) files, as Torch7's loadPPM (both kinds)
function image.loadPPM(path, depth, tensortype)
  return decode('image.loadPPM', readfile('image.loadPPM', path), 'ppm', depth, tensortype)
end

function image.savePPM(path, img)
  local fn = 'image.savePPM'
  checkimage(fn, img)
  if img:dim() ~= 3 or img:size(1) ~= 3 then
    fail(fn, 'can only save 3 x H x W images as PPM, got %s', table.concat(img:size():totable(), 'x'))
  end
  writefile(fn, path, C.encode(tobytes(fn, img), 'ppm', 0, false, fn))
end

function image.savePGM(path, img)
  local fn = 'image.savePGM'
  checkimage(fn, img)
  if img:dim() == 3 and img:size(1) ~= 1 then
    fail(fn, 'can only save 1 x H x W or H x W images as PGM, got %s', table.concat(img:size():totable(), 'x'))
  end
  writefile(fn, path, C.encode(tobytes(fn, img), 'ppm', 0, false, fn))
end

function image.savePNG(path, img)
  writefile('image.savePNG', path, C.encode(tobytes('image.savePNG', img), 'png', 0, false, 'image.savePNG'))
end

function image.saveJPG(path, img, quality)
  local bytes = tobytes('image.saveJPG', img)
  local q = checkquality('image.saveJPG', quality)
  writefile('image.saveJPG', path, C.encode(bytes, 'jpg', q, false, 'image.saveJPG'))
end

function image.compressJPG(img, quality)
  local q = checkquality('image.compressJPG', quality)
  return C.encode(tobytes('image.compressJPG', img), 'jpg', q, true, 'image.compressJPG')
end

function image.compressPNG(img)
  return C.encode(tobytes('image.compressPNG', img), 'png', 0, true, 'image.compressPNG')
end

function image.decompressJPG(data, depth, tensortype)
  return decode('image.decompressJPG', data, 'jpg', depth, tensortype)
end

function image.decompressPNG(data, depth, tensortype)
  return decode('image.decompressPNG', data, 'png', depth, tensortype)
end

local function kind(data)
  if data:sub(1, 4) == '\137PNG' then return 'png' end
  if data:sub(1, 3) == '\255\216\255' then return 'jpg' end
end

function image.decompress(data, depth, tensortype)
  local fn = 'image.decompress'
  local head
  if torch.typename(data) == 'torch.ByteTensor' and data:dim() == 1 then
    local n = math.min(4, data:size(1))
    local t = {}
    for i = 1, n do t[i] = string.char(data[i]) end
    head = table.concat(t)
  elseif type(data) == 'string' then
    head = data
  else
    fail(fn, 'a 1D torch.ByteTensor expected, got %s', torch.typename(data) or type(data))
  end
  local k = kind(head)
  if not k then fail(fn, 'input must be either jpg or png format') end
  return decode(fn, data, k, depth, tensortype)
end

-- file name extensions (any case) -> formats
local extensions = {png = 'png', jpg = 'jpg', jpeg = 'jpg', ppm = 'ppm', pgm = 'ppm'}

-- the file's format: from its first bytes (PNG, JPEG, P2/P3/P5/P6), else
-- from its extension; Torch7's messages when neither tells
function image.load(path, depth, tensortype)
  local fn = 'image.load'
  local data = readfile(fn, path)
  local k = kind(data)
  if not k and data:match('^P[2356]') then k = 'ppm' end
  if not k then
    local ext = path:match('%.(%a+)$')
    if not ext then fail(fn, 'unable to determine image type for file: %s', path) end
    k = extensions[ext:lower()]
    if not k then fail(fn, 'unknown image type: %s (png, jpg, jpeg, ppm, pgm are supported)', ext) end
  end
  return decode(fn, data, k, depth, tensortype)
end

function image.save(path, img, quality)
  local fn = 'image.save'
  if type(path) ~= 'string' then fail(fn, 'file name (string) expected, got %s', type(path)) end
  local ext = (path:match('%.(%a+)$') or ''):lower()
  local bytes = tobytes(fn, img)
  if ext == 'png' then
    writefile(fn, path, C.encode(bytes, 'png', 0, false, fn))
  elseif ext == 'jpg' or ext == 'jpeg' then
    writefile(fn, path, C.encode(bytes, 'jpg', checkquality(fn, quality), false, fn))
  elseif ext == 'ppm' then
    image.savePPM(path, img)
  elseif ext == 'pgm' then
    image.savePGM(path, img)
  else
    fail(fn, "unknown image type '%s' for file '%s' (png, jpg, jpeg, ppm, pgm are supported)", ext, path)
  end
end

-- a LongTensor {C, H, W}, as Torch7's (which read the header only)
function image.getSize(path)
  local img = image.load(path, nil, 'byte')
  return torch.LongTensor(img:size():totable())
end

require 'image.color'
require 'image.transform'
require 'image.draw'
require 'image.filters'

return image
