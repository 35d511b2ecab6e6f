-- paths: Torch7's file-name and directory package, for Lua 5.4 on POSIX.
-- Names, results and edge cases follow Torch7's paths (its C file paths.c):
--   paths.concat(a, b, ...)   cwd-relative join with '.', '..' and '//' folded
--   paths.basename(p [, ext]), paths.dirname(p), paths.extname(p)
--   paths.filep(p), paths.dirp(p)           exists as a non-directory / directory
--   paths.dir(d)              every entry name ('.' and '..' included), nil if unreadable
--   paths.files(d [, f]), paths.iterfiles(d), paths.iterdirs(d)   iterators
--   paths.mkdir(d) (parents too), paths.rmdir(d), paths.rmall(d, 'yes')
--   paths.cwd(), paths.home, paths.tmpname(), paths.uname(), paths.is_win(),
--   paths.is_mac(), paths.thisfile([arg]), paths.dofile(f), paths.require(name),
--   paths.findprogram(...), paths.execdir(), paths.install_* directories
-- File-system calls go through LuaFileSystem (Debian's lua-filesystem, 'lfs').
-- Failures return nil, "<path>: <reason>", errno as Torch7 did; a wrong
-- argument type raises "paths.<fn>: ... expected, got ...".

local lfs = require 'lfs'

paths = paths or {}   -- Torch7 scripts expect the global
local paths = paths

local function checkstring(fn, v, what, level)
  if type(v) ~= 'string' then
    if type(v) == 'number' then return tostring(v) end
    error(string.format('paths.%s: %s (string) expected, got %s', fn, what, type(v)), (level or 2) + 1)
  end
  return v
end

function paths.filep(p)
  p = checkstring('filep', p, 'path')
  local mode = lfs.attributes(p, 'mode')
  return mode ~= nil and mode ~= 'directory'
end

function paths.dirp(p)
  p = checkstring('dirp', p, 'path')
  return lfs.attributes(p, 'mode') == 'directory'
end

-- the last component: trailing slashes ignored; 'ext' (with or without its
-- dot) is removed when the name ends in '.ext' and has more before it
function paths.basename(p, ext)
  p = checkstring('basename', p, 'path')
  if ext ~= nil then ext = checkstring('basename', ext, 'extension') end
  local name = p:match('([^/]*)/*$')
  if ext == nil or ext == '' then return name end
  ext = ext:gsub('^%.', '')
  if ext == '' then return name end
  if #name > #ext and name:sub(-#ext - 1) == '.' .. ext then
    name = name:sub(1, #name - #ext - 1)
  end
  return name
end

-- everything before the last slash that is followed by a name; '.' when
-- there is none, and the path itself when it is only slashes
function paths.dirname(p)
  p = checkstring('dirname', p, 'path')
  local cut
  for i = 1, #p - 1 do
    if p:byte(i) == 47 and p:byte(i + 1) ~= 47 then cut = i end
  end
  if not cut then return p:sub(1, 1) == '/' and p or '.' end
  if cut == 1 then return '/' end
  return p:sub(1, cut - 1)
end

-- the text after the last dot, or nil when there is no dot
function paths.extname(p)
  p = checkstring('extname', p, 'path')
  return p:match('%.([^.]*)$')
end

function paths.cwd()
  return lfs.currentdir() or '.'
end

-- joins one more name onto 'from' as paths.c does: an absolute name
-- restarts at '/', '.' is skipped, '..' drops the last component
local function join(from, name)
  local out = name:sub(1, 1) == '/' and '/' or from
  for part in name:gmatch('[^/]+') do
    if part == '..' then
      out = out:gsub('/*$', ''):gsub('[^/]*$', '')
    elseif part ~= '.' then
      if out == '' or out:sub(-1) ~= '/' then out = out .. '/' end
      out = out .. part
    end
  end
  out = out .. '/'
  out = out:gsub('(.-)/+$', '%1')
  if out == '' then out = '/' end
  return out
end

function paths.concat(...)
  local n = select('#', ...)
  local out = paths.cwd()
  for i = 1, n do
    local name = select(i, ...)
    out = join(out, checkstring('concat', name, 'path #' .. i))
  end
  return out
end

-- the entry names of a directory (with '.' and '..'), or nil
function paths.dir(d)
  d = checkstring('dir', d, 'directory')
  if not paths.dirp(d) then return nil end
  local ok, iter, state = pcall(lfs.dir, d)
  if not ok then return nil end
  local names = {}
  for name in iter, state do names[#names + 1] = name end
  return names
end

-- paths.files(d [, f]): iterates the names in d that f accepts (a function
-- of the name, or a Lua pattern the name must contain)
function paths.files(d, f)
  local names = paths.dir(checkstring('files', d, 'directory')) or {}
  if type(f) == 'string' then
    local pattern = f
    f = function(name) return name:find(pattern) end
  elseif f ~= nil and type(f) ~= 'function' then
    error('paths.files: filter (function or string pattern) expected as argument 2, got ' .. type(f), 2)
  end
  local i = 0
  return function()
    while true do
      i = i + 1
      local name = names[i]
      if name == nil or f == nil or f(name) then return name end
    end
  end
end

function paths.iterdirs(d)
  d = checkstring('iterdirs', d, 'directory')
  return paths.files(d, function(name)
    return name ~= '.' and name ~= '..' and paths.dirp(paths.concat(d, name))
  end)
end

function paths.iterfiles(d)
  d = checkstring('iterfiles', d, 'directory')
  return paths.files(d, function(name)
    return paths.filep(paths.concat(d, name))
  end)
end

local function failure(p, msg, code)
  -- lfs reports strerror alone; Torch7 put the path first
  msg = tostring(msg or 'failed')
  if msg:sub(1, #p + 2) ~= p .. ': ' then msg = p .. ': ' .. msg end
  return nil, msg, code
end

-- creates d and any missing parent; true, or nil, message, errno
function paths.mkdir(d)
  d = checkstring('mkdir', d, 'directory')
  local parent = paths.dirname(d)
  if parent ~= d and not paths.dirp(parent) then
    local ok, msg, code = paths.mkdir(parent)
    if not ok then return nil, msg, code end
  end
  local ok, msg, code = lfs.mkdir(d)
  if ok then return true end
  return failure(d, msg, code)
end

function paths.rmdir(d)
  d = checkstring('rmdir', d, 'directory')
  local ok, msg, code = lfs.rmdir(d)
  if ok then return true end
  return failure(d, msg, code)
end

-- removes a file, or a directory and everything below it; the second
-- argument must be 'yes'. true, or nil, message, the path that failed
function paths.rmall(d, yes)
  d = checkstring('rmall', d, 'path')
  if yes ~= 'yes' then return nil, "missing second argument ('yes')" end
  local mode = lfs.symlinkattributes(d, 'mode')
  if mode == nil then return nil, 'not a file or directory', d end
  if mode ~= 'directory' then
    local ok, msg, code = os.remove(d)
    if ok then return true end
    return nil, msg, code
  end
  for name in paths.files(d) do
    if name ~= '.' and name ~= '..' then
      local sub = paths.concat(d, name)
      local ok, msg = paths.rmall(sub, 'yes')
      if not ok then return nil, msg, sub end
    end
  end
  return paths.rmdir(d)
end

-- temporary names: a new empty file (os.tmpname), removed when the Lua
-- state closes unless removed before
local tmpnames = {}
local sentinel = setmetatable({}, {__gc = function()
  for name in pairs(tmpnames) do os.remove(name) end
end})
paths._tmpsentinel = sentinel

function paths.tmpname()
  local ok, name = pcall(os.tmpname)
  if not ok then return nil end
  tmpnames[name] = true
  return name
end

-- sysname, nodename, machine (uname -s, -n, -m), read once
local unamecache
function paths.uname()
  if not unamecache then
    local p = io.popen('uname -s -n -m 2>/dev/null')
    local line = p and p:read('l') or ''
    if p then p:close() end
    local s, n, m = line:match('^(%S+)%s+(%S+)%s+(%S+)')
    unamecache = s and {s, n, m} or {'Unknown'}
  end
  return table.unpack(unamecache)
end

function paths.is_win() return paths.uname():match('Windows') ~= nil end
function paths.is_mac() return paths.uname():match('Darwin') ~= nil end

paths.home = os.getenv('HOME') or '.'

-- the file of the calling chunk (a function 'depth' levels up); with a
-- string 'arg', that name taken relative to the file's directory
function paths.thisfile(arg, depth)
  if arg ~= nil and type(arg) ~= 'string' then
    error('paths.thisfile: file name (string) or nil expected, got ' .. type(arg), 2)
  end
  local info = debug.getinfo((depth or 2), 'S')
  local s = info and info.source
  if type(s) ~= 'string' or not s:match('^@') then
    s = nil
  else
    s = paths.concat(s:sub(2))
  end
  if arg then
    if s then s = paths.concat(paths.dirname(s), arg) else s = arg end
  end
  return s
end

-- runs f relative to the directory of the calling file
function paths.dofile(f, depth)
  f = checkstring('dofile', f, 'file name')
  local here = paths.thisfile(nil, 1 + (depth or 2))
  if here and here ~= '' then f = paths.concat(paths.dirname(here), f) end
  return dofile(f)
end

-- Torch7 loaded C libraries with it; plain require does that here
function paths.require(name)
  return require(checkstring('require', name, 'module name'))
end

-- the first of the named programs found on $PATH, as a full path
function paths.findprogram(...)
  local path = os.getenv('PATH') or '.'
  for i = 1, select('#', ...) do
    local exe = checkstring('findprogram', select(i, ...), 'program name')
    for dir in path:gmatch('[^:]+') do
      local full = paths.concat(dir, exe)
      if paths.filep(full) then return full end
    end
  end
  return nil
end

-- the directory of the running interpreter
function paths.execdir()
  local exe = lfs.symlinkattributes('/proc/self/exe', 'target')
  return exe and paths.dirname(exe) or nil
end

-- where this installation's parts live: PREFIX/bin, PREFIX/share/lua/5.4,
-- PREFIX/lib/lua/5.4 after 'make install'; bin/, lua/ and the build
-- directory in a source tree
do
  local here = package.searchpath('paths', package.path) or ''
  here = paths.concat(here)
  local prefix = here:match('^(.*)/share/lua/5%.4/paths/init%.lua$')
  if prefix then
    paths.install_prefix = prefix
    paths.install_lua_path = prefix .. '/share/lua/5.4'
    paths.install_lua_cpath = prefix .. '/lib/lua/5.4'
  else
    prefix = here:match('^(.*)/lua/paths/init%.lua$') or paths.cwd()
    paths.install_prefix = prefix
    paths.install_lua_path = prefix .. '/lua'
    local core = package.searchpath('torch.core', package.cpath)
    paths.install_lua_cpath = core and paths.dirname(paths.dirname(paths.concat(core))) or prefix .. '/build'
  end
  paths.install_bin = prefix .. '/bin'
  paths.install_lib = prefix .. '/lib'
  paths.install_share = prefix .. '/share'
  paths.install_include = prefix .. '/include'
end

return paths
