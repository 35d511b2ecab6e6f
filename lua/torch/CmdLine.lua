-- torch.CmdLine: Torch7's command-line parser for training scripts.
--   local cmd = torch.CmdLine()
--   cmd:text('Train a net'); cmd:text(); cmd:text('Options:')
--   cmd:option('-lr', 0.1, 'learning rate')       -- type from the default:
--   cmd:option('-cuda', false, 'use the GPU')      -- a boolean flag toggles it
--   cmd:argument('-data', 'training file')         -- positional, required
--   local opt = cmd:parse(arg)                     -- {lr = 0.1, cuda = false, data = ...}
--   cmd:string('exp', opt, {data = true})          -- 'exp,cuda=t,lr=0.01'
--   cmd:log('train.log', opt)                      -- print() also writes the file
-- Options are matched by their key with one or two dashes ('-lr' and
-- '--lr' both find an option declared '-lr'); their values come in the
-- next word ('-lr 0.01') or after '=' ('--lr=0.01'). A boolean flag toggles
-- its default as in Torch7, or takes a following 'true' or 'false'
-- ('-optnet false'); '--no-name' sets it false. Torch7 knew the exact key
-- and the toggle only. '-h', '-help' or '--help' prints the help and exits 0; a bad
-- command line prints the reason on stderr, the help on stdout, and exits
-- 1 (cmd:error(msg) does that: replace it on the object to raise instead).
-- Numbers print as LuaJIT did ('%.14g': 1 rather than 1.0).

local CmdLine = torch.class('torch.CmdLine')

local TYPES = {number = true, string = true, boolean = true}

local function strip(key) return (key:match('^%-*(.*)$')) end

local function fmt(v)
  if math.type(v) == 'float' then return string.format('%.14g', v) end
  return tostring(v)
end

function CmdLine:__init(argseparator, keyseparator)
  self.argseparator = argseparator or ','
  self.keyseparator = keyseparator or '='
  self.options = {}     -- key ('-lr') -> {key, default, help, type}
  self.arguments = {}   -- in order: {key, help, type}
  self.helplines = {}   -- text lines, options and arguments, as declared
  self.dateformat = nil
  self.silentio = false
end

local function check(self, fn)
  if torch.typename(self) ~= 'torch.CmdLine' then
    error(string.format('torch.CmdLine:%s: command line expected (use cmd:%s(...), not cmd.%s(...)), got %s',
                        fn, fn, fn, torch.type(self)), 3)
  end
end

-- prints the reason on stderr and the help on stdout, then exits 1
function CmdLine:error(msg)
  io.stderr:write(msg, '\n')
  io.stderr:flush()
  print('')
  self:help(self._arg)
  os.exit(1)
end

function CmdLine:silent()
  check(self, 'silent')
  self.silentio = true
end

-- log lines start with os.date(format) and '[name]: ' when name is given
function CmdLine:addTime(name, format)
  check(self, 'addTime')
  format = format or '%Y-%m-%d %H:%M:%S'
  if type(format) ~= 'string' then
    error('torch.CmdLine:addTime: date format (string) expected as argument 2, got ' .. torch.type(format), 2)
  end
  self.dateformat = format .. (name ~= nil and ('[' .. tostring(name) .. ']: ') or '')
end

function CmdLine:text(txt)
  check(self, 'text')
  txt = txt or ''
  if type(txt) ~= 'string' then
    error('torch.CmdLine:text: text (string) expected, got ' .. torch.type(txt), 2)
  end
  table.insert(self.helplines, txt)
end

-- a positional argument; its type is 'string' (default) or 'number'
function CmdLine:argument(key, help, typ)
  check(self, 'argument')
  if type(key) ~= 'string' or strip(key) == '' then
    error('torch.CmdLine:argument: argument name (string) expected, got ' .. torch.type(key), 2)
  end
  if typ ~= nil and typ ~= 'string' and typ ~= 'number' then
    error(string.format("torch.CmdLine:argument: type of %s must be 'string' or 'number', got %s", key, tostring(typ)), 2)
  end
  local a = {key = key, help = help, type = typ}
  table.insert(self.arguments, a)
  table.insert(self.helplines, a)
end

-- an option with its default; its type is the default's unless given
function CmdLine:option(key, default, help, typ)
  check(self, 'option')
  if type(key) ~= 'string' or strip(key) == '' then
    error('torch.CmdLine:option: option name (string such as \'-lr\') expected, got ' .. torch.type(key), 2)
  end
  if default == nil then error('torch.CmdLine:option: option ' .. key .. ' has no default value', 2) end
  typ = typ or type(default)
  if not TYPES[typ] then
    error(string.format("torch.CmdLine:option: option %s: type number, string or boolean expected, got %s",
                        key, tostring(typ)), 2)
  end
  if type(default) ~= typ then
    error(string.format('torch.CmdLine:option: option %s has wrong default type value (%s expected, got %s)',
                        key, typ, type(default)), 2)
  end
  if self.options[key] then error('torch.CmdLine:option: option ' .. key .. ' is declared twice', 2) end
  self.options[key] = {key = key, default = default, help = help, type = typ}
  table.insert(self.helplines, self.options[key])
end

-- the options' defaults, by name without dashes
function CmdLine:default()
  check(self, 'default')
  local params = {}
  for key, o in pairs(self.options) do params[strip(key)] = o.default end
  return params
end

-- the value of option 'o' from word 'value' (nil: none given)
local function optionvalue(self, o, value)
  if value == nil then return self:error('missing argument for option ' .. o.key) end
  if o.type == 'number' then
    local n = tonumber(value)
    if n == nil then
      return self:error(string.format("invalid type for option %s (should be number), got '%s'", o.key, value))
    end
    return n
  end
  if o.type == 'boolean' then
    if value == 'true' or value == 't' or value == '1' then return true end
    if value == 'false' or value == 'f' or value == '0' then return false end
    return self:error(string.format("invalid value for option %s (should be true or false), got '%s'", o.key, value))
  end
  return value
end

-- the option a word names: its exact key, the same name with one or two
-- dashes, or '--no-name' for a boolean 'name' (then negated is true)
local function findoption(self, word)
  if self.options[word] then return self.options[word] end
  local name = word:match('^%-%-?([^-=][^=]*)$')
  if not name then return nil end
  local neg = name:match('^no%-(.+)$')
  for key, o in pairs(self.options) do
    if strip(key) == name then return o end
  end
  if neg then
    for key, o in pairs(self.options) do
      if strip(key) == neg and o.type == 'boolean' then return o, true end
    end
  end
  return nil
end

-- reads the command line (a table like the global 'arg'); returns the
-- options and arguments by name without dashes
function CmdLine:parse(arg)
  check(self, 'parse')
  arg = arg or _G.arg or {}
  if type(arg) ~= 'table' then
    error('torch.CmdLine:parse: argument list (table such as arg) expected, got ' .. torch.type(arg), 2)
  end
  self._arg = arg
  local params = self:default()
  local nargs = 0
  local i = 1
  while i <= #arg do
    local word = arg[i]
    if type(word) ~= 'string' then word = tostring(word) end
    if word == '-h' or word == '-help' or word == '--help' then
      self:help(arg)
      os.exit(0)
    end
    local o, negated = findoption(self, word)
    local key, value = word:match('^(%-%-?[^=]+)=(.*)$')
    local ko = key and findoption(self, key)
    if o then
      local name = strip(o.key)
      if negated then
        params[name] = false
        i = i + 1
      elseif o.type == 'boolean' then
        -- '-flag true|false', else Torch7's toggle of the default
        local nxt = arg[i + 1]
        if nxt == 'true' or nxt == 'false' then
          params[name] = nxt == 'true'
          i = i + 2
        else
          params[name] = not o.default
          i = i + 1
        end
      else
        params[name] = optionvalue(self, o, arg[i + 1])
        i = i + 2
      end
    elseif ko then
      params[strip(ko.key)] = optionvalue(self, ko, value)
      i = i + 1
    elseif word:sub(1, 1) == '-' and #word > 1 and tonumber(word) == nil then
      return self:error('unknown option ' .. word)
    else
      nargs = nargs + 1
      local a = self.arguments[nargs]
      if a == nil then return self:error('invalid argument: ' .. word) end
      local v = word
      if a.type == 'number' then
        v = tonumber(word)
        if v == nil then
          return self:error(string.format("invalid argument type for argument %s (should be number), got '%s'",
                                          a.key, word))
        end
      end
      params[strip(a.key)] = v
      i = i + 1
    end
  end
  if nargs < #self.arguments then
    local missing = {}
    for j = nargs + 1, #self.arguments do missing[#missing + 1] = '<' .. strip(self.arguments[j].key) .. '>' end
    return self:error('not enough arguments: missing ' .. table.concat(missing, ' '))
  end
  return params
end

-- an experiment name: prefix, then the arguments, then the options whose
-- value differs from the default (or that 'ignore' maps to false), sorted;
-- keys that 'ignore' maps to true are left out: 'exp,data=x,lr=0.01'
function CmdLine:string(prefix, params, ignore)
  check(self, 'string')
  prefix = prefix or ''
  if type(params) ~= 'table' then
    error('torch.CmdLine:string: parameters (table from cmd:parse) expected as argument 2, got ' .. torch.type(params), 2)
  end
  ignore = ignore or {}
  local byname = {}
  for key, o in pairs(self.options) do byname[strip(key)] = o end
  local arguments, options = {}, {}
  for k, v in pairs(params) do
    local o = byname[k]
    if ignore[k] then
      -- left out on request
    elseif o then
      if v ~= o.default or ignore[k] == false then
        if type(v) == 'boolean' then v = v and 't' or 'f' end
        options[#options + 1] = k .. self.keyseparator .. fmt(v)
      end
    else
      for n, a in ipairs(self.arguments) do
        if strip(a.key) == k then arguments[n] = k .. self.keyseparator .. fmt(v) end
      end
    end
  end
  table.sort(options)
  local parts = {}
  for n = 1, #self.arguments do if arguments[n] then parts[#parts + 1] = arguments[n] end end
  for _, s in ipairs(options) do parts[#parts + 1] = s end
  local str = table.concat(parts, self.argseparator)
  if str == '' then return prefix end
  return prefix .. self.argseparator .. str
end

local oprint   -- the print in place before the first cmd:log

-- from now on print() also writes its line to 'file' (a name or an open
-- file), after a header with the date and the parameters
function CmdLine:log(file, params)
  check(self, 'log')
  local f = io.type(file) == 'file' and file
  if not f then
    if type(file) ~= 'string' then
      error('torch.CmdLine:log: log file (name or open file) expected, got ' .. torch.type(file), 2)
    end
    local err
    f, err = io.open(file, 'w')
    if not f then error('torch.CmdLine:log: cannot open ' .. tostring(err), 2) end
  end
  oprint = oprint or print
  local cmd = self
  _G.print = function(...)
    local n = select('#', ...)
    if not cmd.silentio then oprint(...) end
    local parts = {}
    if cmd.dateformat then parts[#parts + 1] = os.date(cmd.dateformat) end
    for i = 1, n do parts[#parts + 1] = tostring((select(i, ...))) end
    parts[#parts + 1] = '\n'
    f:write(table.concat(parts, ' '))
    f:flush()
  end
  print('[program started on ' .. os.date() .. ']')
  print('[command line arguments]')
  if params then
    local keys = {}
    for k in pairs(params) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do print(k, fmt(params[k])) end
  end
  print('[----------------------]')
end

local function pad(s, n) return s .. string.rep(' ', n - #s) end

-- 'Usage: script [options] <arg>...', then the declared lines: options
-- and '<arguments>' aligned in one column, followed by help and [default]
function CmdLine:help(arg)
  check(self, 'help')
  io.write('Usage: ')
  if arg and arg[0] then io.write(tostring(arg[0]), ' ') end
  io.write('[options]')
  for _, a in ipairs(self.arguments) do io.write(' <', strip(a.key), '>') end
  io.write('\n')
  local width = 0
  for _, line in ipairs(self.helplines) do
    if type(line) == 'table' then
      local w = line.default ~= nil and #line.key or #strip(line.key) + 2
      if w > width then width = w end
    end
  end
  for _, line in ipairs(self.helplines) do
    if type(line) == 'table' then
      io.write('  ')
      if line.default ~= nil then
        io.write(pad(line.key, width))
        if line.help then io.write(' ', tostring(line.help)) end
        io.write(' [', fmt(line.default), ']')
      else
        io.write(pad('<' .. strip(line.key) .. '>', width))
        if line.help then io.write(' ', tostring(line.help)) end
      end
    else
      io.write(line)
    end
    io.write('\n')
  end
end

return CmdLine
