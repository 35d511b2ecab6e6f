-- image, the parts Torch7's own test suite needs: PGM/PPM, 16-bit PNG,
-- ByteTensor conversions and scaling, gaussian pyramids, jet colour maps,
-- laplacian, lcn, erode/dilate, drawing, warp, dok, File:readByte. Expected values come from the
-- definitions (formulas, hand-made files), not from the functions tested.
require 'torch'
local image = require 'image'

local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. ext
end

local function writefile(p, data)
  local f = assert(io.open(p, 'wb'))
  f:write(data)
  f:close()
end

local function maxdiff(a, b) return (a:double() - b:double()):abs():max() end

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

-- a PNG file written by hand: zlib 'stored' blocks, CRC-32 and Adler-32
-- computed here (PNG specification, RFC 1950/1951)
local crctable = {}
for n = 0, 255 do
  local c = n
  for _ = 1, 8 do c = (c & 1) == 1 and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crctable[n] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = crctable[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end
local function chunk(kind, data)
  return string.pack('>I4', #data) .. kind .. data .. string.pack('>I4', crc32(kind .. data))
end
local function zlibstored(raw)
  local a, b = 1, 0
  for i = 1, #raw do a = (a + raw:byte(i)) % 65521; b = (b + a) % 65521 end
  return '\120\1' .. '\1' .. string.pack('<I2I2', #raw, (~#raw) & 0xFFFF) .. raw
      .. string.pack('>I4', (b << 16) | a)
end
-- rows: a table of rows of 16-bit samples (interleaved channels); ctype 0 gray, 2 RGB
local function png16(w, h, ctype, rows)
  local raw = {}
  for y = 1, h do
    raw[#raw + 1] = '\0'
    for _, v in ipairs(rows[y]) do raw[#raw + 1] = string.pack('>I2', v) end
  end
  return '\137PNG\r\n\26\n' .. chunk('IHDR', string.pack('>I4I4BBBBB', w, h, 16, ctype, 0, 0, 0))
      .. chunk('IDAT', zlibstored(table.concat(raw))) .. chunk('IEND', '')
end

describe('image: PGM and PPM', function()
  it('reads ASCII and binary maps, comments, maxval scaling floor(255 v / maxval)', function()
    local p = tmpname('.pgm')
    writefile(p, 'P2\n# a comment\n3 2\n# another\n15\n0 3 15\n7 8 1\n')
    local img = image.load(p, nil, 'byte')
    assert.are.same({1, 2, 3}, img:size():totable())
    local want = {{0, 3, 15}, {7, 8, 1}}
    for y = 1, 2 do
      for x = 1, 3 do assert.are.equal(math.floor(255 * want[y][x] / 15), img[1][y][x]) end
    end
    -- binary, 16-bit big-endian samples, maxval 1000, no extension
    local q = tmpname('')
    writefile(q, 'P5 2 1 1000\n' .. string.pack('>I2I2', 1000, 333))
    local g = image.load(q, nil, 'byte')
    assert.are.same({255, math.floor(255 * 333 / 1000)}, {g[1][1][1], g[1][1][2]})
    -- P3 (ASCII RGB) as floats in [0, 1]
    writefile(p, 'P3 1 1 255 10 20 30')
    local rgb = image.loadPPM(p)
    assert.is_true(maxdiff(rgb:view(3), torch.DoubleTensor{10, 20, 30}:div(255)) < 1e-7)
    os.remove(p)
    os.remove(q)
  end)

  it('savePPM / savePGM write binary P6 / P5 that load back exactly', function()
    local img = torch.ByteTensor(3, 4, 5)
    local s = img:storage()
    for i = 1, s:size() do s[i] = (i * 37) % 256 end
    local p = tmpname('.ppm')
    image.save(p, img)
    local f = assert(io.open(p, 'rb'))
    local head = f:read(12)
    f:close()
    assert.are.equal('P6\n5 4\n255\n', head:sub(1, 11))
    assert.are.equal(0, maxdiff(image.load(p, nil, 'byte'), img))
    local g = tmpname('.pgm')
    image.savePGM(g, img[2])
    assert.are.equal(0, maxdiff(image.load(g, nil, 'byte')[1], img[2]))
    os.remove(p)
    os.remove(g)
    assert.matches('image.savePPM: can only save 3 x H x W', errmsg(image.savePPM, p, img[1]))
  end)

  it('refuses bitmaps, truncated data, samples above maxval', function()
    local p = tmpname('.pbm')
    writefile(p, 'P4\n1 1\n\128')
    assert.matches('image.loadPPM: unsupported magic number: P4', errmsg(image.loadPPM, p))
    writefile(p, 'P6\n2 2\n255\nabc')
    assert.matches('image.loadPPM: corrupted file or read error', errmsg(image.loadPPM, p))
    writefile(p, 'P2\n1 1\n10\n11\n')
    assert.matches('above maxval', errmsg(image.loadPPM, p))
    os.remove(p)
  end)
end)

describe('image: PNG details', function()
  it('16-bit samples: v / 65535 as floats, the high byte as bytes', function()
    local p = tmpname('.png')
    writefile(p, png16(2, 1, 2, {{65535, 0, 16383, 0, 32767, 256}}))
    local f = image.load(p, nil, 'double')
    local want = {{65535, 0}, {0, 32767}, {16383, 256}}
    for k = 1, 3 do
      for x = 1, 2 do assert.is_true(math.abs(f[k][1][x] - want[k][x] / 65535) < 1e-12) end
    end
    local b = image.load(p, nil, 'byte')
    for k = 1, 3 do
      for x = 1, 2 do assert.are.equal(want[k][x] >> 8, b[k][1][x]) end
    end
    os.remove(p)
  end)

  it('depth 1 gives Torch7 shapes: 1 x H x W from gray, H x W from colour', function()
    local p = tmpname('.png')
    writefile(p, png16(3, 2, 0, {{0, 1, 2}, {3, 4, 5}}))
    assert.are.same({1, 2, 3}, image.load(p, 1):size():totable())
    writefile(p, png16(1, 1, 2, {{65535, 65535, 65535}}))
    assert.are.same({1, 1}, image.load(p, 1):size():totable())
    os.remove(p)
  end)

  it('a bad chunk CRC is a clear error with Torch7 wording; decompress of bytes', function()
    local good = png16(1, 1, 0, {{7}})
    local bad = good:sub(1, 29) .. string.char(good:byte(30) ~ 1) .. good:sub(31)  -- IHDR's CRC
    local p = tmpname('.png')
    writefile(p, bad)
    assert.matches('image.load: corrupt PNG file %(Error during init_io: ', errmsg(image.load, p))
    local t = torch.ByteTensor(#good)
    for i = 1, #good do t[i] = good:byte(i) end
    assert.are.equal(7, image.decompressPNG(t, nil, 'double')[1][1][1] * 65535)
    os.remove(p)
  end)

  it('unknown types: no extension, unknown extension', function()
    local p = tmpname('')
    writefile(p, 'BM not a picture')
    assert.matches('image.load: unable to determine image type for file: ', errmsg(image.load, p))
    writefile(p .. '.bmp', 'BM not a picture')
    assert.matches('image.load: unknown image type: bmp', errmsg(image.load, p .. '.bmp'))
    os.remove(p)
    os.remove(p .. '.bmp')
  end)
end)

describe('image: ByteTensors', function()
  -- HSV of r, g, b in [0, 1] by the definition
  local function hsv(r, g, b)
    local mx, mn = math.max(r, g, b), math.min(r, g, b)
    local d, h = mx - mn, 0
    if d > 0 then
      if mx == r then h = ((g - b) / d) % 6 elseif mx == g then h = (b - r) / d + 2 else h = (r - g) / d + 4 end
      h = h / 6
    end
    return h, mx > 0 and d / mx or 0, mx
  end

  it('rgb2hsv and rgb2y of bytes: 255 f(x / 255), rounded', function()
    local px = {{255, 0, 0}, {0, 128, 255}, {12, 200, 90}, {77, 77, 77}}
    local img = torch.ByteTensor(3, 1, #px)
    for i, p in ipairs(px) do for k = 1, 3 do img[k][1][i] = p[k] end end
    local out, y = image.rgb2hsv(img), image.rgb2y(img)
    assert.are.equal('torch.ByteTensor', torch.typename(out))
    for i, p in ipairs(px) do
      local h, s, v = hsv(p[1] / 255, p[2] / 255, p[3] / 255)
      assert.are.same({math.floor(h * 255 + 0.5), math.floor(s * 255 + 0.5), math.floor(v * 255 + 0.5)},
                      {out[1][1][i], out[2][1][i], out[3][1][i]})
      assert.are.equal(math.floor(0.299 * p[1] + 0.587 * p[2] + 0.114 * p[3] + 0.5), y[1][1][i])
    end
    assert.matches('image.rgb2lab: a ByteTensor cannot hold Lab', errmsg(image.rgb2lab, img))
  end)

  it('bilinear scaling rounds after the row pass and after the column pass', function()
    -- rows 1 2 -> 1 1.5 2 -> 1 2 2; 2 3 -> 2 3 3; columns of those likewise
    local out = image.scale(torch.ByteTensor{{1, 2}, {2, 3}}, 3, 3)
    assert.are.same({{1, 2, 2}, {2, 3, 3}, {2, 3, 3}}, out:double():totable())
  end)

  it('gaussian into a ByteTensor: amplitude exp(...) rounded and clamped to 0..255', function()
    local g = image.gaussian{amplitude = 1000, tensor = torch.ByteTensor(5, 5)}
    local c = 0.5 * 5 + 0.5
    for v = 1, 5 do
      for u = 1, 5 do
        local e = 1000 * math.exp(-(((u - c) / (0.25 * 5)) ^ 2 + ((v - c) / (0.25 * 5)) ^ 2) / 2)
        assert.are.equal(math.min(255, math.floor(e + 0.5)), g[v][u])
      end
    end
  end)
end)

describe('image: pyramids, colour maps', function()
  it('gaussianpyramid keeps the type, sizes scale, a constant interior stays constant', function()
    local src = torch.DoubleTensor(16, 16):fill(0.25)
    local p = image.gaussianpyramid(src, {1, 0.5})
    assert.are.same({16, 16}, p[1]:size():totable())
    assert.are.same({8, 8}, p[2]:size():totable())
    assert.are.equal(0, maxdiff(p[1], src))
    assert.is_true(math.abs(p[2][4][4] - 0.25) < 1e-12)
    assert.are.equal('torch.ByteTensor', torch.typename(image.gaussianpyramid(src:byte(), {0.5})[1]))
  end)

  it('jetColormap and y2jet by the formula (hand values for 4 colours)', function()
    local want = {{0, 0.5, 1}, {0.5, 1, 0.5}, {1, 0.5, 0}, {0.5, 0, 0}}
    assert.is_true(maxdiff(image.jetColormap(4), torch.DoubleTensor(want)) < 1e-12)
    local levels = torch.DoubleTensor{{1, 2}, {3, 4}}
    local rgb = image.y2jet(levels)
    assert.are.same({3, 2, 2}, rgb:size():totable())
    for i = 1, 4 do
      local y, x = (i - 1) // 2 + 1, (i - 1) % 2 + 1
      for k = 1, 3 do assert.are.equal(want[i][k], rgb[k][y][x]) end
    end
    local b = image.y2jet(levels:byte())
    assert.are.equal(128, b[2][1][1])   -- round(0.5 * 255)
    assert.matches('image.y2jet: levels must be integers from 1', errmsg(image.y2jet, torch.zeros(2)))
  end)
end)

describe('image: laplacian, lcn, erode, dilate, rgb2nrgb, colormap', function()
  it('laplacian: (1 - q) exp(-q) by the formula, Torch7 parameter pairing', function()
    local k = image.laplacian{width = 4, height = 3, sigma_horz = 0.2, sigma_vert = 0.3, amplitude = 2}
    assert.are.same({3, 4}, k:size():totable())
    local cx, cy = 0.5 * 4 + 0.5, 0.5 * 3 + 0.5
    for i = 1, 3 do
      for j = 1, 4 do
        local q = ((i - cx) / (0.2 * 4)) ^ 2 / 2 + ((j - cy) / (0.3 * 3)) ^ 2 / 2
        assert.is_true(math.abs(k[i][j] - 2 * (1 - q) * math.exp(-q)) < 1e-12)
      end
    end
    assert.is_true(math.abs(image.laplacian{size = 5, normalize = true}:sum() - 1) < 1e-12)
  end)

  it('lcn: standardized, minus the local mean, over the local std (at least 1)', function()
    torch.manualSeed(3)
    local im = torch.rand(6, 7):mul(10)
    local ker = torch.ones(3, 3):div(9)
    local out = image.lcn(im, ker)
    assert.are.same({4, 5}, out:size():totable())
    local m, sd = im:mean(), im:std()
    local z = im:clone():add(-m):div(sd)
    for y = 1, 4 do
      for x = 1, 5 do
        local s, s2 = 0, 0
        for dy = 0, 2 do for dx = 0, 2 do
          local v = z[y + dy][x + dx]
          s, s2 = s + v / 9, s2 + v * v / 9
        end end
        local lstd = math.max(1, math.sqrt(math.max(0, s2 - s * s)))
        assert.is_true(math.abs(out[y][x] - (z[y + 1][x + 1] - s) / lstd) < 1e-12)
      end
    end
    assert.matches('image.lcn: grayscale image expected', errmsg(image.lcn, torch.rand(3, 4, 4)))
  end)

  it('erode and dilate binary images: padding, kernel read as laid out', function()
    local im = torch.zeros(5, 5)
    im:narrow(1, 2, 3):narrow(2, 2, 3):fill(1)
    local e = image.erode(im)
    assert.are.equal(1, e:sum())
    assert.are.equal(1, e[3][3])
    assert.are.equal(16, image.erode(torch.ones(4, 4)):sum())      -- padded with 1
    assert.are.equal(4, image.erode(torch.ones(4, 4), nil, 0):sum()) -- padded with 0
    local dot = torch.zeros(5, 5)
    dot[3][3] = 1
    assert.are.equal(0, maxdiff(image.dilate(dot), im))
    -- out(y, x) is 1 when a kernel one at offset (dy, dx) from the centre sees in(y + dy, x + dx) = 1
    local d = image.dilate(dot, torch.Tensor{{0, 0, 0}, {0, 1, 1}, {0, 0, 0}})
    assert.are.same({1, 1, 2}, {d[3][2], d[3][3], d:sum()})
    assert.matches('image.erode: kernel must be a 2D tensor of odd sizes', errmsg(image.erode, im, torch.ones(2, 2)))
  end)

  it('rgb2nrgb and colormap by their formulas', function()
    local img = torch.Tensor(3, 1, 1)
    img[1][1][1], img[2][1][1], img[3][1][1] = 1, 2, 5
    local n = image.rgb2nrgb(img)
    for k, v in ipairs{1, 2, 5} do assert.is_true(math.abs(n[k][1][1] - v / (8 + 1e-6)) < 1e-15) end
    local map = image.colormap(2)
    -- hue 0, saturation 0.3, lightness 0.5: chroma 0.3 -> (0.65, 0.35, 0.35)
    assert.is_true(maxdiff(map[1], torch.Tensor{0.65, 0.35, 0.35}) < 1e-12)
    -- hue 39, saturation 0.3 + 1/9: c, c (1 - |39/60 - 1|), 0, plus 0.5 - c/2
    local c = 0.3 + 1 / 9
    local want = torch.Tensor{c, c * (1 - math.abs(39 / 60 - 1)), 0}:add(0.5 - c / 2)
    assert.is_true(maxdiff(map[2], want) < 1e-12)
    assert.matches('image.rgb2nrgb: a Float or Double image expected', errmsg(image.rgb2nrgb, img:byte()))
  end)
end)

describe('image: drawing', function()
  local function mask(img)  -- rows of '#' (first channel set) and '.'
    local t = {}
    for y = 1, img:size(2) do
      local r = {}
      for x = 1, img:size(3) do r[x] = img[1][y][x] > 0 and '#' or '.' end
      t[y] = table.concat(r)
    end
    return t
  end

  it('drawRect: 1-based corners, lines centred, colours / 255 in floats', function()
    local out = image.drawRect(torch.zeros(3, 6, 7), 2, 2, 6, 4, {color = {255, 0, 51}})
    assert.are.same({'.......', '.#####.', '.#...#.', '.#####.', '.......', '.......'}, mask(out))
    assert.is_true(math.abs(out[3][2][2] - 0.2) < 1e-12 and out[2][2][2] == 0)
    -- width 2 covers the coordinate and the one before it
    local w2 = image.drawRect(torch.ByteTensor(3, 7, 7):zero(), 3, 3, 6, 6, {lineWidth = 2})
    assert.are.same({'.......', '.#####.', '.#####.', '.##.##.', '.#####.', '.#####.', '.......'}, mask(w2))
    assert.are.equal(255, w2[1][2][2])
  end)

  it('drawText: cells of 6 x 8 from 0-based x, y; newlines, wrapping, size, background', function()
    local out = image.drawText(torch.zeros(3, 18, 14), '||\n|', 1, 1, {color = {255, 255, 255}})
    local m = mask(out)
    -- '|' is the middle column of its 5: x + 2 in each cell
    for y = 2, 8 do assert.are.equal('...#.....#....', m[y]) end
    for y = 10, 16 do assert.are.equal('...#..........', m[y]) end
    assert.are.equal('..............', m[9])
    -- wrapping: the third cell would reach the edge (12 + 6 >= 14), so it
    -- starts the next line at x = 0
    local w = mask(image.drawText(torch.zeros(3, 16, 14), '|||', 0, 0))
    assert.are.equal('..#.....#.....', w[1])
    assert.are.equal('..#...........', w[9])
    -- size 2: dots of 2 x 2; background fills the rest of the cell
    local big = image.drawText(torch.zeros(3, 16, 12), '|', 0, 0, {size = 2, bg = {0, 0, 255}, wrap = false})
    assert.are.equal('....##......', mask(big)[1])
    assert.are.equal(1, big[3][1][1])
    assert.are.equal(0, big[3][1][5])
    assert.matches('image.drawText: input image has to be a 3D tensor', errmsg(image.drawText, torch.zeros(4, 4), 'a'))
  end)
end)

describe('image.warp', function()
  local src = torch.DoubleTensor(2, 5, 6)
  for k = 1, 2 do for y = 1, 5 do for x = 1, 6 do src[k][y][x] = k * 100 + y * 10 + x end end end

  it('a zero flow is the identity in every mode', function()
    local zero = torch.zeros(2, 5, 6)
    for _, mode in ipairs{'simple', 'bilinear', 'bicubic', 'lanczos'} do
      assert.is_true(maxdiff(image.warp(src, zero, mode), src) < 1e-9, mode)
    end
  end)

  it('shifts, half-pixel averages, clamp and pad modes, absolute positions', function()
    local f = torch.zeros(2, 5, 6)
    f[2]:fill(1)   -- one column to the right
    local s = image.warp(src, f, 'simple')
    assert.are.equal(0, maxdiff(s:narrow(3, 1, 5), src:narrow(3, 2, 5)))
    assert.are.equal(0, maxdiff(s:select(3, 6), src:select(3, 6)))    -- clamped
    local pad = image.warp(src, f, 'bilinear', true, 'pad', -1)
    assert.is_true(pad:select(3, 6):eq(-1):all())
    f[2]:fill(0.5)
    local half = image.warp(src, f, 'bilinear')
    assert.is_true(math.abs(half[1][3][2] - (src[1][3][2] + src[1][3][3]) / 2) < 1e-12)
    local abs = image.warp(src, torch.zeros(2, 3, 4), 'bilinear', false)
    assert.are.same({2, 3, 4}, abs:size():totable())
    assert.is_true(abs[2]:eq(src[2][1][1]):all())
    assert.matches("image.warp: mode must be one of", errmsg(image.warp, src, f, 'cubic'))
    assert.matches("image.warp: pad_value can only be given", errmsg(image.warp, src, f, 'simple', true, 'clamp', 1))
    assert.matches('image.warp: field must be a 2 x H x W tensor', errmsg(image.warp, src, torch.zeros(3, 5, 6)))
  end)
end)

describe('image.affinetransform', function()
  it('samples the source at c + M (p - c) - t: identity, quarter turn, translation', function()
    local src = torch.Tensor{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
    assert.is_true(maxdiff(image.affinetransform(src, torch.eye(2)), src) < 1e-12)
    -- M = {{0, 1}, {-1, 0}}: p = (y, x) reads (1 + (x - 1), 1 - (y - 1))
    local q = image.affinetransform(src, torch.Tensor{{0, 1}, {-1, 0}}, 'simple')
    for y = 0, 2 do
      for x = 0, 2 do assert.are.equal(src[x + 1][2 - y + 1], q[y + 1][x + 1]) end
    end
    local s = image.affinetransform(src, torch.eye(2), 'simple', {0, -1}, 'pad', -1)
    assert.are.same({{2, 3, -1}, {5, 6, -1}, {8, 9, -1}}, s:totable())
    assert.matches('image.affinetransform: matrix must be a 2 x 2 tensor', errmsg(image.affinetransform, src, torch.eye(3)))
  end)
end)

describe('image: sample pictures, dok, File:readByte', function()
  it('lena and fabio hold 8-bit samples (multiples of 1/255) in Torch7 shapes', function()
    local l, f = image.lena(), image.fabio()
    assert.are.same({3, 512, 512}, l:size():totable())
    assert.are.equal(2, f:dim())
    assert.is_true(f:size(1) > 256 and f:size(2) > 256)
    for _, t in ipairs{l, f} do
      local s = t:clone():mul(255)
      assert.is_true((s - s:clone():round()):abs():max() < 1e-9)
    end
  end)

  it('$TORCH_IMAGE_ASSETS: the photographs from there, or a clear error', function()
    local dir = tmpname('')
    assert(os.execute('mkdir ' .. dir))
    local img = torch.ByteTensor(3, 5, 4):random(0, 255)
    image.save(dir .. '/fabio.png', img)
    local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/image_more_spec%.lua$') or ''
    local th = (root == '' and './' or root) .. 'bin/th'
    local function run(code)
      local p = io.popen('TORCH_IMAGE_ASSETS=' .. dir .. ' ' .. th .. " -e \"require 'image'; " .. code .. '" 2>&1')
      local out = p:read('a')
      p:close()
      return out
    end
    -- depth 1 of colour: Y, H x W, as Torch7's fabio
    local y = image.rgb2y(img:float():div(255))[1]
    local out = run("local f = image.fabio(); print(f:dim(), f:size(1), f:size(2), f[2][3])")
    local d, h, w, v = out:match('(%d+)%s+(%d+)%s+(%d+)%s+(%S+)')
    assert.are.same({'2', '5', '4'}, {d, h, w}, out)
    assert.is_true(math.abs(tonumber(v) - y[2][3]) < 1e-6, out)
    assert.matches('image.lena: $TORCH_IMAGE_ASSETS is .* which holds no grace_hopper_512.jpg', run('image.lena()'))
    os.remove(dir .. '/fabio.png')
    os.remove(dir)
  end)

  it('dok.unpack (named, positional, defaulta), dok.error', function()
    local defs = {{arg = 'size', type = 'number', default = 3}, {arg = 'width', type = 'number', defaulta = 'size'}}
    local _, s, w = dok.unpack({{size = 5}}, 'f', 'd', table.unpack(defs))
    assert.are.same({5, 5}, {s, w})
    _, s, w = dok.unpack({2, 7}, 'f', 'd', table.unpack(defs))
    assert.are.same({2, 7}, {s, w})
    assert.matches('<image.x> bad', errmsg(dok.error, 'bad', 'image.x'))
  end)

  it('File:readByte(n) and readByte(storage), 1-based positions', function()
    local p = tmpname('.bin')
    writefile(p, 'ABCDE')
    local f = torch.DiskFile(p, 'r')
    f:binary()
    local st = torch.ByteStorage(3)
    assert.are.equal(3, f:readByte(st))
    assert.are.same({65, 66, 67}, {st[1], st[2], st[3]})
    local two = f:readByte(2)
    assert.are.same({68, 69}, {two[1], two[2]})
    f:seek(2)
    assert.are.equal(66, f:readByte())
    f:close()
    os.remove(p)
  end)
end)
