-- optnet.svg: a small SVG writer, enough for line charts. The document is
-- self-contained: generic font families only, no scripts, no links.
--   local svg = require 'optnet.svg'
--   local d = svg.new(640, 480)
--   d:line(0, 0, 10, 10, {stroke = 'black'})
--   d:text(5, 5, 'a < b', {['font-size'] = 12})
--   local text = d:render()
local svg = {}

local Doc = {}
Doc.__index = Doc

local ESC = {['&'] = '&amp;', ['<'] = '&lt;', ['>'] = '&gt;', ['"'] = '&quot;', ["'"] = '&apos;'}

function svg.escape(s)
  return (tostring(s):gsub('[&<>"\']', ESC))
end

-- numbers with at most two decimals, no trailing zeros
local function num(v)
  if math.type(v) == 'integer' then return tostring(v) end
  local s = string.format('%.2f', v):gsub('0+$', ''):gsub('%.$', '')
  if s == '-0' then s = '0' end
  return s
end
svg.num = num

local function attrString(a)
  if not a then return '' end
  local keys = {}
  for k in pairs(a) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = a[k]
    if type(v) == 'number' then v = num(v) end
    if not tostring(k):match('^[%a_][%w_:%-%.]*$') then
      error(string.format("optnet.svg: attribute name expected, got '%s'", tostring(k)), 3)
    end
    parts[#parts + 1] = string.format(' %s="%s"', k, svg.escape(v))
  end
  return table.concat(parts)
end

local function merge(base, extra)
  local a = {}
  for k, v in pairs(base) do a[k] = v end
  for k, v in pairs(extra or {}) do a[k] = v end
  return a
end

function svg.new(width, height)
  if type(width) ~= 'number' or type(height) ~= 'number' or width <= 0 or height <= 0 then
    error(string.format('optnet.svg.new: positive width and height expected, got %s and %s',
      tostring(width), tostring(height)), 2)
  end
  return setmetatable({width = width, height = height, parts = {}}, Doc)
end

function Doc:element(name, attrs, text)
  local p = self.parts
  if text == nil then
    p[#p + 1] = string.format('<%s%s/>', name, attrString(attrs))
  else
    p[#p + 1] = string.format('<%s%s>%s</%s>', name, attrString(attrs), svg.escape(text), name)
  end
  return self
end

function Doc:line(x1, y1, x2, y2, attrs)
  return self:element('line', merge({x1 = x1, y1 = y1, x2 = x2, y2 = y2}, attrs))
end

function Doc:rect(x, y, w, h, attrs)
  return self:element('rect', merge({x = x, y = y, width = w, height = h}, attrs))
end

function Doc:circle(cx, cy, r, attrs)
  return self:element('circle', merge({cx = cx, cy = cy, r = r}, attrs))
end

-- points: {x1, y1, x2, y2, ...}
function Doc:polyline(points, attrs)
  local p = {}
  for i = 1, #points, 2 do p[#p + 1] = num(points[i]) .. ',' .. num(points[i + 1]) end
  return self:element('polyline', merge({points = table.concat(p, ' '), fill = 'none'}, attrs))
end

function Doc:text(x, y, s, attrs)
  return self:element('text', merge({x = x, y = y}, attrs), s)
end

-- a <title> for the whole picture (shown by viewers, read by screen readers)
function Doc:title(s)
  self.titleText = s
  return self
end

function Doc:render()
  local head = string.format('<?xml version="1.0" encoding="UTF-8"?>\n'
    .. '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" '
    .. 'font-family="sans-serif">', num(self.width), num(self.height), num(self.width), num(self.height))
  local out = {head}
  if self.titleText then out[#out + 1] = '<title>' .. svg.escape(self.titleText) .. '</title>' end
  out[#out + 1] = string.format('<rect x="0" y="0" width="%s" height="%s" fill="white"/>', num(self.width), num(self.height))
  for _, p in ipairs(self.parts) do out[#out + 1] = p end
  out[#out + 1] = '</svg>'
  return table.concat(out, '\n') .. '\n'
end

-- about n round tick values from lo to hi: steps of 1, 2 or 5 times a power of ten
function svg.ticks(lo, hi, n)
  if hi <= lo then return {lo}, 1 end
  local raw = (hi - lo) / math.max(1, n or 5)
  local p = 10 ^ math.floor(math.log(raw, 10))
  local step = p
  for _, m in ipairs{1, 2, 5, 10} do
    if m * p >= raw then step = m * p break end
  end
  local t = {}
  local v = math.ceil(lo / step - 1e-9) * step
  while v <= hi + step * 1e-9 do
    t[#t + 1] = v
    v = v + step
  end
  return t, step
end

return svg
