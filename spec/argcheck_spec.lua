-- argcheck (lua/argcheck), Torch7's argument checker: ordered and named
-- calls, defaults (default, defaulta, defaultf), opt, named method calls,
-- pack, quiet, nonamed/noordered, overload/chain with ambiguity detection
-- and force, and the checks argcheck{} makes of its rules.
require 'torch'
local argcheck = require 'argcheck'

local function err(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return tostring(e)
end

describe('argcheck calls', function()
  it('returns the arguments of an ordered or a named call', function()
    local check = argcheck{{name = 'x', type = 'number'}, {name = 'msg', type = 'string'}}
    assert.are.same({4, 'hi'}, {check(4, 'hi')})
    assert.are.same({4, 'hi'}, {check{x = 4, msg = 'hi'}})
    assert.are.same({4, 'hi'}, {check{msg = 'hi', x = 4}})
  end)

  it('refuses wrong types, missing, extra and unknown named arguments', function()
    local check = argcheck{{name = 'x', type = 'number'}, {name = 'msg', type = 'string'}}
    for _, args in ipairs{{'hi', 4}, {4}, {4, 'hi', 5}, {}} do
      assert.is_false(pcall(check, table.unpack(args)))
    end
    assert.is_false(pcall(check, {x = 4}))
    assert.is_false(pcall(check, {x = 4, msg = 'hi', other = 1}))
    assert.is_false(pcall(check, {x = 4, msg = 'hi', [1] = 'positional'}))
  end)

  it('fills a left-out default, wherever it is in the list', function()
    local check = argcheck{{name = 'x', type = 'number', default = 0}, {name = 'msg', type = 'string'}}
    assert.are.same({0, 'hi'}, {check('hi')})
    assert.are.same({3, 'hi'}, {check(3, 'hi')})
    assert.are.same({0, 'hi'}, {check{msg = 'hi'}})
    assert.is_false(pcall(check, 3))
  end)

  it('takes nil for an argument with a default, in its place', function()
    local check = argcheck{{name = 'x', type = 'number', default = 5},
                           {name = 'msg', type = 'string', default = 'wassup'}}
    assert.are.same({5, 'paf'}, {check(nil, 'paf')})
    assert.are.same({6, 'wassup'}, {check(6, nil)})
    assert.are.same({5, 'wassup'}, {check()})
    assert.are.same({5, 'wassup'}, {check(nil, nil)})
    assert.are.same({5, 'paf'}, {check('paf')})
  end)

  it('keeps a false default (and a table default is the same table each call)', function()
    local shared = {}
    local check = argcheck{{name = 'flag', type = 'boolean', default = false},
                           {name = 't', type = 'table', default = shared}}
    local a, b = check()
    assert.are.equal(false, a)
    assert.are.equal(shared, b)
    assert.are.equal(false, (check(nil)))
    assert.are.equal(true, (check(true)))
  end)

  it('defaulta copies another argument; defaultf calls a function each time', function()
    local mul = argcheck{{name = 'x', type = 'number'}, {name = 'y', type = 'number', defaulta = 'x'},
                         call = function(x, y) return x * y end}
    assert.are.equal(12, mul(3, 4))
    assert.are.equal(9, mul(3))
    assert.are.equal(16, mul{x = 4})
    local n = 0
    local nextid = argcheck{{name = 'id', type = 'number', defaultf = function() n = n + 1; return n end}}
    assert.are.same({1, 2, 10, 3}, {nextid(), nextid(), nextid(10), nextid()})
  end)

  it('opt gives nil when left out', function()
    local check = argcheck{{name = 'x', type = 'number', default = 7}, {name = 'msg', type = 'string', opt = true}}
    assert.are.same({7, nil}, {check()})
    assert.are.equal(2, select('#', check()))
    assert.are.same({7, 'a'}, {check('a')})
    assert.are.same({1, 'a'}, {check{x = 1, msg = 'a'}})
  end)

  it('a rule check function narrows what the type accepts', function()
    local f = argcheck{{name = 'x', type = 'number', check = function(x) return x >= 1 and x <= 10 end},
                       call = function(x) return x + 5 end}
    assert.are.equal(8, f(3))
    assert.is_false(pcall(f, 11))
  end)

  it('a rule without a type accepts any value but nil', function()
    local f = argcheck{{name = 'v'}, call = function(v) return v end}
    local t = {}
    assert.are.equal(t, f(t))
    assert.are.equal(false, f(false))
    assert.is_false(pcall(f, nil))
  end)

  it('calls a method with ordered or named arguments when the first rule is self', function()
    local obj = {checksum = 1234567}
    obj.add = argcheck{{name = 'self', type = 'table'}, {name = 'x', type = 'number'},
                       {name = 'msg', type = 'string', default = 'deflt'},
                       call = function(self, x, msg) return self.checksum + x, msg end}
    assert.are.same({1234572, 'hi'}, {obj:add(5, 'hi')})
    assert.are.same({1234572, 'hi'}, {obj:add{x = 5, msg = 'hi'}})
    assert.are.same({1234574, 'deflt'}, {obj:add{x = 7}})
    assert.is_false(pcall(obj.add, obj, {msg = 'no x'}))
    -- self is not a named argument: f{self=..., x=...} is no call
    assert.is_false(pcall(obj.add, {self = obj, x = 1}))
  end)

  it('pack gives one table of the arguments by name', function()
    local check = argcheck{pack = true, {name = 'x', type = 'number', default = 0}, {name = 'msg', type = 'string'}}
    assert.are.same({x = 0, msg = 'hi'}, check('hi'))
    assert.are.same({x = 2, msg = 'hi'}, check{x = 2, msg = 'hi'})
    local m = argcheck{pack = true, {name = 'self', type = 'table'}, {name = 'x', type = 'number'}}
    local obj = {}
    local s, args = m(obj, {x = 3})
    assert.are.equal(obj, s)
    assert.are.same({x = 3}, args)
  end)

  it('nonamed and noordered restrict the call forms', function()
    local ordered = argcheck{nonamed = true, {name = 't', type = 'table'}, call = function(t) return t end}
    local t = {msg = 'blah'}
    assert.are.equal(t, ordered(t))  -- a table argument, not named arguments
    local named = argcheck{noordered = true, {name = 'x', type = 'number'}, call = function(x) return x end}
    assert.are.equal(3, named{x = 3})
    assert.is_false(pcall(named, 3))
  end)

  it('quiet returns true and the arguments, or false and the usage', function()
    local check = argcheck{quiet = true, {name = 'x', type = 'number'}}
    assert.are.same({true, 5}, {check(5)})
    local ok, usage = check('five')
    assert.is_false(ok)
    assert.are.equal('\n*Arguments:*\n```\n({\n   x = number  -- \n})\n```\n*Got:* **string**\n', usage)
  end)

  it('call runs the function with the checked arguments and returns its results', function()
    local f = argcheck{{name = 'a', type = 'number'}, {name = 'b', type = 'number', default = 1},
                       call = function(a, b) return a + b, a - b end}
    assert.are.same({5, 1}, {f(3, 2)})
    assert.are.same({4, 2}, {f(3)})
  end)
end)

describe('argcheck overload', function()
  local function numstr()
    local f = argcheck{{name = 'x', type = 'number'}, call = function(x) return 'number ' .. x end}
    return argcheck{{name = 'str', type = 'string'}, overload = f, call = function(s) return 'string ' .. s end}
  end

  it('chooses the variant the arguments fit', function()
    local f = numstr()
    assert.are.equal('number 5', f(5))
    assert.are.equal('string hi', f('hi'))
    assert.are.equal('string hi', f{str = 'hi'})
    assert.are.equal('number 2', f{x = 2})
    assert.is_false(pcall(f, true))
  end)

  it('chooses by argument count and by self class', function()
    local f = argcheck{{name = 'a', type = 'number'}, call = function(a) return 1 end}
    f = argcheck{{name = 'a', type = 'number'}, {name = 'b', type = 'number'}, overload = f,
                 call = function(a, b) return 2 end}
    f = argcheck{{name = 'a', type = 'number'}, {name = 'b', type = 'string'}, overload = f,
                 call = function(a, b) return 3 end}
    assert.are.same({1, 2, 3}, {f(1), f(1, 2), f(1, 'x')})
  end)

  it('refuses rules as ambiguous as ones it overloads, unless forced (then the new one wins)', function()
    local f = argcheck{{name = 'x', type = 'number'}, call = function(x) return 'old' end}
    local e = err(argcheck, {{name = 'x', type = 'number'}, {name = 'msg', type = 'string', default = 'd'},
                             overload = f, call = function(x, msg) return msg end})
    assert.truthy(e:find('argcheck: argcheck rules led to ambiguous situations', 1, true), e)
    local g = argcheck{{name = 'x', type = 'number'}, {name = 'msg', type = 'string', default = 'd'},
                       overload = f, force = true, call = function(x, msg) return msg end}
    assert.are.equal('d', g(5))
    assert.are.equal('hello', g(5, 'hello'))
  end)

  it('a refused overload leaves the tree the earlier checkers share as it was', function()
    local f = argcheck{{name = 'x', type = 'number'}, call = function(x) return 'n' end}
    -- its first variant (s passed as nil, then x) is new; the next one (x alone) is f's
    assert.is_false(pcall(argcheck, {{name = 's', type = 'string', opt = true}, {name = 'x', type = 'number'},
                                     overload = f}))
    local g = argcheck{{name = 'b', type = 'boolean'}, overload = f, call = function() return 'b' end}
    assert.are.same({'n', 'b'}, {g(1), g(true)})
    assert.is_false(pcall(g, nil, 5))
    local e = err(g, 'x')
    assert.is_nil(e:find('s = string', 1, true), e)
  end)

  it('chain (deprecated) overloads as overload does', function()
    local f = argcheck{{name = 'x', type = 'number'}, call = function() return 'n' end}
    f = argcheck{{name = 's', type = 'string'}, chain = f, call = function() return 's' end}
    assert.are.same({'n', 's'}, {f(1), f('a')})
  end)

  it('refuses to overload a function argcheck did not make', function()
    local e = err(argcheck, {{name = 'x', type = 'number'}, overload = function() end})
    assert.truthy(e:find('argcheck: trying to overload a non-argcheck function', 1, true), e)
  end)

  it('handles more overloads than a Lua function has upvalues', function()
    local f
    for i = 1, 150 do
      f = argcheck{{name = 'x', type = 'number', check = function(x) return x == i end},
                   overload = f, call = function(x) return i * 10 end}
    end
    assert.are.same({10, 750, 1500}, {f(1), f(75), f(150)})
    assert.is_false(pcall(f, 151))
  end)

  it('debug=true also returns the tree as a dot graph', function()
    local print0 = _G.print
    local printed = {}
    _G.print = function(s) printed[#printed + 1] = s end
    local f, dot = argcheck{debug = true, {name = 'x', type = 'number'}, call = function(x) return x end}
    _G.print = print0
    assert.are.equal(3, f(3))
    assert.truthy(printed[1]:find('return function(...)', 1, true))
    assert.truthy(dot:match('^digraph ACN {'))
    assert.truthy(dot:find('label="number"', 1, true))
    assert.truthy(dot:find('label="number (x)"', 1, true))
  end)
end)

describe('argcheck rule checks', function()
  local cases = {
    {{nonamed = true, noordered = true}, 'rules must be at least ordered or named'},
    {{help = 1}, 'rules help must be a string or nil'},
    {{{type = 'number'}}, 'rule must have a name field'},
    {{{name = 'x', type = 5}}, 'rule type must be a string or nil'},
    {{{name = 'x', check = 5}}, 'rule check must be a function or nil'},
    {{{name = 'x', defaulta = 'nope'}}, 'invalid defaulta name <nope>'},
    {{{name = 'self', opt = true}}, 'self cannot be optional, nor having a default value!'},
    {{doc = 'a', help = 'b'}, 'choose between doc or help, not both'},
  }
  for _, case in ipairs(cases) do
    it('refuses: ' .. case[2], function()
      local e = err(function() local f = argcheck(case[1]); return f end)
      assert.truthy(e:find('argcheck: ' .. case[2], 1, true), e)
      -- placed at the caller of argcheck, not inside lua/argcheck
      assert.truthy(e:find('argcheck_spec.lua:%d+: argcheck:'), e)
    end)
  end

  it('refuses a non-table', function()
    assert.truthy(err(argcheck, 'x'):find('argcheck: rules (table) expected, got string', 1, true))
  end)
end)
