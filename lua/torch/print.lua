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

local WIDTH = 80   -- Torch7 wraps at 80 columns whatever the terminal
local huge = math.huge
local floor, log = math.floor, math.log

-- format for the values get(first..last): returns a formatter, the scale
-- (nil when 1) and the field width
local function printformat(get, first, last)
  if last < first then return nil, nil, 0 end
  local intMode, nonfinite = true, false
  local amin, amax = huge, 0
  for i = first, last do
    local v = get(i)
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

  local kind, sz, scale
  if intMode then
    if expMax > 9 then kind, sz = 'e', 11 else kind, sz = 'd', expMax + 1 end
  elseif expMax - expMin > 4 then
    kind, sz = 'e', 11
    if math.abs(expMax) > 99 or math.abs(expMin) > 99 then sz = sz + 1 end
  elseif expMax > 5 or expMax < 0 then
    kind, sz, scale = 'f', 7, 10.0 ^ (expMax - 1)
  else
    kind, sz = 'f', expMax == 0 and 7 or expMax + 6
  end
  if nonfinite and sz < 4 then sz = 4 end   -- room for '-inf'
  if scale == 1 then scale = nil end

  local fmt = kind == 'd' and ('%' .. sz .. 'd') or ('%' .. sz .. '.4' .. kind)
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

-- a rows x cols matrix whose element (r, c) is get(base + (r-1)*cols + c)
local function printmatrix(out, get, base, rows, cols, format, scale, sz, indent)
  out[#out + 1] = indent
  local perLine = math.max(1, (WIDTH - #indent) // (sz + 1))
  local firstCol = 1
  while firstCol <= cols do
    local lastCol = math.min(firstCol + perLine - 1, cols)
    if perLine < cols then
      -- as Torch7: only the first block's header is indented
      if firstCol ~= 1 then out[#out + 1] = '\n' end
      out[#out + 1] = 'Columns ' .. firstCol .. ' to ' .. lastCol .. '\n' .. indent
    end
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n ' .. indent end
    for r = 1, rows do
      local rowbase = base + (r - 1) * cols
      for c = firstCol, lastCol do
        out[#out + 1] = format(get(rowbase + c))
        if c == lastCol then
          out[#out + 1] = '\n'
          if r ~= rows then out[#out + 1] = scale and (indent .. ' ') or indent end
        else
          out[#out + 1] = ' '
        end
      end
    end
    firstCol = lastCol + 1
  end
end

local function tensor_tostring(self)
  local tname = torch.typename(self)
  if self:isFreed() then return '[' .. tname .. ' (freed)]\n' end
  local nd = self:dim()
  local n = self:nElement()
  -- in Torch7 a tensor without elements has no dimension (a size-0
  -- dimension collapsed them all): print it as Torch7 did
  if nd == 0 or n == 0 then return '[' .. tname .. ' with no dimension]\n' end
  local footer = '[' .. tname .. ' of size ' .. sizestr(self) .. ']\n'

  -- the values in row-major order: element k (1-based) is s[off + k]
  local flat = self:contiguous()
  local s, off = flat:storage(), flat:storageOffset() - 1
  local get = function(k) return s[off + k] end
  local format, scale, sz = printformat(get, 1, n)
  local out = {}
  if nd == 1 then
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
    for k = 1, n do out[#out + 1] = format(get(k)) .. '\n' end
  elseif nd == 2 then
    printmatrix(out, get, 0, self:size(1), self:size(2), format, scale, sz, '')
  else
    local rows, cols = self:size(nd - 1), self:size(nd)
    local lead = nd - 2
    -- row-major offset of each leading index; the counter runs first-fastest
    local stride, counter = {}, {}
    local acc = rows * cols
    for d = lead, 1, -1 do stride[d] = acc; acc = acc * self:size(d) end
    for d = 1, lead do counter[d] = 1 end
    local nslices = n // (rows * cols)
    for slice = 1, nslices do
      if slice > 1 then out[#out + 1] = '\n' end
      local base = 0
      for d = 1, lead do base = base + (counter[d] - 1) * stride[d] end
      out[#out + 1] = '(' .. table.concat(counter, ',') .. ',.,.) = \n'
      printmatrix(out, get, base, rows, cols, format, scale, sz, ' ')
      for d = 1, lead do
        counter[d] = counter[d] + 1
        if counter[d] <= self:size(d) then break end
        counter[d] = 1
      end
    end
  end
  out[#out + 1] = footer
  return table.concat(out)
end

local function storage_tostring(self)
  local tname = torch.typename(self)
  local n = self:size()
  local get = function(k) return self[k] end
  local format, scale = printformat(get, 1, n)
  local out = {'\n'}
  if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
  for k = 1, n do out[#out + 1] = format(get(k)) .. '\n' end
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
