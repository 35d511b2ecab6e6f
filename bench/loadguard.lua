-- The load guard of every bench that writes docs/benchmarks.md: a section is
-- written only when other processes kept at most MAX_OTHER cores busy while
-- the bench ran, so a loaded machine never overwrites the published figures
-- (LOADED_OK=1 writes anyway). Otherwise the bench has printed its tables
-- and the page stays as it was.
--
--   local guard = require 'bench.loadguard'
--   local meter = guard.start()          -- at the bench's start
--   ... measure, print the tables ...
--   guard.write(path, title, text, meter:other())
--
-- 'other' = (busy CPU time of the whole machine - the CPU time of this
-- process and of the children it waited for) / wall time, in cores.
-- bench/speed.lua measures it per row around its own processes and passes
-- the largest.
local M = {MAX_OTHER = 0.2}
-- this file's directory: mdsection.lua is loaded from beside it, whatever the cwd
local HERE = debug.getinfo(1, 'S').source:match('^@(.*/)[^/]*$') or './'

local function slurp(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read('a')
  f:close()
  return s
end

local HZ
local function hz()
  if not HZ then
    local p = io.popen('getconf CLK_TCK 2>/dev/null')
    HZ = tonumber(p and p:read('l') or '') or 100
    if p then p:close() end
  end
  return HZ
end

-- busy seconds of the whole machine from /proc/stat's first line: user, nice,
-- system, irq, softirq and steal (idle and iowait are not busy)
function M.parseStat(text, ticks)
  local line = text:match('^cpu%s[^\n]*')
  if not line then return nil end
  local v = {}
  for n in line:gmatch('%d+') do v[#v + 1] = tonumber(n) end
  return (v[1] + v[2] + v[3] + (v[6] or 0) + (v[7] or 0) + (v[8] or 0)) / (ticks or hz())
end

-- CPU seconds of a process and of its waited-for children from its
-- /proc/<pid>/stat: utime, stime, cutime, cstime (fields 14-17; the name in
-- field 2 may hold spaces and parentheses, so count after its last ')')
function M.parseSelfStat(text, ticks)
  local rest = text:match('^.*%)%s+(.*)$')
  if not rest then return nil end
  local f = {}
  for w in rest:gmatch('%S+') do f[#f + 1] = w end
  -- rest starts at field 3 (state): field n is f[n - 2]
  local t = 0
  for n = 14, 17 do t = t + (tonumber(f[n - 2]) or 0) end
  return t / (ticks or hz())
end

function M.sample()
  local up = slurp('/proc/uptime')
  return {busy = M.parseStat(slurp('/proc/stat') or '') or 0,
          own = M.parseSelfStat(slurp('/proc/self/stat') or '') or 0,
          wall = tonumber(up and up:match('^(%S+)')) or os.time()}
end

-- the cores other processes kept busy between two samples
function M.otherLoad(a, b)
  local wall = b.wall - a.wall
  if wall <= 0 then return 0 end
  return math.max(0, ((b.busy - a.busy) - (b.own - a.own)) / wall)
end

local Meter = {}
Meter.__index = Meter
function Meter:other() return M.otherLoad(self.first, M.sample()) end

function M.start() return setmetatable({first = M.sample()}, Meter) end

-- whether a section measured under 'other' cores of load may be written;
-- env: os.getenv by default
function M.allowed(other, env)
  env = env or os.getenv
  if env('LOADED_OK') == '1' then return true end
  if type(other) ~= 'number' then return false, 'the load was not measured' end
  if other > M.MAX_OTHER then
    return false, string.format('other processes kept %.1f cores busy (more than %.1f)', other, M.MAX_OTHER)
  end
  return true
end

-- writes section 'title' of the markdown file 'path' (bench/mdsection.lua)
-- when allowed; says on stderr what it did. Returns whether it wrote.
function M.write(path, title, text, other, env)
  local ok, why = M.allowed(other, env)
  if not ok then
    io.stderr:write(string.format('bench: %s: %s left as it was, section "%s" not written '
      .. '(LOADED_OK=1 writes it anyway)\n', why, path, title))
    return false
  end
  dofile(HERE .. 'mdsection.lua').write(path, title, text)
  io.stderr:write(string.format('bench: wrote %s (section %s)\n', path, title))
  return true
end

return M
