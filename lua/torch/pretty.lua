-- torch.pretty: how the th session shows the values a statement returns
-- (trepl's idea, written here): strings as they are at the top level and
-- quoted inside tables; tables key by key, nested up to a depth, cycles
-- named; tensors and storages whole at the top level (print's format,
-- in summary when large: torch.setprintoptions) and as
-- 'FloatTensor - size: 3x4' inside tables; objects with a __tostring
-- (nn modules) through it. Colours only when asked (a terminal without
-- NO_COLOR: see pretty.usecolor).
--   pretty.format(v [, {color=, depth=}]) -> text without a final newline
--   pretty.print(...)                      -> each value on its own line

local pretty = {}

pretty.depth = 4   -- tables nested deeper print as {...}

local colors = {
  number = '\27[36m', string = '\27[32m', boolean = '\27[35m', ['nil'] = '\27[35m',
  ['function'] = '\27[33m', tensor = '\27[34m', other = '\27[33m', dim = '\27[2m',
}
local reset = '\27[0m'

-- colours on a terminal stdout, unless NO_COLOR is set (no-color.org) or the
-- terminal is dumb
function pretty.usecolor()
  local nc = os.getenv('NO_COLOR')
  if nc ~= nil and nc ~= '' then return false end
  if os.getenv('TERM') == 'dumb' then return false end
  return torch ~= nil and torch._C ~= nil and torch._C.isatty(1)
end

local function paint(color, kind, s)
  if not color then return s end
  return colors[kind] .. s .. reset
end

local function istensor(v)
  local t = torch and torch.typename and torch.typename(v)
  return t and (t:find('Tensor$') or t:find('Storage$')) and t
end

-- 'FloatTensor - size: 3x4', 'DoubleStorage - size: 10', 'FloatTensor - empty'
local function tensorline(v, tname)
  local short = tname:gsub('^torch%.', '')
  if tname:find('Storage$') then return short .. ' - size: ' .. v:size() end
  if v:isFreed() then return short .. ' - freed' end
  if v:dim() == 0 or v:nElement() == 0 then return short .. ' - empty' end
  local s = {}
  for i = 1, v:dim() do s[i] = v:size(i) end
  return short .. ' - size: ' .. table.concat(s, 'x')
end

-- tostring that survives a __tostring that raises or returns no string:
-- printing a result must not fail because of the object printed
local function safestring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == 'string' then return s end
  local mt = getmetatable(v)
  local name = type(mt) == 'table' and type(rawget(mt, '__name')) == 'string' and rawget(mt, '__name') or type(v)
  return '<' .. name .. ': __tostring failed: ' .. (ok and 'returned a ' .. type(s) or tostring(s)) .. '>'
end

local function hastostring(v)
  local mt = getmetatable(v)
  return type(mt) == 'table' and rawget(mt, '__tostring') ~= nil
end

local function keystr(k, color)
  if type(k) == 'string' then
    if k:match('^[%a_][%w_]*$') then return k end
    return paint(color, 'string', string.format('%q', k))
  end
  return paint(color, type(k) == 'number' and 'number' or 'other', safestring(k))
end

-- array part first (1..n), then the other keys in a stable order
local function sortedkeys(t)
  local n = #t
  local keys, rest = {}, {}
  for i = 1, n do keys[i] = i end
  for k in pairs(t) do
    if not (math.type(k) == 'integer' and k >= 1 and k <= n) then rest[#rest + 1] = k end
  end
  table.sort(rest, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == 'number' or ta == 'string' then return a < b end
    return safestring(a) < safestring(b)
  end)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys
end

local format

-- a value inside a table
local function inner(v, color, depth, seen, indent)
  local tv = type(v)
  if tv == 'string' then return paint(color, 'string', string.format('%q', v)) end
  local tname = istensor(v)
  if tname then return paint(color, 'tensor', tensorline(v, tname)) end
  return format(v, color, depth, seen, indent)
end

function format(v, color, depth, seen, indent)
  local tv = type(v)
  if tv == 'number' or tv == 'boolean' or tv == 'nil' then return paint(color, tv, tostring(v)) end
  if tv == 'string' then return v end
  if tv == 'function' then return paint(color, 'function', tostring(v)) end
  if istensor(v) or hastostring(v) then
    local s = safestring(v):gsub('\n$', '')
    return (s:gsub('\n', '\n' .. indent))
  end
  if tv ~= 'table' then return paint(color, 'other', safestring(v)) end
  if seen[v] then return paint(color, 'dim', '<cycle: ' .. safestring(v) .. '>') end
  if next(v) == nil then return '{}' end
  if depth >= pretty.depth then return paint(color, 'dim', '{...}') end
  seen[v] = true
  local lines = {'{'}
  local sub = indent .. '  '
  for _, k in ipairs(sortedkeys(v)) do
    lines[#lines + 1] = sub .. keystr(k, color) .. ' : ' .. inner(v[k], color, depth + 1, seen, sub)
  end
  lines[#lines + 1] = indent .. '}'
  seen[v] = nil
  return table.concat(lines, '\n')
end

function pretty.format(v, o)
  if o ~= nil and type(o) ~= 'table' then
    error(string.format('pretty.format: options table ({color = boolean}) expected, got %s', type(o)), 2)
  end
  o = o or {}
  local color = o.color
  if color == nil then color = false end
  return format(v, color, 0, {}, '')
end

-- the values a statement returned, one per line (nil included)
function pretty.print(...)
  local color = pretty.usecolor()
  local n = select('#', ...)
  local out = {}
  for i = 1, n do out[i] = format((select(i, ...)), color, 0, {}, '') end
  if n > 0 then io.write(table.concat(out, '\n'), '\n') end
  io.flush()
end

return pretty
