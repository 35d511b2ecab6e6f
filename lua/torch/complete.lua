-- torch.complete: Tab completion for the th session.
--   complete.candidates(word, before [, env]) -> list of replacements | nil
-- 'word' is the text before the cursor back to the last operator, bracket
-- or space ('torch.ran', 'x:na', 'a.b.c'); 'before' is the line before it.
-- The expression before the last '.' or ':' is walked by names only, never
-- called, through raw fields and the metatable chain (a tensor's methods
-- live in its metatable, a class instance's in its class and its parents):
-- completing calls no function, not even an __index metamethod. Inside a
-- string literal the answer is nil: readline then completes file names.

local complete = {}

local keywords = {
  'and', 'break', 'do', 'else', 'elseif', 'end', 'false', 'for', 'function', 'goto', 'if',
  'in', 'local', 'nil', 'not', 'or', 'repeat', 'return', 'then', 'true', 'until', 'while',
}

-- whether 'before' ends inside a string literal (an odd number of unescaped
-- quotes of the kind opened first)
local function instring(before)
  local quote, i = nil, 1
  while i <= #before do
    local c = before:sub(i, i)
    if quote then
      if c == '\\' then i = i + 1 elseif c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif before:sub(i, i + 1) == '--' then
      return false
    end
    i = i + 1
  end
  return quote ~= nil
end

-- the string keys of t and of the tables its metatables lead to, into set
local function collect(v, set, methodsonly, depth)
  if depth > 16 then return end
  if type(v) == 'table' then
    for k, x in next, v do
      if type(k) == 'string' and (not methodsonly or type(x) == 'function') then set[k] = true end
    end
  end
  local mt = getmetatable(v)
  if type(mt) ~= 'table' then return end
  local idx = rawget(mt, '__index')
  if type(idx) == 'table' and idx ~= v then
    collect(idx, set, methodsonly, depth + 1)
  elseif type(v) ~= 'table' then
    -- userdata whose __index is a function (tensors): methods in the metatable
    for k, x in next, mt do
      if type(k) == 'string' and type(x) == 'function' and not k:find('^__') then set[k] = true end
    end
    local up = getmetatable(mt)
    if type(up) == 'table' and type(rawget(up, '__index')) == 'table' then
      collect(rawget(up, '__index'), set, methodsonly, depth + 1)
    end
  end
end

-- v[name] without calling anything: raw fields, then the __index tables of
-- the metatable chain; a userdata whose __index is a function (tensors)
-- keeps its methods in the metatable itself
local function field(v, name)
  for _ = 1, 16 do
    if type(v) == 'table' then
      local x = rawget(v, name)
      if x ~= nil then return x end
    end
    local mt = getmetatable(v)
    if type(mt) ~= 'table' then return nil end
    local idx = rawget(mt, '__index')
    if type(idx) == 'table' then
      v = idx
    elseif type(v) ~= 'table' then
      return rawget(mt, name)
    else
      return nil
    end
  end
  return nil
end

-- the value an expression of names 'a.b.c' denotes, or nil
local function resolve(expr, env)
  local v = env
  for name in expr:gmatch('[^.]+') do
    if not name:match('^[%a_][%w_]*$') then return nil end
    v = field(v, name)
    if v == nil then return nil end
  end
  return v
end

function complete.candidates(word, before, env)
  local function need(ok, what, v)
    if not ok then error(string.format('complete.candidates: %s expected, got %s', what, type(v)), 3) end
  end
  need(type(word) == 'string', 'word (string)', word)
  need(before == nil or type(before) == 'string', 'text before the word (string or nil)', before)
  need(env == nil or type(env) == 'table', 'environment (table or nil)', env)
  env = env or _G
  if instring(before or '') then return nil end
  local prefix, sep, partial = word:match('^(.-)([.:])([%w_]*)$')
  local set, head = {}, ''
  if not prefix then
    if not word:match('^[%a_]?[%w_]*$') then return {} end
    partial = word
    collect(env, set, false, 0)
    for _, k in ipairs(keywords) do set[k] = true end
  else
    if prefix == '' or not prefix:match('^[%a_][%w_.]*$') then return {} end
    local v = resolve(prefix, env)
    if v == nil then return {} end
    if type(v) == 'string' then v = string end
    collect(v, set, sep == ':', 0)
    head = prefix .. sep
  end
  local out = {}
  for k in pairs(set) do
    -- names starting with '_' are internal: offered only once '_' is typed
    if k:sub(1, #partial) == partial and k:match('^[%a_][%w_]*$') and not (sep and k:find('^__'))
       and (partial:sub(1, 1) == '_' or k:sub(1, 1) ~= '_') then
      out[#out + 1] = head .. k
    end
  end
  table.sort(out)
  return out
end

return complete
