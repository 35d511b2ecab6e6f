-- sys: Torch7's small system package (torch/sys), for Lua 5.4 on POSIX.
--   sys.clock()               seconds since the epoch, microsecond precision
--   sys.tic(), sys.toc([verbose])   stopwatch over sys.clock
--   sys.usleep(us), sys.sleep(s)
--   sys.execute(cmd), sys.fexecute(cmd [, readwhat])   a command's output
--                             (stdout and stderr), blanks trimmed at both ends
--   sys.fstat(file)           modification, access, change times
--   sys.uname()               'linux', 'macos', 'windows' or '?'; sys.OS
--   sys.ls/ll/la/lla([dir])   ls output as a string
--   sys.fpath()               directory and name of the calling file
--   sys.split(s, sep), sys.isNaN(x), sys.COLORS, sys.prefix,
--   sys.dirname, sys.concat, sys.filep, sys.dirp, sys.basename (paths')
-- The clock and the sleep are the C core's (clock_gettime, nanosleep).

local paths = require 'paths'
local C = require 'torch.core'
local lfs = require 'lfs'

sys = sys or {}   -- Torch7 scripts expect the global
local sys = sys

local function checktype(fn, v, want, what, level)
  if type(v) ~= want then
    error(string.format('sys.%s: %s (%s) expected, got %s', fn, what, want, type(v)), (level or 2) + 1)
  end
  return v
end

sys.clock = C.realtime

function sys.usleep(us)
  C.usleep(checktype('usleep', us, 'number', 'microseconds'))
end

function sys.sleep(seconds)
  checktype('sleep', seconds, 'number', 'seconds')
  if not (seconds >= 0 and seconds <= 1e9) then
    error(string.format('sys.sleep: seconds must be 0..1e9, got %s', tostring(seconds)), 2)
  end
  C.usleep(seconds * 1e6)
end

local tictime
function sys.tic()
  tictime = sys.clock()
end

-- seconds since the last sys.tic() (printed too when verbose)
function sys.toc(verbose)
  if tictime == nil then error('sys.toc: no sys.tic() before', 2) end
  local dt = sys.clock() - tictime
  if verbose then print(dt) end
  return dt
end

local function trim(s)
  return (s:gsub('^%s+', ''):gsub('%s+$', ''))
end

-- runs cmd through the shell, returns what it wrote (stdout and stderr)
function sys.execute(cmd)
  checktype('execute', cmd, 'string', 'command')
  -- grouped, so stderr of every command in a list is caught, not the last's
  local p = assert(io.popen('{ ' .. cmd .. '\n} 2>&1', 'r'))
  local out = p:read('a')
  p:close()
  return trim(out)
end

-- the same through a temporary file; readwhat is a file:read format
function sys.fexecute(cmd, readwhat)
  checktype('fexecute', cmd, 'string', 'command')
  local tmp = os.tmpname()
  os.execute('{ ' .. cmd .. '\n} >' .. tmp .. ' 2>&1')
  local f = assert(io.open(tmp))
  local out = f:read(readwhat or 'a') or ''
  f:close()
  os.remove(tmp)
  return trim(out)
end

-- modification, access and status-change times (seconds since the epoch)
-- of an existing file; nothing when it does not exist
function sys.fstat(file)
  checktype('fstat', file, 'string', 'file name')
  local a = lfs.attributes(file)
  if a == nil then return end
  return a.modification, a.access, a.change
end

function sys.uname()
  if paths.is_win() then return 'windows' end
  local s = paths.uname()
  if s == 'Linux' then return 'linux' end
  if s == 'Darwin' then return 'macos' end
  return '?'
end
sys.OS = sys.uname()

local function lister(flags)
  return function(d)
    if d ~= nil then checktype('ls', d, 'string', 'directory') end
    return sys.execute('ls' .. flags .. ' ' .. (d or ''))
  end
end
sys.ls, sys.ll, sys.la, sys.lla = lister(''), lister(' -l'), lister(' -a'), lister(' -la')

-- the directory and name of the file that calls it
function sys.fpath()
  local src = debug.getinfo(2, 'S').source:gsub('^@', '')
  if src:sub(1, 1) ~= '/' then src = paths.concat(paths.cwd(), src) end
  return paths.dirname(src), paths.basename(src)
end

-- the pieces of s between matches of the pattern sep (as string.split)
function sys.split(s, sep)
  checktype('split', s, 'string', 'string')
  checktype('split', sep, 'string', 'separator pattern')
  local out = {}
  local last = 1
  local from, to, piece = s:find('(.-)' .. sep, 1)
  while from do
    if to < from then error("sys.split: separator pattern '" .. sep .. "' matches the empty string", 2) end
    if from ~= 1 or piece ~= '' then out[#out + 1] = piece end
    last = to + 1
    from, to, piece = s:find('(.-)' .. sep, last)
  end
  if last <= #s then out[#out + 1] = s:sub(last) end
  return out
end

function sys.isNaN(x) return x ~= x end

-- ANSI terminal escapes, by Torch7's names (capitalised: bold; _x: background)
sys.COLORS = {
  none = '\27[0m',
  black = '\27[0;30m', red = '\27[0;31m', green = '\27[0;32m', yellow = '\27[0;33m',
  blue = '\27[0;34m', magenta = '\27[0;35m', cyan = '\27[0;36m', white = '\27[0;37m',
  Black = '\27[1;30m', Red = '\27[1;31m', Green = '\27[1;32m', Yellow = '\27[1;33m',
  Blue = '\27[1;34m', Magenta = '\27[1;35m', Cyan = '\27[1;36m', White = '\27[1;37m',
  _black = '\27[40m', _red = '\27[41m', _green = '\27[42m', _yellow = '\27[43m',
  _blue = '\27[44m', _magenta = '\27[45m', _cyan = '\27[46m', _white = '\27[47m',
}

-- the installation's root (PREFIX after make install; the source tree in one)
sys.prefix = paths.install_prefix

-- Torch7 kept these from the time sys held the path functions
sys.dirname, sys.concat = paths.dirname, paths.concat
sys.filep, sys.dirp, sys.basename = paths.filep, paths.dirp, paths.basename

return sys
