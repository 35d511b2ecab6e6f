-- torch.help: help(fn | 'name') and '?name' in the th session print what
-- the project's own documentation (docs/*.md, README.md) says about a
-- function or class: every paragraph, list item, table row or code line
-- that names it, under its file and section heading. The docs are indexed
-- at first use by the dotted and method names they mention
-- ('torch.randn', 'nn.Linear', 'x:narrow' under ':narrow').
--   help.text(what) -> the text help prints (nil, message when nothing)
--   help.help(what)  -> prints it (the global 'help' in the session)

local help = {}

help.maxhits = 8

-- where the docs are: $TH_DOCS, the source tree's docs/ (lua/torch/ is
-- two levels below the root), or PREFIX/share/doc/torch-optnet when installed
-- (by make install; luarocks leaves them in its rock directory)
function help.dirs()
  local dirs = {}
  local env = os.getenv('TH_DOCS')
  if env and env ~= '' then dirs[#dirs + 1] = env end
  local init = package.searchpath('torch', package.path)
  if init then
    local root = init:match('^(.*)/lua/torch/init%.lua$')
    if root then dirs[#dirs + 1] = root .. '/docs'; dirs[#dirs + 1] = root end
    local prefix = init:match('^(.*)/share/lua/5%.4/torch/init%.lua$')
    if prefix then
      dirs[#dirs + 1] = prefix .. '/share/doc/torch-optnet'
      -- a luarocks tree keeps them in the rock's own directory
      local p = io.popen("ls -d '" .. prefix:gsub("'", "'\\''") ..
                         "'/lib/luarocks/rocks-5.4/torch-optnet/*/share/doc/torch-optnet 2>/dev/null")
      if p then
        for d in p:lines() do dirs[#dirs + 1] = d end
        p:close()
      end
    end
  end
  return dirs
end

local function mdfiles(dir)
  local files = {}
  local p = io.popen('ls ' .. "'" .. dir:gsub("'", "'\\''") .. "'" .. ' 2>/dev/null')
  if not p then return files end
  for f in p:lines() do
    if f:match('%.md$') then files[#files + 1] = dir .. '/' .. f end
  end
  p:close()
  table.sort(files)
  return files
end

-- entries: {file, section, text}; index: name -> list of entries
local index, entries

local function addnames(e)
  local seen = {}
  for name in e.text:gmatch('[%a_][%w_]*[.:][%a_][%w_.:]*') do
    name = name:gsub('[.:]+$', '')
    local keys = {name}
    local meth = name:match(':([%a_][%w_]*)$')
    if meth then keys[#keys + 1] = ':' .. meth end
    for _, k in ipairs(keys) do
      if not seen[k] then
        seen[k] = true
        index[k] = index[k] or {}
        table.insert(index[k], e)
      end
    end
  end
end

local function indexfile(path, shown)
  local f = io.open(path)
  if not f then return end
  local section, infence, para = '', false, nil
  local function flush()
    if para then
      local e = {file = shown, section = section, text = table.concat(para, '\n')}
      entries[#entries + 1] = e
      addnames(e)
      para = nil
    end
  end
  for line in f:lines() do
    if line:match('^```') then
      flush()
      infence = not infence
    elseif infence then
      -- each code line is its own entry: the example that uses the name
      if line:match('%S') then
        local e = {file = shown, section = section, text = line, code = true}
        entries[#entries + 1] = e
        addnames(e)
      end
    elseif line:match('^#+%s') then
      flush()
      section = line:gsub('^#+%s*', '')
    elseif not line:match('%S') then
      flush()
    else
      -- list items and table rows start entries of their own
      if line:match('^%s*[-*|]%s') or line:match('^%s*%d+%.%s') then flush() end
      para = para or {}
      para[#para + 1] = line
    end
  end
  flush()
  f:close()
end

function help.index()
  if index then return index end
  index, entries = {}, {}
  local seen = {}
  for _, dir in ipairs(help.dirs()) do
    for _, path in ipairs(mdfiles(dir)) do
      local name = path:match('([^/]+)$')
      local shown = (name == 'README.md' and '' or 'docs/') .. name
      if not seen[shown] then
        seen[shown] = true
        indexfile(path, shown)
      end
    end
  end
  return index
end

-- reference entries: docs/reference/*.md. An entry is a '### ' heading
-- naming one or more things in backquotes ('### `torch.max` · `Tensor:max`')
-- and the text up to the next heading of level 3 or above.
--   help.reference() -> {byname = {name -> entry}, bymethod = {m -> {entry...}},
--                        list = {entry...}}; entry = {file, names, text, group}
local ref

local function parseref(path, shown)
  local f = io.open(path)
  if not f then return end
  local cur, infence, group = nil, false, ''
  local function finish()
    if cur then
      cur.text = table.concat(cur.lines, '\n'):gsub('%s+$', '')
      cur.lines = nil
      ref.list[#ref.list + 1] = cur
      for _, n in ipairs(cur.names) do
        if not ref.byname[n] then ref.byname[n] = cur end
        local m = n:match(':([%a_][%w_]*)$')
        if m then
          ref.bymethod[m] = ref.bymethod[m] or {}
          table.insert(ref.bymethod[m], cur)
        end
      end
      cur = nil
    end
  end
  for line in f:lines() do
    if line:match('^%s*```') then infence = not infence end
    local level, title = line:match('^(#+)%s+(.*)$')
    if level and not infence and #level <= 3 then
      finish()
      if #level == 3 then
        local names = {}
        for n in title:gmatch('`([^`]+)`') do names[#names + 1] = (n:gsub('%(.*$', '')) end
        if #names > 0 then cur = {file = shown, names = names, lines = {}, group = group} end
      else
        group = title
      end
    elseif cur then
      cur.lines[#cur.lines + 1] = line
    end
  end
  finish()
  f:close()
end

function help.reference()
  if ref then return ref end
  ref = {byname = {}, bymethod = {}, list = {}}
  local seen = {}
  for _, dir in ipairs(help.dirs()) do
    for _, path in ipairs(mdfiles(dir .. '/reference')) do
      local shown = 'docs/reference/' .. path:match('([^/]+)$')
      if not seen[shown] then
        seen[shown] = true
        parseref(path, shown)
      end
    end
  end
  return ref
end

-- the qualified name of a value found in the libraries' tables
local libs = {'torch', 'nn', 'optim', 'optnet', 'nngraph', 'thrnn', 'image', 'paths', 'sys', 'xlua', 'dataset'}
local function nameof(v)
  for _, lib in ipairs(libs) do
    local t = package.loaded[lib]
    if type(t) == 'table' then
      if t == v then return lib end
      for k, x in pairs(t) do
        if x == v and type(k) == 'string' then return lib .. '.' .. k end
      end
    end
  end
  if torch and torch._metatables then
    local mt = torch._metatables[torch.getdefaulttensortype()]
    for k, x in pairs(mt) do
      if x == v and type(k) == 'string' then return ':' .. k end
    end
  end
  return nil
end

-- the index keys tried for a name: itself, a method name, torch.<name>
local function keys(name)
  local list = {name}
  local last = name:match('[.:]([%a_][%w_]*)$')
  if name:match('^torch%.%a*Tensor%.') or name:match(':') then list[#list + 1] = ':' .. last end
  if not name:find('[.:]') then
    list[#list + 1] = 'torch.' .. name
    list[#list + 1] = ':' .. name
    list[#list + 1] = 'nn.' .. name
  end
  return list
end

function help.text(what)
  local name = what
  if type(what) ~= 'string' then
    name = nameof(what)
    if not name then
      local ok, s = pcall(tostring, what)   -- a __tostring that raises names nothing
      return nil, 'help: no documentation found for ' .. (ok and type(s) == 'string' and s or type(what))
                  .. ' (not a torch, nn, optim or optnet name)'
    end
  end
  name = name:gsub('^%s+', ''):gsub('[%s(]+$', '')
  local idx = help.index()
  local hits
  for _, k in ipairs(keys(name)) do
    if idx[k] then hits = idx[k]; name = k; break end
  end
  if not hits then
    if #entries == 0 then
      return nil, 'help: the documentation was not found (looked in ' .. table.concat(help.dirs(), ', ') .. '; set TH_DOCS)'
    end
    return nil, 'help: no documentation found for ' .. name
  end
  -- what defines the name first (a table row or list item opening with it,
  -- then prose naming it in code quotes), then other prose, then code
  -- lines (they show it used), each in doc order
  local plain = name:gsub('^:', '')
  local function rank(e)
    if e.code then return 0 end
    local t = e.text
    if t:find('^%s*[-*|]%s*`[%w_.:]*' .. plain:gsub('%p', '%%%0') .. '[(`]') then return 3 end
    if t:find('`[%w_.:]*' .. plain:gsub('%p', '%%%0') .. '[(`]') then return 2 end
    return 1
  end
  local ordered = {}
  for r = 3, 0, -1 do
    for _, e in ipairs(hits) do if rank(e) == r then ordered[#ordered + 1] = e end end
  end
  local out, last = {}, nil
  for i = 1, math.min(#ordered, help.maxhits) do
    local e = ordered[i]
    local where = e.file .. (e.section ~= '' and (': ' .. e.section) or '')
    if where ~= last then
      if last then out[#out + 1] = '' end
      out[#out + 1] = '-- ' .. where
      last = where
    end
    out[#out + 1] = e.text
  end
  if #ordered > help.maxhits then
    out[#out + 1] = string.format('(%d more mentions of %s)', #ordered - help.maxhits, name)
  end
  return table.concat(out, '\n')
end

local usage = [[
th session:
  ?name, help(fn)      what the docs say about a function or class (?torch.randn, help(nn.Linear))
  <Tab>                completes globals, fields and methods (torch.ran<Tab>, x:na<Tab>), file names in strings
  Ctrl-C               cancels the line; interrupts a running statement
  Ctrl-D               ends the session (history saved)
  torch.setprintoptions{threshold=, edgeitems=, precision=, linewidth=}  how tensors print]]

function help.help(what)
  if what == nil then print(usage); return end
  local text, err = help.text(what)
  print(text or err)
end

return help
