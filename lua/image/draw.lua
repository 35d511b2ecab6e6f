-- drawing on 3 x H x W images (Torch7's image.drawRect, image.drawText):
-- colours are given as {r, g, b} in 0..255 and stored as they are in a
-- ByteTensor, divided by 255 in a float one. Coordinates are Torch7's: 1 is
-- the first row or column for drawRect, 0 for drawText. The result is a
-- copy unless opts.inplace.
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

local glyphs = require 'image.font'

-- one 6 x 8 cell (size x size pixels a dot) with its top left corner at
-- 0-based (x, y): dots in col, the rest in bg when given; clipped
local function drawchar(img, x, y, byte, size, col, bg)
  local h, w = img:size(2), img:size(3)
  if x >= w or y >= h or x + 6 * size - 1 < 0 or y + 8 * size - 1 < 0 then return end
  local g = glyphs[byte] or glyphs.missing
  for i = 0, 5 do
    for j = 0, 7 do
      local on = i < 5 and j < 7 and g[j + 1][i + 1]
      local c = on and col or bg
      if c then fill(img, y + j * size, y + (j + 1) * size, x + i * size, x + (i + 1) * size, c) end
    end
  end
end

-- text from 0-based column x and row y (Torch7's: 1, 1 by default), in
-- cells of 6 x 8 pixels times opts.size (1): '\n' starts a line at x,
-- '\r' is skipped; with opts.wrap (true) a character that would reach the
-- right edge goes to the next line at column 0; opts.color (red) for the
-- dots, opts.bg for the rest of each cell (none: left as it is)
function image.drawText(src, text, x, y, opts)
  local fn = 'image.drawText'
  checkrgb(fn, src)
  opts = opts or {}
  if type(opts) ~= 'table' then P.fail(fn, 'opts must be a table, got %s', type(opts)) end
  local out = opts.inplace and src or src:clone()
  if text == nil then return out end
  if type(text) ~= 'string' then P.fail(fn, 'text must be a string, got %s', type(text)) end
  if text:gsub('%s*$', '') == '' then return out end
  x, y = x or 1, y or 1
  if type(x) ~= 'number' or type(y) ~= 'number' then
    P.fail(fn, 'x and y must be numbers, got %s and %s', type(x), type(y))
  end
  x, y = math.floor(x), math.floor(y)
  local col = stored(out, checkcolor(fn, opts.color or {255, 0, 0}, 'color'))
  local bg = opts.bg and stored(out, checkcolor(fn, opts.bg, 'bg'))
  if bg and (opts.bg[1] == -1 or opts.bg[2] == -1 or opts.bg[3] == -1) then bg = nil end
  local size = opts.size or 1
  if type(size) ~= 'number' or size < 1 then P.fail(fn, 'size must be a positive number, got %s', tostring(size)) end
  size = math.floor(size)
  local wrap = opts.wrap
  if wrap == nil then wrap = true end
  local w = out:size(3)
  local cx, cy = x, y
  for k = 1, #text do
    local b = text:byte(k)
    if b == 10 then
      cy, cx = cy + 8 * size, x
    elseif b ~= 13 then
      if wrap and cx + 6 * size >= w then cx, cy = 0, cy + 8 * size end
      drawchar(out, cx, cy, b, size, col, bg)
      cx = cx + 6 * size
    end
  end
  return out
end

return image
