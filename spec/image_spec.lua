-- image: Torch7's image package: PNG/JPEG codecs, geometry, colour spaces,
-- kernels, display helpers, errors. Test pictures are generated here.
require 'torch'
local image = require 'image'

local tmpdir = os.getenv('TMPDIR') or '/tmp'
local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. ext
end

local function maxdiff(a, b) return (a:double() - b:double()):abs():max() end

-- values on the 1/255 grid: what an 8-bit file can hold exactly
local function quantised(t) return t:clone():mul(255):add(0.5):floor():div(255) end

local function pattern(c, h, w)
  torch.manualSeed(7)
  return torch.rand(c, h, w)
end

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

describe('image codecs', function()
  it('PNG round trips RGB, gray and RGBA exactly after 8-bit quantisation', function()
    for _, c in ipairs{1, 2, 3, 4} do
      local img = pattern(c, 7, 11)
      local p = tmpname('.png')
      image.save(p, img)
      local back = image.load(p)
      os.remove(p)
      assert.are.same({c, 7, 11}, back:size():totable())
      assert.is_true(maxdiff(back, quantised(img)) < 1e-12)
      assert.are.equal(torch.getdefaulttensortype(), torch.typename(back))
    end
  end)

  it('PNG saves 2D images as gray and byte images as they are', function()
    local img = pattern(1, 5, 6)[1]
    local p = tmpname('.png')
    image.savePNG(p, img)
    local back = image.loadPNG(p)
    assert.are.same({1, 5, 6}, back:size():totable())
    assert.is_true(maxdiff(back[1], quantised(img)) < 1e-12)
    local bytes = torch.ByteTensor(3, 2, 2)
    for i = 1, 12 do bytes:storage()[i] = i * 20 end
    image.savePNG(p, bytes)
    local b = image.loadPNG(p, nil, 'byte')
    os.remove(p)
    assert.are.equal('torch.ByteTensor', torch.typename(b))
    assert.are.same(bytes:totable(), b:totable())
  end)

  it('saves non-contiguous views and clamps values outside [0, 1] (NaN to 0)', function()
    local img = pattern(3, 6, 4)
    local view = img:transpose(2, 3)  -- 3 x 4 x 6, not contiguous
    local p = tmpname('.png')
    image.save(p, view)
    assert.is_true(maxdiff(image.load(p), quantised(view)) < 1e-12)
    image.save(p, torch.Tensor{{{-1, 0.5, 2}}})
    assert.is_true(maxdiff(image.load(p), torch.Tensor{{{0, 128 / 255, 1}}}) < 1e-12)
    image.save(p, torch.Tensor{{{0 / 0, math.huge, -math.huge}}})
    assert.is_true(maxdiff(image.load(p), torch.Tensor{{{0, 1, 0}}}) < 1e-12)
    os.remove(p)
  end)

  it('loads as float, double or byte on request', function()
    local img = pattern(3, 4, 4)
    local p = tmpname('.png')
    image.save(p, img)
    assert.are.equal('torch.FloatTensor', torch.typename(image.load(p, nil, 'float')))
    assert.are.equal('torch.DoubleTensor', torch.typename(image.load(p, nil, 'double')))
    local b = image.load(p, nil, 'byte')
    os.remove(p)
    assert.are.equal('torch.ByteTensor', torch.typename(b))
    assert.is_true(maxdiff(b:double():div(255), quantised(img)) < 1e-12)
  end)

  it('depth 1 and 3 convert channels as Torch7 (Y of RGB, gray copied to RGB, alpha dropped)', function()
    local rgba = pattern(4, 3, 5)
    local p = tmpname('.png')
    image.save(p, rgba)
    local q = quantised(rgba)
    local rgb = image.load(p, 3)
    assert.are.same({3, 3, 5}, rgb:size():totable())
    assert.is_true(maxdiff(rgb, q:narrow(1, 1, 3)) < 1e-12)
    local y = image.load(p, 1)
    assert.are.same({3, 5}, y:size():totable())
    assert.is_true(maxdiff(y, image.rgb2y(q:narrow(1, 1, 3))[1]) < 1e-12)
    local g = pattern(1, 3, 5)
    image.save(p, g)
    local g3 = image.load(p, 3)
    os.remove(p)
    assert.are.same({3, 3, 5}, g3:size():totable())
    for k = 1, 3 do assert.is_true(maxdiff(g3[k], quantised(g)[1]) < 1e-12) end
  end)

  it('JPEG round trips within a bounded error', function()
    local img = image.scale(image.lena(), 64, 64)
    local p = tmpname('.jpg')
    image.save(p, img)
    local back = image.load(p)
    assert.are.same({3, 64, 64}, back:size():totable())
    assert.is_true((back - img):abs():mean() < 0.03)
    image.saveJPG(p, img, 100)
    local hq = image.loadJPG(p)
    assert.is_true((hq - img):abs():mean() < 0.01)
    local gray = img[1]:clone()
    image.saveJPG(p, gray)
    local gb = image.load(p)
    os.remove(p)
    assert.are.same({1, 64, 64}, gb:size():totable())
    assert.is_true((gb[1] - gray):abs():mean() < 0.03)
  end)

  it('compressJPG/decompressJPG and compressPNG/decompress work in memory', function()
    local img = pattern(3, 8, 8)
    local png = image.compressPNG(img)
    assert.are.equal('torch.ByteTensor', torch.typename(png))
    assert.is_true(maxdiff(image.decompressPNG(png), quantised(img)) < 1e-12)
    assert.is_true(maxdiff(image.decompress(png), quantised(img)) < 1e-12)
    local smooth = image.scale(image.lena(), 32, 32)
    local jpg = image.compressJPG(smooth, 95)
    assert.are.equal(0xff, jpg[1])
    local back = image.decompressJPG(jpg)
    assert.is_true((back - smooth):abs():mean() < 0.02)
    assert.is_true((image.decompress(jpg, 1) - image.rgb2y(smooth)[1]):abs():mean() < 0.02)
  end)

  it('errors name the function: missing, corrupt, unknown, wrong shapes', function()
    assert.matches("image.load: cannot open", errmsg(image.load, tmpdir .. '/no-such-file.png'))
    local p = tmpname('.png')
    local f = io.open(p, 'wb'); f:write('\137PNG\r\n\26\nthis is no png'); f:close()
    assert.matches('image.load: .*PNG', errmsg(image.load, p))
    assert.matches('image.loadPNG: .*PNG', errmsg(image.loadPNG, p))
    f = io.open(p, 'wb'); f:write('\255\216\255\224 truncated jpeg'); f:close()
    assert.matches('image.load: corrupt JPEG file', errmsg(image.load, p))
    assert.matches('image.loadJPG: corrupt JPEG file', errmsg(image.loadJPG, p))
    f = io.open(p, 'wb'); f:write('plain text'); f:close()
    assert.matches('image.loadJPG: not a valid JPEG file', errmsg(image.loadJPG, p))
    os.remove(p)
    local txt = tmpname('.txt')
    f = io.open(txt, 'wb'); f:write('plain text'); f:close()
    assert.matches('image.load: unknown image type', errmsg(image.load, txt))
    os.remove(txt)
    assert.matches("image.save: unknown image type 'bmp'", errmsg(image.save, tmpdir .. '/x.bmp', pattern(3, 2, 2)))
    assert.matches('image.save: image must be C x H x W or H x W, got 4D',
                   errmsg(image.save, tmpdir .. '/x.png', torch.rand(1, 1, 2, 2)))
    assert.matches('image.savePNG: PNG encoder cannot write 5 channels',
                   errmsg(image.savePNG, tmpdir .. '/x.png', torch.rand(5, 2, 2)))
    assert.matches('image.saveJPG: JPEG encoder cannot write 4 channels',
                   errmsg(image.saveJPG, tmpdir .. '/x.jpg', torch.rand(4, 2, 2)))
    assert.matches('image.compressJPG: quality must be a number in 1..100, got 0',
                   errmsg(image.compressJPG, torch.rand(3, 2, 2), 0))
    assert.matches('image.decompress: input must be either jpg or png',
                   errmsg(image.decompress, torch.ByteTensor(8):fill(1)))
    local q = tmpname('.png')
    image.save(q, pattern(3, 2, 2))
    assert.matches('image.load: depth must be 1 or 3, got 2', errmsg(image.load, q, 2))
    assert.matches("image.load: tensortype must be 'byte', 'float' or 'double', got 'int'",
                   errmsg(image.load, q, nil, 'int'))
    os.remove(q)
  end)
  it('damaged files load or raise an error naming the function, never crash', function()
    local png = image.compressPNG(pattern(3, 9, 9))
    local jpg = image.compressJPG(image.scale(image.lena(), 16, 16))
    local function str(bytes) local t = {} for i = 1, bytes:size(1) do t[i] = string.char(bytes[i]) end return table.concat(t) end
    math.randomseed(3)
    for _, case in ipairs{{str(png), 'image.decompressPNG', image.decompressPNG},
                          {str(jpg), 'image.decompressJPG', image.decompressJPG}} do
      local data, name, f = case[1], case[2], case[3]
      for cut = 1, #data - 1, 7 do  -- truncated
        local ok, err = pcall(f, data:sub(1, cut))
        assert.is_true(ok or tostring(err):find(name, 1, true) ~= nil)
      end
      for _ = 1, 60 do  -- a few bytes overwritten past the signature
        local b = {data:byte(1, -1)}
        for _ = 1, 3 do b[math.random(5, #b)] = math.random(0, 255) end
        local ok, err = pcall(f, string.char(table.unpack(b)))
        assert.is_true(ok or tostring(err):find(name, 1, true) ~= nil)
      end
    end
  end)

  it('refuses files declaring huge images before allocating them', function()
    -- JPEG: the frame header (SOF0, FF C0) holds height and width; no checksum
    local jpg = image.compressJPG(torch.rand(3, 8, 8))
    local b = {}
    for i = 1, jpg:size(1) do b[i] = jpg[i] end
    for i = 1, #b - 1 do
      if b[i] == 0xff and b[i + 1] == 0xc0 then
        b[i + 5], b[i + 6], b[i + 7], b[i + 8] = 0xff, 0xdc, 0xff, 0xdc  -- 65500 x 65500
        break
      end
    end
    assert.matches('image.decompressJPG: JPEG image 65500x65500 with 3 channels is too large',
                   errmsg(image.decompressJPG, string.char(table.unpack(b))))
    -- PNG: IHDR width and height, then its CRC recomputed
    local png = image.compressPNG(torch.rand(4, 2, 2))
    local p = {}
    for i = 1, png:size(1) do p[i] = png[i] end
    p[17], p[18], p[19], p[20] = 0, 0, 0xff, 0xff  -- 65535 x 65535
    p[21], p[22], p[23], p[24] = 0, 0, 0xff, 0xff
    local crc = 0xffffffff
    for i = 13, 29 do  -- "IHDR" and its 13 data bytes
      crc = crc ~ p[i]
      for _ = 1, 8 do crc = (crc & 1) == 1 and ((crc >> 1) ~ 0xedb88320) or (crc >> 1) end
    end
    crc = crc ~ 0xffffffff
    p[30], p[31], p[32], p[33] = (crc >> 24) & 0xff, (crc >> 16) & 0xff, (crc >> 8) & 0xff, crc & 0xff
    assert.matches('image.decompressPNG: PNG image 65535x65535 with 4 channels is too large',
                   errmsg(image.decompressPNG, string.char(table.unpack(p))))
  end)

  it('getSize gives C x H x W of a file', function()
    local p = tmpname('.png')
    image.save(p, pattern(3, 5, 8))
    assert.are.same({3, 5, 8}, image.getSize(p):totable())
    assert.are.equal('torch.LongTensor', torch.type(image.getSize(p)))   -- Torch7's type
    os.remove(p)
  end)
end)

describe('image geometry', function()
  local img  -- 1 x 2 x 3: rows {1,2,3}, {4,5,6}
  before_each(function() img = torch.Tensor{{{1, 2, 3}, {4, 5, 6}}} end)

  it('hflip and vflip a 2x3 image', function()
    assert.are.same({{{3, 2, 1}, {6, 5, 4}}}, image.hflip(img):totable())
    assert.are.same({{{4, 5, 6}, {1, 2, 3}}}, image.vflip(img):totable())
    assert.are.same({{3, 2, 1}, {6, 5, 4}}, image.hflip(img[1]):totable())
    local dst = torch.Tensor()
    image.hflip(dst, img)
    assert.are.same({{{3, 2, 1}, {6, 5, 4}}}, dst:totable())
    assert.are.same({{{4, 5, 6}, {1, 2, 3}}}, image.flip(img, 2):totable())
  end)

  it('crop by corners and by format', function()
    assert.are.same({{{2, 3}, {5, 6}}}, image.crop(img, 1, 0, 3, 2):totable())
    assert.are.same({{{1}}}, image.crop(img, 'tl', 1, 1):totable())
    assert.are.same({{{6}}}, image.crop(img, 'br', 1, 1):totable())
    assert.are.same({{{3}}}, image.crop(img, 'tr', 1, 1):totable())
    assert.are.same({{{4}}}, image.crop(img, 'bl', 1, 1):totable())
    assert.are.same({{{2}, {5}}}, image.crop(img, 'c', 1, 2):totable())
    local dst = torch.Tensor(1, 1, 2)
    image.crop(dst, img, 1, 1)
    assert.are.same({{{5, 6}}}, dst:totable())
    assert.matches('image.crop: region %(2,0%)%-%(4,2%) is not inside the 3x2 image',
                   errmsg(image.crop, img, 2, 0, 4, 2))
    assert.matches("image.crop: format must be", errmsg(image.crop, img, 'middle', 1, 1))
  end)

  it('translate shifts right/down and fills with zeros', function()
    assert.are.same({{{0, 1, 2}, {0, 4, 5}}}, image.translate(img, 1, 0):totable())
    assert.are.same({{{4, 5, 6}, {0, 0, 0}}}, image.translate(img, 0, -1):totable())
    assert.are.same({{{0, 0, 0}, {0, 0, 0}}}, image.translate(img, 5, 0):totable())
  end)

  it('scale: constant stays constant in every mode; sizes from every form', function()
    local c = torch.Tensor(3, 5, 7):fill(0.25)
    for _, mode in ipairs{'simple', 'bilinear', 'bicubic'} do
      for _, wh in ipairs{{3, 2}, {14, 10}, {7, 5}, {1, 1}} do
        local s = image.scale(c, wh[1], wh[2], mode)
        assert.are.same({3, wh[2], wh[1]}, s:size():totable())
        assert.is_true(maxdiff(s, torch.Tensor(3, wh[2], wh[1]):fill(0.25)) < 1e-6)
      end
    end
    assert.are.same({3, 10, 14}, image.scale(c, 14):size():totable())
    assert.are.same({3, 4, 6}, image.scale(c, '6x4'):size():totable())
    assert.are.same({3, 10, 14}, image.scale(c, '^10'):size():totable())
    assert.are.same({3, 10, 14}, image.scale(c, '*2'):size():totable())
    assert.are.same({3, 15, 21}, image.scale(c, '*3/1'):size():totable())
    local dst = torch.Tensor(3, 2, 2)
    image.scale(dst, c)
    assert.is_true(maxdiff(dst, torch.Tensor(3, 2, 2):fill(0.25)) < 1e-6)
    assert.matches("image.scale: could not read a size from 'big'", errmsg(image.scale, c, 'big'))
    assert.matches('image.scale: .*mode must be one of: simple | bilinear | bicubic',
                   errmsg(image.scale, c, 4, 4, 'lanczos'))
  end)

  it('scale: hand-computed values', function()
    local row = torch.Tensor{{0, 1}}
    -- enlarging: corners aligned, linear in between
    assert.is_true(maxdiff(image.scale(row, 3, 1), torch.Tensor{{0, 0.5, 1}}) < 1e-12)
    -- shrinking: the mean of the covered area
    local r4 = torch.Tensor{{1, 2, 3, 4}}
    assert.is_true(maxdiff(image.scale(r4, 2, 1), torch.Tensor{{1.5, 3.5}}) < 1e-12)
    assert.are.same({{1, 3}}, image.scale(r4, 2, 1, 'simple'):totable())
    assert.are.same({{1, 1, 2, 2, 3, 3, 4, 4}}, image.scale(r4, 8, 1, 'simple'):totable())
    -- bicubic reproduces a linear ramp
    local ramp = torch.Tensor{{0, 1, 2, 3}}
    assert.is_true(maxdiff(image.scale(ramp, 7, 1, 'bicubic'), torch.Tensor{{0, 0.5, 1, 1.5, 2, 2.5, 3}}) < 1e-6)
    -- byte images stay bytes
    local b = image.scale(torch.ByteTensor(1, 2, 2):fill(200), 4, 4)
    assert.are.equal('torch.ByteTensor', torch.typename(b))
    assert.are.equal(200, b:min())
  end)

  it('rotate by 0 is the identity, by pi flips both ways, corners blank', function()
    local x = pattern(2, 4, 5)
    assert.is_true(maxdiff(image.rotate(x, 0), x) < 1e-12)
    assert.is_true(maxdiff(image.rotate(x, 0, 'bilinear'), x) < 1e-12)
    local flipped = image.hflip(image.vflip(x))
    assert.is_true(maxdiff(image.rotate(x, math.pi), flipped) < 1e-12)
    assert.is_true(maxdiff(image.rotate(x, math.pi, 'bilinear'), flipped) < 1e-9)
    local sq = torch.Tensor(1, 5, 5):fill(1)
    local r = image.rotate(sq, math.pi / 4)
    assert.are.equal(0, r[1][1][1])
    assert.are.equal(1, r[1][3][3])
    local dst = torch.Tensor()
    image.rotate(dst, x, 0)
    assert.is_true(maxdiff(dst, x) < 1e-12)
    assert.matches('image.rotate: .*mode must be one of: simple | bilinear', errmsg(image.rotate, x, 1, 'bicubic'))
  end)
end)

describe('image transforms on other types', function()
  it('byte images stay bytes through rotate, flips, crop and scale into a destination', function()
    local b = torch.ByteTensor(1, 2, 3)
    for i = 1, 6 do b:storage()[i] = i * 40 end
    local r = image.rotate(b, math.pi)
    assert.are.equal('torch.ByteTensor', torch.typename(r))
    assert.are.same({{{240, 200, 160}, {120, 80, 40}}}, r:totable())
    assert.are.same({{{120, 80, 40}, {240, 200, 160}}}, image.hflip(b):totable())
    local dst = torch.Tensor(1, 4, 4)
    image.crop(dst, torch.Tensor(1, 6, 6):fill(0.5), 1, 1, 5, 5)
    assert.is_true(maxdiff(dst, torch.Tensor(1, 4, 4):fill(0.5)) < 1e-12)
    local f = image.scale(torch.FloatTensor(3, 4, 4):fill(1), 2, 2)
    assert.are.equal('torch.FloatTensor', torch.typename(f))
  end)

  it('toDisplayTensor scales each image on request and takes positional arguments', function()
    local imgs = {torch.Tensor(1, 2, 2):fill(3), torch.Tensor(1, 2, 2):fill(5)}
    imgs[1][1][1][1], imgs[2][1][1][1] = 1, 1
    local g = image.toDisplayTensor{input = imgs, scaleeach = true, nrow = 2}
    assert.are.same({1, 2, 4}, g:size():totable())
    assert.are.same({{0, 1, 0, 1}, {1, 1, 1, 1}}, g[1]:totable())
    local g2 = image.toDisplayTensor(imgs, 0, 1)
    assert.are.same({1, 4, 2}, g2:size():totable())
    assert.matches("image.toDisplayTensor: input must be a tensor or a list of tensors, got number",
                   errmsg(image.toDisplayTensor, 3))
  end)
end)

describe('image colour', function()
  it('rgb2y weighs R, G, B as Torch7 (0.299, 0.587, 0.114)', function()
    local px = torch.Tensor{{{1}}, {{0.5}}, {{0}}}
    local y = image.rgb2y(px)
    assert.are.same({1, 1, 1}, y:size():totable())
    assert.is_true(math.abs(y[1][1][1] - (0.299 + 0.587 * 0.5)) < 1e-12)
  end)

  it('rgb2yuv then yuv2rgb returns the input; known pixels', function()
    local x = pattern(3, 6, 5)
    assert.is_true(maxdiff(image.yuv2rgb(image.rgb2yuv(x)), x) < 1e-4)
    local white = image.rgb2yuv(torch.Tensor(3, 1, 1):fill(1))
    assert.is_true(math.abs(white[1][1][1] - 1) < 1e-9)
    assert.is_true(math.abs(white[2][1][1]) < 1e-4 and math.abs(white[3][1][1]) < 1e-4)
  end)

  it('HSL and HSV: hand-computed pixels and round trips', function()
    -- pure red, green, blue, gray, and (1, 0.5, 0)
    local px = torch.Tensor{{{1, 0, 0, 0.5, 1}}, {{0, 1, 0, 0.5, 0.5}}, {{0, 0, 1, 0.5, 0}}}
    local hsl, hsv = image.rgb2hsl(px), image.rgb2hsv(px)
    local H = {0, 1 / 3, 2 / 3, 0, 1 / 12}
    for i = 1, 5 do
      assert.is_true(math.abs(hsl[1][1][i] - H[i]) < 1e-12)
      assert.is_true(math.abs(hsv[1][1][i] - H[i]) < 1e-12)
    end
    assert.is_true(maxdiff(hsl[2], torch.Tensor{{1, 1, 1, 0, 1}}) < 1e-12)
    assert.is_true(maxdiff(hsl[3], torch.Tensor{{0.5, 0.5, 0.5, 0.5, 0.5}}) < 1e-12)
    assert.is_true(maxdiff(hsv[2], torch.Tensor{{1, 1, 1, 0, 1}}) < 1e-12)
    assert.is_true(maxdiff(hsv[3], torch.Tensor{{1, 1, 1, 0.5, 1}}) < 1e-12)
    local x = pattern(3, 7, 9)
    assert.is_true(maxdiff(image.hsl2rgb(image.rgb2hsl(x)), x) < 1e-12)
    assert.is_true(maxdiff(image.hsv2rgb(image.rgb2hsv(x)), x) < 1e-12)
    local f = x:float()
    assert.are.equal('torch.FloatTensor', torch.typename(image.rgb2hsv(f)))
    assert.is_true(maxdiff(image.hsv2rgb(image.rgb2hsv(f)), f) < 1e-5)
  end)

  it('Lab: white is L 100, a = b = 0; black is 0; round trip', function()
    local px = torch.Tensor{{{1, 0, 1}}, {{1, 0, 0}}, {{1, 0, 0}}}
    local lab = image.rgb2lab(px)
    assert.is_true(math.abs(lab[1][1][1] - 100) < 0.01)
    assert.is_true(math.abs(lab[2][1][1]) < 0.01 and math.abs(lab[3][1][1]) < 0.01)
    assert.is_true(maxdiff(lab:select(3, 2), torch.zeros(3, 1)) < 1e-9)
    assert.is_true(lab[2][1][3] > 50 and lab[3][1][3] > 50)  -- red: a and b positive
    local x = pattern(3, 5, 6)
    assert.is_true(maxdiff(image.lab2rgb(image.rgb2lab(x)), x) < 1e-3)
  end)

  it('colour conversions take a destination and refuse other shapes', function()
    local x = pattern(3, 2, 2)
    local dst = torch.Tensor()
    image.rgb2hsl(dst, x)
    assert.is_true(maxdiff(dst, image.rgb2hsl(x)) < 1e-12)
    assert.matches('image.rgb2hsv: input must be a 3%-channel image 3 x H x W, got 4x2x2',
                   errmsg(image.rgb2hsv, torch.rand(4, 2, 2)))
    assert.matches('image.rgb2yuv: input must be a 3%-channel image', errmsg(image.rgb2yuv, torch.rand(2, 2)))
  end)
end)

describe('image kernels', function()
  it('gaussian sums to 1 when normalized, peaks at amplitude in the centre', function()
    local g = image.gaussian(5, 0.25, 1, true)
    assert.are.same({5, 5}, g:size():totable())
    assert.is_true(math.abs(g:sum() - 1) < 1e-12)
    local u = image.gaussian{size = 3, amplitude = 2}
    assert.is_true(math.abs(u[2][2] - 2) < 1e-12)
    assert.is_true(math.abs(u[1][2] - u[2][1]) < 1e-12 and u[1][1] < u[1][2])
    -- hand value: du = 1 / (0.25 * 3) at the edge centre
    assert.is_true(math.abs(u[1][2] - 2 * math.exp(-0.5 * (1 / 0.75) ^ 2)) < 1e-12)
    local g1 = image.gaussian1D(7, 0.25, 1, true)
    assert.is_true(math.abs(g1:sum() - 1) < 1e-12)
    assert.is_true(math.abs(g1[1] - g1[7]) < 1e-12)
    assert.is_true(math.abs(image.gaussian1D(3)[2] - 1) < 1e-12)
  end)

  it('convolve valid, full and same against hand values', function()
    local x = torch.Tensor{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
    local k = torch.Tensor{{1, 0}, {0, -1}}  -- flipped: out = x[i+1][j+1] - x[i][j]
    assert.are.same({{4, 4}, {4, 4}}, image.convolve(x, k):totable())
    local full = image.convolve(x, k, 'full')
    assert.are.same({4, 4}, full:size():totable())
    assert.are.same({1, 2, 3, 0}, full[1]:totable())
    assert.are.same({0, -7, -8, -9}, full[4]:totable())
    local box = torch.Tensor(3, 3):fill(1)
    local same = image.convolve(x, box, 'same')
    assert.are.same({{12, 21, 16}, {27, 45, 33}, {24, 39, 28}}, same:totable())
    local rgb = torch.Tensor(3, 3, 3)
    for c = 1, 3 do rgb[c]:copy(x):mul(c) end
    local v = image.convolve(rgb, box)
    assert.are.same({3, 1, 1}, v:size():totable())
    assert.are.same({45, 90, 135}, {v[1][1][1], v[2][1][1], v[3][1][1]})
    assert.matches("image.convolve: mode has to be one of: full | valid | same",
                   errmsg(image.convolve, x, k, 'wrap'))
    assert.matches('image.convolve: kernel 4x4 larger than the input 3x3',
                   errmsg(image.convolve, x, torch.ones(4, 4)))
  end)
end)

describe('image display helpers', function()
  it('minmax rescales to [0, 1]', function()
    local t = torch.Tensor{2, 4, 6}
    assert.are.same({0, 0.5, 1}, image.minmax{tensor = t}:totable())
    assert.are.same({2, 4, 6}, t:totable())
    assert.are.same({0.5, 1, 1}, image.minmax{tensor = t, min = 0, max = 4, saturate = true}:totable())
  end)

  it('toDisplayTensor lays images out on a grid with padding', function()
    local imgs = {}
    for i = 1, 5 do imgs[i] = torch.Tensor(3, 4, 4):fill(i) end
    local g = image.toDisplayTensor{input = imgs, padding = 2, nrow = 3}
    assert.are.same({3, 2 * 6, 3 * 6}, g:size():totable())
    assert.is_true(math.abs(g:min()) < 1e-12 and math.abs(g:max() - 1) < 1e-12)
    assert.are.equal(0, g[1][2][2])          -- first image (value 1 -> 0)
    assert.are.equal(1, g[1][1][1])          -- padding filled with the maximum
    local planes = image.toDisplayTensor(torch.rand(4, 3, 5), 1, 2)
    assert.are.same({2 * 4, 2 * 6}, planes:size():totable())
  end)

  it('lena is a deterministic synthetic 3 x 512 x 512 picture in [0, 1]', function()
    local a, b = image.lena(), image.lena()
    assert.are.same({3, 512, 512}, a:size():totable())
    assert.are.equal(0, maxdiff(a, b))
    assert.is_true(a:min() >= 0 and a:max() <= 1)
  end)

  it('display writes a PNG and says where', function()
    local p = tmpname('.png')
    local where = image.display{image = torch.rand(3, 4, 4), filename = p, quiet = true, zoom = 2}
    assert.are.equal(p, where)
    assert.are.same({3, 8, 8}, image.load(p):size():totable())
    os.remove(p)
  end)
end)
