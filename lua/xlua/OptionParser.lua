-- xlua.OptionParser: the optparse-style parser Torch7's xlua carried
-- (D. Manura's, as modified there). torch.CmdLine is the usual choice;
-- this keeps older scripts running.
--   local op = xlua.OptionParser('%prog [options] file')
--   op:option{'-n', '--count', action = 'store', dest = 'count', help = 'how many', default = 1}
--   op:option{'-v', action = 'store_true', dest = 'verbose', help = 'say more'}
--   local opt, args = op:parse()           -- reads the global arg
-- action: 'store' (the next word, or '--count=3'), 'store_true',
-- 'store_false'; req = true makes an option required. Values stay strings,
-- as in Torch7. -h / --help prints the help and exits; a bad command line
-- prints the reason on stderr and the help, and exits 1 (op:fail).

local OptionParser = {}
OptionParser.__index = OptionParser

function xlua.OptionParser(usage)
  if usage ~= nil and type(usage) ~= 'string' then
    error('xlua.OptionParser: usage (string) expected, got ' .. type(usage), 2)
  end
  local self = setmetatable({usage = usage or '%prog [options]', option_descriptions = {}, option_of = {}},
                            OptionParser)
  self:option{'-h', '--help', action = 'store_true', dest = 'help', help = 'show this help message and exit'}
  return self
end

local ACTIONS = {store = true, store_true = true, store_false = true}

function OptionParser:option(desc)
  if type(desc) ~= 'table' or type(desc[1]) ~= 'string' then
    error("xlua.OptionParser:option: {'-x', ['--long',] dest = ..., help = ...} expected, got " .. type(desc), 2)
  end
  if desc.action ~= nil and not ACTIONS[desc.action] then
    error(string.format("xlua.OptionParser:option: action of %s must be 'store', 'store_true' or 'store_false', got %s",
                        desc[1], tostring(desc.action)), 2)
  end
  if type(desc.dest) ~= 'string' then
    error('xlua.OptionParser:option: dest (string) of ' .. desc[1] .. ' expected, got ' .. type(desc.dest), 2)
  end
  self.option_descriptions[#self.option_descriptions + 1] = desc
  for _, flag in ipairs(desc) do self.option_of[flag] = desc end
end

-- prints the reason on stderr and the help on stdout, then exits 1
function OptionParser:fail(msg)
  io.stderr:write(msg, '\n')
  self:help()
  os.exit(1)
end

-- options (the table given, or a new one) and the other words; argv
-- defaults to the global arg
function OptionParser:parse(options, argv)
  options = options or {}
  for _, d in ipairs(self.option_descriptions) do
    if d.default ~= nil and options[d.dest] == nil then options[d.dest] = d.default end
  end
  argv = argv or _G.arg
  local args = {}
  if not argv then
    options.__main__ = false
    self.options = options
    return options, args
  end
  options.__main__ = true
  local words = {}
  for _, w in ipairs(argv) do
    local flag, val = w:match('^(%-%-[%w_-]+)=(.*)$')
    if flag then
      words[#words + 1] = flag
      words[#words + 1] = val
    else
      words[#words + 1] = w
    end
  end
  local i = 1
  while i <= #words do
    local w = words[i]
    local d = self.option_of[w]
    if d then
      local val
      if d.action == 'store_true' then val = true
      elseif d.action == 'store_false' then val = false
      else
        i = i + 1
        val = words[i] or d.default
        if val == nil then return self:fail('option requires an argument ' .. w) end
      end
      options[d.dest] = val
    elseif w:match('^%-') then
      return self:fail('invalid option ' .. w)
    else
      args[#args + 1] = w
    end
    i = i + 1
  end
  for _, d in ipairs(self.option_descriptions) do
    if d.req and options[d.dest] == nil then return self:fail('option ' .. d[1] .. ' requires an argument ') end
  end
  if options.help then
    self:help()
    os.exit(0)
  end
  self.options = options
  return options, args
end

-- '-n COUNT, --count=COUNT' for a storing option, the flags alone otherwise
function OptionParser:flags(d)
  local out = {}
  local stores = d.action == nil or d.action == 'store'
  for _, flag in ipairs(d) do
    local meta = d.metavar or d.dest:upper()
    out[#out + 1] = flag .. (stores and ((#flag == 2 and ' ' or '=') .. meta) or '')
  end
  return table.concat(out, ', ')
end

function OptionParser:help()
  local prog = _G.arg and _G.arg[0] or 'THISPROG'
  io.stdout:write('Usage: ', (self.usage:gsub('%%prog', function() return prog end)), '\n\nOptions:\n')
  local width = 0
  for _, d in ipairs(self.option_descriptions) do width = math.max(width, #self:flags(d)) end
  for _, d in ipairs(self.option_descriptions) do
    local extra = ''
    if d.req then extra = ' [REQUIRED]'
    elseif d.default ~= nil and d.default ~= false then extra = ' [default = ' .. tostring(d.default) .. ']' end
    local f = self:flags(d)
    io.stdout:write('  ', f, string.rep(' ', width - #f), '  ', tostring(d.help or ''), extra, '\n')
  end
end

-- the parsed options as text: '<prog> configuration:' and ' + key = value'
-- lines (sorted), or with 'filename' one 'flag=value,...' string for file
-- names (only the flags listed in 'params' when given)
function OptionParser:tostring(filename, params)
  local opts = self.options or {}
  if not filename then
    local prog = ((_G.arg and _G.arg[0]) or 'interpreted.lua'):gsub('%.lua$', '')
    local keys = {}
    for k in pairs(opts) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    local lines = {'<' .. prog .. '> configuration:'}
    for _, k in ipairs(keys) do lines[#lines + 1] = ' + ' .. k .. ' = ' .. tostring(opts[k]) end
    return table.concat(lines, '\n') .. '\n'
  end
  local wanted
  if params and #params > 0 then
    wanted = {}
    for _, p in ipairs(params) do wanted[p] = true end
  end
  local parts = {}
  for _, d in ipairs(self.option_descriptions) do
    local v = opts[d.dest]
    if v and (not wanted or wanted[d[1]]) then parts[#parts + 1] = d[1] .. '=' .. tostring(v) end
  end
  return (table.concat(parts, ','):gsub('/', '|'):gsub(' ', '_'))
end

function OptionParser:summarize(filename)
  io.write(self:tostring(filename))
end
