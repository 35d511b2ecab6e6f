-- Printing: __tostring for tensors and storages in Torch7's format, so that
-- print(t) and the th REPL show what Torch7 users expect:
--   1D  one value per line             [torch.DoubleTensor of size 3]
--   2D  a matrix, columns wrapped to 80 characters under "Columns 1 to 8"
--   nD  one matrix per (i,j,.,.) slice, the first index varying fastest
--   a common factor ("1e-05 *") when all values share a large or small
--   magnitude, integers without decimals, "%.4e" when magnitudes differ.
-- One format (width, precision, scale) is chosen for the whole tensor, so
-- slices and column blocks line up. Deviation from Torch7, on purpose: the
-- format is chosen from the finite values only and nan/inf/-inf are written
-- right-aligned in the same width (Torch7 fell back to a bare '%f').

local torch = torch

local huge = math.huge
local floor, log = math.floor, math.log

-- torch.setprintoptions (PyTorch's names): a tensor of more than
-- 'threshold' elements prints in summary, 'edgeitems' first and last
-- entries of each long dimension around '...'; 'precision' decimals;
-- 'linewidth' columns before a matrix wraps (Torch7 wrapped at 80)
local defaults = {threshold = 1000, edgeitems = 3, precision = 4, linewidth = 80}
local opts = {}
for k, v in pairs(defaults) do opts[k] = v end

-- torch.setprintoptions{threshold=, edgeitems=, precision=, linewidth=,
-- profile='default'|'full'}: unnamed fields keep their value; 'full' sets
-- threshold to math.huge, 'default' restores every default first
function torch.setprintoptions(t)
  if type(t) ~= 'table' then
    error(string.format('torch.setprintoptions: table of options expected, got %s', type(t)), 2)
  end
  local new = {}
  for k, v in pairs(opts) do new[k] = v end
  if t.profile ~= nil then
    if t.profile == 'default' then
      for k, v in pairs(defaults) do new[k] = v end
    elseif t.profile == 'full' then
      new.threshold = huge
    else
      error(string.format("torch.setprintoptions: profile 'default' or 'full' expected, got %s", tostring(t.profile)), 2)
    end
  end
  for k, v in pairs(t) do
    if k ~= 'profile' then
      if defaults[k] == nil then
        error(string.format('torch.setprintoptions: unknown option %s (threshold, edgeitems, precision, linewidth, profile)', tostring(k)), 2)
      end
      local low = (k == 'linewidth' or k == 'edgeitems') and 1 or 0
      if type(v) ~= 'number' or v ~= v or v < low or (k ~= 'threshold' and (v ~= floor(v) or v == huge))
         or (k == 'precision' and v > 30) then
        error(string.format('torch.setprintoptions: %s must be an integer >= %d%s, got %s', k, low,
                            k == 'threshold' and ' or math.huge' or '', tostring(v)), 2)
      end
      new[k] = v
    end
  end
  opts = new
end

-- a copy of the current options
function torch.getprintoptions()
  local t = {}
  for k, v in pairs(opts) do t[k] = v end
  return t
end

-- format for the values get(k) for k in keys (a list, or first..last when
-- keys is a number, the count): returns a formatter, the scale (nil when
-- 1) and the field width
local function printformat(get, keys, count)
  local n = keys and #keys or count
  if n == 0 then return nil, nil, 0 end
  local prec = opts.precision
  local intMode, nonfinite = true, false
  local amin, amax = huge, 0
  for i = 1, n do
    local v = get(keys and keys[i] or i)
    if v ~= v then
      intMode, nonfinite = false, true
    elseif v == huge or v == -huge then
      nonfinite = true   -- inf is integral: it leaves intMode alone, as in Torch7
    else
      if intMode and v ~= floor(v) then intMode = false end
      -- float first: math.abs(math.mininteger) overflows
      local a = v + 0.0
      if a < 0 then a = -a end
      if a < amin then amin = a end
      if a > amax then amax = a end
    end
  end
  if amin == huge then amin = 0 end   -- no finite value at all
  local expMin = amin ~= 0 and floor(log(amin, 10)) + 1 or 1
  local expMax = amax ~= 0 and floor(log(amax, 10)) + 1 or 1

  -- Torch7's widths for 4 decimals (7, 11, expMax + 6), one more per decimal
  local kind, sz, scale
  if intMode then
    if expMax > 9 then kind, sz = 'e', 7 + prec else kind, sz = 'd', expMax + 1 end
  elseif expMax - expMin > 4 then
    kind, sz = 'e', 7 + prec
    if math.abs(expMax) > 99 or math.abs(expMin) > 99 then sz = sz + 1 end
  elseif expMax > 5 or expMax < 0 then
    kind, sz, scale = 'f', 3 + prec, 10.0 ^ (expMax - 1)
  else
    kind, sz = 'f', expMax == 0 and 3 + prec or expMax + 2 + prec
  end
  if nonfinite and sz < 4 then sz = 4 end   -- room for '-inf'
  if scale == 1 then scale = nil end

  local fmt = kind == 'd' and ('%' .. sz .. 'd') or ('%' .. sz .. '.' .. prec .. kind)
  local special = '%' .. sz .. 's'
  local div = scale or 1
  local format = function(v)
    if v ~= v then return string.format(special, 'nan') end
    if v == huge then return string.format(special, 'inf') end
    if v == -huge then return string.format(special, '-inf') end
    if kind == 'd' then return string.format(fmt, v) end
    return string.format(fmt, v / div)
  end
  return format, scale, sz
end

-- sizes as '2x3x4'
local function sizestr(t)
  local s = {}
  for i = 1, t:dim() do s[i] = tostring(t:size(i)) end
  return table.concat(s, 'x')
end

-- the indices of a dimension of size n that print: all of them, or in
-- summary the first and last 'edgeitems' around a 0 that stands for '...'
local function shown(n, summary)
  local e = opts.edgeitems
  local list = {}
  -- e < n / 2, not n > 2 * e: 2 * math.maxinteger wraps to -2
  if summary and e < n / 2 then
    for i = 1, e do list[#list + 1] = i end
    list[#list + 1] = 0
    for i = n - e + 1, n do list[#list + 1] = i end
  else
    for i = 1, n do list[i] = i end
  end
  return list
end

-- a matrix whose element (r, c) is get(base + (r-1)*cols + c), printing
-- the rows and columns listed (0: a '...' row or column)
local function printmatrix(out, get, base, rowlist, collist, cols, format, scale, sz, indent)
  out[#out + 1] = indent
  local width = opts.linewidth
  local perLine = math.max(1, (width - #indent) // (sz + 1))
  local ncols = #collist
  local dots = string.format('%' .. sz .. 's', '...')
  local first = 1
  while first <= ncols do
    local last = math.min(first + perLine - 1, ncols)
    if perLine < ncols then
      -- as Torch7: only the first block's header is indented
      if first ~= 1 then out[#out + 1] = '\n' end
      local a, b = collist[first], collist[last]
      if a == 0 then a = collist[first + 1] end
      if b == 0 then b = collist[last - 1] end
      out[#out + 1] = 'Columns ' .. a .. ' to ' .. b .. '\n' .. indent
    end
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n ' .. indent end
    for ri, r in ipairs(rowlist) do
      local rowbase = base + (r - 1) * cols
      for ci = first, last do
        local c = collist[ci]
        out[#out + 1] = (r == 0 or c == 0) and dots or format(get(rowbase + c))
        if ci == last then
          out[#out + 1] = '\n'
          if ri ~= #rowlist then out[#out + 1] = scale and (indent .. ' ') or indent end
        else
          out[#out + 1] = ' '
        end
      end
    end
    first = last + 1
  end
end

-- the row-major offsets (1-based) of the elements that print
local function shownkeys(lists, sizes)
  local keys = {}
  local nd = #lists
  local function walk(d, base)
    if d > nd then keys[#keys + 1] = base + 1; return end
    local stride = 1
    for j = d + 1, nd do stride = stride * sizes[j] end
    for _, i in ipairs(lists[d]) do
      if i ~= 0 then walk(d + 1, base + (i - 1) * stride) end
    end
  end
  walk(1, 0)
  return keys
end

local PRINT_LIMIT = 1 << 26

local function tensor_tostring(self)
  local tname = torch.typename(self)
  if self:isFreed() then return '[' .. tname .. ' (freed)]\n' end
  local nd = self:dim()
  local n = self:nElement()
  -- in Torch7 a tensor without elements has no dimension (a size-0
  -- dimension collapsed them all): print it as Torch7 did
  if nd == 0 or n == 0 then return '[' .. tname .. ' with no dimension]\n' end
  local footer = '[' .. tname .. ' of size ' .. sizestr(self) .. ']\n'

  local summary = n > opts.threshold
  -- what the options ask to print (threshold = inf, edgeitems = 2^62 on an
  -- expanded 2^40-element tensor) must fit in memory: past 2^26 elements
  -- (gigabytes of text) it is an error, not an hour of allocation
  local count = 1
  for d = 1, nd do
    local m = self:size(d)
    count = count * ((summary and opts.edgeitems < m / 2) and 2 * opts.edgeitems or m)
  end
  if count > PRINT_LIMIT then
    error(string.format('tostring: a %s of size %s would print %.0f elements (at most %d): lower threshold or '
                        .. 'edgeitems with torch.setprintoptions', tname, sizestr(self), count, PRINT_LIMIT), 2)
  end
  local sizes, lists = {}, {}
  for d = 1, nd do
    sizes[d] = self:size(d)
    lists[d] = shown(sizes[d], summary)
  end
  -- get(k): element k (1-based) in row-major order. In summary only a few
  -- elements print: they are read through the strides, with no copy of a
  -- tensor that may be huge; otherwise from a contiguous copy
  local get
  if summary and not self:isContiguous() then
    local s, off, strides = self:storage(), self:storageOffset(), {}
    for d = 1, nd do strides[d] = self:stride(d) end
    get = function(k)
      local idx, pos = k - 1, off
      for d = nd, 1, -1 do
        pos = pos + (idx % sizes[d]) * strides[d]
        idx = idx // sizes[d]
      end
      return s[pos]
    end
  else
    local flat = self:contiguous()
    local s, off = flat:storage(), flat:storageOffset() - 1
    get = function(k) return s[off + k] end
  end
  -- the format comes from the values that print
  local format, scale, sz
  if summary then
    format, scale, sz = printformat(get, shownkeys(lists, sizes))
  else
    format, scale, sz = printformat(get, nil, n)
  end
  local out = {}
  if nd == 1 then
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
    local dots = string.format('%' .. sz .. 's', '...')
    for _, k in ipairs(lists[1]) do out[#out + 1] = (k == 0 and dots or format(get(k))) .. '\n' end
  elseif nd == 2 then
    printmatrix(out, get, 0, lists[1], lists[2], sizes[2], format, scale, sz, '')
  else
    local rows, cols = sizes[nd - 1], sizes[nd]
    local lead = nd - 2
    -- row-major offset of each leading index; the counter runs over the
    -- shown indices, first index fastest
    local stride, pos = {}, {}
    local acc = rows * cols
    for d = lead, 1, -1 do stride[d] = acc; acc = acc * sizes[d] end
    for d = 1, lead do pos[d] = 1 end
    local firstslice, lastdots = true, false
    while true do
      local counter, skipped = {}, false
      for d = 1, lead do
        counter[d] = lists[d][pos[d]]
        if counter[d] == 0 then skipped = true end
      end
      -- a run of skipped slices prints one '...'
      if not (skipped and lastdots) then
        if not firstslice then out[#out + 1] = '\n' end
        firstslice = false
        if skipped then
          out[#out + 1] = '...\n'
        else
          local base = 0
          for d = 1, lead do base = base + (counter[d] - 1) * stride[d] end
          out[#out + 1] = '(' .. table.concat(counter, ',') .. ',.,.) = \n'
          printmatrix(out, get, base, lists[nd - 1], lists[nd], cols, format, scale, sz, ' ')
        end
      end
      lastdots = skipped
      local d = 1
      while d <= lead do
        pos[d] = pos[d] + 1
        if pos[d] <= #lists[d] then break end
        pos[d] = 1
        d = d + 1
      end
      if d > lead then break end
    end
  end
  out[#out + 1] = footer
  return table.concat(out)
end

local function storage_tostring(self)
  local tname = torch.typename(self)
  local n = self:size()
  local get = function(k) return self[k] end
  local list = shown(n, n > opts.threshold)
  local keys = {}
  for _, k in ipairs(list) do if k ~= 0 then keys[#keys + 1] = k end end
  local format, scale, sz = printformat(get, keys)
  local out = {'\n'}
  if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
  local dots = sz > 0 and string.format('%' .. sz .. 's', '...')
  for _, k in ipairs(list) do out[#out + 1] = (k == 0 and dots or format(get(k))) .. '\n' end
  out[#out + 1] = '[' .. tname .. ' of size ' .. n .. ']\n'
  return table.concat(out)
end

for _, name in ipairs(torch._typenames) do
  local tmt = torch._metatables['torch.' .. name .. 'Tensor']
  local smt = torch._metatables['torch.' .. name .. 'Storage']
  tmt.__tostring, tmt.__tostring__ = tensor_tostring, tensor_tostring
  smt.__tostring, smt.__tostring__ = storage_tostring, storage_tostring
end

return torch
