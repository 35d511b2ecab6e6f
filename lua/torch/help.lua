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

-- Markdown fences: a fence closes only with as many backticks as opened
-- it (CommonMark), so a ````markdown example may hold ```lua blocks.
-- fence(line, open) -> the open fence after this line (nil: none)
local function fence(line, open)
  local ticks = line:match('^%s*(```+)')
  if not ticks then return open end
  if open == nil then return ticks end
  if #ticks >= #open and line:match('^%s*```+%s*$') then return nil end
  return open
end
help.fence = fence

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
  local section, open, para = '', nil, nil
  local function flush()
    if para then
      local e = {file = shown, section = section, text = table.concat(para, '\n')}
      entries[#entries + 1] = e
      addnames(e)
      para = nil
    end
  end
  for line in f:lines() do
    local was = open
    open = fence(line, open)
    if was ~= open then
      flush()
    elseif open then
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
  local cur, open, group = nil, nil, ''
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
    local was = open
    open = fence(line, open)
    local level, title = line:match('^(#+)%s+(.*)$')
    if level and not was and not open and #level <= 3 then
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

-- the libraries whose fields help names: 'lib.field', and one level of
-- sub-tables ('nn.utils.recursiveType', 'dataset.mnist.load')
local libs = {'torch', 'nn', 'optim', 'optnet', 'nngraph', 'thrnn', 'image', 'paths', 'sys', 'xlua',
              'dataset', 'dataparallel', 'mpi'}

-- the metatables a reference class name stands for ('Tensor:narrow')
local function classtables(class)
  local list = {}
  local function add(name)
    local mt = torch.getmetatable(name)
    if mt then list[#list + 1] = mt end
  end
  if class == 'Tensor' or class == 'Storage' then
    for _, ty in ipairs{'Double', 'Float', 'Long', 'Int', 'Short', 'Char', 'Byte', 'Half'} do
      add('torch.' .. ty .. class)
    end
  elseif class == 'File' then
    for _, c in ipairs{'File', 'DiskFile', 'MemoryFile', 'PipeFile'} do add('torch.' .. c) end
  else
    for _, prefix in ipairs{'nn.', 'torch.', 'optim.', 'nngraph.', 'dataparallel.', 'dataset.'} do
      add(prefix .. class)
    end
  end
  return list
end

local function nameof(v)
  local tn = torch.typename(v)
  if tn then
    if tn:match('^torch%.%a+Tensor$') then return 'torch.Tensor' end
    if tn:match('^torch%.%a+Storage$') then return 'torch.Storage' end
    return tn
  end
  for _, lib in ipairs(libs) do
    local t = package.loaded[lib]
    if type(t) == 'table' then
      if t == v then return lib end
      for k, x in pairs(t) do
        if type(k) == 'string' then
          if x == v then return lib .. '.' .. k end
        end
      end
      for k, sub in pairs(t) do
        if type(k) == 'string' and type(sub) == 'table' and not torch.typename(sub) then
          for k2, x in pairs(sub) do
            if x == v and type(k2) == 'string' then return lib .. '.' .. k .. '.' .. k2 end
          end
        end
      end
    end
  end
  -- a method: the reference's classes, Tensor first
  local r = help.reference()
  local classes, seen = {'Tensor'}, {Tensor = true}
  for _, e in ipairs(r.list) do
    for _, n in ipairs(e.names) do
      local c = n:match('^([%a_][%w_]*):')
      if c and not seen[c] then seen[c] = true; classes[#classes + 1] = c end
    end
  end
  for _, c in ipairs(classes) do
    for _, mt in ipairs(classtables(c)) do
      for k, x in pairs(mt) do
        if x == v and type(k) == 'string' then return c .. ':' .. k end
      end
    end
  end
  return nil
end

-- the reference entry for a name as a user types it: 'torch.max',
-- 'x:max' (a method of any class, Tensor's first), 'torch.FloatTensor.max',
-- 'max' (torch., nn., Tensor:, then the other libraries)
function help.entry(name)
  local r = help.reference()
  if r.byname[name] then return r.byname[name], name end
  local tensormeth = name:match('^torch%.%a*Tensor[.:]([%a_][%w_]*)$')
  if tensormeth and r.byname['Tensor:' .. tensormeth] then
    return r.byname['Tensor:' .. tensormeth], 'Tensor:' .. tensormeth
  end
  local meth = name:match('^[%w_.]*:([%a_][%w_]*)$')
  if not name:find('[.:]') then
    for _, p in ipairs{'torch.', 'nn.', 'Tensor:'} do
      if r.byname[p .. name] then return r.byname[p .. name], p .. name end
    end
    for _, lib in ipairs(libs) do
      if r.byname[lib .. '.' .. name] then return r.byname[lib .. '.' .. name], lib .. '.' .. name end
    end
    meth = name
  end
  if meth then
    if r.byname['Tensor:' .. meth] then return r.byname['Tensor:' .. meth], 'Tensor:' .. meth end
    local list = r.bymethod[meth]
    if list then return list[1], list[1].names[1] end
  end
  return nil
end

-- an entry as the terminal shows it: the names, the signatures and the
-- example indented, the prose as written
local function render(e)
  local out = {table.concat(e.names, ' · ') .. '    (' .. e.file .. ')', ''}
  local fence
  for line in (e.text .. '\n'):gmatch('(.-)\n') do
    local lang = line:match('^%s*```(%w*)')
    if lang then
      if fence then fence = nil else
        fence = lang
        if lang == 'lua' then out[#out + 1] = 'Example:' end
      end
    elseif fence then
      out[#out + 1] = '    ' .. line
    else
      out[#out + 1] = line
    end
  end
  while out[#out] == '' do out[#out] = nil end
  while out[3] == '' do table.remove(out, 3) end
  return table.concat(out, '\n')
end

-- the index keys tried for a name in the guides: itself, a method name,
-- torch.<name>
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

-- the guides' paragraphs about a name, most defining first
local function mentions(name)
  local idx = help.index()
  local hits
  for _, k in ipairs(keys(name)) do
    if idx[k] then hits = idx[k]; name = k; break end
  end
  if not hits then return nil, name end
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
    for _, e in ipairs(hits) do if rank(e) == r then ordered[#ordered + 1] = e; e.rank = r end end
  end
  return ordered, name
end

help.maxsee = 3

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
  local e, key = help.entry(name)
  local ordered, mkey = mentions(key or name)
  if e then
    -- the entry, then where the guides explain it (sections, not lines)
    local out, seen = {render(e)}, {}
    local see = {}
    for _, m in ipairs(ordered or {}) do
      if m.rank and m.rank >= 2 then
        local where = m.file .. (m.section ~= '' and (' § ' .. m.section) or '')
        if not seen[where] and #see < help.maxsee then seen[where] = true; see[#see + 1] = where end
      end
    end
    if #see > 0 then out[#out + 1] = '\nSee also: ' .. table.concat(see, '; ') end
    return table.concat(out, '\n')
  end
  if not ordered then
    if #entries == 0 and #help.reference().list == 0 then
      return nil, 'help: the documentation was not found (looked in ' .. table.concat(help.dirs(), ', ') .. '; set TH_DOCS)'
    end
    return nil, 'help: no documentation found for ' .. name
  end
  -- no reference entry: what the guides say, defining mentions first
  local out, last = {'(no reference entry for ' .. mkey .. '; the guides mention it)'}, nil
  for i = 1, math.min(#ordered, help.maxhits) do
    local m = ordered[i]
    local where = m.file .. (m.section ~= '' and (': ' .. m.section) or '')
    if where ~= last then
      out[#out + 1] = ''
      out[#out + 1] = '-- ' .. where
      last = where
    end
    out[#out + 1] = m.text
  end
  if #ordered > help.maxhits then
    out[#out + 1] = string.format('(%d more mentions of %s)', #ordered - help.maxhits, mkey)
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
