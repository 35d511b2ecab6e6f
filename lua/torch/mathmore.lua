-- Torch7 math made of other kernels: cross, renorm, histc, bhistc, mode,
-- atan2 (tensor form), match.
-- Each takes Torch7's optional leading result: torch.cross([res,] a, b [, dim]);
-- the methods follow Torch7 too (x:renorm(p, dim, maxnorm) works in place,
-- x:cross(y), x:histc(), x:mode() return new tensors).

local torch = torch
local define = torch._defineTensorMethod

local function tname(x) return torch.typename(x) or type(x) end

local function need(cond, fname, fmt, ...)
  if not cond then error(string.format('%s: ' .. fmt, fname, ...), 3) end
end

local function need_tensor(x, fname, what)
  need(torch.isTensor(x), fname, '%s must be a tensor, got %s', what, tname(x))
  need(not x:isFreed(), fname, '%s was freed (used after :free()/:dispose())', what)
end

-- a result must own its elements: written through stride 0 (an expanded
-- tensor), several answers would land in one element
local function need_result(r, fname, what)
  need_tensor(r, fname, what)
  for d = 1, r:dim() do
    need(r:stride(d) ~= 0 or r:size(d) <= 1, fname, '%s is expanded (stride 0 in dimension %d): pass a tensor '
         .. 'that owns its elements', what, d)
  end
end

local function need_floating(x, fname)
  local t = torch.typename(x)
  need(t == 'torch.FloatTensor' or t == 'torch.DoubleTensor', fname,
       'not available for %s (expects a Float or Double tensor)', t)
end

-- %s, not %d, in the messages: d may be inf or 2^70, which %d refuses
local function need_dim(d, x, fname)
  need(math.type(d) == 'integer' or (type(d) == 'number' and d == math.floor(d)), fname,
       'dimension must be an integer, got %s', type(d) == 'number' and tostring(d) or tname(d))
  need(d >= 1 and d <= x:dim(), fname, 'dimension %s out of range for a %dD tensor', tostring(d), x:dim())
  return math.tointeger(d)
end

-- [res] torch.cross([res,] a, b [, dim]): the cross product of 3-vectors
-- along dim (default: the first dimension of size 3)
function torch.cross(...)
  local args = table.pack(...)
  local res
  if torch.isTensor(args[3]) then res = table.remove(args, 1); args.n = args.n - 1 end
  local a, b, dim = args[1], args[2], args[3]
  need_tensor(a, 'cross', 'the first vector tensor')
  need_tensor(b, 'cross', 'the second vector tensor')
  need(torch.typename(a) == torch.typename(b), 'cross', 'tensors of one type expected, got %s and %s',
       torch.typename(a), torch.typename(b))
  need(a:isSameSizeAs(b), 'cross', 'tensors of the same size expected, got %s and %s',
       table.concat(a:size():totable(), 'x'), table.concat(b:size():totable(), 'x'))
  if dim == nil then
    for d = 1, a:dim() do if a:size(d) == 3 then dim = d; break end end
    need(dim ~= nil, 'cross', 'no dimension of size 3 in a tensor of size %s',
         a:dim() == 0 and '0 (empty)' or table.concat(a:size():totable(), 'x'))
  else
    dim = need_dim(dim, a, 'cross')
    need(a:size(dim) == 3, 'cross', 'dimension %d must have size 3, got %d', dim, a:size(dim))
  end
  if res == nil then res = a.new() end
  need_result(res, 'cross', 'the result')
  need(torch.typename(res) == torch.typename(a), 'cross', 'result must be a %s, got %s',
       torch.typename(a), torch.typename(res))
  -- computed apart, so that res may be a or b
  -- narrow, not select: a 1D select gives a number
  local function c(i) return a:narrow(dim, i, 1), b:narrow(dim, i, 1) end
  local a1, b1 = c(1)
  local a2, b2 = c(2)
  local a3, b3 = c(3)
  local out = a.new():resizeAs(a)
  out:narrow(dim, 1, 1):cmul(a2, b3):addcmul(-1, a3, b2)
  out:narrow(dim, 2, 1):cmul(a3, b1):addcmul(-1, a1, b3)
  out:narrow(dim, 3, 1):cmul(a1, b2):addcmul(-1, a2, b1)
  res:resizeAs(a):copy(out)
  return res
end
define('cross', function(self, ...) return torch.cross(self, ...) end)

-- the p-norm scaled by the largest |x|: sum(|x|^p) overflows for p = 1e308
-- (then the norm of {3, 4} came out inf, not 4)
local function pnorm(x, p)
  if x:nElement() == 0 then return 0 end
  local a = x:clone():abs()
  local top = a:max()
  if top == 0 or top ~= top or top == math.huge or p == math.huge then return top end
  return top * a:div(top):pow(p):sum() ^ (1 / p)
end

-- [res] torch.renorm([res,] x, p, dim, maxnorm): every slice x:select(dim, i)
-- whose p-norm exceeds maxnorm is scaled to norm maxnorm (Torch7 divides
-- by norm + 1e-7); the method works in place
function torch.renorm(...)
  local args = table.pack(...)
  local res
  if torch.isTensor(args[2]) then res = table.remove(args, 1) end
  local x, p, dim, maxnorm = args[1], args[2], args[3], args[4]
  need_tensor(x, 'renorm', 'the input')
  need_floating(x, 'renorm')
  need(type(p) == 'number' and p > 0, 'renorm', 'norm power must be a positive number, got %s', tostring(p))
  need(type(maxnorm) == 'number' and maxnorm >= 0, 'renorm', 'maximum norm must be a non-negative number, got %s',
       tostring(maxnorm))
  need(x:dim() > 1, 'renorm', 'tensor of at least 2 dimensions expected, got %dD', x:dim())
  dim = need_dim(dim, x, 'renorm')
  res = res or x.new()
  need_result(res, 'renorm', 'the result')
  need(torch.typename(res) == torch.typename(x), 'renorm', 'result must be a %s, got %s',
       torch.typename(x), torch.typename(res))
  if res ~= x then res:resizeAs(x):copy(x) end
  for i = 1, x:size(dim) do
    local slice = res:select(dim, i)
    local norm = pnorm(slice, p)
    if norm > maxnorm then slice:mul(maxnorm / (norm + 1e-7)) end
  end
  return res
end
define('renorm', function(self, ...)
  if torch.isTensor((...)) then return torch.renorm(self, ...) end
  return torch.renorm(self, self, ...)
end)

-- the histogram range: [min, max] given, else the data's, widened to 2 if flat
-- (an infinite or NaN bound would give no bin width: the bins come out NaN)
local function hist_range(x, nbins, lo, hi, fname)
  need(type(nbins) == 'number' and nbins >= 1 and math.tointeger(nbins) ~= nil, fname,
       'number of bins must be a positive integer, got %s', tostring(nbins))
  need(type(lo) == 'number' and type(hi) == 'number', fname, 'min and max must be numbers, got %s and %s',
       tname(lo), tname(hi))
  need(lo - lo == 0 and hi - hi == 0, fname, 'min and max must be finite, got %s and %s', tostring(lo), tostring(hi))
  need(lo <= hi, fname, 'min (%g) must not exceed max (%g)', lo, hi)
  if lo == hi and x:nElement() > 0 then
    lo, hi = x:min(), x:max()
    need(lo - lo == 0 and hi - hi == 0, fname, "the data's range [%s, %s] is not finite: give min and max",
         tostring(lo), tostring(hi))
  end
  if lo == hi then lo, hi = lo - 1, hi + 1 end
  need(hi - lo < math.huge, fname, 'the range [%g, %g] is too wide (its width overflows)', lo, hi)
  return math.tointeger(nbins), lo, hi
end

-- counts of the elements of x in nbins equal bins over [lo, hi] into row
-- (a 1D tensor of nbins elements); values outside are left out, hi counts
-- in the last bin
local function count_into(row, x, nbins, lo, hi)
  row:zero()
  local flat = x:contiguous():view(-1)
  local inside = torch.ge(flat, lo):cmul(torch.le(flat, hi))
  if inside:sum() == 0 then return end
  -- in double: v - lo overflows a float for a range like [-3e38, 3e38]
  local vals = flat:maskedSelect(inside):double()
  -- (v - lo) / (hi - lo) first: nbins / (hi - lo) overflows for a range of 5e-324
  local bins = vals:add(-lo):div(hi - lo):mul(nbins):floor():clamp(0, nbins - 1):long():add(1)
  row:indexAdd(1, bins, row.new(bins:size(1)):fill(1))
end

-- the counts, apart from the result (which may be x or a view of x); a
-- refused size (2^62 bins) is reported under the caller's name
local function new_counts(x, fname, ...)
  local ok, out = pcall(x.new, ...)
  need(ok, fname, '%s', tostring(out):gsub('^.-: ', '', 1))
  return out
end

local function split_res(fname, ...)
  local args = table.pack(...)
  local res
  if torch.isTensor(args[2]) then res = table.remove(args, 1) end
  need_tensor(args[1], fname, 'the input')
  need_floating(args[1], fname)
  res = res or args[1].new()
  need_result(res, fname, 'the result')
  need(torch.typename(res) == torch.typename(args[1]), fname, 'result must be a %s, got %s',
       torch.typename(args[1]), torch.typename(res))
  return res, args[1], args[2] or 100, args[3] or 0, args[4] or 0
end

-- [res] torch.histc([res,] x [, nbins = 100, min = 0, max = 0]): a histogram of
-- all elements (min = max: the data's range)
function torch.histc(...)
  local res, x, nbins, lo, hi = split_res('histc', ...)
  nbins, lo, hi = hist_range(x, nbins, lo, hi, 'histc')
  local out = new_counts(x, 'histc', nbins)
  count_into(out, x, nbins, lo, hi)
  return res:resize(nbins):copy(out)
end

-- [res] torch.bhistc([res,] x [, nbins = 100, min = 0, max = 0]): one histogram
-- per row of a 2D x (a 1D x is one row); min = max takes the whole tensor's range
function torch.bhistc(...)
  local res, x, nbins, lo, hi = split_res('bhistc', ...)
  need(x:dim() == 1 or x:dim() == 2, 'bhistc', '1D or 2D tensor expected, got %dD', x:dim())
  nbins, lo, hi = hist_range(x, nbins, lo, hi, 'bhistc')
  local rows = x:dim() == 2 and x or x:view(1, -1)
  local out = new_counts(x, 'bhistc', rows:size(1), nbins)
  for i = 1, rows:size(1) do count_into(out[i], rows[i], nbins, lo, hi) end
  if x:dim() == 1 then out = out[1] end
  return res:resizeAs(out):copy(out)
end
for _, n in ipairs{'histc', 'bhistc'} do
  define(n, function(self, ...) return torch[n](self, ...) end)
end

-- values, indices = torch.mode([values, indices,] x [, dim = last]): the most
-- frequent value of each slice along dim (the smallest of those tied) and
-- the index of its last appearance, keeping dim with size 1 as Torch7
function torch.mode(...)
  local args = table.pack(...)
  local rv, ri
  if torch.isTensor(args[2]) and torch.isTensor(args[3]) then
    rv, ri = args[1], args[2]
    args = table.pack(table.unpack(args, 3, args.n))
  elseif torch.isTensor(args[1]) and torch.isTensor(args[2]) then
    -- one result given (Torch7's cwrap): the values when it has the
    -- input's type, else the indices
    if torch.typename(args[1]) == torch.typename(args[2]) then rv = args[1] else ri = args[1] end
    args = table.pack(table.unpack(args, 2, args.n))
  end
  local x, dim = args[1], args[2]
  need_tensor(x, 'mode', 'the input')
  need(x:dim() > 0, 'mode', 'non-empty tensor expected')
  dim = need_dim(dim or x:dim(), x, 'mode')
  need(x:size(dim) > 0, 'mode', 'dimension %d is empty (no value to count)', dim)
  rv = rv or x.new()
  ri = ri or torch.LongTensor()
  need_result(rv, 'mode', 'the values result')
  need_result(ri, 'mode', 'the indices result')
  need(torch.typename(rv) == torch.typename(x), 'mode', 'values result must be a %s, got %s',
       torch.typename(x), tname(rv))
  need(torch.typename(ri) == 'torch.LongTensor', 'mode', 'indices result must be a torch.LongTensor, got %s', tname(ri))
  local size = x:size()
  size[dim] = 1
  -- rows: the slices along dim, one per row of a 2D copy
  local xt = x:transpose(dim, x:dim()):contiguous()
  local n = x:size(dim)
  local rows = xt:view(-1, n)
  local vals, idxs = x.new(rows:size(1)), torch.LongTensor(rows:size(1))
  for r = 1, rows:size(1) do
    local row, count, last = rows[r], {}, {}
    for j = 1, n do
      local v = row[j]
      need(v == v, 'mode', 'NaN in the input (it has no frequency)')
      count[v] = (count[v] or 0) + 1
      last[v] = j
    end
    local best, bestc = nil, 0
    for v, c in pairs(count) do
      if c > bestc or (c == bestc and v < best) then best, bestc = v, c end
    end
    vals[r], idxs[r] = best, last[best]
  end
  local tsize = xt:size()
  tsize[xt:dim()] = 1
  rv:resize(size):copy(vals:view(tsize):transpose(dim, x:dim()))
  ri:resize(size):copy(idxs:view(tsize):transpose(dim, x:dim()))
  return rv, ri
end
define('mode', function(self, ...) return torch.mode(self, ...) end)


-- [res] torch.atan2([res,] a, b): the angle of each point (b, a) (C's
-- atan2(a, b)), element by element; x:atan2(y) works in place, r:atan2(a, b)
-- writes r. Plain numbers: torch.atan2(1, 2) (lua/torch/math.lua).
-- Per element through Lua's math.atan (C's atan2): correct, not fast.
local numberAtan2 = torch.atan2
function torch.atan2(...)
  local n = select('#', ...)
  local res, a, b = ...
  if n <= 2 then
    if type(res) == 'number' then return numberAtan2(...) end
    res, a, b = nil, res, a
  end
  need_tensor(a, 'atan2', 'the first tensor')
  need_floating(a, 'atan2')
  need_tensor(b, 'atan2', 'the second tensor')
  need(torch.typename(a) == torch.typename(b), 'atan2', 'tensors of one type expected, got %s and %s',
       torch.typename(a), torch.typename(b))
  need(a:nElement() == b:nElement(), 'atan2', 'tensors of the same number of elements expected, got %d and %d',
       a:nElement(), b:nElement())
  local out = a:clone()
  out:map(b, function(y, x) return math.atan(y, x) end)
  if res == nil then return out end
  need_result(res, 'atan2', 'the result')
  need(torch.typename(res) == torch.typename(a), 'atan2', 'result must be a %s, got %s', torch.typename(a), tname(res))
  return res:resizeAs(a):copy(out)
end
define('atan2', function(self, a, b)
  if b == nil then return torch.atan2(self, self, a) end
  return torch.atan2(self, a, b)
end)

-- [res] torch.match([res,] m1, m2 [, gain = 1]): res[i][j] = gain *
-- ||m1[i] - m2[j]||^2, each row of m1 and m2 flattened (Torch7's THTensor
-- match: N1 x N2 squared distances)
function torch.match(...)
  local args = table.pack(...)
  local res
  if torch.isTensor(args[3]) then res = table.remove(args, 1); args.n = args.n - 1 end
  local m1, m2, gain = args[1], args[2], args[3]
  need_tensor(m1, 'match', 'm1')
  need_tensor(m2, 'match', 'm2')
  need_floating(m1, 'match')
  need(torch.typename(m1) == torch.typename(m2), 'match', 'm1 and m2 of one type expected, got %s and %s',
       torch.typename(m1), torch.typename(m2))
  need(gain == nil or type(gain) == 'number', 'match', 'gain must be a number, got %s', tname(gain))
  need(m1:dim() > 0 and m2:dim() > 0, 'match', 'non-empty m1 and m2 expected')
  local n1, n2 = m1:size(1), m2:size(1)
  local a, b = m1:contiguous():view(n1, -1), m2:contiguous():view(n2, -1)
  need(a:size(2) == b:size(2), 'match', 'm1 and m2 must have the same inner vector dim (%d and %d)',
       a:size(2), b:size(2))
  local out = m1.new(n1, n2)
  local d = m1.new()
  for i = 1, n1 do
    d:resizeAs(b):copy(b):mul(-1):add(a[i]:view(1, -1):expandAs(b))
    out[i]:copy(d:cmul(d):sum(2):view(n2))
  end
  out:mul(gain or 1)
  if res == nil then return out end
  need_result(res, 'match', 'the result')
  need(torch.typename(res) == torch.typename(m1), 'match', 'result must be a %s, got %s', torch.typename(m1), tname(res))
  return res:resizeAs(out):copy(out)
end
define('match', function(self, ...) return torch.match(self, ...) end)

-- the functions raise at the user's call: the checks above sit one or two
-- helpers deep (need_tensor, split_res), so their level alone named this file
for _, n in ipairs{'cross', 'renorm', 'histc', 'bhistc', 'mode', 'atan2', 'match'} do
  torch[n] = torch._userCall(n, torch[n])
end

return torch
