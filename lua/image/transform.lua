-- image geometry and kernels, with Torch7's argument forms: an optional
-- destination first (image.scale(dst, src)), coordinates 0-based in pixels
-- with x the column and y the row, regions [x1, x2) x [y1, y2).
-- scale and rotate interpolate in C (torch._C.image), convolve convolves in
-- C; crop, translate and the flips are views and copies; the grids of
-- toDisplayTensor and the synthetic lena are tensor operations.
local image = require 'image'
local C = torch._C.image
local P = image._private
local fail, checkimage = P.fail, P.checkimage

local function dims(img)  -- width, height
  return img:size(img:dim()), img:size(img:dim() - 1)
end

local function isstr(v) return type(v) == 'string' end

local function isfloating(t)
  local n = torch.typename(t)
  return n == 'torch.FloatTensor' or n == 'torch.DoubleTensor'
end

----------------------------------------------------------------------
-- scale

-- a size "WxH", MAX (number or string), "^MIN", "*SCn/SCd" or "*SC" -> width, height
local function parsesize(src, size)
  local iw, ih = dims(src)
  local n = tonumber(size)
  if n then
    local m = math.max(iw, ih)
    return iw * n / m, ih * n / m
  end
  local w, h = size:match('^(%d+)x(%d+)$')
  if w then return tonumber(w), tonumber(h) end
  local mn = tonumber(size:match('^%^(%d+)$') or '')
  if mn then
    local m = math.min(iw, ih)
    return iw * mn / m, ih * mn / m
  end
  local a, b = size:match('^%*(%d+)/(%d+)$')
  if a then return iw * a / b, ih * a / b end
  local sc = tonumber(size:match('^%*(.+)$') or '')
  if sc then return iw * sc, ih * sc end
end

function image.scale(...)
  local fn = 'image.scale'
  local n, a = select('#', ...), {...}
  local dst, src, width, height, mode, size
  if n == 4 then
    src, width, height, mode = a[1], a[2], a[3], a[4]
  elseif n == 3 then
    if isstr(a[3]) then
      if isstr(a[2]) or type(a[2]) == 'number' then src, size, mode = a[1], a[2], a[3]
      else dst, src, mode = a[1], a[2], a[3] end
    else
      src, width, height = a[1], a[2], a[3]
    end
  elseif n == 2 then
    if isstr(a[2]) or type(a[2]) == 'number' then src, size = a[1], a[2]
    else dst, src = a[1], a[2] end
  else
    fail(fn, 'expects (src, width, height [, mode]), (src, size [, mode]) or (dst, src [, mode])')
  end
  checkimage(fn, src, 'src')
  if size then
    width, height = parsesize(src, size)
    if not width then fail(fn, "could not read a size from '%s'", tostring(size)) end
  end
  if dst then
    checkimage(fn, dst, 'dst')
    width, height = dims(dst)
  elseif type(width) ~= 'number' or type(height) ~= 'number' then
    fail(fn, 'width and height must be numbers, got %s and %s', type(width), type(height))
  end
  width, height = math.max(math.floor(width), 1), math.max(math.floor(height), 1)
  mode = mode or 'bilinear'
  if mode ~= 'simple' and mode ~= 'bilinear' and mode ~= 'bicubic' then
    fail(fn, "mode must be one of: simple | bilinear | bicubic, got '%s'", tostring(mode))
  end
  if mode == 'bilinear' and torch.typename(src) == 'torch.ByteTensor' then
    -- Torch7 scaled the rows into a byte temporary, then the columns: the
    -- values are rounded after each pass
    local rows = P.finish(C.scale(P.floating(src), width, src:size(src:dim() - 1), mode, fn), src)
    return P.finish(C.scale(P.floating(rows), width, height, mode, fn), src, dst)
  end
  return P.finish(C.scale(P.floating(src), width, height, mode, fn), src, dst)
end

----------------------------------------------------------------------
-- crop, translate, flips

local function region(fn, src, x1, y1, x2, y2)
  local w, h = dims(src)
  for _, v in ipairs{x1, y1, x2, y2} do
    if type(v) ~= 'number' then fail(fn, 'coordinates must be numbers, got %s', type(v)) end
  end
  x1, y1, x2, y2 = math.floor(x1), math.floor(y1), math.floor(x2), math.floor(y2)
  if x1 < 0 or y1 < 0 or x2 > w or y2 > h or x2 <= x1 or y2 <= y1 then
    fail(fn, 'region (%d,%d)-(%d,%d) is not inside the %dx%d image (width x height)',
         x1, y1, x2, y2, w, h)
  end
  local d = src:dim()
  return src:narrow(d, x1 + 1, x2 - x1):narrow(d - 1, y1 + 1, y2 - y1)
end

local corners = {
  c = function(iw, ih, w, h) return math.floor((iw - w) / 2), math.floor((ih - h) / 2) end,
  tl = function() return 0, 0 end,
  tr = function(iw, _, w) return iw - w, 0 end,
  bl = function(_, ih, _, h) return 0, ih - h end,
  br = function(iw, ih, w, h) return iw - w, ih - h end,
}

function image.crop(...)
  local fn = 'image.crop'
  local n, a = select('#', ...), {...}
  local dst, src, x1, y1, x2, y2, format, w, h
  if n == 6 then
    dst, src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5], a[6]
  elseif n == 5 then
    if isstr(a[3]) then dst, src, format, w, h = a[1], a[2], a[3], a[4], a[5]
    else src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5] end
  elseif n == 4 then
    if isstr(a[2]) then src, format, w, h = a[1], a[2], a[3], a[4]
    else dst, src, x1, y1 = a[1], a[2], a[3], a[4] end
  else
    fail(fn, 'expects (src, x1, y1, x2, y2), (src, format, width, height) or a destination first')
  end
  checkimage(fn, src, 'src')
  if format then
    local corner = corners[format]
    if not corner then fail(fn, "format must be 'c', 'tl', 'tr', 'bl' or 'br', got '%s'", format) end
    local iw, ih = dims(src)
    x1, y1 = corner(iw, ih, w, h)
    x2, y2 = x1 + w, y1 + h
  end
  if x2 == nil then  -- (dst, src, x1, y1): the destination's size
    checkimage(fn, dst, 'dst')
    local dw, dh = dims(dst)
    dst:copy(region(fn, src, x1, y1, x1 + dw, y1 + dh))
    return dst
  end
  local r = region(fn, src, x1, y1, x2, y2):clone()
  if dst then return image.scale(dst, r) end
  return r
end

function image.translate(...)
  local fn = 'image.translate'
  local n, a = select('#', ...), {...}
  local dst, src, x, y
  if n == 4 then dst, src, x, y = a[1], a[2], a[3], a[4]
  elseif n == 3 then src, x, y = a[1], a[2], a[3]
  else fail(fn, 'expects ([dst,] src, x, y)') end
  checkimage(fn, src, 'src')
  if type(x) ~= 'number' or type(y) ~= 'number' then fail(fn, 'x and y must be numbers') end
  x, y = math.floor(x), math.floor(y)
  dst = dst or src.new()
  dst:resizeAs(src):zero()
  local w, h = dims(src)
  local cw, ch = w - math.abs(x), h - math.abs(y)
  if cw > 0 and ch > 0 then
    local d = src:dim()
    local from = src:narrow(d, math.max(-x, 0) + 1, cw):narrow(d - 1, math.max(-y, 0) + 1, ch)
    dst:narrow(d, math.max(x, 0) + 1, cw):narrow(d - 1, math.max(y, 0) + 1, ch):copy(from)
  end
  return dst
end

-- the image reversed along dimension d
local function reverse(src, d)
  local len = src:size(d)
  local idx = torch.LongTensor(len)
  for i = 1, len do idx[i] = len - i + 1 end
  return src:index(d, idx)
end

function image.flip(...)
  local fn = 'image.flip'
  local n, a = select('#', ...), {...}
  local dst, src, d
  if n == 3 then dst, src, d = a[1], a[2], a[3] else src, d = a[1], a[2] end
  if not torch.isTensor(src) then fail(fn, 'src must be a tensor') end
  if type(d) ~= 'number' or d < 1 or d > src:dim() then
    fail(fn, 'flip dimension must be 1..%d, got %s', src:dim(), tostring(d))
  end
  local r = reverse(src, d)
  if dst then return dst:resizeAs(r):copy(r) end
  return r
end

function image.hflip(a, b)
  local dst, src = nil, a
  if b ~= nil then dst, src = a, b end
  checkimage('image.hflip', src, 'src')
  local r = reverse(src, src:dim())
  if dst then return dst:resizeAs(r):copy(r) end
  return r
end

function image.vflip(a, b)
  local dst, src = nil, a
  if b ~= nil then dst, src = a, b end
  checkimage('image.vflip', src, 'src')
  local r = reverse(src, src:dim() - 1)
  if dst then return dst:resizeAs(r):copy(r) end
  return r
end

----------------------------------------------------------------------
-- warp

local warpmodes = {simple = true, bilinear = true, bicubic = true, lanczos = true}

-- ([dst,] src, field [, mode [, offset [, clamp_mode [, pad_value]]]]), as
-- Torch7's: field is 2 x H x W (row, then column displacements, in pixels)
-- added to each destination pixel's own position unless offset is false;
-- mode simple | bilinear (default) | bicubic | lanczos; positions off the
-- source are clamped to its border ('clamp', default) or give pad_value
-- ('pad'); bicubic taps off the source read pad_value (0), as Torch7's
function image.warp(...)
  local fn = 'image.warp'
  local n, a = select('#', ...), {...}
  local dst, src, field, rest
  if n >= 3 and torch.isTensor(a[3]) then
    dst, src, field, rest = a[1], a[2], a[3], 4
  elseif n >= 2 then
    src, field, rest = a[1], a[2], 3
  else
    fail(fn, 'expects ([dst,] src, field [, mode [, offset [, clamp_mode [, pad_value]]]])')
  end
  if n > rest + 3 then fail(fn, 'too many arguments (%d)', n) end
  local mode, offset, clamp, padv = a[rest], a[rest + 1], a[rest + 2], a[rest + 3]
  if mode == nil then mode = 'bilinear' end
  if offset == nil then offset = true end
  if clamp == nil then clamp = 'clamp' end
  if not warpmodes[mode] then
    fail(fn, "mode must be one of: lanczos | bicubic | bilinear | simple, got '%s'", tostring(mode))
  end
  if clamp ~= 'clamp' and clamp ~= 'pad' then
    fail(fn, "clamp_mode must be 'clamp' or 'pad', got '%s'", tostring(clamp))
  end
  if padv ~= nil and clamp ~= 'pad' then fail(fn, "pad_value can only be given with clamp_mode 'pad'") end
  if padv ~= nil and type(padv) ~= 'number' then fail(fn, 'pad_value must be a number, got %s', type(padv)) end
  checkimage(fn, src, 'src')
  if not torch.isTensor(field) or field:dim() ~= 3 or field:size(1) ~= 2 then
    fail(fn, 'field must be a 2 x H x W tensor, got %s', torch.isTensor(field)
         and table.concat(field:size():totable(), 'x') or torch.type(field))
  end
  local f = P.floating(src)
  local in3 = f:dim() == 2 and f:view(1, f:size(1), f:size(2)) or f
  local res = C.warp(in3, field:type(torch.typename(f)), mode, offset and true or false,
                     clamp == 'pad', padv or 0, fn)
  if src:dim() == 2 then res = res[1] end
  return P.finish(res, src, dst)
end

-- ([dst,] src, matrix [, mode, translation, clamp_mode, pad_value]), as
-- Torch7's: a 2 x 2 matrix M acting on (row, column) about the image's
-- centre c and a translation t = {ty, tx} ({0, 0}): destination pixel p
-- samples the source at c + M (p - c) - t, through image.warp
function image.affinetransform(...)
  local fn = 'image.affinetransform'
  local n, a = select('#', ...), {...}
  local dst, src, matrix, rest
  if n >= 3 and torch.isTensor(a[3]) then
    dst, src, matrix, rest = a[1], a[2], a[3], 4
  elseif n >= 2 then
    src, matrix, rest = a[1], a[2], 3
  else
    fail(fn, 'expects ([dst,] src, matrix [, mode, translation, clamp_mode, pad_value])')
  end
  if n > rest + 3 then fail(fn, 'too many arguments (%d)', n) end
  local mode, t, clamp, padv = a[rest], a[rest + 1], a[rest + 2], a[rest + 3]
  checkimage(fn, src, 'src')
  if not torch.isTensor(matrix) or matrix:dim() ~= 2 or matrix:size(1) ~= 2 or matrix:size(2) ~= 2 then
    fail(fn, 'matrix must be a 2 x 2 tensor, got %s', torch.isTensor(matrix)
         and table.concat(matrix:size():totable(), 'x') or torch.type(matrix))
  end
  t = t or {0, 0}
  if torch.isTensor(t) then t = t:double():totable() end
  if type(t) ~= 'table' or type(t[1]) ~= 'number' or type(t[2]) ~= 'number' then
    fail(fn, 'translation must be {ty, tx}')
  end
  local w, h = dims(src)
  local m = matrix:double()
  local ys = torch.linspace(-(h - 1) / 2, (h - 1) / 2, h):view(h, 1):expand(h, w)
  local xs = torch.linspace(-(w - 1) / 2, (w - 1) / 2, w):view(1, w):expand(h, w)
  local field = torch.DoubleTensor(2, h, w)
  field[1]:copy(ys):mul(m[1][1] - 1):add(m[1][2], xs):add(-t[1])
  field[2]:copy(xs):mul(m[2][2] - 1):add(m[2][1], ys):add(-t[2])
  local args = {src, field, mode or 'bilinear', true, clamp or 'clamp'}
  if padv ~= nil then args[6] = padv end
  if dst then table.insert(args, 1, dst) end
  return image.warp(table.unpack(args, 1, dst and 7 or 6))
end

----------------------------------------------------------------------
-- rotate, convolve

function image.rotate(...)
  local fn = 'image.rotate'
  local n, a = select('#', ...), {...}
  local dst, src, theta, mode
  if n == 4 then dst, src, theta, mode = a[1], a[2], a[3], a[4]
  elseif n == 3 then
    if type(a[2]) == 'number' then src, theta, mode = a[1], a[2], a[3]
    else dst, src, theta = a[1], a[2], a[3] end
  elseif n == 2 then src, theta = a[1], a[2]
  else fail(fn, 'expects ([dst,] src, theta [, mode])') end
  checkimage(fn, src, 'src')
  mode = mode or 'simple'
  if mode ~= 'simple' and mode ~= 'bilinear' then
    fail(fn, "mode must be one of: simple | bilinear, got '%s'", tostring(mode))
  end
  if type(theta) ~= 'number' then fail(fn, 'theta must be a number, got %s', type(theta)) end
  local res = C.rotate(P.floating(src), theta, mode, fn)
  return P.finish(res, src, dst)
end

function image.convolve(...)
  local fn = 'image.convolve'
  local n, a = select('#', ...), {...}
  local dst, src, kernel, mode
  if n == 4 then dst, src, kernel, mode = a[1], a[2], a[3], a[4]
  elseif n == 3 then
    if isstr(a[3]) then src, kernel, mode = a[1], a[2], a[3]
    else dst, src, kernel = a[1], a[2], a[3] end
  elseif n == 2 then src, kernel = a[1], a[2]
  else fail(fn, "expects ([dst,] src, kernel [, mode 'full'|'valid'|'same'])") end
  mode = mode or 'valid'
  if mode ~= 'valid' and mode ~= 'full' and mode ~= 'same' then
    fail(fn, "mode has to be one of: full | valid | same, got '%s'", tostring(mode))
  end
  checkimage(fn, src, 'src')
  checkimage(fn, kernel, 'kernel')
  local f = P.floating(src)
  local res = C.conv2(f, kernel:type(torch.typename(f)), mode ~= 'valid', fn)
  if mode == 'same' then
    local d = res:dim()
    local kw, kh = dims(kernel)
    local w, h = dims(src)
    res = res:narrow(d - 1, math.ceil(kh / 2), h):narrow(d, math.ceil(kw / 2), w)
  end
  return P.finish(res, src, dst)
end

----------------------------------------------------------------------
-- kernels

-- Torch7 takes these either positionally or as one table of named
-- arguments ('key' names a field that only the named form has at [1])
local function named(fn, a, n, names, defaults, key)
  local t = {}
  local tbl = a[1]
  if n == 1 and type(tbl) == 'table' and not torch.isTensor(tbl) and (key == nil or tbl[key] ~= nil) then
    for k, v in pairs(tbl) do
      local known = false
      for _, nm in ipairs(names) do known = known or nm == k end
      if not known then fail(fn, "unknown argument '%s'", tostring(k)) end
      t[k] = v
    end
  else
    for i, nm in ipairs(names) do t[nm] = a[i] end
  end
  for k, v in pairs(defaults) do if t[k] == nil then t[k] = v end end
  return t
end

function image.gaussian(...)
  local fn = 'image.gaussian'
  local o = named(fn, {...}, select('#', ...),
                  {'size', 'sigma', 'amplitude', 'normalize', 'width', 'height', 'sigma_horz',
                   'sigma_vert', 'mean_horz', 'mean_vert', 'tensor'},
                  {size = 3, sigma = 0.25, amplitude = 1, normalize = false, mean_horz = 0.5,
                   mean_vert = 0.5})
  local g = o.tensor
  if g then
    if not torch.isTensor(g) or g:dim() ~= 2 then fail(fn, 'tensor must be a 2D tensor') end
  else
    local w, h = o.width or o.size, o.height or o.size
    if type(w) ~= 'number' or type(h) ~= 'number' or w < 1 or h < 1 then
      fail(fn, 'size must be a positive number, got %s', tostring(o.size))
    end
    g = torch.Tensor(math.floor(h), math.floor(w))
  end
  local h, w = g:size(1), g:size(2)
  if h < 1 or w < 1 then fail(fn, 'tensor must not be empty') end
  local su, sv = o.sigma_horz or o.sigma, o.sigma_vert or o.sigma
  local mu, mv = o.mean_horz * w + 0.5, o.mean_vert * h + 0.5
  -- separable: exp(-(du^2 + dv^2) / 2) = exp(-du^2 / 2) * exp(-dv^2 / 2)
  local gu, gv = torch.DoubleTensor(w), torch.DoubleTensor(h)
  for u = 1, w do gu[u] = math.exp(-0.5 * ((u - mu) / (su * w)) ^ 2) end
  for v = 1, h do gv[v] = math.exp(-0.5 * ((v - mv) / (sv * h)) ^ 2) end
  local d = torch.ger(gv, gu):mul(o.amplitude)
  if o.normalize then d:div(d:sum()) end
  if not isfloating(g) then
    -- integer tensors (Torch7: bytes) get the values rounded, clamped to the type
    local lo, hi = 0, 255
    if torch.typename(g) ~= 'torch.ByteTensor' then lo, hi = -math.huge, math.huge end
    d:round():clamp(lo, hi)
  end
  return g:copy(d)
end

function image.gaussian1D(...)
  local fn = 'image.gaussian1D'
  local o = named(fn, {...}, select('#', ...),
                  {'size', 'sigma', 'amplitude', 'normalize', 'mean', 'tensor'},
                  {size = 3, sigma = 0.25, amplitude = 1, normalize = false, mean = 0.5})
  local g = o.tensor
  if g then
    if not torch.isTensor(g) or g:dim() ~= 1 then fail(fn, 'tensor must be a 1D tensor') end
  else
    if type(o.size) ~= 'number' or o.size < 1 then
      fail(fn, 'size must be a positive number, got %s', tostring(o.size))
    end
    g = torch.Tensor(math.floor(o.size))
  end
  local size = g:size(1)
  local centre = o.mean * size + 0.5
  for i = 1, size do
    g[i] = o.amplitude * math.exp(-(((i - centre) / (o.sigma * size)) ^ 2) / 2)
  end
  if o.normalize then g:div(g:sum()) end
  return g
end

-- Torch7's pyramid: dst[i] is the previous level (src at first) smoothed
-- by a normalized 3 x 3 gaussian and resampled ('simple') to scales[i]
-- times src's size (truncated); kept for i = 1 when the scale is 1
function image.gaussianpyramid(...)
  local fn = 'image.gaussianpyramid'
  local n, a = select('#', ...), {...}
  local dst, src, scales
  if n == 3 then dst, src, scales = a[1], a[2], a[3]
  elseif n == 2 then dst, src, scales = {}, a[1], a[2]
  else fail(fn, 'expects ([dst,] src, scales): dst a table of tensors, scales a table of numbers') end
  checkimage(fn, src, 'src')
  if type(dst) ~= 'table' or torch.isTensor(dst) then fail(fn, 'dst must be a table of tensors, got %s', torch.type(dst)) end
  if type(scales) ~= 'table' or torch.isTensor(scales) then fail(fn, 'scales must be a table of numbers, got %s', torch.type(scales)) end
  local k = image.gaussian{width = 3, normalize = true}:typeAs(src)
  local w, h = dims(src)
  local cur = src
  for i, sc in ipairs(scales) do
    if type(sc) ~= 'number' or not (sc > 0) then
      fail(fn, 'scales[%d] must be a positive number, got %s', i, tostring(sc))
    end
    local size = src:size():totable()
    size[#size] = math.max(1, math.floor(w * sc))
    size[#size - 1] = math.max(1, math.floor(h * sc))
    if dst[i] ~= nil and not torch.isTensor(dst[i]) then fail(fn, 'dst[%d] must be a tensor', i) end
    dst[i] = dst[i] or src.new()
    dst[i]:resize(torch.LongStorage(size))
    if sc == 1 then
      if cur:nElement() ~= dst[i]:nElement() then fail(fn, 'scale 1 at level %d needs the previous level at full size', i) end
      dst[i]:copy(cur)
    else
      image.scale(dst[i], cur, 'simple')
    end
    cur = image.convolve(dst[i], k, 'same')
  end
  return dst
end

----------------------------------------------------------------------
-- display helpers

-- rescales a tensor to [0, 1] from [min, max] (its own range by default)
function image.minmax(args)
  local fn = 'image.minmax'
  if type(args) ~= 'table' or not torch.isTensor(args.tensor) then
    fail(fn, 'expects a table {tensor=, [min=, max=, symm=, inplace=, saturate=, tensorOut=]}')
  end
  local t = args.tensor
  local out = args.tensorOut or (args.inplace and t) or torch.Tensor(t:size()):copy(t)
  if args.tensorOut then out:resize(t:size()):copy(t) end
  local min, max, saturate = args.min, args.max, args.saturate
  if min == nil and max == nil then saturate = false end
  local fmin = 0
  if min == nil then
    if args.symm then
      fmin = math.max(math.abs(out:min()), math.abs(out:max()))
      min = -fmin
    else
      min = out:min()
    end
  end
  if min ~= 0 then out:add(-min) end
  if max == nil then
    max = args.symm and fmin * 2 or out:max()
  else
    max = max - min
  end
  if max ~= 0 then out:div(max) end
  if saturate then out:clamp(0, 1) end
  return out
end

-- a grid of images: input a table of images, K x H x W, or K x C x H x W
function image.toDisplayTensor(...)
  local fn = 'image.toDisplayTensor'
  local o = named(fn, {...}, select('#', ...),
                  {'input', 'padding', 'nrow', 'scaleeach', 'min', 'max', 'symmetric', 'saturate'},
                  {padding = 0, nrow = 6, scaleeach = false, symmetric = false, saturate = true}, 'input')
  local input, padding, nrow = o.input, o.padding, o.nrow
  local packed = torch.Tensor()
  if type(input) == 'table' and not torch.isTensor(input) then
    if #input == 0 then fail(fn, 'input is an empty list') end
    local nd = input[1]:dim()
    local c = nd == 2 and 1 or input[1]:size(1)
    packed:resize(#input, c, input[1]:size(nd - 1), input[1]:size(nd))
    for i, img in ipairs(input) do
      if img:nElement() ~= packed[i]:nElement() then
        fail(fn, 'image %d has a different size from the first', i)
      end
      packed[i]:copy(img)
    end
  elseif torch.isTensor(input) then
    packed:resize(input:size()):copy(input)
  else
    fail(fn, 'input must be a tensor or a list of tensors, got %s', torch.typename(input) or type(input))
  end
  local mm = {min = o.min, max = o.max, symm = o.symmetric, saturate = o.saturate, inplace = true}
  local d = packed:dim()
  local colour = d == 4 and (packed:size(2) == 3 or packed:size(2) == 1)
  if o.scaleeach and (colour or (d == 3 and packed:size(1) ~= 1 and packed:size(1) ~= 3)) then
    for i = 1, packed:size(1) do mm.tensor = packed[i]; image.minmax(mm) end
  end
  if d == 2 or (d == 3 and (packed:size(1) == 1 or packed:size(1) == 3)) then
    mm.tensor = packed
    return image.minmax(mm)
  end
  if not colour and d ~= 3 then
    fail(fn, 'input must be H x W, K x H x W, K x C x H x W (C = 1 or 3) or a list, got %dD', d)
  end
  local nmaps = packed:size(1)
  local xmaps = math.min(nrow, nmaps)
  local ymaps = math.ceil(nmaps / xmaps)
  local h, w = packed:size(d - 1) + padding, packed:size(d) + padding
  local grid = colour and torch.Tensor(packed:size(2), h * ymaps, w * xmaps)
    or torch.Tensor(h * ymaps, w * xmaps)
  grid:fill(packed:max())
  local gd = grid:dim()
  for k = 1, nmaps do
    local y, x = math.floor((k - 1) / xmaps), (k - 1) % xmaps
    grid:narrow(gd - 1, math.floor(y * h + 1 + padding / 2), h - padding)
        :narrow(gd, math.floor(x * w + 1 + padding / 2), w - padding):copy(packed[k])
  end
  if not o.scaleeach then mm.tensor = grid; image.minmax(mm) end
  return grid
end

local ndisplayed = 0

-- no window system: writes the picture as a PNG and says where
function image.display(...)
  local fn = 'image.display'
  local a = {...}
  local o
  if #a == 1 and type(a[1]) == 'table' and not torch.isTensor(a[1]) and a[1].image ~= nil then
    o = a[1]
  else
    o = {image = a[1], zoom = a[2]}
  end
  if o.image == nil then fail(fn, 'expects an image (tensor or list of tensors)') end
  local grid = image.toDisplayTensor{input = o.image, padding = o.padding or 0, nrow = o.nrow or 6,
                                     scaleeach = o.scaleeach or false, min = o.min, max = o.max,
                                     symmetric = o.symmetric or false, saturate = o.saturate ~= false}
  if o.zoom and o.zoom ~= 1 then
    local w, h = dims(grid)
    grid = image.scale(grid, math.max(1, math.floor(w * o.zoom)), math.max(1, math.floor(h * o.zoom)), 'simple')
  end
  local path = o.filename
  if not path then
    ndisplayed = ndisplayed + 1
    local dir = os.getenv('TMPDIR') or '/tmp'
    local legend = tostring(o.legend or 'image'):gsub('[^%w_-]', '_')
    path = string.format('%s/%s-%d-%d.png', dir, legend, math.floor(os.time()), ndisplayed)
  end
  image.savePNG(path, grid)
  if not o.quiet then print(fn .. ': wrote ' .. path) end
  return path
end

----------------------------------------------------------------------
-- sample pictures. Torch7 shipped two photographs (lena: Grace Hopper,
-- 3 x 512 x 512; fabio: a face, 257 x 271 gray); they are not shipped here.
-- When $TORCH_IMAGE_ASSETS names a directory holding grace_hopper_512.jpg
-- (or .png) and fabio.jpg (or .png), as Torch7's assets/ did, those are
-- loaded (a missing file is then an error); otherwise deterministic
-- synthetic pictures of the same shapes stand in. Either way the samples are multiples of 1/255, as any 8-bit
-- picture loaded from a file.

local function asset(fn, name, depth)
  local dir = os.getenv('TORCH_IMAGE_ASSETS')
  if not dir or dir == '' then return nil end
  for _, ext in ipairs{'.jpg', '.png'} do
    local path = dir .. '/' .. name .. ext
    local f = io.open(path, 'rb')
    if f then
      f:close()
      return image.load(path, depth)
    end
  end
  fail(fn, '$TORCH_IMAGE_ASSETS is %s, which holds no %s.jpg or %s.png', dir, name, name)
end

-- values rounded to the nearest 1/255
local function quantize(img)
  return img:mul(255):add(0.5):floor():div(255)
end

-- synthetic lena: red grows to the right, green downwards, blue along the
-- anti-diagonal; a yellow disc in the centre, a white square top left,
-- black and white stripes bottom right
function image.lena()
  local real = asset('image.lena', 'grace_hopper_512', 3)
  if real then return real end
  local n = 512
  local xs = torch.linspace(0, 1, n):view(1, n):expand(n, n):contiguous()
  local ys = torch.linspace(0, 1, n):view(n, 1):expand(n, n):contiguous()
  local img = torch.Tensor(3, n, n)
  img[1]:copy(xs)
  img[2]:copy(ys)
  img[3]:copy(xs):add(ys):mul(-0.5):add(1)
  local dx, dy = xs:clone():add(-0.5), ys:clone():add(-0.5)
  local disc = dx:cmul(dx):add(dy:cmul(dy)):lt(0.04)
  img[1]:maskedFill(disc, 1)
  img[2]:maskedFill(disc, 0.85)
  img[3]:maskedFill(disc, 0.1)
  img:narrow(2, 49, 96):narrow(3, 49, 96):fill(1)
  for k = 0, 7 do
    img:narrow(2, 353, 128):narrow(3, 353 + k * 16, 8):fill(k % 2)
    img:narrow(2, 353, 128):narrow(3, 361 + k * 16, 8):fill(1 - k % 2)
  end
  return quantize(img)
end

-- synthetic fabio: 257 x 271 gray, concentric rings around the centre
-- fading to the corners, a dark bar across the upper third
function image.fabio()
  local real = asset('image.fabio', 'fabio', 1)
  if real then return real end
  local h, w = 257, 271
  local xs = torch.linspace(-1, 1, w):view(1, w):expand(h, w):contiguous()
  local ys = torch.linspace(-1, 1, h):view(h, 1):expand(h, w):contiguous()
  local r = xs:clone():cmul(xs):add(ys:clone():cmul(ys)):sqrt()
  local img = r:clone():mul(12):cos():mul(0.25):add(0.5):add(-0.2, r):clamp(0, 1)
  img:narrow(1, 70, 16):narrow(2, 60, 152):mul(0.3)
  return quantize(img)
end

return image
