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

define('typeAs', function(self, other)
  if not torch.isTensor(other) then
    error(string.format('typeAs: tensor expected, got %s', torch.type(other)), 2)
  end
  return self:type(other:type())
end)
define('byte', function(self) return self:type('torch.ByteTensor') end)
define('long', function(self) return self:type('torch.LongTensor') end)
define('float', function(self) return self:type('torch.FloatTensor') end)
define('double', function(self) return self:type('torch.DoubleTensor') end)

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
    error(string.format('map: element counts differ: %s has %d, %s has %d', sizestr(self), self:nElement(),
                        sizestr(other), other:nElement()), 2)
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
