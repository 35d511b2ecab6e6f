-- Tensor sugar written in Lua: type conversions and small helpers that
-- need no kernel of their own.

local torch = torch
local C = torch._C

local function tmeta(name) return torch._metatables[name] end
local alltypes = {'torch.ByteTensor', 'torch.LongTensor', 'torch.FloatTensor', 'torch.DoubleTensor'}

local function define(name, f)
  for _, tn in ipairs(alltypes) do tmeta(tn)[name] = f end
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

define('typeAs', function(self, other) return self:type(other:type()) end)
define('byte', function(self) return self:type('torch.ByteTensor') end)
define('long', function(self) return self:type('torch.LongTensor') end)
define('float', function(self) return self:type('torch.FloatTensor') end)
define('double', function(self) return self:type('torch.DoubleTensor') end)

-- reshape copies into a new contiguous tensor (Torch7: [res] reshape([res,] x, sizes))
define('reshape', function(self, ...)
  local src = self
  local a = {...}
  if torch.isTensor(a[1]) then
    src = table.remove(a, 1)
    local r = self
    r:resize(table.unpack(a)):copy(src)
    return r
  end
  local r = self.new()
  r:resize(...):copy(src)
  return r
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

-- t:split(size [, dim]) and t:chunk(n [, dim]): tables of views
define('split', function(self, size, dim)
  if math.type(size) ~= 'integer' or size < 1 then
    error(string.format('split: size must be a positive integer, got %s', tostring(size)), 2)
  end
  dim = dim or 1
  local n = self:size(dim)
  local out = {}
  local i = 1
  while i <= n do
    local len = math.min(size, n - i + 1)
    out[#out + 1] = self:narrow(dim, i, len)
    i = i + len
  end
  return out
end)

define('chunk', function(self, n, dim)
  if math.type(n) ~= 'integer' or n < 1 then
    error(string.format('chunk: number of chunks must be a positive integer, got %s', tostring(n)), 2)
  end
  dim = dim or 1
  local size = math.ceil(self:size(dim) / n)
  return self:split(size, dim)
end)

-- Lua-function maps, as Torch7 (per element Lua calls: for convenience, not speed)
define('apply', function(self, f)
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
  local a, b = self:contiguous(), other:contiguous()
  local sa, oa, sb, ob = a:storage(), a:storageOffset(), b:storage(), b:storageOffset()
  for i = 0, a:nElement() - 1 do
    local v = f(sa[oa + i], sb[ob + i])
    if v ~= nil then sa[oa + i] = v end
  end
  if a ~= self then self:copy(a) end
  return self
end)

-- storage helpers
for _, n in ipairs{'Byte', 'Long', 'Float', 'Double'} do
  local smt = torch._metatables['torch.' .. n .. 'Storage']
  smt.totable = function(self)
    local t = {}
    for i = 1, #self do t[i] = self[i] end
    return t
  end
  smt.type = function(self) return torch.typename(self) end
end

return torch
