-- argcheck.graph: the tree of every argument sequence a checker accepts,
-- and the Lua source of the checker generated from it.
--
-- A node is one argument: its type, its name (named calls only), its check
-- function. A path from the root is one accepted call; the node ending it
-- holds the rules (one argcheck{...} table) it belongs to, the mask saying
-- which of those rules were passed ('1'), left out ('2') or passed as nil
-- ('3'), and how: 'O' ordered f(a, b), 'N' named f{x=a, y=b}, 'M' named
-- method obj:f{x=a}. Overloads add their paths to the same tree; two rule
-- sets ending on one node are ambiguous unless the later has force=true
-- (then it wins).
--
-- The checker tests paths depth first, in the order they were added (a node
-- ends its own call before its children extend it); the order the rules'
-- variants are added in (init.lua) decides which overload a call reaches,
-- and is Torch7's.

local usage = require 'argcheck.usage'
local env = require 'argcheck.env'

local ACN = {}
ACN.__index = ACN

-- ACN.new(type, name, check, rules, rulesmask, rulestype) -> node
function ACN.new(typename, name, check, rules, rulesmask, rulestype)
  return setmetatable({type = typename, name = name, check = check, rules = rules,
                       rulesmask = rulesmask, rulestype = rulestype, next = {}}, ACN)
end

function ACN:add(node)
  self.next[#self.next + 1] = node
end

-- node:match(steps) -> the deepest node following steps from node, and how
-- many steps it followed
function ACN:match(steps)
  local head = self
  for i = 1, #steps do
    local step, found = steps[i], nil
    for _, child in ipairs(head.next) do
      if child.type == step.type and child.check == step.check and child.name == step.name then
        found = child
        break
      end
    end
    if not found then return head, i - 1 end
    head = found
  end
  return head, #steps
end

function ACN:apply(func)
  func(self)
  for _, child in ipairs(self.next) do child:apply(func) end
end

-- does a path of kind ruletype ('O', 'N', 'M') end in this subtree?
function ACN:hasruletype(ruletype)
  if self.rules and self.rulestype == ruletype then return true end
  for _, child in ipairs(self.next) do
    if child:hasruletype(ruletype) then return true end
  end
  return false
end

-- the nodes a call of kind `kind` goes through for one variant of `rules`
local function pathSteps(rules, mask, kind)
  local steps = {}
  for i, rule in ipairs(rules) do
    local m = mask:sub(i, i)
    local nameless = kind == 'O' or (kind == 'M' and i == 1)
    if m == '1' then
      steps[#steps + 1] = {type = rule.type, name = (not nameless) and rule.name or nil, check = rule.check}
    elseif m == '3' and kind == 'O' then
      steps[#steps + 1] = {type = 'nil'}  -- passed, as nil
    end
  end
  -- a named call is one table argument; a named method call, self then one
  if kind == 'N' then table.insert(steps, 1, {type = 'table'}) end
  if kind == 'M' then table.insert(steps, 2, {type = 'table'}) end
  return steps
end

-- graph:addpath(rules, mask, kind [, journal]): accept one more call.
-- journal (a list) gets what to undo should a later path be refused
function ACN:addpath(rules, mask, kind, journal)
  journal = journal or {}
  local steps = pathSteps(rules, mask, kind)
  local head, matched = self:match(steps)
  if matched == #steps then
    if not rules.force and head.rules and head.rules ~= rules then
      error('argcheck rules led to ambiguous situations', 0)
    end
    journal[#journal + 1] = {node = head, rules = head.rules, rulesmask = head.rulesmask, rulestype = head.rulestype}
    head.rules, head.rulesmask, head.rulestype = rules, mask, kind
  end
  if matched < #steps then journal[#journal + 1] = {parent = head, n = #head.next} end
  for i = matched + 1, #steps do
    local step, last = steps[i], i == #steps
    local node = ACN.new(step.type, step.name, step.check, last and rules or nil,
                         last and mask or nil, last and kind or nil)
    head:add(node)
    head = node
  end
  if kind == 'M' then
    local selfnode = self:match({steps[1]})
    journal[#journal + 1] = {node = selfnode, isself = selfnode.isself, selfonly = true}
    selfnode.isself = true  -- a named method call may start here
  end
end

-- graph:undo(journal): back to the tree before the journal's addpaths (a
-- refused overload leaves the tree its earlier checkers share unchanged)
function ACN:undo(journal)
  for i = #journal, 1, -1 do
    local j = journal[i]
    if j.parent then
      for k = #j.parent.next, j.n + 1, -1 do j.parent.next[k] = nil end
    elseif j.selfonly then
      j.node.isself = j.isself
    else
      j.node.rules, j.node.rulesmask, j.node.rulestype = j.rules, j.rulesmask, j.rulestype
    end
  end
end

local function id(t)
  return (tostring(t):match('0x(%x+)') or tostring(t):match('(%x+)$'))
end

function ACN:id()
  return id(self)
end

-- graph:print() -> the tree as a graphviz dot graph (debug=true returns it);
-- a dark node ends an accepted call, '*' marks a possible self
function ACN:print(txt)
  local root = not txt
  txt = txt or {'digraph ACN {'}
  txt[#txt + 1] = 'edge [penwidth=.3 arrowsize=0.8];'
  txt[#txt + 1] = string.format('id%s [label="%s%s%s%s" penwidth=.1 fontsize=10 style=filled fillcolor="%s"];',
    self:id(), self.type or 'any', self.isself and '*' or '', self.check and ' <check>' or '',
    self.name and string.format(' (%s)', self.name) or '', self.rules and '#aaaaaa' or '#eeeeee')
  for _, child in ipairs(self.next) do
    child:print(txt)
    txt[#txt + 1] = string.format('id%s -> id%s;', self:id(), child:id())
  end
  if root then
    txt[#txt + 1] = '}'
    return table.concat(txt, '\n')
  end
end

-- graph:usage(...) -> every accepted form (Torch7's text: each rule set's
-- doc, joined by 'or'), then what the failed call passed
function ACN:usage(...)
  local forms, seen = {}, {}
  self:apply(function(node)
    if node.rules and not seen[node.rules] then
      seen[node.rules] = true
      forms[#forms + 1] = usage.usage(true, node.rules)
    end
  end)
  return string.format('%s\n%s\n', table.concat(forms, '\n\nor\n\n'), usage.usage(false, self, ...))
end

-- the name a failed checker was called by, as Lua's debug info has it
-- (level: the checker's stack level from the caller of this function)
-- (level: the checker's stack level from the caller of this function);
-- without one (a call from C: a class constructor runs __init so), the
-- field of the first argument's class holding the checker
local function classField(func, obj)
  local mt = getmetatable(obj)
  local hops = 0
  while type(mt) == 'table' and hops < 64 do
    local cls = rawget(mt, '__typename')
    if type(cls) == 'string' then
      for k, v in next, mt do
        if v == func and type(k) == 'string' then return cls .. '.' .. k end
      end
    end
    local up = getmetatable(mt)
    if type(up) == 'table' and not rawget(up, '__typename') then up = rawget(up, '__index') end
    mt, hops = up, hops + 1
  end
  return nil
end

local function callName(level, ...)
  local info = debug.getinfo(level + 1, 'nf')
  if not info then return nil end
  local name = info.name
  if not name then
    return select('#', ...) > 0 and classField(info.func, (...)) or nil
  end
  if info.namewhat == 'method' and select('#', ...) > 0 then
    return env.type((...)) .. ':' .. name
  end
  return name
end

-- graph:failure(...) -> the error message of a call no path accepts:
-- 'name: ' (when the call had one) then Torch7's text, ending with
-- 'invalid arguments!'. Called by the checker itself, not as a tail call.
-- A checker read back by torch.File:readObject has its tree without the
-- nodes' metatable (plain tables are written without one): put it back.
local function restore(node)
  if getmetatable(node) ~= ACN then
    setmetatable(node, ACN)
    for _, child in ipairs(node.next or {}) do restore(child) end
  end
  return node
end

function ACN:failure(...)
  restore(self)
  local name = callName(2, ...)
  local text = string.format('%s\ninvalid arguments!', usage.render(self:usage(...)))
  return name and (name .. ': ' .. text) or text
end

-- ---------------------------------------------------------------------------
-- code generation

-- Values the generated source cannot spell (functions, tables) reach it as
-- upvalues named by what they are; the rest are literals. Past MAXNAMED
-- they go in one table K (a function has at most 255 upvalues).
local MAXNAMED = 120

local Source = {}
Source.__index = Source

local function newSource()
  return setmetatable({lines = {}, names = {}, values = {}, byValue = {}, counts = {}, overflow = {}}, Source)
end

function Source:line(indent, fmt, ...)
  self.lines[#self.lines + 1] = string.rep('  ', indent) .. string.format(fmt, ...)
end

function Source:ref(value, prefix)
  local t = type(value)
  if t == 'string' or t == 'number' or t == 'boolean' or t == 'nil' then
    return string.format('%q', value)
  end
  local known = self.byValue[value]
  if known then return known end
  local name
  if #self.names < MAXNAMED then
    self.counts[prefix] = (self.counts[prefix] or 0) + 1
    name = prefix .. self.counts[prefix]
    self.names[#self.names + 1] = name
    self.values[#self.values + 1] = value
  else
    self.overflow[#self.overflow + 1] = value
    name = string.format('K[%d]', #self.overflow)
  end
  self.byValue[value] = name
  return name
end

-- the test a node makes of argument expression `arg`
local function nodeTest(src, node, arg)
  local test
  if node.type == nil then
    test = arg .. ' ~= nil'
  elseif node.type == 'nil' then
    test = arg .. ' == nil'
  else
    test = string.format('istype(%s, %q)', arg, node.type)
  end
  if node.check then
    test = string.format('%s and %s(%s)', test, src:ref(node.check, 'check'), arg)
  end
  return test
end

local function ruleIndex(rules, name)
  for i, rule in ipairs(rules) do
    if rule.name == name then return i end
  end
end

-- the values passed to the user for one accepted call (a path's end)
local function genAccept(src, indent, rules, mask, kind)
  local pos = 0
  local defaulta = {}
  for i, rule in ipairs(rules) do
    local m = mask:sub(i, i)
    local expr
    if kind == 'M' and i == 1 then
      expr = 'a1'
    elseif m == '1' or (m == '3' and kind == 'O') then
      if kind == 'O' then
        pos = pos + 1
        expr = 'a' .. pos
      else
        expr = string.format('args[%q]', rule.name)
      end
    end
    if m ~= '1' then  -- left out or nil: its default
      if rule.default ~= nil then
        expr = src:ref(rule.default, 'default')
      elseif rule.defaultf then
        expr = src:ref(rule.defaultf, 'defaultf') .. '()'
      elseif rule.defaulta then
        defaulta[#defaulta + 1] = i
      end
    end
    src:line(indent, 'local v%d = %s', i, expr or 'nil')
  end
  for _, i in ipairs(defaulta) do
    src:line(indent, 'v%d = v%d', i, ruleIndex(rules, rules[i].defaulta))
  end
  local list = {}
  if rules.pack then
    local fields = {}
    for i, rule in ipairs(rules) do
      if not (kind == 'M' and i == 1) then fields[#fields + 1] = string.format('[%q] = v%d', rule.name, i) end
    end
    list[1] = '{' .. table.concat(fields, ', ') .. '}'
    if kind == 'M' then table.insert(list, 1, 'v1') end
  else
    for i = 1, #rules do list[i] = 'v' .. i end
  end
  local values = table.concat(list, ', ')
  if rules.call and not rules.quiet then
    values = string.format('%s(%s)', src:ref(rules.call, 'call'), values)
  elseif rules.quiet then
    -- quiet: a true first value (Torch7's: the call function itself, when
    -- there is one, then the arguments, not its results)
    local status = rules.call and src:ref(rules.call, 'call') or 'true'
    values = #list > 0 and (status .. ', ' .. values) or status
  end
  src:line(indent, 'return %s', values)
end

-- one node of the tree for calls of kind `kind`: test it, end a call here,
-- then try the longer calls; `count` arguments matched so far
local function genNode(src, node, kind, level, count, indent)
  if not node:hasruletype(kind) then return end
  local opened = false
  if level > 0 then
    if kind == 'O' then
      count = count + 1
      src:line(indent, 'if narg >= %d and %s then', count, nodeTest(src, node, 'a' .. count))
    else
      if node.type ~= 'nil' then count = count + 1 end
      src:line(indent, 'if %s then', nodeTest(src, node, string.format('args[%q]', node.name)))
    end
    opened, indent = true, indent + 1
  end
  if node.rules and node.rulestype == kind then
    src:line(indent, 'if narg == %d then', count)
    genAccept(src, indent + 1, node.rules, node.rulesmask, kind)
    src:line(indent, 'end')
  end
  for _, child in ipairs(node.next) do
    genNode(src, child, kind, level + 1, count, indent)
  end
  if opened then src:line(indent - 1, 'end') end
end

local function maxOrdered(node, depth)
  local best = node:hasruletype('O') and depth or 0
  for _, child in ipairs(node.next) do
    best = math.max(best, maxOrdered(child, depth + 1))
  end
  return best
end

local function countKeys(src, indent)
  src:line(indent, 'local narg = 0')
  src:line(indent, 'for _ in pairs(args) do narg = narg + 1 end')
end

-- graph:generate() -> Lua source of a chunk which, given (istype, graph, K,
-- upvalues...), returns the checker; and the values to pass it
function ACN:generate()
  local body = newSource()
  local nargs = math.max(maxOrdered(self, 0), 2)
  local avars = {}
  for i = 1, nargs do avars[i] = 'a' .. i end
  body:line(1, 'local narg = select("#", ...)')
  body:line(1, 'local %s = ...', table.concat(avars, ', '))
  genNode(body, self, 'O', 0, 0, 1)

  if self:hasruletype('N') then
    local tablenode = self:match({{type = 'table'}})
    body:line(1, 'if narg == 1 and istype(a1, "table") then')
    body:line(2, 'local args = a1')
    countKeys(body, 2)
    genNode(body, tablenode, 'N', 0, 0, 2)
    body:line(1, 'end')
  end

  for _, head in ipairs(self.next) do
    if head.isself then
      local tablenode = head:match({{type = 'table'}})
      body:line(1, 'if narg == 2 and istype(a2, "table") and %s then', nodeTest(body, head, 'a1'))
      body:line(2, 'local args = a2')
      countKeys(body, 2)
      genNode(body, tablenode, 'M', 0, 0, 2)
      body:line(1, 'end')
    end
  end

  local quiet = true
  self:apply(function(node)
    if node.rules and not node.rules.quiet then quiet = false end
  end)
  if quiet then
    body:line(1, 'return false, require("argcheck.graph").usagetext(graph, ...)')
  else
    body:line(1, 'error(require("argcheck.graph").failure(graph, ...), 2)')
  end

  local header = {'istype', 'graph', 'K'}
  for _, name in ipairs(body.names) do header[#header + 1] = name end
  local code = 'local ' .. table.concat(header, ', ') .. ' = ...\n'
    .. 'return function(...)\n' .. table.concat(body.lines, '\n') .. '\nend\n'
  return code, body.values, body.overflow
end

-- the usage text a quiet checker returns
function ACN:usagetext(...)
  restore(self)
  return usage.render(self:usage(...))
end

return ACN
