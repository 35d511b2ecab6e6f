-- csvigo.File(path, mode, separator [, nan_as_missing]): a CSV file read or
-- written a row at a time. A row is a list of strings (reading) or of
-- strings and numbers (writing). Fields holding the separator, a quote or a
-- line break are quoted, quotes doubled; a space separator reads runs of
-- blanks as one. Numbers are written as Torch7 wrote them (3, not 3.0).
local File = torch.class('csvigo.File')

local function fieldText(v, nanAsMissing)
  if type(v) == 'number' then
    if v ~= v then return nanAsMissing and '' or 'nan' end
    if v == math.huge or v == -math.huge then return v > 0 and 'inf' or '-inf' end
    if math.type(v) == 'float' and v == math.floor(v) and math.abs(v) < 2^53 then
      return string.format('%d', v)
    end
    return string.format('%.14g', v)
  end
  return tostring(v)
end

local function quoted(s, sep)
  if s:find('["\n\r]') or s:find(sep, 1, true) then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- one row as a line of text (no line end)
function File.encode(row, sep, nanAsMissing)
  local parts = {}
  for i, v in ipairs(row) do parts[i] = quoted(fieldText(v, nanAsMissing), sep) end
  return table.concat(parts, sep)
end

-- the fields of one line; a quoted field may hold separators and doubled quotes
function File.decode(line, sep)
  local fields, pos, n = {}, 1, #line
  local sepPattern = sep == ' ' and '%s+' or nil
  while true do
    if line:sub(pos, pos) == '"' then
      local buf, i = {}, pos + 1
      while true do
        local q = line:find('"', i, true)
        if not q then error(string.format('csvigo: unmatched quote in line: %s', line), 0) end
        buf[#buf + 1] = line:sub(i, q - 1)
        if line:sub(q + 1, q + 1) == '"' then
          buf[#buf + 1] = '"'
          i = q + 2
        else
          pos = q + 1
          break
        end
      end
      fields[#fields + 1] = table.concat(buf)
    else
      local s, e
      if sepPattern then s, e = line:find(sepPattern, pos) else s, e = line:find(sep, pos, true) end
      if not s then
        fields[#fields + 1] = line:sub(pos)
        return fields
      end
      fields[#fields + 1] = line:sub(pos, s - 1)
      pos = e + 1
      goto continue
    end
    -- after a quoted field: a separator, or the end of the line
    if pos > n then return fields end
    do
      local s, e
      if sepPattern then s, e = line:find('^' .. sepPattern, pos) else s, e = line:find(sep, pos, true) end
      if s ~= pos then error(string.format('csvigo: text after a closing quote in line: %s', line), 0) end
      pos = e + 1
    end
    ::continue::
    if pos > n then
      fields[#fields + 1] = ''
      return fields
    end
  end
end

function File:__init(path, mode, separator, nanAsMissing)
  if type(path) ~= 'string' then
    error(string.format('csvigo.File: path (string) expected, got %s', torch.type(path)), 2)
  end
  self.filepath = path
  self.separator = separator or ','
  if type(self.separator) ~= 'string' or #self.separator ~= 1 then
    error(string.format('csvigo.File: separator must be one character, got %s', tostring(separator)), 2)
  end
  self.nan_as_missing = nanAsMissing or false
  local f, msg = io.open(path, mode or 'r')
  if not f then error('csvigo.File: ' .. tostring(msg), 2) end
  self.file = f
end

function File:close()
  self.file:close()
end

function File:lines()
  return self.file:lines()
end

-- the next row, or nil at the end
function File:read()
  local line = self.file:read('l')
  if not line then return nil end
  return File.decode(line:gsub('\r', ''), self.separator)
end

-- every row: a list of rows, or for mode 'large' a read-only table that
-- decodes a row when indexed (#t rows; ipairs and pairs walk them)
function File:readall(mode)
  if mode == 'large' then return self:largereadall() end
  local rows = {}
  for line in self.file:lines() do rows[#rows + 1] = File.decode(line:gsub('\r', ''), self.separator) end
  return rows
end

function File:largereadall()
  local text = self.file:read('a')
  local starts, ends = {}, {}
  local pos = 1
  while pos <= #text do
    local nl = text:find('\n', pos, true) or #text + 1
    starts[#starts + 1], ends[#ends + 1] = pos, nl - 1
    pos = nl + 1
  end
  local n, sep = #starts, self.separator
  local function line(i) return (text:sub(starts[i], ends[i]):gsub('\r', '')) end
  local function row(i)
    if math.type(i) ~= 'integer' and not (type(i) == 'number' and i == math.floor(i)) then
      error('csvigo: a large table is indexed by row numbers, got ' .. tostring(i), 3)
    end
    if i == n + 1 then return nil end  -- where ipairs stops
    if i < 1 or i > n then error(string.format('csvigo: row %d out of bounds (1..%d)', i, n), 3) end
    return File.decode(line(i), sep)
  end
  local function walk(t, i)
    i = i + 1
    if i <= n then return i, row(i) end
  end
  return setmetatable({}, {
    __index = function(_, i) return row(i) end,
    __newindex = function() error('csvigo: attempt to update a read-only table', 2) end,
    __len = function() return n end,
    __pairs = function(t) return walk, t, 0 end,
    __tostring = function()
      local out = {}
      if n < 30 then
        for i = 1, n do out[#out + 1] = line(i) end
      else
        for i = 1, 10 do out[#out + 1] = line(i) end
        for _ = 1, 10 do out[#out + 1] = '.. .. .. .. .. .. .. .. .. ' end
        for i = n - 10, n do out[#out + 1] = line(i) end
      end
      return table.concat(out, '\n') .. '\n'
    end,
  })
end

function File:write(row)
  local ok, msg = self.file:write(File.encode(row, self.separator, self.nan_as_missing), '\n')
  if not ok then error('csvigo.File:write: ' .. tostring(msg), 2) end
end

function File:writeall(rows)
  for _, row in ipairs(rows) do self:write(row) end
  return true
end

return File
