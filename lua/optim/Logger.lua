-- optim.Logger([filename [, timestamp]]): logs named values per line to a
-- text file (tab-separated, numbers as %11.4e, a header line of names) and
-- plots them, as Torch7's optim.Logger.
--   logger:add{name = value, ...} or, after setNames{...}, logger:add{v1, v2, ...}
--   logger:style{name = '-' | '+' | '+-' | '.' | '|' or a list of them}
--   logger:setlogscale(true), logger:display(false), logger:plot([names...])
--   logger:setAxisLabels('epoch', '% accuracy')   (not in Torch7)
-- Torch7 drew through gnuplot into filename.eps; here plot() writes
-- filename.svg directly (no gnuplot needed), which a browser opens: one
-- curve per name against the line number, with axes, grid and legend.
-- Without a filename the log goes to stdout and nothing is plotted.
local Logger = torch.class('optim.Logger')

function Logger:__init(filename, timestamp)
  if filename ~= nil and type(filename) ~= 'string' then
    error(string.format('optim.Logger: a file name (string) or nothing expected, got %s', torch.type(filename)), 2)
  end
  if filename then
    self.name = filename
    local dir = filename:match('^(.*)/[^/]*$')
    if dir and dir ~= '' then os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'") end
    if timestamp then filename = filename .. '-' .. os.date('%Y_%m_%d_%X') end
    local f, err = io.open(filename, 'w')
    if not f then error('optim.Logger: cannot open ' .. filename .. ': ' .. tostring(err), 2) end
    self.file = f
    self.svgfile = self.name .. '.svg'
  else
    self.file = io.stdout
    self.name = 'stdout'
    print('<Logger> warning: no path provided, logging to std out')
  end
  self.empty = true
  self.symbols, self.styles, self.names, self.idx = {}, {}, {}, {}
  self.showPlot = true
  self.defaultStyle = '+'
  self.logscale = false
end

function Logger:setNames(names)
  if type(names) ~= 'table' then
    error('optim.Logger:setNames: a list of names expected, got ' .. torch.type(names), 2)
  end
  self.names = names
  self.empty = false
  self.nsymbols = #names
  for k, name in ipairs(names) do
    self.file:write(name .. '\t')
    self.symbols[k] = {}
    self.styles[k] = {self.defaultStyle}
    self.idx[name] = k
  end
  self.file:write('\n')
  self.file:flush()
  return self
end

-- the keys of a symbols table in a stable order (names sorted)
local function keysOf(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == 'number'
  end)
  return keys
end

function Logger:add(symbols)
  if type(symbols) ~= 'table' then
    error('optim.Logger:add: a table of values expected, got ' .. torch.type(symbols), 2)
  end
  if self.empty then
    self.empty = false
    self.order = keysOf(symbols)
    self.nsymbols = #self.order
    for _, k in ipairs(self.order) do
      self.file:write(tostring(k) .. '\t')
      self.symbols[k] = {}
      self.styles[k] = {self.defaultStyle}
      self.names[k] = k
    end
    self.idx = self.names
    self.file:write('\n')
  end
  local keys = self.order or keysOf(symbols)
  for _, k in ipairs(keys) do
    local v = symbols[k]
    if type(v) == 'number' then
      self.file:write(string.format('%11.4e', v) .. '\t')
    elseif type(v) == 'string' then
      self.file:write(v .. '\t')
    elseif v ~= nil then
      error('optim.Logger:add: can only log numbers and strings, got ' .. torch.type(v) .. ' for ' .. tostring(k), 2)
    end
  end
  self.file:write('\n')
  self.file:flush()
  for _, k in ipairs(keys) do
    if symbols[k] ~= nil then
      if not self.symbols[k] then
        error('optim.Logger:add: ' .. tostring(k) .. ' was not logged on the first line', 2)
      end
      table.insert(self.symbols[k], symbols[k])
    end
  end
end

function Logger:style(symbols)
  for name, style in pairs(symbols) do
    if type(style) == 'string' then
      self.styles[name] = {style}
    elseif type(style) == 'table' then
      self.styles[name] = style
    else
      error('optim.Logger:style: a style should be a string or a table of strings, got ' .. torch.type(style), 2)
    end
  end
  return self
end

function Logger:setlogscale(state) self.logscale = state end

-- the axes' labels of the plot (default: 'entry' -- one per add -- and
-- the curve's name when there is one curve, else 'value')
function Logger:setAxisLabels(xlabel, ylabel)
  for i, v in ipairs{xlabel, ylabel} do
    if v ~= nil and type(v) ~= 'string' then
      error(string.format('optim.Logger:setAxisLabels: label (string or nil) expected as argument %d, got %s',
                          i, torch.type(v)), 2)
    end
  end
  self.xlabel, self.ylabel = xlabel, ylabel
  return self
end
function Logger:display(state) self.showPlot = state end

-- --- the SVG plot ------------------------------------------------------------

local COLORS = {'#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'}

local function esc(s)
  return (tostring(s):gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'):gsub('"', '&quot;'))
end

-- a round step giving about 5 ticks over [lo, hi]; at least 'minstep'
local function tickstep(lo, hi, minstep)
  if hi <= lo then hi = lo + 1 end
  local raw = (hi - lo) / 5
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs{1, 2, 5, 10} do
    if raw <= m * mag then step = m * mag; break end
  end
  return math.max(step, minstep or 0)
end

local function ticks(lo, hi, step)
  local out = {}
  for v = math.ceil(lo / step - 1e-9) * step, hi + step * 1e-9, step do
    out[#out + 1] = math.abs(v) < step * 1e-9 and 0 or v
  end
  return out
end

local function label(v)
  if math.abs(v - math.floor(v + 0.5)) < 1e-9 then return string.format('%d', math.floor(v + 0.5)) end
  return string.format('%g', v)
end

-- the curves {name, values, styles} as an SVG document; opts: xlabel,
-- ylabel. The x axis counts entries (whole numbers); the y axis is
-- widened to round ticks with a margin, so that no curve runs along the
-- frame (accuracies at 100%)
function Logger.svg(curves, title, logscale, opts)
  opts = opts or {}
  local W, H, L, R, T, B = 800, 500, 80, 190, 40, 60
  local xmax, ymin, ymax = 1, math.huge, -math.huge
  for _, c in ipairs(curves) do
    xmax = math.max(xmax, #c.values)
    for _, v in ipairs(c.values) do
      if type(v) == 'number' and v == v and math.abs(v) ~= math.huge and (not logscale or v > 0) then
        local y = logscale and math.log(v, 10) or v
        ymin, ymax = math.min(ymin, y), math.max(ymax, y)
      end
    end
  end
  if ymin > ymax then ymin, ymax = 0, 1 end
  if ymin == ymax then ymin, ymax = ymin - 1, ymax + 1 end
  local ystep = tickstep(ymin, ymax)
  local ylo = math.floor(ymin / ystep + 1e-9) * ystep
  local yhi = math.ceil(ymax / ystep - 1e-9) * ystep
  -- a curve on a tick at the edge gets half a step of room
  if ymin - ylo < ystep * 0.25 then ylo = ylo - ystep / 2 end
  if yhi - ymax < ystep * 0.25 then yhi = yhi + ystep / 2 end
  ymin, ymax = ylo, yhi
  local xstep = tickstep(1, xmax, 1)
  local xlo, xhi = 1, math.max(xmax, 2)
  local xpad = (xhi - xlo) * 0.03
  local function px(i) return L + (i - xlo + xpad) / (xhi - xlo + 2 * xpad) * (W - L - R) end
  local function py(y) return H - B - (y - ymin) / (ymax - ymin) * (H - T - B) end
  local out = {string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">', W, H),
               string.format('<rect width="%d" height="%d" fill="white"/>', W, H),
               string.format('<text x="%d" y="24" text-anchor="middle" font-size="15">%s</text>', (W - R + L) // 2, esc(title))}
  for _, y in ipairs(ticks(ymin, ymax, ystep)) do
    out[#out + 1] = string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>', L, py(y), W - R, py(y))
    local text = logscale and ('1e' .. label(y)) or label(y)
    out[#out + 1] = string.format('<text x="%d" y="%.1f" text-anchor="end">%s</text>', L - 6, py(y) + 4, text)
  end
  local first = math.ceil(xlo / xstep) * xstep
  if first ~= 1 then
    -- the first entry is always labelled
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle">1</text>', px(1), H - B + 18)
  end
  for x = first, xhi + 1e-9, xstep do
    out[#out + 1] = string.format('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>', px(x), T, px(x), H - B)
    out[#out + 1] = string.format('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(x), H - B + 18, label(x))
  end
  out[#out + 1] = string.format('<text x="%d" y="%d" text-anchor="middle">%s</text>', (W - R + L) // 2, H - 14,
                                esc(opts.xlabel or 'entry'))
  out[#out + 1] = string.format('<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>',
                                18, (H - B + T) // 2, 18, (H - B + T) // 2,
                                esc(opts.ylabel or (#curves == 1 and curves[1].name) or 'value'))
  out[#out + 1] = string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>', L, T, W - L - R, H - T - B)
  for ci, c in ipairs(curves) do
    local color = COLORS[(ci - 1) % #COLORS + 1]
    local pts = {}
    for i, v in ipairs(c.values) do
      if type(v) == 'number' and v == v and math.abs(v) ~= math.huge and (not logscale or v > 0) then
        pts[#pts + 1] = {px(i), py(logscale and math.log(v, 10) or v)}
      end
    end
    for _, style in ipairs(c.styles) do
      if style:find('-', 1, true) and #pts > 1 then
        local p = {}
        for i, q in ipairs(pts) do p[i] = string.format('%.1f,%.1f', q[1], q[2]) end
        out[#out + 1] = string.format('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>', color, table.concat(p, ' '))
      end
      if style:find('+', 1, true) then
        for _, q in ipairs(pts) do
          out[#out + 1] = string.format('<path d="M%.1f %.1fh8M%.1f %.1fv8" stroke="%s"/>', q[1] - 4, q[2], q[1], q[2] - 4, color)
        end
      end
      if style:find('.', 1, true) then
        for _, q in ipairs(pts) do out[#out + 1] = string.format('<circle cx="%.1f" cy="%.1f" r="1.5" fill="%s"/>', q[1], q[2], color) end
      end
      if style:find('|', 1, true) then
        for _, q in ipairs(pts) do
          out[#out + 1] = string.format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%d" stroke="%s"/>', q[1], q[2], q[1], H - B, color)
        end
      end
    end
    out[#out + 1] = string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>',
                                  W - R + 12, T + 10 + 18 * (ci - 1), W - R + 32, T + 10 + 18 * (ci - 1), color)
    out[#out + 1] = string.format('<text x="%d" y="%d">%s</text>', W - R + 38, T + 14 + 18 * (ci - 1), esc(c.name))
  end
  out[#out + 1] = '</svg>'
  return table.concat(out, '\n') .. '\n'
end

-- writes the plot of the given names (default: all with two or more
-- values) to filename.svg; returns that file name, or nil when nothing
-- was plotted
function Logger:plot(...)
  local wanted = {...}
  local keys = {}
  if #wanted == 0 then
    keys = self.order or keysOf(self.symbols)
  else
    for _, name in ipairs(wanted) do
      local k = self.idx[name]
      if k == nil then error('optim.Logger:plot: no values logged as ' .. tostring(name), 2) end
      keys[#keys + 1] = k
    end
  end
  local curves = {}
  for _, k in ipairs(keys) do
    local list = self.symbols[k]
    if list and #list > 1 then
      curves[#curves + 1] = {name = tostring(self.names[k] or k), values = list, styles = self.styles[k] or {self.defaultStyle}}
    end
  end
  if #curves == 0 or not self.svgfile then return nil end
  local f, err = io.open(self.svgfile, 'w')
  if not f then error('optim.Logger:plot: cannot write ' .. self.svgfile .. ': ' .. tostring(err), 2) end
  -- the title: the log's file name without its folder and extension
  local title = self.name:match('([^/]+)$'):gsub('%.[%w]+$', '')
  f:write(Logger.svg(curves, title, self.logscale, {xlabel = self.xlabel, ylabel = self.ylabel}))
  f:close()
  return self.svgfile
end

return Logger
