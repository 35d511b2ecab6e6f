-- Adversarial driver (tools/adversarial.sh runs it): calls the functions
-- merged with LAPACK, conv, bit ops, histc/bhistc/cross/mode/renorm, the
-- alias method, storage views and mappings, File positions, the Generator
-- and the print options with every value of a pool of wrong ones (nil,
-- strings, tables, 0-dim/empty/5D/integer/non-contiguous/expanded/freed
-- tensors, NaN, inf, 2^62, math.maxinteger) alone, in pairs and in
-- triples, each in pcall. Prints 'OK i name' or 'ERR i name :: message'
-- on stdout and '@i name' on stderr before each case, so that a crash
-- names its case; ADV_START=i starts at case i, ADV_ONLY=name runs one
-- function's cases, ADV_DIR is the scratch directory (files to map).
require 'torch'
local DIR = assert(os.getenv('ADV_DIR'), 'ADV_DIR (a scratch directory) expected')
local START = tonumber(os.getenv('ADV_START') or '1')
local ONLY = os.getenv('ADV_ONLY')
local out = io.stderr
local NaN, inf = 0/0, math.huge

local d = torch.DoubleTensor
local VALS = {
  {'nil', function() return nil end}, {'str', function() return 'abc' end}, {'tbl', function() return {} end},
  {'true', function() return true end}, {'1.5', function() return 1.5 end}, {'-1', function() return -1 end},
  {'0', function() return 0 end}, {'3', function() return 3 end}, {'2^62', function() return 2^62 end},
  {'maxint', function() return math.maxinteger end}, {'NaN', function() return NaN end}, {'inf', function() return inf end},
  {'-inf', function() return -inf end}, {'d0', function() return d() end}, {'dempty', function() return d(0) end},
  {'d0x3', function() return d(0,3) end}, {'d1', function() return d(3):uniform() end},
  {'d3x3', function() return d(3,3):uniform()+torch.eye(3)*3 end}, {'d2x3', function() return d(2,3):uniform() end},
  {'d5D', function() return d(1,2,1,3,1):uniform() end}, {'d3x3x3', function() return d(3,3,3):uniform() end},
  {'f3x3', function() return torch.FloatTensor(3,3):uniform() end}, {'i3x3', function() return torch.IntTensor(3,3):fill(3) end},
  {'l3', function() return torch.LongTensor{1,2,3} end}, {'b3x3', function() return torch.ByteTensor(3,3):fill(1) end},
  {'nc', function() return d(4,3):uniform():t() end}, {'expanded', function() return d(1,3):fill(2):expand(3,3) end},
  {'freed', function() local fr = d(3,3):fill(1); fr:free(); return fr end},
  {'dnan', function() return d(3,3):fill(NaN) end}, {'dinf', function() return d(3,3):fill(inf) end},
  {'ds', function() return torch.DoubleStorage(3) end}, {'gen', function() return torch.Generator() end},
  {'func', function() return print end},
}
local function V() -- lazy view: V()[i][2] builds value i
  return setmetatable({}, {__index = function(_, i) return {VALS[i][1], VALS[i][2]()} end})
end
local NAMES = {}
for i, v in ipairs(VALS) do NAMES[i] = v[1] end
local NV = #NAMES

local cases = {}
local function add(name, f) cases[#cases + 1] = {name, f} end

local function fn(name) return function(...) return torch[name](...) end end
local function meth(name) return function(x, ...) return x[name](x, ...) end end

-- generic: f with each single value, each pair, and method forms
local function sweep(label, f, arity)
  for i = 1, NV do
    add(label .. '(' .. NAMES[i] .. ')', function() local v = V(); return f(v[i][2]) end)
  end
  if arity >= 2 then
    for i = 1, NV do for j = 1, NV do
      add(label .. '(' .. NAMES[i] .. ',' .. NAMES[j] .. ')', function() local v = V(); return f(v[i][2], v[j][2]) end)
    end end
  end
  if arity >= 3 then
    local some = {14,15,17,18,19,22,26,27,28,8,6,11,2,1,9}
    for _, i in ipairs(some) do for _, j in ipairs(some) do for _, k in ipairs(some) do
      add(label .. '(' .. NAMES[i] .. ',' .. NAMES[j] .. ',' .. NAMES[k] .. ')',
          function() local v = V(); return f(v[i][2], v[j][2], v[k][2]) end)
    end end end
  end
end

local F = {
  {'gesv',2},{'trtrs',3},{'gels',2},{'symeig',3},{'eig',2},{'svd',2},{'gesvd',2},{'inverse',2},{'potrf',2},
  {'potrs',3},{'potri',2},{'pstrf',3},{'qr',2},{'geqrf',2},{'orgqr',3},{'ormqr',3},
  {'conv2',3},{'xcorr2',3},{'conv3',3},{'xcorr3',3},
  {'bitand',2},{'bitor',2},{'bitxor',2},{'lshift',2},{'rshift',2},{'cbitand',3},{'cbitor',3},{'cbitxor',3},{'clshift',3},{'crshift',3},
  {'histc',3},{'bhistc',3},{'cross',3},{'mode',3},{'renorm',3},{'multinomialAliasSetup',2},{'multinomialAlias',2},
  {'multinomial',3},{'serializeToStorage',2},{'deserializeFromStorage',2},{'Generator',2},{'getRNGState',2},{'setRNGState',2},
  {'setprintoptions',1},
}
for _, e in ipairs(F) do
  if not ONLY or ONLY == e[1] then
    sweep('torch.' .. e[1], fn(e[1]), e[2])
    if torch.DoubleTensor(1)[e[1]] then sweep('x:' .. e[1], meth(e[1]), e[2]) end
  end
end
-- storages: view and mapped
for _, T in ipairs{'DoubleStorage', 'ByteStorage', 'CharStorage'} do
  if not ONLY or ONLY == T then
    sweep('torch.' .. T .. '(view)', function(a, b, c) return torch[T](torch[T](5), a, b, c) end, 3)
    sweep('torch.' .. T .. '(map)', function(a, b) return torch[T](DIR .. '/nonexist', a, b) end, 2)
    sweep('torch.' .. T .. '(map ro)', function(a, b) return torch[T](DIR .. '/ro.bin', a, b) end, 2)
    sweep('torch.' .. T .. '(map small)', function(a, b) return torch[T](DIR .. '/small.bin', a, b) end, 2)
    sweep('torch.' .. T .. '(map dir)', function(a, b) return torch[T](DIR, a, b) end, 2)
    sweep('torch.' .. T .. '(map empty)', function(a, b) return torch[T](DIR .. '/empty.bin', a, b) end, 2)
  end
end
-- files
if not ONLY or ONLY == 'File' then
  local function mf() local f = torch.MemoryFile('rw'); f:writeInt(1); return f end
  local function df() local w = torch.DiskFile(DIR .. '/df.bin', 'w'); w:writeInt(1); w:close(); return torch.DiskFile(DIR .. '/df.bin', 'r') end
  for _, m in ipairs{'seek'} do
    sweep('MemoryFile:' .. m, function(a) local f = mf(); f:seek(a); return f:readInt() end, 1)
    sweep('DiskFile:' .. m, function(a) local f = df(); f:seek(a); local r = f:position(); f:close(); return r end, 1)
  end
  add('MemoryFile closed seek', function() local f = mf(); f:close(); return f:seek(1) end)
  add('MemoryFile closed position', function() local f = mf(); f:close(); return f:position() end)
  add('MemoryFile closed seekEnd', function() local f = mf(); f:close(); return f:seekEnd() end)
  add('DiskFile closed seek', function() local f = df(); f:close(); return f:seek(1) end)
  add('DiskFile closed position', function() local f = df(); f:close(); return f:position() end)
  add('DiskFile closed seekEnd', function() local f = df(); f:close(); return f:seekEnd() end)
  add('DiskFile seekEnd read', function() local f = df(); f:seekEnd(); local ok = f:readInt(); f:close(); return ok end)
  add('MemoryFile seekEnd read', function() local f = mf(); f:seekEnd(); return f:readInt() end)
  add('MemoryFile(storage) seek', function() local f = torch.MemoryFile(torch.CharStorage(3), 'r'); f:seek(5) end)
end
-- printing with absurd options
if not ONLY or ONLY == 'print' then
  local opts = {{threshold=-1},{edgeitems=2^62},{edgeitems=math.maxinteger},{precision=100},{linewidth=0},
    {linewidth=-5},{precision=-1},{threshold=NaN},{edgeitems=NaN},{linewidth=inf},{precision=1.5},{threshold='a'},
    {threshold=0},{edgeitems=1e9},{linewidth=1e9},{precision=30},{linewidth=1},{threshold=inf}, {profile='x'}, {foo=1}}
  for i, o in ipairs(opts) do
    add('setprintoptions#' .. i, function()
      local ok, e = pcall(torch.setprintoptions, o)
      local ok2, r = pcall(function() return {tostring(torch.DoubleTensor(4, 5):uniform()), tostring(torch.DoubleTensor(2, 3, 20, 30):fill(1)),
        tostring(torch.IntTensor(1):fill(7):expand(1000)), tostring(torch.DoubleTensor(0)), tostring(torch.DoubleTensor()),
        tostring(torch.DoubleTensor(1):expand(2^40)), tostring(torch.Tensor{0/0, 1/0, -1/0, 1e-300, 1e300}),
        tostring(torch.rand(2, 1000, 3):select(2, 1))} end)
      torch.setprintoptions{profile = 'default'}
      if not ok2 then error(r, 0) end
      if not ok then error(e, 0) end
      return #r
    end)
  end
end
out:write('total ', #cases, '\n')
local nerr, nok = 0, 0
for i = START, #cases do
  local c = cases[i]
  out:write('@', i, ' ', c[1], '\n'); out:flush()
  local ok, e = pcall(c[2])
  if ok then nok = nok + 1; io.write('OK ', i, ' ', c[1], '\n')
  else nerr = nerr + 1; io.write('ERR ', i, ' ', c[1], ' :: ', tostring(e):sub(1, 300):gsub('\n', ' '), '\n') end
  io.stdout:flush()
  if i % 200 == 0 then collectgarbage() end
  if i % 10000 == 0 then
    local st = io.open('/proc/self/status'):read('a'); local rss = st:match('VmRSS:%s*(%d+)')
    out:write('MEM ', i, ' ', c[1], ' rss_kb=', rss, ' lua_kb=', math.floor(collectgarbage('count')), '\n')
  end
end
out:write('done ', nok, ' ok ', nerr, ' err\n')
