-- The public names of the libraries and the reference entries that document
-- them (docs/reference/*.md, format in docs/reference/index.md).
--   bin/th tools/docnames.lua [prefix...]   missing entries, one per line;
--                                           exit status 1 when any is missing
--   bin/th tools/docnames.lua --list        every public name
-- A name is public when it is reachable from a library table and does not
-- start with '_'. spec/docs_reference_spec.lua runs it: a public function
-- cannot land without its entry.
require 'torch'
require 'nn'
for _, lib in ipairs{'optim', 'optnet', 'image', 'paths', 'xlua', 'sys', 'nngraph', 'thrnn', 'dataset', 'dataparallel', 'md5'} do
  _G[lib] = _G[lib] or require(lib)
end
local hasmpi = pcall(require, 'mpi')
local help = require 'torch.help'

local names = {}        -- name -> true
local mentions = {}     -- entry name -> list of words its text must contain

local function public(k) return type(k) == 'string' and not k:find('^_') end

local function add(n) names[n] = true end

local function methods(prefix, mt, skip)
  for k, v in pairs(mt) do
    if public(k) and type(v) == 'function' and k ~= 'new' and not (skip and skip[k]) then
      add(prefix .. ':' .. k)
    end
  end
end

local function fields(prefix, t)
  for k in pairs(t) do
    if public(k) then add(prefix .. '.' .. k) end
  end
end

-- torch: every field; Tensor and Storage methods over every type
fields('torch', torch)
for _, ty in ipairs{'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half'} do
  local mt = torch.getmetatable('torch.' .. ty .. 'Tensor')
  if mt then methods('Tensor', mt) end
  mt = torch.getmetatable('torch.' .. ty .. 'Storage')
  if mt then methods('Storage', mt) end
end
for _, c in ipairs{'File', 'DiskFile', 'MemoryFile', 'PipeFile'} do
  local mt = torch.getmetatable('torch.' .. c)
  if mt then methods('File', mt) end
end
for _, c in ipairs{'CmdLine', 'Timer', 'Tester'} do methods(c, torch.getmetatable('torch.' .. c)) end

-- nn: every class and table; Module, Criterion and Container methods; a
-- class's own further methods are named in its entry
local std = {}
for _, c in ipairs{'Module', 'Criterion', 'Container'} do
  for k in pairs(torch.getmetatable('nn.' .. c)) do std[k] = true end
end
methods('Module', torch.getmetatable('nn.Module'))
methods('Criterion', torch.getmetatable('nn.Criterion'))
methods('Container', torch.getmetatable('nn.Container'), torch.getmetatable('nn.Module'))
for k, v in pairs(nn) do
  if public(k) then
    add('nn.' .. k)
    local mt = torch.getmetatable('nn.' .. k)
    if mt then
      local own = {}
      for m, f in pairs(mt) do
        if public(m) and type(f) == 'function' and not std[m] and not m:find('_$')
           and m ~= 'read' and m ~= 'write' and m ~= 'empty' then
          own[#own + 1] = m
        end
      end
      if #own > 0 then mentions['nn.' .. k] = own end
    elseif type(v) == 'table' then
      for m, f in pairs(v) do
        if public(m) and type(f) == 'function' then add('nn.' .. k .. '.' .. m) end
      end
    end
  end
end

-- the other libraries: every field; their classes' methods
for _, lib in ipairs{'optim', 'optnet', 'image', 'paths', 'xlua', 'sys', 'nngraph', 'thrnn', 'dataset', 'dataparallel', 'md5'} do
  fields(lib, package.loaded[lib])
end
if hasmpi then fields('mpi', package.loaded.mpi) end
for _, c in ipairs{'Logger', 'ConfusionMatrix'} do methods(c, torch.getmetatable('optim.' .. c)) end
methods('Node', torch.getmetatable('nngraph.Node'))
for k in pairs(torch.getmetatable('nn.gModule')) do
  if public(k) and not std[k] then add('gModule:' .. k) end
end
names['gModule:new'] = nil
for _, sub in ipairs{'mnist', 'cifar', 'file'} do fields('dataset.' .. sub, package.loaded.dataset[sub]) end
methods('Loader', package.loaded.dataset.Loader)
methods('Trainer', package.loaded.dataparallel.Trainer)

local list = {}
for n in pairs(names) do list[#list + 1] = n end
table.sort(list)

if arg[1] == '--list' then
  for _, n in ipairs(list) do print(n) end
  return
end

local prefixes = {}
for i = 1, #arg do prefixes[#prefixes + 1] = arg[i] end
local function wanted(n)
  if #prefixes == 0 then return true end
  for _, p in ipairs(prefixes) do if n:sub(1, #p) == p then return true end end
  return false
end

local ref = help.reference()
local missing, total = 0, 0
for _, n in ipairs(list) do
  if wanted(n) then
    total = total + 1
    local e = ref.byname[n]
    if not e then
      print('missing ' .. n)
      missing = missing + 1
    elseif mentions[n] then
      for _, m in ipairs(mentions[n]) do
        if not e.text:find('%f[%w_]' .. m .. '%f[^%w_]') then
          print('unmentioned ' .. n .. ':' .. m .. ' (in ' .. e.file .. ')')
          missing = missing + 1
        end
      end
    end
  end
end
-- every name an entry gives exists (a typo would hide a missing entry)
for _, e in ipairs(ref.list) do
  for _, n in ipairs(e.names) do
    -- an operator or other '_' method a page documents on purpose
    -- (nngraph's Module:__call__) exists in its class
    local class, m = n:match('^([%a_][%w_]*):(_[%w_]*)$')
    local mt = class and (torch.getmetatable('nn.' .. class) or torch.getmetatable('torch.' .. class))
    if wanted(n) and not names[n] and not (mt and type(mt[m]) == 'function') then
      print('unknown ' .. n .. ' (in ' .. e.file .. '; not a public name)')
      missing = missing + 1
    end
  end
end
-- every entry shows its use: a ```lua example
for _, e in ipairs(ref.list) do
  if wanted(e.names[1]) and not e.text:find('```lua') then
    print('noexample ' .. e.names[1] .. ' (in ' .. e.file .. ')')
    missing = missing + 1
  end
end
io.stderr:write(string.format('docnames: %d public names, %d problems\n', total, missing))
os.exit(missing == 0 and 0 or 1)
