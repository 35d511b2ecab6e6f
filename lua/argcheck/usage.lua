-- argcheck.usage: the text of a checker's documentation and of its errors
-- (markdown, as Torch7's argcheck wrote it).
--
--   usage.usage(true, rules [, norender]) -> the rules' doc (help=/doc=, with
--       @ARGP and @ARGT replaced) or, without one, an argument table
--   usage.usage(false, graph, ...) -> '*Got:* **number**, **string**': the
--       types of the arguments a failed call passed
--   usage.render(text) -> text (rendered for a terminal when the optional
--       sundown package is installed and both stdout and stderr are ttys)

local env = require 'argcheck.env'

local usage = {}

local ok, sundown = pcall(require, 'sundown.ascii')
if not ok then sundown = nil end

local function isOptional(rule)
  return rule.opt or rule.default ~= nil or rule.defaulta ~= nil or rule.defaultf ~= nil
end

-- @ARGP: 'x, [y], msg'. As Torch7's, an argument with only defaulta= is
-- not bracketed here (it is in @ARGT).
local function argList(rules)
  local parts = {}
  for i, rule in ipairs(rules) do
    local opt = rule.opt or rule.default ~= nil or rule.defaultf ~= nil
    parts[#parts + 1] = (opt and '[' or '') .. (i == 1 and '' or ', ') .. rule.name .. (opt and ']' or '')
  end
  return table.concat(parts)
end

local function defaultNote(rule)
  if rule.defaulta then return string.format(' [defaulta=%s]', rule.defaulta) end
  if rule.defaultf then return ' [has default]' end
  local d = rule.default
  if d == nil then return '' end
  if type(d) == 'string' or type(d) == 'number' then return string.format(' [default=%s]', d) end
  if type(d) == 'boolean' then return string.format(' [default=%s]', d and 'true' or 'false') end
  return ' [has default value]'
end

-- @ARGT: a fenced block, one line per argument, names and types aligned;
-- '({' ... '})' when both ordered and named calls are accepted
local function argTable(rules)
  local lines = {'```', (rules.noordered and '' or '(') .. (rules.nonamed and '' or '{')}
  local width = 0
  for _, rule in ipairs(rules) do width = math.max(width, #rule.name) end
  local heads, helps = {}, {}
  for i, rule in ipairs(rules) do
    local opt = isOptional(rule)
    heads[i] = (opt and '[' or ' ') .. rule.name .. string.rep(' ', width - #rule.name)
      .. (rule.type and (' = ' .. rule.type) or '') .. (opt and ']' or '')
    helps[i] = (rule.help or '') .. (rule.doc or '') .. defaultNote(rule)
  end
  local headWidth = 0
  for i = 1, #heads do headWidth = math.max(headWidth, #heads[i]) end
  for i = 1, #heads do
    lines[#lines + 1] = string.format('  %s %s -- %s', heads[i], string.rep(' ', headWidth - #heads[i]), helps[i])
  end
  lines[#lines + 1] = (rules.nonamed and '' or '}') .. (rules.noordered and '' or ')')
  lines[#lines + 1] = '```'
  return table.concat(lines, '\n')
end

usage.argp = argList
usage.argt = argTable

function usage.render(text)
  if sundown and type(torch) == 'table' and torch.isatty and torch.isatty(io.stderr) and torch.isatty(io.stdout) then
    return sundown.render(text)
  end
  return text
end

local function describeTable(tbl)
  local parts, n = {}, 0
  for k, v in pairs(tbl) do
    n = n + 1
    if n > 20 then parts[#parts + 1] = '...'; break end
    if type(k) == 'string' then
      parts[#parts + 1] = string.format('**%s=%s**', k, env.type(v))
    else
      parts[#parts + 1] = string.format('**[%s]**=?', env.type(k))
    end
  end
  return string.format('**table**={ %s }', table.concat(parts, ', '))
end

local function got(graph, ...)
  local n = select('#', ...)
  local parts = {}
  for i = 1, n do parts[i] = string.format('**%s**', env.type((select(i, ...)))) end
  -- a call that looks named shows the table's keys and value types
  local at
  if graph:hasruletype('N') then
    if n == 1 and env.istype((...), 'table') then at = 1 end
  elseif graph:hasruletype('M') then
    if n == 2 and env.istype((select(2, ...)), 'table') then at = 2 end
  end
  if at then parts[at] = describeTable((select(at, ...))) end
  return '*Got:* ' .. table.concat(parts, ', ')
end

function usage.usage(truth, rules, ...)
  if not truth then return got(rules, ...) end
  local text = rules.help or rules.doc
  if not text then return '\n*Arguments:*\n' .. argTable(rules) end
  text = text:gsub('@ARGP', function() return argList(rules) end)
  text = text:gsub('@ARGT', function() return argTable(rules) end)
  return text
end

return usage
