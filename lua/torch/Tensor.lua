-- Tensor sugar written in Lua: type conversions and small helpers that
-- need no kernel of their own.

local torch = torch
local C = torch._C

local function tmeta(name) return torch._metatables[name] end
local alltypes = {}
for i, n in ipairs(torch._typenames) do alltypes[i] = 'torch.' .. n .. 'Tensor' end

-- An error raised inside a method written in Lua at a position in one of
-- the project's own files ('.../lua/torch/Tensor.lua:305: resize: ...') is
-- an internal detail of the method the user called: it is raised again
-- at the user's call, named after the method ('repeatTensor: resize: ...').
local luaroot = debug.getinfo(1, 'S').source:match('^@(.*/)torch/[^/]*$')
local function relocate(name, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) ~= 'string' then error(e, 0) end
  if luaroot and e:sub(1, #luaroot) == luaroot then
    e = e:gsub('^[^:\n]+:%d+: ', '', 1)
    if e:sub(1, #name + 1) ~= name .. ':' and not e:find('^bad argument') then e = name .. ': ' .. e end
  elseif e:find('^[^:\n]+:%d+: ') then
    error(e, 0)   -- already placed (the user's own function, as in apply/map)
  end
  -- called as 'return relocate(...)' (a tail call): level 2 is the user's call
  error(e, 2)
end
-- msg without the position of a project file it starts with, named 'name';
-- nil when it does not start with one (torch.class's constructors use it)
function torch._unplaceInternal(name, e)
  if type(e) ~= 'string' or not luaroot or e:sub(1, #luaroot) ~= luaroot then return nil end
  e = e:gsub('^[^:\n]+:%d+: ', '', 1)
  if e:sub(1, #name + 1) ~= name .. ':' and not e:find('^bad argument') then e = name .. ': ' .. e end
  return e
end

-- f wrapped so that its errors are placed at the user's call (relocate)
function torch._userCall(name, f)
  return function(...) return relocate(name, pcall(f, ...)) end
end

local function define(name, f)
  local g = function(...) return relocate(name, pcall(f, ...)) end
  for _, tn in ipairs(alltypes) do tmeta(tn)[name] = g end
end
torch._defineTensorMethod = define

-- t:type() -> name; t:type(name) -> t converted (t itself when already that type)
define('type', function(self, tname)
  if tname == nil then return torch.typename(self) end
  local short = torch._tensortypes[tname]
  if not short then
    error(string.format("type: tensor type name expected (e.g. 'torch.FloatTensor'), got %s", tostring(tname)), 2)
  end
  if tname == torch.typename(self) then return self end
  local r = torch[short .. 'Tensor']()
  if self:dim() > 0 then r:resize(self:size()):copy(self) end
  return r
end)

define('typeAs', function(self, other)
  if not torch.isTensor(other) then
    error(string.format('typeAs: tensor expected, got %s', torch.type(other)), 2)
  end
  return self:type(other:type())
end)
-- x:real(): the default tensor type (Torch7's, to compute on a HalfTensor)
define('real', function(self) return self:type(torch.getdefaulttensortype()) end)
-- x:byte(), x:char(), x:short(), x:int(), x:long(), x:float(), x:double()
for _, n in ipairs(torch._typenames) do
  local tn = 'torch.' .. n .. 'Tensor'
  define(n:lower(), function(self) return self:type(tn) end)
  -- x:elementSize(): bytes per element (Torch7's; 1 for Byte and Char ... 8 for Double)
  local size = C.dtypeSizes[n]
  tmeta(tn).elementSize = function() return size end
  torch._metatables['torch.' .. n .. 'Storage'].elementSize = function() return size end
end

-- reshape copies into a new contiguous tensor (Torch7: [res] reshape([res,] x, sizes))
local function sizestr(t)
  if t:dim() == 0 then return 'empty' end
  local s = {}
  for i = 1, t:dim() do s[i] = tostring(t:size(i)) end
  return table.concat(s, 'x')
end

define('reshape', function(self, ...)
  local src, r = self, nil
  local a = table.pack(...)
  if torch.isTensor(a[1]) then
    src, r = a[1], self
    a = table.pack(table.unpack(a, 2, a.n))
  else
    r = self.new()
  end
  -- resize checks the sizes (types, negatives, overflow); its message is
  -- renamed so that the user reads the function they called
  local ok, err = pcall(r.resize, r, table.unpack(a, 1, a.n))
  if not ok then error('reshape: ' .. tostring(err):gsub('^resize: ', ''), 2) end
  if r:nElement() ~= src:nElement() then
    error(string.format('reshape: cannot reshape a tensor of size %s (%d elements) into %s (%d elements)',
                        sizestr(src), src:nElement(), sizestr(r), r:nElement()), 2)
  end
  return r:copy(src)
end)

define('totable', function(self)
  local function rec(t)
    if t:dim() == 1 then
      local out = {}
      for i = 1, t:size(1) do out[i] = t[i] end
      return out
    end
    local out = {}
    for i = 1, t:size(1) do out[i] = rec(t:select(1, i)) end
    return out
  end
  if self:dim() == 0 then return {} end
  return rec(self)
end)

define('isTensor', function() return true end)

-- t:split(size [, dim]) and t:chunk(n [, dim]): tables of views; as in
-- Torch7, torch.split(result, t, size [, dim]) fills (emptied) table 'result'
local function split(self, size, dim, out)
  if math.type(size) ~= 'integer' or size < 1 then
    error(string.format('split: size must be a positive integer, got %s', tostring(size)), 3)
  end
  dim = dim or 1
  local n = self:size(dim)
  local i = 1
  while i <= n do
    local len = math.min(size, n - i + 1)
    out[#out + 1] = self:narrow(dim, i, len)
    i = i + len
  end
  return out
end

local function resultTable(t)
  for k in pairs(t) do t[k] = nil end
  return t
end

function torch.split(result, tensor, size, dim)
  if type(result) == 'table' and not torch.typename(result) then
    return split(tensor, size, dim, resultTable(result))
  end
  if not torch.isTensor(result) then
    error(string.format("bad argument #1 to 'torch.split' (tensor or table expected, got %s)", torch.type(result)), 2)
  end
  return split(result, tensor, size, {})
end

define('split', function(self, size, dim)
  if type(self) == 'table' then return torch.split(self, size, dim, nil) end
  return split(self, size, dim, {})
end)

function torch.chunk(result, tensor, n, dim)
  local out = {}
  if type(result) == 'table' and not torch.typename(result) then
    out = resultTable(result)
  else
    result, tensor, n, dim = nil, result, tensor, n
  end
  if not torch.isTensor(tensor) then
    error(string.format("bad argument #1 to 'torch.chunk' (tensor expected, got %s)", torch.type(tensor)), 2)
  end
  if math.type(n) ~= 'integer' or n < 1 then
    error(string.format('chunk: number of chunks must be a positive integer, got %s', tostring(n)), 2)
  end
  dim = dim or 1
  return split(tensor, math.ceil(tensor:size(dim) / n), dim, out)
end

define('chunk', function(self, n, dim) return torch.chunk(self, n, dim) end)

-- Lua-function maps, as Torch7 (per element Lua calls: for convenience, not speed)
local function checkcallable(fname, f)
  local mt = getmetatable(f)
  if type(f) ~= 'function' and not (mt and mt.__call) then
    error(string.format('%s: function expected, got %s', fname, torch.type(f)), 3)
  end
end

define('apply', function(self, f)
  checkcallable('apply', f)
  local flat = self:contiguous()
  local copyback = flat ~= self
  local s, off, n = flat:storage(), flat:storageOffset(), flat:nElement()
  for i = 0, n - 1 do
    local v = f(s[off + i])
    if v ~= nil then s[off + i] = v end
  end
  if copyback then self:copy(flat) end
  return self
end)

define('map', function(self, other, f)
  if not torch.isTensor(other) then
    error(string.format('map: tensor expected as argument 1, got %s', torch.type(other)), 2)
  end
  if other:nElement() ~= self:nElement() then
    local function desc(t, second)
      if t:dim() == 0 then return second and 'an empty one' or 'an empty tensor' end
      return string.format('%s of size %s (%d element%s)', second and 'one' or 'a tensor', sizestr(t), t:nElement(),
                           t:nElement() == 1 and '' or 's')
    end
    error(string.format('map: element counts differ: %s and %s', desc(self), desc(other, true)), 2)
  end
  checkcallable('map', f)
  local a, b = self:contiguous(), other:contiguous()
  local sa, oa, sb, ob = a:storage(), a:storageOffset(), b:storage(), b:storageOffset()
  for i = 0, a:nElement() - 1 do
    local v = f(sa[oa + i], sb[ob + i])
    if v ~= nil then sa[oa + i] = v end
  end
  if a ~= self then self:copy(a) end
  return self
end)

-- t:map2(a, b, f): t[i] = f(t[i], a[i], b[i]) (a nil result leaves t[i])
define('map2', function(self, a, b, f)
  local x, y, z = self:contiguous(), a:contiguous(), b:contiguous()
  if x:nElement() ~= y:nElement() or x:nElement() ~= z:nElement() then
    error(string.format('map2: element counts differ: %d, %d and %d', x:nElement(), y:nElement(), z:nElement()), 2)
  end
  local sx, ox, sy, oy, sz, oz = x:storage(), x:storageOffset(), y:storage(), y:storageOffset(),
                                 z:storage(), z:storageOffset()
  for i = 0, x:nElement() - 1 do
    local v = f(sx[ox + i], sy[oy + i], sz[oz + i])
    if v ~= nil then sx[ox + i] = v end
  end
  if x ~= self then self:copy(x) end
  return self
end)

-- storage helpers
for _, n in ipairs(torch._typenames) do
  local smt = torch._metatables['torch.' .. n .. 'Storage']
  smt.totable = function(self)
    local t = {}
    for i = 1, #self do t[i] = self[i] end
    return t
  end
  smt.type = function(self) return torch.typename(self) end
  -- Torch7's s:string() (the bytes as a Lua string) and s:string(str)
  -- (resize to #str and take its bytes), for one-byte integer storages
  if C.dtypeSizes[n] == 1 and not C.dtypeFloating[n] then
    smt.string = function(self, str)
      if str == nil then return self:_bytes() end
      if type(str) ~= 'string' then
        error(string.format("bad argument #2 to 'string' (string expected, got %s)", torch.type(str)), 2)
      end
      return self:resize(#str):_setbytes(str)
    end
  end
end

-- --- Torch7 functions the C layer does not provide -----------------------

local function tname(x) return torch.typename(x) or type(x) end

local function sizesFrom(who, first, ...)
  if torch.typename(first) == 'torch.LongStorage' then return first:totable() end
  local out = {first, ...}
  for i, v in ipairs(out) do
    if math.type(v) ~= 'integer' and not (type(v) == 'number' and v == math.floor(v)) then
      error(string.format("bad argument #%d to '%s' (sizes (numbers or a torch.LongStorage) expected, got %s)",
                          i + 1, who, tname(v)), 3)
    end
  end
  return out
end

-- squeeze as Torch7: a result of one element from squeeze() (or from
-- squeeze(dim) of a 1D tensor) is returned as a number. torch.squeeze([res,] x [, dim]).
for _, tn in ipairs(alltypes) do
  local mt = tmeta(tn)
  local view = mt.squeeze
  mt._squeeze = view      -- always a tensor (nn uses it)
  mt.squeeze = function(self, a, b)
    local res, src, dim = nil, self, a
    if torch.isTensor(a) then res, src, dim = self, a, b end
    local ok, r = pcall(view, src, dim)
    if not ok then error((tostring(r):gsub('^[^\n]-:%d+: ', '')), 2) end
    if res then res:set(r); r = res end
    if r:dim() == 1 and r:size(1) == 1 and (dim == nil or src:dim() == 1) then return r[1] end
    return r
  end
end

-- t:equal(u): same size and the same elements (Torch7's THTensor_equal)
define('equal', function(self, other)
  if not torch.isTensor(other) then
    error(string.format("bad argument #2 to 'equal' (tensor expected, got %s)", tname(other)), 2)
  end
  -- of the same type, as Torch7's (which compared elements of one type)
  if torch.type(other) ~= torch.type(self) then
    error(string.format("bad argument #2 to 'equal' (%s expected, got %s)", torch.type(self), torch.type(other)), 2)
  end
  if not self:isSameSizeAs(other) then return false end
  if self:nElement() == 0 then return true end
  return self:eq(other):all()
end)

-- t:isSize(sizes): the sizes (a torch.LongStorage or table) are t's
define('isSize', function(self, size)
  local t = torch.typename(size) == 'torch.LongStorage' and size:totable() or size
  if type(t) ~= 'table' then
    error(string.format("bad argument #2 to 'isSize' (torch.LongStorage expected, got %s)", tname(size)), 2)
  end
  if #t ~= self:dim() then return false end
  for i = 1, #t do if t[i] ~= self:size(i) then return false end end
  return true
end)

-- [res] repeatTensor([res,] x, sizes...): x tiled sizes[i] times along each
-- dimension (leading dimensions added when there are more sizes than x has)
define('repeatTensor', function(result, tensor, ...)
  if type(tensor) == 'number' or torch.typename(tensor) == 'torch.LongStorage' then
    return torch.repeatTensor(result.new(), result, tensor, ...)
  end
  if not torch.isTensor(tensor) then
    error(string.format("bad argument #2 to 'repeatTensor' (tensor or sizes expected, got %s)", tname(tensor)), 2)
  end
  local size = sizesFrom('repeatTensor', ...)
  if #size < tensor:dim() then
    error(string.format("repeatTensor: number of repeat dimensions (%d) can not be smaller than the number of dimensions of the tensor (%d)",
                        #size, tensor:dim()), 2)
  end
  if not tensor:isContiguous() then tensor = tensor:clone() end
  local xsize = tensor:dim() > 0 and tensor:size():totable() or {}
  while #xsize < #size do table.insert(xsize, 1, 1) end
  local rsize, total = {}, 1
  for i = 1, #size do
    local c = math.tointeger(size[i])
    if c == nil then
      error(string.format("repeatTensor: repeat counts must be integers, got %s for dimension %d", tostring(size[i]), i), 2)
    end
    if c < 1 then
      error(string.format("repeatTensor: repeat counts must be positive, got %d for dimension %d", c, i), 2)
    end
    -- sizes and their product must stay below 2^63 (a wrapped product
    -- would give a small tensor)
    if c > math.maxinteger // xsize[i] or (xsize[i] * c > 0 and total > math.maxinteger // (xsize[i] * c)) then
      error(string.format("repeatTensor: the result's size overflows (more than 2^63 elements)"), 2)
    end
    rsize[i] = xsize[i] * c
    total = total * rsize[i]
  end
  local x = tensor.new():set(tensor:storage(), tensor:storageOffset(), torch.LongStorage(xsize))
  result:resize(torch.LongStorage(rsize))
  local u = result.new():set(result)
  for i = 1, #xsize do u = u:unfold(i, xsize[i], xsize[i]) end
  local ux = {}
  for _ = 1, u:dim() - #xsize do ux[#ux + 1] = 1 end
  for i = 1, #xsize do ux[#ux + 1] = xsize[i] end
  u:copy(x:view(torch.LongStorage(ux)):expandAs(u))
  return result
end)

-- [res] diag([res,] x [, k]): the k-th diagonal of a matrix as a vector, or a
-- matrix with vector x on its k-th diagonal (k > 0 above, k < 0 below)
define('diag', function(res, x, k)
  if not torch.isTensor(x) then res, x, k = res.new(), res, x end
  k = k or 0
  if math.type(k) ~= 'integer' then
    error(string.format("bad argument #3 to 'diag' (integer diagonal index expected, got %s)", tname(k)), 2)
  end
  if x:dim() == 1 then
    local m = x:size(1)
    -- n * n elements must fit: |k| is checked before it is added (math.abs(mininteger) wraps)
    if k > 3037000499 - m or k < m - 3037000499 then
      error(string.format('diag: diagonal %d of a %d-element vector needs a matrix of more than 2^63 elements', k, m), 2)
    end
    local n = m + math.abs(k)
    res:resize(n, n):zero()
    local d = res.new():set(res:storage(), res:storageOffset() + (k >= 0 and k or -k * n),
                            torch.LongStorage{x:size(1)}, torch.LongStorage{n + 1})
    d:copy(x)
    return res
  elseif x:dim() == 2 then
    local r, c = x:size(1), x:size(2)
    local len = k >= 0 and math.min(r, c - k) or math.min(r + k, c)
    if len <= 0 then
      error(string.format("diag: diagonal %d out of range for a %dx%d matrix", k, r, c), 2)
    end
    local off = x:storageOffset() + (k >= 0 and k * x:stride(2) or -k * x:stride(1))
    local d = x.new():set(x:storage(), off, torch.LongStorage{len},
                          torch.LongStorage{x:stride(1) + x:stride(2)})
    res:resize(len):copy(d)
    return res
  end
  error(string.format("diag: 1D or 2D tensor expected, got %dD", x:dim()), 2)
end)

-- trace(x): the sum of the diagonal of a matrix
define('trace', function(self)
  if self:dim() ~= 2 then
    error(string.format("trace: 2D tensor expected, got %dD", self:dim()), 2)
  end
  if self:nElement() == 0 then return 0 end
  return self:diag():sum()
end)

-- [res] tril([res,] x [, k]) / triu: the lower (upper) triangle of a matrix,
-- from diagonal k on; the other elements are zero
local function triangle(name, keepBelow)
  return function(res, x, k)
    if not torch.isTensor(x) then res, x, k = res.new(), res, x end
    k = k or 0
    if math.type(k) ~= 'integer' then
      error(string.format("bad argument #3 to '%s' (integer diagonal index expected, got %s)", name, tname(k)), 2)
    end
    if x:dim() ~= 2 then
      error(string.format("%s: 2D tensor expected, got %dD", name, x:dim()), 2)
    end
    local r, c = x:size(1), x:size(2)
    -- offset(i, j) = j - i, built by broadcasting a column and a row of indices
    local off = torch.LongTensor(r, c)
    off:copy(torch.range(torch.LongTensor(), 1, c):view(1, c):expand(r, c))
    off:add(-1, torch.range(torch.LongTensor(), 1, r):view(r, 1):expand(r, c))
    local drop = keepBelow and off:gt(k) or off:lt(k)
    if res ~= x then res:resizeAs(x):copy(x) end
    res:maskedFill(drop, 0)
    return res
  end
end
define('tril', triangle('tril', true))
define('triu', triangle('triu', false))

-- Torch7's aliases: mod is fmod, cmod is cfmod
for _, tn in ipairs(alltypes) do
  local mt = tmeta(tn)
  mt.mod, mt.cmod = mt.fmod, mt.cfmod
end
function torch.mod(...) return torch.fmod(...) end
function torch.cmod(...) return torch.cfmod(...) end

-- [res] torch.logspace([res,] a, b [, n=100]): n points from 10^a to 10^b
function torch.logspace(res, a, b, n)
  if not torch.isTensor(res) then res, a, b, n = torch.Tensor(), res, a, b end
  torch.linspace(res, a, b, n or 100)
  return res:copy(torch.pow(10, res))
end
define('logspace', function(self, a, b, n) return torch.logspace(self, a, b, n) end)

-- x:cuda(), x:cudaDouble(), ...: cutorch's conversions. This engine has no
-- GPU: they raise an error that says so and how to run the script anyway.
-- The CUDA stand-in (lua/cutorch, asked for) replaces them with its own.
for _, m in ipairs{'cuda', 'cudaDouble', 'cudaHalf', 'cudaLong', 'cudaInt', 'cudaShort', 'cudaChar', 'cudaByte'} do
  local msg = 'Tensor:' .. m .. ': this engine is CPU-only; see docs/cuda.md '
              .. '(TH_CUDA_STANDIN=1 runs cutorch scripts on the CPU)'
  local f = function() error(msg, 2) end
  for _, tn in ipairs(alltypes) do tmeta(tn)[m] = f end
end

-- functional forms: torch.f(x, ...) is x:f(...) (with Torch7's optional result first)
for _, name in ipairs{'numel', 'view', 'viewAs', 'reshape', 'expand', 'expandAs', 'repeatTensor',
                      'split', 'chunk', 'totable', 'permute', 'transpose', 't', 'narrow', 'select',
                      'sub', 'unfold', 'squeeze', 'unsqueeze', 'equal', 'diag', 'trace', 'tril',
                      'triu', 'isSameSizeAs', 'nElement', 'dim', 'nDimension', 'size', 'stride',
                      'contiguous', 'clone', 'isContiguous', 'storageOffset', 'zero', 'fill'} do
  if torch[name] == nil then
    torch[name] = function(x, ...)
      if not torch.isTensor(x) then
        error(string.format("bad argument #1 to 'torch.%s' (tensor expected, got %s)", name, tname(x)), 2)
      end
      return x[name](x, ...)
    end
  end
end

-- torch.data(x [, asnumber]), torch.cdata(x [, asnumber]): Torch7's FFI
-- helpers. x:data() / x:cdata() of a tensor or storage (a light userdata
-- here, an FFI pointer in Torch7); with asnumber, the address as an
-- integer (Torch7: an intptr_t, which scripts pass to tonumber)
for _, name in ipairs{'data', 'cdata'} do
  torch[name] = function(x, asnumber)
    if x == nil then return nil end
    if not (torch.isTensor(x) or torch.isStorage(x)) then
      error(string.format('torch.%s: tensor or storage expected, got %s', name, tname(x)), 2)
    end
    local p = x[name](x)
    if asnumber then return torch.pointer(p) end
    return p
  end
end

return torch
