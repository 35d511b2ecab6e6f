-- torch.repl: the th program (bin/th runs lua/torch/th.lua, which calls
-- repl.main with the command line; docs/repl.md).
--   th [options] [script.lua [args...]]
-- Options as Torch7's th (trepl) and lua5.4: -e stat, -l lib, -i (the
-- session after the script), -h, -v, '-' (the script from stdin), '--'.
-- The session (repl.loop) reads lines through GNU readline when stdin is a
-- terminal (torch._C.readline: completion from torch.complete, Ctrl-C
-- cancels the line), shows returned values through torch.pretty, answers
-- '?name' from torch.help, prints the time of a statement slower than
-- repl.timethreshold seconds (on a terminal), and keeps its history in
-- $TH_HISTORY (default ~/.luahistory, as trepl; TH_HISTORY= keeps none).
-- When stdin is not a terminal, stream() reads it line by line the way
-- the session would (expressions printed, multi-line statements gathered),
-- without prompts, and fails the process if any line failed.

local repl = {}

local HISTORY_LINES = 1000
repl.timethreshold = 0.5   -- seconds; trepl printed every statement's time

repl.usage = [==[
Usage: th [options] [script.lua [arguments]]

Options:
  -e statement       execute statement (several -e run in order)
  -l name            load library name (require), as global 'name'
  -i,--interactive   enter the session after running the script or -e
  -h,--help          print this help
  -v,--version       print the version
  -                  read the script from stdin
  --                 stop handling options (the next argument is the script)

Without a script or -e: the interactive session (stdin a terminal), or
stdin read line by line as the session would (exit status 1 if a line failed).
In the session: ?name or help(fn) for documentation, <Tab> to complete,
Ctrl-C to cancel a line or interrupt a statement, Ctrl-D to quit.
Environment: TH_HISTORY (history file, default ~/.luahistory; empty: none),
  NO_COLOR (no colours), TH_NO_COMPAT=1 (no Lua 5.1 names, no xlua),
  TH_DOCS (documentation folder for help).]==]

repl.version = 'th (torch-optnet scm-1)'
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
    f = home and (home .. '/.luahistory') or ''
  end
  return f ~= '' and f or nil
end

-- History is appended to the file as each line is entered (a session
-- closed with the terminal, SIGHUP, keeps it); at exit the file is cut to
-- its last HISTORY_LINES lines. Appending, not rewriting, keeps the lines
-- of sessions running side by side.
local function appendhistory(line)
  local f = historyfile()
  if not f then return end
  local h = io.open(f, 'a')
  if h then
    h:write(line, '\n')
    h:close()
  end
end

local saved = false
local function savehistory()
  if saved then return end
  saved = true
  local f = historyfile()
  local h = f and io.open(f)
  if not h then return end
  local lines = {}
  for l in h:lines() do lines[#lines + 1] = l end
  h:close()
  if #lines <= HISTORY_LINES then return end
  h = io.open(f, 'w')
  if h then
    h:write(table.concat(lines, '\n', #lines - HISTORY_LINES + 1), '\n')
    h:close()
  end
end

-- the error with its traceback, cut where this module's frames begin
local function traceback(e)
  -- as lua.c: a non-string error object through its __tostring, or named by
  -- its type (debug.traceback returns a table unchanged, and so would this)
  if type(e) ~= 'string' then
    local ok, s = pcall(tostring, e)
    local mt = getmetatable(e)
    if ok and type(s) == 'string' and type(mt) == 'table' and mt.__tostring then e = s
    else e = string.format('(error object is a %s value)', type(e)) end
  end
  local tb = debug.traceback(e, 2)
  local cut = tb:find("\n%s*%[C%]: in function 'xpcall'")
  return cut and tb:sub(1, cut - 1) or tb
end

-- reads 'file' as the REPL would; returns true when every line succeeded
function repl.stream(file, libsloaded)
  if not libsloaded then repl.loadlibs() end
  file = file or io.stdin
  local buf, first, failed = nil, nil, false
  local lineno = 0
  local function report(msg)
    io.stderr:write('th: ', tostring(msg), '\n')
    failed = true
  end
  for line in file:lines() do
    lineno = lineno + 1
    if buf == nil and line:match('^%s*%?') then
      -- '?name' as in the session
      local name = line:match('^%s*%?%s*(.-)%s*$')
      require('torch.help').help(name ~= '' and name or nil)
      goto continue
    end
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
    ::continue::
  end
  if buf then report(string.format('stdin:%d: incomplete statement at end of input', first)) end
  return not failed
end

-- help(fn | 'name') in every mode of th: the session, -e, scripts, stdin
-- (the docs are read at the first call)
function repl.sethelp()
  if rawget(_G, 'help') == nil then
    rawset(_G, 'help', function(...) return require('torch.help').help(...) end)
  end
end

-- the libraries loaded, each under its global name (optnet returns a module)
local function globals(loaded)
  for _, m in ipairs(loaded) do
    if rawget(_G, m) == nil then rawset(_G, m, package.loaded[m]) end
  end
end

-- buf compiled as the session does: '= expr' is 'return expr', a line is
-- first tried as an expression (its values are printed); returns the
-- chunk, or nil and the message, and whether more lines may complete it
local function compile(buf)
  if buf:sub(1, 1) == '=' then buf = 'return ' .. buf:sub(2) end
  local chunk = load('return ' .. buf, '=stdin')
  if chunk then return chunk end
  local err
  chunk, err = load(buf, '=stdin')
  if chunk then return chunk end
  return nil, err, err:find('<eof>$') ~= nil
end

-- runs a statement of the session; Ctrl-C interrupts it ('interrupted!')
local function execute(chunk, tty)
  local C = torch._C
  local clock = C.clock
  local t0 = clock()
  local res
  -- the signal hook may fire as soon as it is armed, even inside the calls
  -- that arm and disarm it: the outer pcall catches that
  local ok, err = pcall(function()
    C.sigint(true)
    res = table.pack(xpcall(chunk, traceback))
    C.sigint(false)
  end)
  C.sigint(false)
  if not ok then res = {n = 2, false, tostring(err)} end
  local dt = clock() - t0
  local pretty = require 'torch.pretty'
  if res[1] then
    if res.n > 1 then pretty.print(table.unpack(res, 2, res.n)) end
  else
    local msg = tostring(res[2])
    if pretty.usecolor() then msg = '\27[31m' .. msg .. '\27[0m' end
    io.stderr:write(msg, '\n')
  end
  if tty and dt > repl.timethreshold then
    local t = string.format('[%.4fs]', dt)
    if pretty.usecolor() then t = '\27[2m' .. t .. '\27[0m' end
    io.write(string.rep(' ', 60), t, '\n')
  end
  io.flush()
end

-- the interactive session on a terminal
function repl.loop(loaded)
  local C = torch._C
  local rl = C.readline.available()
  local help = require 'torch.help'
  local complete = require 'torch.complete'
  globals(loaded or {})
  repl.sethelp()
  local f = historyfile()
  local note = ''
  if rl then
    C.readline.setcompleter(function(word, before) return complete.candidates(word, before) end)
    if f then
      -- a missing file (first session) is fine: lines are appended to it
      C.history('read', f)
      note = '; history in ' .. f
      local exit = os.exit
      os.exit = function(...)
        savehistory()
        return exit(...)
      end
    end
  end
  io.write(string.format('th: Lua 5.4 + %s (default %s)\n    ?name or help(fn): docs, Tab: completion%s\n',
                         table.concat(loaded or {'torch'}, ' + '), torch.getdefaulttensortype(), note))
  local buf
  while true do
    local prompt = buf and '..> ' or 'th> '
    local line
    if rl then
      line = C.readline.read(prompt)
    else
      io.write(prompt)
      io.flush()
      line = io.read('l')
    end
    if line == nil then
      io.write('\n')
      break
    elseif line == false then
      buf = nil   -- Ctrl-C: the line (and a statement begun) is dropped
    elseif buf == nil and line:match('^%s*%?') then
      if rl then C.readline.addhistory(line); appendhistory(line) end
      local name = line:match('^%s*%?%s*(.-)%s*$')
      help.help(name ~= '' and name or nil)
    elseif buf ~= nil or line:match('%S') then
      buf = buf and (buf .. '\n' .. line) or line
      local chunk, err, more = compile(buf)
      if chunk or not more then
        if rl then C.readline.addhistory(buf); appendhistory(buf) end
        buf = nil
        if chunk then execute(chunk, true) else io.stderr:write(err, '\n') end
      end
    end
  end
  if rl and f then savehistory() end
end

-- runs 'chunk' with the arguments; on error: message and traceback on
-- stderr, false
local function run(chunk, ...)
  local ok, err = xpcall(chunk, traceback, ...)
  if not ok then io.stderr:write('th: ', tostring(err), '\n') end
  return ok
end

local function fail(msg)
  io.stderr:write('th: ', msg, '\n', repl.usage, '\n')
  return 1
end

-- the th program: returns the exit status
function repl.main(argv)
  local actions, script, scriptargs, interactive = {}, nil, {}, false
  local i = 1
  while i <= #argv do
    local a = argv[i]
    if a == '-h' or a == '--help' then
      print(repl.usage)
      return 0
    elseif a == '-v' or a == '--version' then
      print(repl.version .. ' on ' .. _VERSION)
      return 0
    elseif a == '-i' or a == '--interactive' then
      interactive = true
    elseif a == '-e' or a == '-l' then
      if argv[i + 1] == nil then return fail(string.format("'%s' needs an argument", a)) end
      actions[#actions + 1] = {a, argv[i + 1]}
      i = i + 1
    elseif a:match('^%-[el].') then
      actions[#actions + 1] = {a:sub(1, 2), a:sub(3)}
    elseif a == '--' or a == '-' or a:sub(1, 1) ~= '-' then
      if a == '--' then i = i + 1 end
      script = argv[i]
      for j = i + 1, #argv do scriptargs[#scriptargs + 1] = argv[j] end
      break
    else
      return fail(string.format("unrecognized option '%s'", a))
    end
    i = i + 1
  end

  rawset(_G, 'arg', {[0] = 'th'})
  local loaded = repl.loadlibs()
  repl.sethelp()
  for _, act in ipairs(actions) do
    if act[1] == '-l' then
      local name = act[2]
      local ok, mod = xpcall(require, traceback, name)
      if not ok then
        io.stderr:write('th: ', tostring(mod), '\n')
        return 1
      end
      rawset(_G, name:match('^[^.%-]+'), mod)
      loaded[#loaded + 1] = name
    else
      local chunk, err = load(act[2], '=(command line)')
      if not chunk then
        io.stderr:write('th: ', err, '\n')
        return 1
      end
      if not run(chunk) then return 1 end
    end
  end

  if script then
    -- Torch7's arg: arg[0] the script, arg[1..] its arguments, arg[-1] th
    local a = {[0] = script, [-1] = 'th'}
    for j, v in ipairs(scriptargs) do a[j] = v end
    rawset(_G, 'arg', a)
    local chunk, err = loadfile(script ~= '-' and script or nil)
    if not chunk then
      io.stderr:write('th: ', err, '\n')
      return 1
    end
    if not run(chunk, table.unpack(scriptargs)) then return 1 end
  end

  if interactive or (script == nil and #actions == 0) then
    if torch._C.isatty(0) then
      repl.loop(loaded)
    else
      return repl.stream(io.stdin, true) and 0 or 1
    end
  end
  return 0
end

return repl
