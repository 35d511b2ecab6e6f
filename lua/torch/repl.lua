-- torch.repl: the th session (bin/th).
-- Interactive use keeps the stock lua5.4 REPL, which Debian links with GNU
-- readline (line editing, history within the session) and which prints
-- expression values through the global print, so tensors print in
-- Torch7's format. This module adds what the stock REPL lacks: the
-- libraries loaded, the 'th> ' prompt, and history kept across sessions
-- in $TH_HISTORY (read at start, written at exit, through readline's own
-- functions found in the running interpreter; see torch._C.history).
-- When stdin is not a terminal, stream() reads it line by line the way
-- the REPL would (expressions printed, multi-line statements gathered),
-- without prompts, and fails the process if any line failed.

local repl = {}

local HISTORY_LINES = 1000

-- torch always; then, as Torch7's th (trepl) did, paths, sys, xlua and penlight
-- (xlua puts string.split and friends in the standard tables, so it is
-- left out under TH_NO_COMPAT=1; scripts can still require it); nn and
-- optnet when they exist. A library that exists but fails to load is
-- reported, not hidden.
function repl.loadlibs()
  require 'torch'
  local loaded = {'torch'}
  local libs = {'paths', 'sys', 'xlua', 'pl', 'nn', 'optnet'}
  -- xlua and penlight ('pl': globals path, stringx, tablex, dir, text made
  -- on first use, and the string % operator, as trepl set them) change the
  -- standard tables and _G
  if os.getenv('TH_NO_COMPAT') == '1' then table.remove(libs, 4); table.remove(libs, 3) end
  for _, m in ipairs(libs) do
    local ok, err = pcall(require, m)
    if ok then
      loaded[#loaded + 1] = m
      if m == 'pl' and rawget(_G, 'text') == nil and text then text.format_operator() end
    elseif not tostring(err):find("module '" .. m .. "' not found", 1, true) then
      io.stderr:write(string.format('th: warning: %s did not load: %s\n', m, tostring(err)))
    end
  end
  return loaded
end

-- the history file, or nil when disabled (TH_HISTORY set to '')
local function historyfile()
  local f = os.getenv('TH_HISTORY')
  if f == nil then
    local home = os.getenv('HOME')
    f = home and (home .. '/.th_history') or ''
  end
  return f ~= '' and f or nil
end

local saved = false
local function savehistory()
  if saved then return end
  saved = true
  local f = historyfile()
  if f and torch._C.history then torch._C.history('write', f, HISTORY_LINES) end
end

-- prelude for 'lua5.4 -i': runs before the stock REPL takes over
function repl.interactive()
  local loaded = repl.loadlibs()
  for _, m in ipairs(loaded) do
    -- the session shows every library under its name (optnet returns a module)
    if rawget(_G, m) == nil then rawset(_G, m, package.loaded[m]) end
  end
  _PROMPT, _PROMPT2 = 'th> ', '..> '   -- read by lua.c for each line

  local f = historyfile()
  local note = ''
  if f and torch._C.history then
    -- a missing file (first session) is fine: it is written at exit
    local ok, why = torch._C.history('read', f)
    if ok or why ~= 'no readline in this process' then
      note = '; history in ' .. f
      -- written when the state closes (end of input) or on os.exit
      repl._sentinel = setmetatable({}, {__gc = savehistory})
      local exit = os.exit
      os.exit = function(...)
        savehistory()
        return exit(...)
      end
    end
  end
  io.write(string.format('th: Lua 5.4 + %s (default %s)%s\n', table.concat(loaded, ' + '),
                         torch.getdefaulttensortype(), note))
end

-- the error with its traceback, cut where this module's frames begin
local function traceback(e)
  local tb = debug.traceback(e, 2)
  local cut = tb:find("\n%s*%[C%]: in function 'xpcall'")
  return cut and tb:sub(1, cut - 1) or tb
end

-- reads 'file' as the REPL would; returns true when every line succeeded
function repl.stream(file)
  repl.loadlibs()
  file = file or io.stdin
  local buf, first, failed = nil, nil, false
  local lineno = 0
  local function report(msg)
    io.stderr:write('th: ', tostring(msg), '\n')
    failed = true
  end
  for line in file:lines() do
    lineno = lineno + 1
    if buf == nil then
      buf, first = line, lineno
      if buf:sub(1, 1) == '=' then buf = 'return ' .. buf:sub(2) end   -- Lua 5.1's '= expr'
    else
      buf = buf .. '\n' .. line
    end
    -- leading newlines make the line numbers in messages those of the input
    local src = string.rep('\n', first - 1) .. buf
    local chunk, err
    -- as lua.c: a single line is first tried as an expression
    if first == lineno then chunk = load(string.rep('\n', first - 1) .. 'return ' .. buf, '=stdin') end
    if not chunk then chunk, err = load(src, '=stdin') end
    if chunk then
      buf = nil
      local res = table.pack(xpcall(chunk, traceback))
      if not res[1] then
        report(res[2])
      elseif res.n > 1 then
        print(table.unpack(res, 2, res.n))
      end
    elseif not err:find('<eof>$') then
      buf = nil
      report(err)
    end
  end
  if buf then report(string.format('stdin:%d: incomplete statement at end of input', first)) end
  return not failed
end

return repl
