-- csvigo: Torch7's CSV package (clementfarabet/lua---csv), read and write.
--   csvigo.load{path=, separator=',', mode='tidy', header='auto', verbose=true,
--               skip=0, column_order=false}   (or the same positionally)
--     mode 'raw'   a list of rows (lists of strings), the file as it is
--          'tidy'  {column = {values...}} keyed by the header's names (or
--                  var_1, var_2, ... without a header; header 'auto': the
--                  first line is a header when its first field is no number);
--                  with column_order, also the list of names, first
--          'query' a function: query('all'), query('vars'),
--                  query('union' | 'inter', {var = value or {values}})
--          'large' a read-only table decoding rows when indexed
--   csvigo.save{path=, data=, separator=',', mode='autodetect', header=true,
--               verbose=true, column_order=nil, nan_as_missing=false}
--     data a list of rows ('raw'), a tidy table ('tidy': columns sorted by
--     name unless column_order lists them) or a query function ('query')
-- Values load as strings, as in Torch7 (tonumber them where needed).
require 'torch'

csvigo = csvigo or {}
require 'csvigo.File'

-- Torch7's packages take named arguments in one table or the same ones
-- positionally (dok.unpack); this does that for the specs below
local function unpackArgs(fn, args, spec)
  local named = #args == 1 and type(args[1]) == 'table' and getmetatable(args[1]) == nil
                and args[1][1] == nil
  local out = {}
  for i, a in ipairs(spec) do
    local v
    if named then v = args[1][a.name] else v = args[i] end
    if v == nil then v = a.default end
    if v == nil and a.required then
      local names = {}
      for j, b in ipairs(spec) do names[j] = b.name end
      error(string.format('%s: argument %s (%s) is required; arguments: {%s}', fn, a.name, a.type,
                          table.concat(names, ', ')), 3)
    end
    if v ~= nil and a.type ~= 'any' then
      local ok = false
      for t in a.type:gmatch('[^|]+') do ok = ok or type(v) == t end
      if not ok then
        error(string.format('%s: %s must be a %s, got %s', fn, a.name, a.type, torch.type(v)), 3)
      end
    end
    out[a.name] = v
  end
  return out
end

local function say(verbose, ...)
  if verbose then print('<csv>', ...) end
end

local MODES = {raw = true, tidy = true, query = true, large = true}

local function hasHeader(header, first)
  if header == 'auto' then return first ~= nil and tonumber(first[1]) == nil end
  if header == 'false' then return false end
  return header and true or false
end

-- the query function of 'query' mode over a tidy table
local function queryOf(tidy)
  local index = {}
  for var, vals in pairs(tidy) do
    index[var] = {}
    for i, v in ipairs(vals) do
      index[var][v] = index[var][v] or {}
      table.insert(index[var][v], i)
    end
  end
  local function rows(var, val)
    if not index[var] then error(string.format("query: no variable '%s'", tostring(var)), 3) end
    return index[var][tostring(val)] or {}
  end
  return function(kind, vars)
    kind = kind or 'all'
    if kind == 'all' then return tidy end
    if kind == 'help' then
      print("query('all') | query('vars') | query('union', {var = value or {values}}) | query('inter', {...})")
      return
    end
    if kind == 'vars' then
      local names = {}
      for k in pairs(tidy) do names[#names + 1] = k end
      table.sort(names)
      return names
    end
    if kind ~= 'union' and kind ~= 'inter' then
      error("query: 'all', 'vars', 'union', 'inter' or 'help' expected, got " .. tostring(kind), 2)
    end
    if type(vars) ~= 'table' then error('query: a table {var = values} expected, got ' .. torch.type(vars), 2) end
    local hits, nvars = {}, 0
    for var, vals in pairs(vars) do
      nvars = nvars + 1
      local seen = {}
      for _, val in ipairs(type(vals) == 'table' and vals or {vals}) do
        for _, i in ipairs(rows(var, val)) do
          if not seen[i] then seen[i] = true; hits[i] = (hits[i] or 0) + 1 end
        end
      end
    end
    local picked = {}
    for i, c in pairs(hits) do
      if kind == 'union' or c == nvars then picked[#picked + 1] = i end
    end
    table.sort(picked)
    local out = {}
    for k, vals in pairs(tidy) do
      out[k] = {}
      for j, i in ipairs(picked) do out[k][j] = vals[i] end
    end
    return out
  end
end

function csvigo.load(...)
  local a = unpackArgs('csvigo.load', {...}, {
    {name = 'path', type = 'string', required = true},
    {name = 'separator', type = 'string', default = ','},
    {name = 'mode', type = 'string', default = 'tidy'},
    {name = 'header', type = 'string|boolean', default = 'auto'},
    {name = 'verbose', type = 'boolean', default = true},
    {name = 'skip', type = 'number', default = 0},
    {name = 'column_order', type = 'boolean', default = false},
  })
  if not MODES[a.mode] then
    error(string.format("csvigo.load: mode must be 'raw', 'tidy', 'query' or 'large', got '%s'", a.mode), 2)
  end
  local path = a.path:gsub('^~', os.getenv('HOME') or '~')
  say(a.verbose, 'parsing file: ' .. path)
  local f = csvigo.File(path, 'r', a.separator)
  local rows = f:readall(a.mode)
  f:close()
  if a.mode == 'raw' or a.mode == 'large' then
    say(a.verbose, 'parsing done')
    return rows
  end
  say(a.verbose, 'tidying up entries')
  local start = 1 + a.skip
  local names = {}
  if hasHeader(a.header, rows[start]) then
    for i, v in ipairs(rows[start]) do names[i] = v end
    start = start + 1
  else
    for i = 1, rows[start] and #rows[start] or 0 do names[i] = 'var_' .. i end
  end
  local tidy = {}
  for _, name in ipairs(names) do tidy[name] = {} end
  for r = start, #rows do
    for i, v in ipairs(rows[r]) do
      local name = names[i]
      if name == nil then
        error(string.format('csvigo.load: %s line %d has %d fields, the first has %d', path, r, #rows[r], #names), 2)
      end
      table.insert(tidy[name], v)
    end
  end
  if a.mode == 'tidy' then
    say(a.verbose, 'returning tidy table')
    if a.column_order then return names, tidy end
    return tidy
  end
  say(a.verbose, "returning query closure, type query('help') to get help")
  return queryOf(tidy)
end

function csvigo.save(...)
  local a = unpackArgs('csvigo.save', {...}, {
    {name = 'path', type = 'string', required = true},
    {name = 'data', type = 'table|function', required = true},
    {name = 'separator', type = 'string', default = ','},
    {name = 'mode', type = 'string', default = 'autodetect'},
    {name = 'header', type = 'boolean', default = true},
    {name = 'verbose', type = 'boolean', default = true},
    {name = 'column_order', type = 'table', default = nil},
    {name = 'nan_as_missing', type = 'boolean', default = false},
  })
  local mode, data = a.mode, a.data
  if mode == 'autodetect' then
    if type(data) == 'function' then mode = 'query'
    elseif #data == 0 and next(data) ~= nil then mode = 'tidy'
    else mode = 'raw' end
  end
  if mode ~= 'raw' and mode ~= 'tidy' and mode ~= 'query' then
    error(string.format("csvigo.save: mode must be 'autodetect', 'raw', 'tidy' or 'query', got '%s'", mode), 2)
  end
  local path = a.path:gsub('^~', os.getenv('HOME') or '~')
  say(a.verbose, 'writing to file: ' .. path)
  local rows = data
  local headers
  if mode ~= 'raw' then
    if mode == 'query' then data = data('all') end
    local names = {}
    if a.column_order then
      for i, v in ipairs(a.column_order) do names[i] = v end
    else
      for k in pairs(data) do names[#names + 1] = k end
      table.sort(names, function(x, y) return tostring(x) < tostring(y) end)
    end
    rows = {}
    for j, name in ipairs(names) do
      local col = data[name]
      if type(col) ~= 'table' then
        error(string.format("csvigo.save: column '%s' must be a list of values, got %s", tostring(name), torch.type(col)), 2)
      end
      for i, v in ipairs(col) do
        rows[i] = rows[i] or {}
        rows[i][j] = v
      end
    end
    if a.header then headers = names end
  end
  local f = csvigo.File(path, 'w', a.separator, a.nan_as_missing)
  if headers then f:write(headers) end
  f:writeall(rows)
  f:close()
  say(a.verbose, 'writing done')
end

return csvigo
