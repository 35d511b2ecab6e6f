-- argcheck: argument checking and overloading for Lua functions, with
-- Torch7's argcheck API (torch/argcheck 2.0).
--
--   local argcheck = require 'argcheck'
--   local check = argcheck{{name='x', type='number', default=0}, {name='msg', type='string'}}
--   local x, msg = check(...)          -- f(1, 'a'), f('a'), f{x=1, msg='a'}
--
-- argcheck(rules) builds the tree of every call the rules accept
-- (argcheck.graph), generates the Lua source of a function testing exactly
-- those calls, and loads it (load with a small environment: the checker
-- sees select, pairs, error and require, nothing of the caller's globals). See
-- docs/argcheck.md.

local env = require 'argcheck.env'
local utils = require 'argcheck.utils'
local doc = require 'argcheck.doc'
local usage = require 'argcheck.usage'
local ACN = require 'argcheck.graph'

-- the globals a generated checker uses
local CHECKER_ENV = {select = select, pairs = pairs, error = error, require = require}

-- the tree of every checker made here (the upvalue `graph` holds it too,
-- as in Torch7, where overload= found it)
local graphs = setmetatable({}, {__mode = 'k'})

local function fail(level, fmt, ...)
  error(string.format('argcheck: ' .. fmt, ...), level + 1)
end

local function isOptional(rule)
  return rule.default ~= nil or rule.defaulta ~= nil or rule.defaultf ~= nil or rule.opt
end

-- the rules' variants, in Torch7's order: each optional rule passed as nil
-- ('3'), left out ('2') or passed ('1'), the last rule varying fastest,
-- starting from all optional ones nil
local function variants(rules)
  local masks = {}
  local function walk(i, prefix)
    if i > #rules then masks[#masks + 1] = prefix; return end
    if isOptional(rules[i]) then
      walk(i + 1, prefix .. '3')
      walk(i + 1, prefix .. '2')
    end
    walk(i + 1, prefix .. '1')
  end
  walk(1, '')
  return masks
end

local function graphOf(func)
  local g = graphs[func]
  if g then return g end
  g = utils.getupvalue(func, 'graph', true)
  if type(g) == 'table' and type(g.next) == 'table' then return g end
  return nil
end

local function validate(rules)
  if type(rules) ~= 'table' then fail(3, 'rules (table) expected, got %s', env.type(rules)) end
  local function need(ok, msg) if not ok then fail(4, '%s', msg) end end
  need(not (rules.noordered and rules.nonamed), 'rules must be at least ordered or named')
  need(rules.help == nil or type(rules.help) == 'string', 'rules help must be a string or nil')
  need(rules.doc == nil or type(rules.doc) == 'string', 'rules doc must be a string or nil')
  need(rules.chain == nil or type(rules.chain) == 'function', 'rules chain must be a function or nil')
  need(rules.overload == nil or type(rules.overload) == 'function', 'rules overload must be a function or nil')
  need(rules.call == nil or type(rules.call) == 'function' or type(getmetatable(rules.call)) == 'table',
       'rules call must be a function or nil')
  need(not (rules.chain and rules.overload), 'rules must have either overload [or chain (deprecated)]')
  need(not (rules.doc and rules.help), 'choose between doc or help, not both')
  local names = {}
  for i, rule in ipairs(rules) do
    need(type(rule) == 'table', string.format('rule %d must be a table', i))
    need(type(rule.name) == 'string', 'rule must have a name field')
    need(rule.type == nil or type(rule.type) == 'string', 'rule type must be a string or nil')
    need(rule.help == nil or type(rule.help) == 'string', 'rule help must be a string or nil')
    need(rule.doc == nil or type(rule.doc) == 'string', 'rule doc must be a string or nil')
    need(rule.check == nil or type(rule.check) == 'function', 'rule check must be a function or nil')
    need(rule.defaulta == nil or type(rule.defaulta) == 'string', 'rule defaulta must be a string or nil')
    need(rule.defaultf == nil or type(rule.defaultf) == 'function', 'rule defaultf must be a function or nil')
    names[rule.name] = true
  end
  for _, rule in ipairs(rules) do
    if rule.defaulta and not names[rule.defaulta] then
      need(false, string.format('invalid defaulta name <%s>', rule.defaulta))
    end
  end
  local first = rules[1]
  if first and first.name == 'self' then
    need(not first.opt and first.default == nil and not first.defaulta and not first.defaultf,
         'self cannot be optional, nor having a default value!')
  end
end

-- argcheck(rules) -> checker [, dot graph when rules.debug]
local function argcheck(rules)
  validate(rules)

  if rules.doc or rules.help then
    doc(usage.render(usage.usage(true, rules, true)))
  end

  local graph
  local previous = rules.overload or rules.chain
  if previous then
    graph = graphOf(previous)
    if not graph then fail(2, 'trying to overload a non-argcheck function') end
  else
    graph = ACN.new('@')
  end

  local isMethod = rules[1] ~= nil and rules[1].name == 'self'
  local journal = {}
  local ok, err = pcall(function()
    for _, mask in ipairs(variants(rules)) do
      if not rules.noordered then graph:addpath(rules, mask, 'O', journal) end
      if not rules.nonamed then graph:addpath(rules, mask, isMethod and 'M' or 'N', journal) end
    end
  end)
  if not ok then
    graph:undo(journal)
    fail(2, '%s', tostring(err))
  end

  local code, values, overflow = graph:generate()
  if rules.debug then print(code) end
  local chunk, lerr = load(code, '=argcheck', 't', CHECKER_ENV)
  if not chunk then
    fail(2, 'could not generate argument checker: %s', lerr)
  end
  local checker = chunk(env.istype, graph, overflow, table.unpack(values, 1, #values))
  graphs[checker] = graph

  if rules.debug then
    return checker, graph:print()
  end
  return checker
end

env.argcheck = argcheck

return argcheck
