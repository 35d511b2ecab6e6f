-- dataset.file: the byte-level helpers the format readers and writers share.
--   read(path, who)          the whole file as a string; 'path.gz' (or a path
--                            ending in .gz) is read through `gzip -dc`
--   find(dir, names, who)    the first of dir/name, dir/name.gz that exists
--   write(path, bytes, who)  writes a string; gzip(path, who) compresses it
--   bytes(t)                 a ByteTensor's elements as a string
--   tensor(s, pos, n)        n bytes of s from pos as a new ByteTensor
--   set(data, labels, who)   {data =, labels =} with size() and set[i]
--   checkOpts(opts, who)     the loaders' options, checked
-- Errors name the caller ('who'), the file and what was wrong.
require 'torch'

local M = {}

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function exists(path)
  local f = io.open(path, 'rb')
  if f then f:close() return true end
  return false
end

function M.read(path, who)
  if path:match('%.gz$') then
    if not exists(path) then error(string.format('%s: cannot open %s: No such file or directory', who, path), 0) end
    -- gzip's messages must not mix with the data: on failure, 'gzip -t'
    -- says what is wrong
    local p = io.popen('gzip -dc ' .. sh(path) .. ' 2>/dev/null', 'r')
    local s = p:read('a')
    local ok, _, code = p:close()
    if not ok then
      local t = io.popen('gzip -t ' .. sh(path) .. ' 2>&1', 'r')
      local why = t:read('a'):gsub('%s+$', '')
      t:close()
      error(string.format('%s: cannot decompress %s with gzip -dc (exit %s): %s', who, path, tostring(code),
                          why:sub(1, 200)), 0)
    end
    return s
  end
  local f, err = io.open(path, 'rb')
  if not f then error(string.format('%s: cannot open %s: %s', who, path, tostring(err)), 0) end
  local s = f:read('a')
  f:close()
  return s
end

-- the path of the first name found in dir (plain, then .gz), or an error
-- listing what was looked for
function M.find(dir, names, who)
  local tried = {}
  for _, name in ipairs(names) do
    for _, p in ipairs{dir .. '/' .. name, dir .. '/' .. name .. '.gz'} do
      if exists(p) then return p end
      tried[#tried + 1] = p
    end
  end
  error(string.format('%s: file not found: %s (looked for %s)', who, names[1], table.concat(tried, ', ')), 0)
end

function M.write(path, bytes, who)
  local f, err = io.open(path, 'wb')
  if not f then error(string.format('%s: cannot write %s: %s', who, path, tostring(err)), 0) end
  f:write(bytes)
  f:close()
end

function M.gzip(path, who)
  local ok = os.execute('gzip -nf ' .. sh(path))
  if not ok then error(string.format('%s: gzip %s failed', who, path), 0) end
  return path .. '.gz'
end

function M.mkdir(dir, who)
  if not os.execute('mkdir -p ' .. sh(dir)) then
    error(string.format('%s: cannot create directory %s', who, dir), 0)
  end
end

function M.bytes(t)
  t = t:contiguous()
  if t:storageOffset() ~= 1 or t:storage():size() ~= t:nElement() then t = t:clone() end
  return t:storage():_bytes()
end

function M.tensor(s, pos, n)
  local st = torch.ByteStorage(n)
  if n > 0 then st:_setbytes(s, pos) end
  return torch.ByteTensor(st)
end

-- the options of the loaders: n (a positive integer), type ('byte' or 'float')
function M.checkOpts(opts, who)
  opts = opts or {}
  if type(opts) ~= 'table' then error(string.format('%s: options (table) expected, got %s', who, torch.type(opts)), 3) end
  if opts.type ~= nil and opts.type ~= 'byte' and opts.type ~= 'float' then
    error(string.format("%s: opts.type must be 'byte' or 'float', got %s", who, tostring(opts.type)), 3)
  end
  if opts.n ~= nil and (math.type(opts.n) ~= 'integer' or opts.n < 1) then
    error(string.format('%s: opts.n must be a positive integer, got %s', who, tostring(opts.n)), 3)
  end
  return opts
end

local Set = {}
Set.__index = function(self, k)
  if math.type(k) == 'integer' then return {self.data[k], self.labels[k]} end
  return Set[k]
end
function Set:size() return self.labels:nElement() end

function M.set(data, labels, who)
  who = who or 'dataset.set'
  if not torch.isTensor(data) or data:dim() < 1 then
    error(string.format('%s: data must be a tensor of N samples, got %s', who, torch.type(data)), 2)
  end
  -- no samples: the labels may be Torch7's empty tensor (no dimensions)
  if not torch.isTensor(labels) or labels:nElement() ~= data:size(1)
     or (labels:dim() ~= 1 and labels:nElement() > 0) then
    error(string.format('%s: labels must be a 1D tensor of %d labels, got %s', who, data:size(1),
                        torch.isTensor(labels) and (labels:dim() == 0 and 'an empty' or
                        table.concat(labels:size():totable(), 'x')) .. ' tensor'
                        or torch.type(labels)), 2)
  end
  return setmetatable({data = data, labels = labels}, Set)
end

return M
