-- xlua: Torch7's script helpers (torch/xlua), for Lua 5.4 without Qt.
--   xlua.progress(i, n)       the progress bar with ETA / total and step time,
--                             drawn on a terminal only (quiet when stdout is
--                             a file or a pipe, or when $CI is set)
--   xlua.formatTime(s)        '1h2m', '3s250ms', '0ms' (two largest units)
--   xlua.print(x, ...)        tables one field a line; globals xprint
--   xlua.error(msg [, domain [, usage]])   error '<domain> msg'; global xerror
--   xlua.require(name)        the module, or false with a warning; global xrequire
--   xlua.installed(name), xlua.trycatch(f, catch), xlua.envparams(defaults),
--   xlua.log(file [, append]), xlua.clear(name), xlua.clearall(), xlua.who(),
--   xlua.table2string(t [, newline]), xlua.usage(...), xlua.unpack(...),
--   xlua.unpack_class(...), xlua.usage_module(...), xlua.OptionParser(usage)
--   (OptionParser.lua), xlua.Profiler([mode]) (Profiler.lua)
-- and, as Torch7's xlua did, string.split, string.tosymbol, table.splice and
-- table.prune (left alone when the program defined its own).

require 'torch'
local paths = require 'paths'
local sys = require 'sys'
local C = torch._C

xlua = xlua or {}   -- Torch7 scripts expect the global
local xlua = xlua

-- the globals that existed before xlua: clearall() and who() leave them
local protected = {}
for k in pairs(_G) do protected[k] = true end
protected.xlua, protected.xprint, protected.xerror, protected.xrequire = true, true, true, true

local function argerror(fn, i, want, got)
  error(string.format('xlua.%s: argument %d: %s expected, got %s', fn, i, want, torch.type(got)), 3)
end

-- escapes when the stream is a terminal, empty strings otherwise
local nocolors = setmetatable({}, {__index = function() return '' end})
local function colors(fd)
  return C.isatty(fd or 1) and sys.COLORS or nocolors
end

----------------------------------------------------------------------
-- printing

function xlua.print(obj, ...)
  if type(obj) == 'table' then
    local mt = getmetatable(obj)
    if mt and mt.__tostring__ then
      io.write(mt.__tostring__(obj))
    else
      local tos = tostring(obj)
      if tos and not tos:find('table: ', 1, true) then
        if type(obj.usage) == 'string' then
          io.write(obj.usage, '\n\nFIELDS:\n')
        else
          io.write(tos, ':\n')
        end
      end
      io.write('{')
      local sep = ''
      local first = true
      for k, v in pairs(obj) do
        if not first then io.write(',\n') end
        first = false
        if type(v) == 'userdata' then   -- tensors too, as in Torch7
          io.write(sep, '[', tostring(k), '] = <userdata>')
        else
          local s = tostring(v):gsub('\n', '\\n')
          if #s > 40 then
            io.write(sep, '[', tostring(k), '] = ', s:sub(1, 40), colors().none, ' ... ')
          else
            io.write(sep, '[', tostring(k), '] = ', s)
          end
        end
        sep = ' '
      end
      io.write('}')
    end
  else
    io.write(tostring(obj))
  end
  if select('#', ...) > 0 then
    io.write('    ')
    print(...)
  else
    io.write('\n')
  end
end

-- copies everything io.write writes (and print, through xlua.print) to file
function xlua.log(file, append)
  if type(file) ~= 'string' then argerror('log', 1, 'file name (string)', file) end
  paths.mkdir(paths.dirname(file))
  local f, err = io.open(file, append and 'a' or 'w')
  if not f then error('xlua.log: cannot open ' .. tostring(err), 2) end
  local write = io.write
  io._write = write
  _G._print = _G.print
  _G.print = xlua.print
  io.write = function(...)
    write(...)
    f:write(...)
    f:flush()
  end
end

----------------------------------------------------------------------
-- globals

function xlua.clearall()
  for k in pairs(_G) do
    if not protected[k] then
      if package.loaded[k] ~= nil then package.loaded[k] = nil end
      _G[k] = nil
    end
  end
  collectgarbage()
end

function xlua.clear(name)
  if type(name) ~= 'string' then argerror('clear', 1, 'global name (string)', name) end
  _G[name] = nil
  collectgarbage()
end

function xlua.who()
  local libs, user = {}, {}
  for k, v in pairs(_G) do
    if package.loaded[k] ~= nil and k ~= '_G' then
      libs[#libs + 1] = k
    elseif not protected[k] then
      user[k] = v
    end
  end
  table.sort(libs)
  xlua.print('')
  xlua.print('Global Libs:')
  xlua.print(libs)
  xlua.print('')
  xlua.print('Global Vars:')
  xlua.print(user)
  xlua.print('')
end

----------------------------------------------------------------------
-- time and progress

-- the two largest non-zero units of days, hours, minutes, seconds, ms
function xlua.formatTime(seconds)
  if type(seconds) ~= 'number' then argerror('formatTime', 1, 'seconds (number)', seconds) end
  if seconds ~= seconds or seconds == math.huge then return '?' end
  local floor = math.floor
  local days = floor(seconds / 86400)
  seconds = seconds - days * 86400
  local hours = floor(seconds / 3600)
  seconds = seconds - hours * 3600
  local minutes = floor(seconds / 60)
  seconds = seconds - minutes * 60
  local secs = floor(seconds)
  local millis = floor((seconds - secs) * 1000)
  local out, used = '', 0
  for _, u in ipairs{{days, 'D'}, {hours, 'h'}, {minutes, 'm'}, {secs, 's'}, {millis, 'ms'}} do
    if u[1] > 0 and used < 2 then
      out = out .. u[1] .. u[2]
      used = used + 1
    end
  end
  return out == '' and '0ms' or out
end

-- the text Torch7's bar writes for one step: the bar, the time text
-- (' ETA: ..' or ' Tot: ..', then ' | Step: ..') after it, and 'i/n'
-- written over the middle of the bar with backspaces; 'width' is the
-- terminal's (the bar takes width - 34 columns); '\n' ends a full bar
function xlua._progresstext(current, goal, width, tm, continuing)
  local barLength = width - 34
  local percent = math.floor(current * barLength / goal)
  local out = {continuing and '\r' or '', ' ['}
  for i = 1, barLength do
    out[#out + 1] = i < percent and '=' or (i == percent and '>' or '.')
  end
  out[#out + 1] = '] '
  local pad = width - barLength - 4
  out[#out + 1] = string.rep(' ', pad) .. string.rep('\b', pad)
  out[#out + 1] = tm
  out[#out + 1] = string.rep('\b', 5 + #tm + barLength // 2)
  out[#out + 1] = string.format(' %s/%s ', math.tointeger(current) or current, math.tointeger(goal) or goal)
  if percent == barLength then out[#out + 1] = '\n' end
  out[#out + 1] = '\r'
  return table.concat(out)
end

-- what a terminal shows after 'text' (carriage returns, backspaces and
-- overwriting applied): the lines, for specs and logs
function xlua._progressscreen(text)
  local lines, line, col = {}, {}, 1
  for ch in text:gmatch('.') do
    if ch == '\r' then
      col = 1
    elseif ch == '\b' then
      col = math.max(1, col - 1)
    elseif ch == '\n' then
      lines[#lines + 1] = table.concat(line):gsub('%s+$', '')
      line, col = {}, 1
    else
      for i = #line + 1, col - 1 do line[i] = ' ' end
      line[col] = ch
      col = col + 1
    end
  end
  if #line > 0 then lines[#lines + 1] = table.concat(line):gsub('%s+$', '') end
  return lines
end

-- xlua._progress holds the bar's settings: 'enabled' (nil: decided at
-- the first call, a terminal on stdout and no $CI), 'width' (nil: $COLUMNS
-- or tput, at most 120), 'clock' and 'write' (specs replace them), and
-- 'bar', the state of the bar being drawn (nil: none yet)
xlua._progress = {enabled = nil, width = nil, clock = function() return (C.clock()) end,
                  write = function(s) io.write(s); io.flush() end}

local function termwidth()
  local w = tonumber(os.getenv('COLUMNS') or '')
  if not w then
    local p = io.popen('tput cols 2>/dev/null')
    if p then
      w = tonumber(p:read('a'))
      p:close()
    end
  end
  return math.min(w or 80, 120)
end

function xlua.progress(current, goal)
  if type(current) ~= 'number' then argerror('progress', 1, 'current step (number)', current) end
  if type(goal) ~= 'number' or not (goal > 0) then
    error(string.format('xlua.progress: argument 2: goal (positive number) expected, got %s',
                        type(goal) == 'number' and tostring(goal) or torch.type(goal)), 2)
  end
  local st = xlua._progress
  st.bar = st.bar or {done = true, previous = -1}
  local bar = st.bar
  if st.enabled == nil then
    local ci = os.getenv('CI')
    st.enabled = C.isatty(1) and (ci == nil or ci == '' or ci == 'false')
  end
  if not st.enabled then return end
  st.width = st.width or termwidth()
  local barLength = st.width - 34
  local percent = math.floor(current * barLength / goal)
  local now = st.clock()
  local continuing = true
  if bar.done and (bar.previous == -1 or percent < bar.previous) then
    bar.done, bar.previous, continuing = false, -1, false
    bar.start, bar.times, bar.indices, bar.drawn = now, {0}, {current}, -math.huge
  end
  if bar.done then return end
  local elapsed = now - bar.start
  local step = current == bar.indices[1] and 0 or (elapsed - bar.times[1]) / (current - bar.indices[1])
  local remaining = math.max(0, (goal - current) * step)
  table.insert(bar.indices, current)
  table.insert(bar.times, elapsed)
  if #bar.indices > 100 then   -- the step time is averaged over the last 100 calls
    table.remove(bar.indices, 1)
    table.remove(bar.times, 1)
  end
  -- Torch7 redrew at every call; here at most 10 times a second unless the
  -- bar moved (the same picture, far less terminal output in tight loops)
  if percent == bar.previous and percent < barLength and now - bar.drawn < 0.1 then return end
  bar.previous, bar.drawn = percent, now
  local tm = (percent < barLength and ' ETA: ' .. xlua.formatTime(remaining) or ' Tot: ' .. xlua.formatTime(elapsed))
             .. ' | Step: ' .. xlua.formatTime(step)
  st.write(xlua._progresstext(current, goal, st.width, tm, continuing))
  if percent == barLength then bar.done = true end
end

----------------------------------------------------------------------
-- errors and loading

-- raises '<domain> message' (red on a terminal), with the usage text after
function xlua.error(message, domain, usage)
  local c = colors(2)
  if domain then message = '<' .. tostring(domain) .. '> ' .. tostring(message) end
  local msg = c.Red .. tostring(message) .. c.none
  if usage then msg = msg .. '\n' .. tostring(usage) end
  error(msg, 2)
end

function xlua.trycatch(try, catch)
  if type(try) ~= 'function' then argerror('trycatch', 1, 'function', try) end
  local ok, err = pcall(try)
  if not ok and catch then catch(err) end
end

-- true, file when package.path or package.cpath finds the module
function xlua.installed(name)
  if type(name) ~= 'string' then argerror('installed', 1, 'module name (string)', name) end
  local file = package.searchpath(name, package.path) or package.searchpath(name, package.cpath)
  if file then return true, file end
  return false, package.path .. ';' .. package.cpath
end

-- the module, or false after printing why it did not load
function xlua.require(name)
  if type(name) ~= 'string' then argerror('require', 1, 'module name (string)', name) end
  local ok, mod = pcall(require, name)
  if not ok then
    print(mod)
    print('warning: <' .. name .. '> could not be loaded (is it installed?)')
    return false
  end
  return mod
end

-- a copy of 'defaults' where each key set in the environment takes that
-- value, converted to the default's type: learningRate=1e-3 th train.lua
function xlua.envparams(defaults)
  if type(defaults) ~= 'table' then argerror('envparams', 1, 'table of defaults', defaults) end
  local params = {}
  for k, v in pairs(defaults) do
    params[k] = v
    local s = type(k) == 'string' and os.getenv(k)
    if s then
      local new = s
      if type(v) == 'number' then
        new = tonumber(s)
        if new == nil then
          error(string.format('xlua.envparams: %s=%s in the environment is not a number', k, s), 2)
        end
      elseif type(v) == 'boolean' then
        if s == 'true' or s == 'True' or s == '1' then new = true
        elseif s == 'false' or s == 'False' or s == '0' then new = false
        else error(string.format('xlua.envparams: %s=%s in the environment is not true or false', k, s), 2) end
      end
      params[k] = new
    end
  end
  return params
end

----------------------------------------------------------------------
-- tables as text, function usage, named arguments

local function valtostring(v)
  if type(v) == 'string' then
    v = v:gsub('\n', '\\n')
    if v:gsub("[^'\"]", ''):match('^"+$') then return "'" .. v .. "'" end
    return '"' .. v:gsub('"', '\\"') .. '"'
  end
  return type(v) == 'table' and xlua.table2string(v) or tostring(v)
end

local function keytostring(k)
  if type(k) == 'string' and k:match('^[_%a][_%w]*$') then return k end
  return '[' .. valtostring(k) .. ']'
end

-- '{1,2,a=3}' (or one entry a line with 'newline'); the array part first,
-- then the other keys sorted
function xlua.table2string(t, newline)
  if type(t) ~= 'table' then argerror('table2string', 1, 'table', t) end
  local out, done = {}, {}
  for i, v in ipairs(t) do
    out[#out + 1] = valtostring(v)
    done[i] = true
  end
  local keys = {}
  for k in pairs(t) do if not done[k] then keys[#keys + 1] = k end end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local sep = newline and ' : ' or '='
  for _, k in ipairs(keys) do out[#out + 1] = keytostring(k) .. sep .. valtostring(t[k]) end
  if newline then return '{\n   ' .. table.concat(out, '\n   ') .. '\n}' end
  return '{' .. table.concat(out, ',') .. '}'
end

local BANNER = string.rep('+', 69)

local function padto(s, n) return s .. string.rep(' ', n - #s) end

-- the help text of a function: its name, description, the arguments
-- (named: {arg=, type=, help=, req=, default=} each) and an example
function xlua.usage(funcname, description, example, ...)
  local c = colors()
  local str = BANNER .. '\n' .. c.Magenta .. tostring(funcname) .. c.none .. '\n'
  if description then str = str .. '\n' .. description .. '\n' end
  str = str .. '\n' .. c.blue .. '> ' .. c.none .. 'usage:\n' .. c.cyan
  local args = {...}
  if args[1] and args[1].tabled then args = args[1].tabled end
  if args[1] and args[1].arg then
    str = str .. funcname .. '{\n'
    for _, p in ipairs(args) do
      local key = p.req and ('    ' .. p.arg .. ' = ' .. p.type) or ('    [' .. p.arg .. ' = ' .. p.type .. ']')
      str = str .. padto(key, 40) .. '-- ' .. tostring(p.help)
      if type(p.default) == 'table' then
        str = str .. '  [default = ' .. xlua.table2string(p.default) .. ']'
      elseif p.default ~= nil then
        str = str .. '  [default = ' .. tostring(p.default) .. ']'
      elseif p.defaulta then
        str = str .. '  [default == ' .. p.defaulta .. ']'
      end
      str = str .. '\n'
    end
    str = str .. '}\n'
  else
    local idx = 1
    while true do
      local p
      str = str .. funcname .. '(\n'
      while true do
        p = args[idx]
        idx = idx + 1
        if not p or p == '' then break end
        local key = p.req and ('    ' .. p.type) or ('    [' .. p.type .. ']')
        str = str .. padto(key, 40) .. '-- ' .. tostring(p.help) .. '\n'
      end
      str = str .. ')\n'
      if not p then break end
    end
  end
  str = str .. c.none
  if example then str = str .. '\n' .. c.cyan .. example .. c.none .. '\n' end
  return str .. BANNER
end

-- named ({a=1, b=2}) or positional arguments against the definitions
-- {arg=, type=, help=, req=, default=, defaulta=}...; returns the table of
-- values (by name and by position, with .usage), then the values in order
function xlua.unpack(args, funcname, description, ...)
  if type(args) ~= 'table' then argerror('unpack', 1, 'table of arguments ({...})', args) end
  local defs = {...}
  local usage = setmetatable({}, {__tostring = function()
    local example
    if #defs > 1 then
      example = funcname .. '{' .. defs[2].arg .. '=' .. defs[2].type .. ', '
                .. defs[1].arg .. '=' .. defs[1].type .. '}\n'
                .. funcname .. '(' .. defs[1].type .. ', ...)'
    end
    return xlua.usage(funcname, description, example, {tabled = defs})
  end})
  local given = {}
  local n = args.n or #args
  if n == 1 and type(args[1]) == 'table' and #args[1] == 0 and torch.typename(args[1]) == nil then
    given = args[1]
  else
    for i = 1, #defs do given[defs[i].arg] = args[i] end
  end
  local out = {}
  for i, def in ipairs(defs) do
    local v = given[def.arg]
    if v == nil then v = def.default end
    if v == nil and def.defaulta then v = out[def.defaulta] end
    if v == nil and def.req then
      error(string.format('%s: missing argument: %s\n%s', funcname, def.arg, tostring(usage)), 3)
    end
    out[def.arg] = v
    out[i] = v
  end
  out.usage = usage
  return out, table.unpack(out, 1, #defs)
end

-- xlua.unpack, storing the named values in 'object' (a constructor's self)
function xlua.unpack_class(object, args, funcname, description, ...)
  local values = xlua.unpack(args, funcname, description, ...)
  for k, v in pairs(values) do
    if type(k) ~= 'number' then object[k] = v end
  end
end

-- gives 'module' a __tostring with the package's name and description
function xlua.usage_module(module, name, description)
  local c = colors()
  local str = c.magenta .. BANNER .. '\nPACKAGE:\n' .. tostring(name) .. '\n'
  if description then str = str .. '\nDESC:\n' .. description .. '\n' end
  str = str .. BANNER .. '+' .. c.none
  local mt = getmetatable(module) or {}
  setmetatable(module, mt)
  mt.__tostring = function() return str end
  return str
end

----------------------------------------------------------------------
-- the string and table helpers xlua adds to the standard tables

local helpers = {}

-- removes 'length' elements (default 1) from position 'start' (default 1);
-- returns the rest and the removed ones, as new tables
function helpers.splice(t, start, length)
  if type(t) ~= 'table' then argerror('table.splice', 1, 'table', t) end
  start, length = start or 1, length or 1
  local kept, removed = {}, {}
  for i, v in ipairs(t) do
    if i < start or i >= start + length then kept[#kept + 1] = v else removed[#removed + 1] = v end
  end
  return kept, removed
end

-- the distinct values of t (by hash(v) when given; merge(new, old) decides
-- which value a duplicate keeps, else the last wins), in first-seen order
function helpers.prune(t, hash, merge)
  if type(t) ~= 'table' then argerror('table.prune', 1, 'table', t) end
  hash = hash or function(v) return v end
  local byhash, order = {}, {}
  for _, v in ipairs(t) do
    local h = hash(v)
    if byhash[h] == nil then
      order[#order + 1] = h
      byhash[h] = v
    elseif merge then
      byhash[h] = merge(v, byhash[h])
    else
      byhash[h] = v
    end
  end
  local out = {}
  for i, h in ipairs(order) do out[i] = byhash[h] end
  return out
end

-- the pieces between matches of the Lua pattern 'sep' (empty pieces kept,
-- except a leading one): ('a,b,,c'):split(',') -> {'a', 'b', '', 'c'}
function helpers.split(s, sep)
  if type(s) ~= 'string' then argerror('string.split', 1, 'string', s) end
  if type(sep) ~= 'string' then argerror('string.split', 2, 'separator pattern (string)', sep) end
  local out, last = {}, 1
  local from, to, piece = s:find('(.-)' .. sep, 1)
  while from do
    if to < from then   -- Torch7 looped forever here
      error(string.format("string.split: separator pattern '%s' matches the empty string", sep), 2)
    end
    if from ~= 1 or piece ~= '' then out[#out + 1] = piece end
    last = to + 1
    from, to, piece = s:find('(.-)' .. sep, last)
  end
  if last <= #s then out[#out + 1] = s:sub(last) end
  return out
end

-- the value the expression names: ('nn.Linear'):tosymbol() == nn.Linear
function helpers.tosymbol(s)
  if type(s) ~= 'string' then argerror('string.tosymbol', 1, 'string', s) end
  local chunk, err = load('return ' .. s, '=tosymbol', 't')
  if not chunk then error('string.tosymbol: ' .. err, 2) end
  local ok, v = pcall(chunk)
  if not ok then error('string.tosymbol: ' .. tostring(v), 2) end
  if not v then error('symbol "' .. s .. '" does not exist', 2) end
  return v
end

xlua._helpers = helpers
for name, dest in pairs{splice = table, prune = table, split = string, tosymbol = string} do
  if rawget(dest, name) == nil then rawset(dest, name, helpers[name]) end
end

rawset(_G, 'xprint', xlua.print)
rawset(_G, 'xerror', xlua.error)
rawset(_G, 'xrequire', xlua.require)

require 'xlua.OptionParser'
require 'xlua.Profiler'

return xlua
