-- drawing on 3 x H x W images (Torch7's image.drawRect, image.drawText):
-- colours are given as {r, g, b} in 0..255 and stored as they are in a
-- ByteTensor, divided by 255 in a float one. Coordinates are Torch7's: 1 is
-- the first row or column. The result is a copy unless opts.inplace.
local image = require 'image'
local P = image._private

local function checkrgb(fn, src)
  if not torch.isTensor(src) or src:dim() ~= 3 or src:size(1) ~= 3 then
    P.fail(fn, 'input image has to be a 3D tensor of shape 3 x H x W, got %s',
           torch.isTensor(src) and table.concat(src:size():totable(), 'x') or torch.type(src))
  end
end

local function checkcolor(fn, c, what)
  if type(c) ~= 'table' or #c ~= 3 then P.fail(fn, '%s must be a table {r, g, b}', what) end
  for k = 1, 3 do
    if type(c[k]) ~= 'number' then P.fail(fn, '%s[%d] must be a number, got %s', what, k, type(c[k])) end
  end
  return c
end

-- the colour as stored in img: 0..255 in bytes, else in [0, 1]
local function stored(img, c)
  if torch.typename(img) == 'torch.ByteTensor' then return c end
  return {c[1] / 255, c[2] / 255, c[3] / 255}
end

-- fills rows [r0, r1) x columns [c0, c1) (0-based, clipped to the image)
local function fill(img, r0, r1, c0, c1, col)
  local h, w = img:size(2), img:size(3)
  r0, c0 = math.max(r0, 0), math.max(c0, 0)
  r1, c1 = math.min(r1, h), math.min(c1, w)
  if r1 <= r0 or c1 <= c0 then return end
  local area = img:narrow(2, r0 + 1, r1 - r0):narrow(3, c0 + 1, c1 - c0)
  for k = 1, 3 do area[k]:fill(col[k]) end
end

-- the outline of the rectangle with corners (x1, y1) and (x2, y2), lines
-- opts.lineWidth wide (1) centred on them, in opts.color (red)
function image.drawRect(src, x1, y1, x2, y2, opts)
  local fn = 'image.drawRect'
  checkrgb(fn, src)
  opts = opts or {}
  local out = opts.inplace and src or src:clone()
  if not (x1 and x2 and y1 and y2) then return out end
  for _, v in ipairs{x1, y1, x2, y2} do
    if type(v) ~= 'number' then P.fail(fn, 'coordinates must be numbers, got %s', type(v)) end
  end
  local col = stored(out, checkcolor(fn, opts.color or {255, 0, 0}, 'color'))
  local lw = opts.lineWidth or 1
  if type(lw) ~= 'number' or lw < 1 then P.fail(fn, 'lineWidth must be a positive number, got %s', tostring(lw)) end
  lw = math.floor(lw)
  x1, y1, x2, y2 = math.floor(x1), math.floor(y1), math.floor(x2), math.floor(y2)
  -- a line at coordinate c covers [c - lo, c + hi) (0-based), Torch7's offsets
  local lo = lw // 2 + 1
  local hi = lw - lo
  fill(out, y1 - lo, y2 + hi, x1 - lo, x1 + hi, col)  -- left
  fill(out, y1 - lo, y2 + hi, x2 - lo, x2 + hi, col)  -- right
  fill(out, y1 - lo, y1 + hi, x1 - lo, x2 + hi, col)  -- top
  fill(out, y2 - lo, y2 + hi, x1 - lo, x2 + hi, col)  -- bottom
  return out
end

return image
