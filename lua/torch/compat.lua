-- torch.compat: the Lua 5.1 / LuaJIT names that Torch7-era scripts use and
-- stock Lua 5.4 dropped. Installed when torch loads, unless the environment
-- has TH_NO_COMPAT=1; torch.compat.disable() / enable() switch them at run
-- time. Only names whose 5.1 meaning can be reproduced exactly are given
-- (docs/compat.md lists them, and why setfenv, getfenv and module are not).
-- A name the program already defined is never overwritten, and disable()
-- removes only the values this module put there.

local torch = torch

-- What this module installs into the library tables (math, table, string)
-- outlives the module itself when it is loaded again (package.loaded reset,
-- as test runners do): one instance per Lua state, kept in the registry,
-- so that a reloaded torch still recognises, and can remove, its names.
local REGKEY = 'torch.compat'
local registry = debug.getregistry()
if registry[REGKEY] then
  local compat = registry[REGKEY]
  torch.compat = compat
  if os.getenv('TH_NO_COMPAT') ~= '1' then compat.enable() end
  return compat
end

local compat = {}
torch.compat = compat
registry[REGKEY] = compat

-- math.ldexp(m, e) -> m * 2^e, exact over the whole range
local function ldexp(m, e)
  local n = math.tointeger(e)
  if type(m) ~= 'number' then
    error(string.format("bad argument #1 to 'ldexp' (number expected, got %s)", type(m)), 2)
  end
  if n == nil then
    error(string.format("bad argument #2 to 'ldexp' (number has no integer representation)"), 2)
  end
  -- powers of two are exact; split them so that none overflows or
  -- underflows before the product does
  while n > 1000 do m, n = m * 2.0 ^ 1000, n - 1000 end
  while n < -1000 do m, n = m * 2.0 ^ -1000, n + 1000 end
  return m * 2.0 ^ n
end

-- math.frexp(x) -> m, e with x = m * 2^e and 0.5 <= |m| < 1 (x, 0 for 0,
-- inf and nan), as C's frexp
local function frexp(x)
  if x == 0 or x ~= x or x == math.huge or x == -math.huge then return x + 0.0, 0 end
  local a = math.abs(x) + 0.0
  local e = math.floor(math.log(a, 2)) + 1
  if e > 1024 then e = 1024 end
  local m = ldexp(a, -e)
  -- log2 rounds: near a power of two 'e' can be off by one
  if m >= 1 then m, e = m / 2, e + 1 elseif m < 0.5 then m, e = m * 2, e - 1 end
  return x < 0 and -m or m, e
end

-- exp(x) - 1 without the cancellation for small x (Kahan's trick)
local function expm1(x)
  local u = math.exp(x)
  if u == 1.0 then return x + 0.0 end
  local um = u - 1.0
  if um == -1.0 then return -1.0 end
  if u == math.huge then return u end
  return um * x / math.log(u)
end

local function sinh(x)
  if math.abs(x) < 1 then
    local em = expm1(x)
    return em * (1 + 1 / (em + 1)) / 2
  end
  if math.abs(x) > 700 then   -- exp(|x|) / 2 overflows one step too early
    local h = math.exp(math.abs(x) / 2)
    return (x < 0 and -1 or 1) * (h / 2) * h
  end
  return (math.exp(x) - math.exp(-x)) / 2
end

local function cosh(x)
  x = math.abs(x)
  if x > 700 then
    local h = math.exp(x / 2)
    return (h / 2) * h
  end
  return (math.exp(x) + math.exp(-x)) / 2
end

local function tanh(x)
  if x > 20 then return 1.0 elseif x < -20 then return -1.0 end
  local em = expm1(2 * x)
  return em / (em + 2)
end

-- table.maxn(t): the largest positive numerical key, 0 if none
local function maxn(t)
  local n = 0
  for k in pairs(t) do
    if type(k) == 'number' and k > n then n = k end
  end
  return n
end

local function foreach(t, f)
  for k, v in pairs(t) do
    local r = f(k, v)
    if r ~= nil then return r end
  end
end

local function foreachi(t, f)
  for i = 1, #t do
    local r = f(i, t[i])
    if r ~= nil then return r end
  end
end

-- LuaJIT's 'bit' module: 32-bit operations on signed results
local bit = {}
do
  local function tobit(x)
    x = math.tointeger(x) or math.floor(x + 0.0)
    x = x & 0xffffffff
    if x >= 0x80000000 then x = x - 0x100000000 end
    return x
  end
  local function fold(op)
    return function(a, ...)
      local r = tobit(a)
      for i = 1, select('#', ...) do r = op(r, tobit((select(i, ...)))) end
      return tobit(r)
    end
  end
  bit.tobit = tobit
  bit.band = fold(function(a, b) return a & b end)
  bit.bor = fold(function(a, b) return a | b end)
  bit.bxor = fold(function(a, b) return a ~ b end)
  bit.bnot = function(a) return tobit(~tobit(a)) end
  bit.lshift = function(a, n) return tobit(tobit(a) << (tobit(n) & 31)) end
  bit.rshift = function(a, n) return tobit((tobit(a) & 0xffffffff) >> (tobit(n) & 31)) end
  -- floor division by a power of two is the arithmetic shift
  bit.arshift = function(a, n) return tobit(tobit(a) // (1 << (tobit(n) & 31))) end
  bit.rol = function(a, n)
    local u, k = tobit(a) & 0xffffffff, tobit(n) & 31
    return tobit((u << k) | (u >> (32 - k)))
  end
  bit.ror = function(a, n)
    local u, k = tobit(a) & 0xffffffff, tobit(n) & 31
    return tobit((u >> k) | (u << (32 - k)))
  end
  bit.bswap = function(a)
    local u = tobit(a) & 0xffffffff
    return tobit(((u & 0xff) << 24) | ((u & 0xff00) << 8) | ((u >> 8) & 0xff00) | (u >> 24))
  end
  bit.tohex = function(a, n)
    n = n or 8
    local upper = n < 0
    if upper then n = -n end
    local s = string.format(upper and '%08X' or '%08x', tobit(a) & 0xffffffff)
    return s:sub(-math.min(n, 8))
  end
end

-- {container, key, value}: each entry is one name
local entries = {
  {_G, 'unpack', table.unpack},
  {_G, 'loadstring', load},
  {_G, 'bit', bit},
  {math, 'pow', function(x, y) return x ^ y end},
  {math, 'log10', function(x) return math.log(x, 10) end},
  {math, 'ldexp', ldexp},
  {math, 'frexp', frexp},
  {math, 'cosh', cosh},
  {math, 'sinh', sinh},
  {math, 'tanh', tanh},
  {math, 'mod', math.fmod},
  {table, 'getn', function(t) return rawlen(t) end},   -- 5.1 ignored __len
  {table, 'maxn', maxn},
  {table, 'foreach', foreach},
  {table, 'foreachi', foreachi},
  {string, 'gfind', string.gmatch},
}

local containers = {[_G] = '', [math] = 'math.', [table] = 'table.', [string] = 'string.'}

-- 5.4 functions that refuse what 5.1 took: math.randomseed wants integral
-- numbers where 5.1 truncated any number (nn's test suite seeds with
-- 1e5 * torch.tic()); wrapped while compat is on, the original put back after
local randomseed = math.randomseed   -- 5.4's (its name shows in its errors)
local function toseed(x)
  if math.type(x) ~= 'float' or math.tointeger(x) then return x end
  if x ~= x or x == math.huge or x == -math.huge then return x end   -- 5.4's own error
  x = math.fmod(x, 2.0 ^ 62)
  return math.tointeger(x < 0 and math.ceil(x) or math.floor(x))
end
local function randomseed51(...)
  local n = select('#', ...)
  if n == 0 then return randomseed() end
  local a, b = ...
  if n == 1 then return randomseed(toseed(a)) end
  return randomseed(toseed(a), toseed(b))
end
local wrapped = {{math, 'randomseed', randomseed, randomseed51}}

-- names currently provided by this module, 'math.pow' style
local installed = {}

function compat.enable()
  for _, e in ipairs(entries) do
    local t, k, v = e[1], e[2], e[3]
    if rawget(t, k) == nil then rawset(t, k, v) end
    if rawget(t, k) == v then installed[containers[t] .. k] = true end
  end
  for _, w in ipairs(wrapped) do
    if rawget(w[1], w[2]) == w[3] then rawset(w[1], w[2], w[4]) end
    if rawget(w[1], w[2]) == w[4] then installed[containers[w[1]] .. w[2]] = true end
  end
  -- require 'bit' works too, as under LuaJIT
  if package.loaded.bit == nil then package.loaded.bit = bit end
  return compat
end

function compat.disable()
  for _, e in ipairs(entries) do
    local t, k, v = e[1], e[2], e[3]
    -- only what we put there and nobody replaced since
    if rawget(t, k) == v then rawset(t, k, nil) end
    installed[containers[t] .. k] = nil
  end
  for _, w in ipairs(wrapped) do
    if rawget(w[1], w[2]) == w[4] then rawset(w[1], w[2], w[3]) end
    installed[containers[w[1]] .. w[2]] = nil
  end
  if package.loaded.bit == bit then package.loaded.bit = nil end
  return compat
end

-- sorted list of the names this module currently provides
function compat.names()
  local out = {}
  for name in pairs(installed) do out[#out + 1] = name end
  table.sort(out)
  return out
end

-- every name the module can provide (where the interpreter lacks it)
function compat.all()
  local out = {}
  for _, e in ipairs(entries) do out[#out + 1] = containers[e[1]] .. e[2] end
  for _, w in ipairs(wrapped) do out[#out + 1] = containers[w[1]] .. w[2] end
  table.sort(out)
  return out
end

function compat.enabled() return next(installed) ~= nil end

compat.bit = bit
-- the Lua versions, reachable even where the interpreter has its own (Debian
-- builds lua5.4 with LUA_COMPAT_5_3: math.pow, log10, ldexp, frexp, cosh,
-- sinh, tanh are then built in and left alone); the spec compares them
compat.impl = {}
for _, e in ipairs(entries) do compat.impl[containers[e[1]] .. e[2]] = e[3] end
for _, w in ipairs(wrapped) do compat.impl[containers[w[1]] .. w[2]] = w[4] end

if os.getenv('TH_NO_COMPAT') ~= '1' then compat.enable() end

return compat
