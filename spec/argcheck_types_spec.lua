-- argcheck's type test (argcheck.env) with torch: tensor type names and
-- patterns ('torch.*Tensor'), torch classes accepting their subclasses
-- (type='nn.Module' takes nn.Sequential), whichever way the class chain is
-- linked; a torch object is never a 'table'; env.istype replaced by a user;
-- and a checker written by torch.File:writeObject.
require 'torch'
require 'nn'
local argcheck = require 'argcheck'
local env = require 'argcheck.env'

describe('argcheck torch types', function()
  it('tells tensor types apart, and matches rule types as patterns', function()
    local t = torch.LongTensor()
    assert.are.equal('torch.LongTensor', env.type(t))
    assert.is_true(env.istype(t, 'torch.LongTensor'))
    assert.is_true(env.istype(t, 'torch.*Tensor'))
    assert.is_true(env.istype(t, '.*Long'))
    assert.is_false(env.istype(t, 'torch.IntTensor'))
    assert.is_false(env.istype(t, 'torch.Long'))      -- a plain prefix is no match
    assert.is_false(env.istype(t, 'userdata'))
    assert.is_false(env.istype(t, 'torch.Tensor['))   -- not a pattern: compared as text
    assert.is_true(env.istype(3, 'number'))
    assert.is_true(env.istype('s', 'string'))
  end)

  it('checks tensor arguments by exact type or any tensor', function()
    local check = argcheck{{name = 'any', type = 'torch.*Tensor'}, {name = 'f', type = 'torch.FloatTensor'}}
    local i, f = torch.IntTensor(2), torch.FloatTensor(3)
    local a, b = check(i, f)
    assert.are.equal(i, a)
    assert.are.equal(f, b)
    assert.is_true(pcall(check, torch.FloatTensor(), torch.FloatTensor()))
    assert.is_false(pcall(check, torch.FloatTensor(), torch.IntTensor()))
    assert.is_false(pcall(check, {}, torch.FloatTensor()))
  end)

  it("takes subclasses for a class name: 'nn.Module' accepts nn.Sequential and nn.Linear", function()
    local f = argcheck{{name = 'm', type = 'nn.Module'}, call = function(m) return torch.type(m) end}
    assert.are.equal('nn.Sequential', f(nn.Sequential()))
    assert.are.equal('nn.Linear', f(nn.Linear(2, 3)))
    assert.is_false(pcall(f, torch.Tensor(2)))
    assert.is_false(pcall(f, {}))
    assert.is_true(env.istype(nn.Sequential(), 'nn.Container'))
    assert.is_false(env.istype(nn.Linear(2, 2), 'nn.Sequential'))
  end)

  it('chooses an overload by class, most specific first when declared first', function()
    local f = argcheck{{name = 'm', type = 'nn.Sequential'}, call = function() return 'seq' end}
    f = argcheck{{name = 'm', type = 'nn.Module'}, overload = f, call = function() return 'module' end}
    f = argcheck{{name = 't', type = 'torch.*Tensor'}, overload = f, call = function() return 'tensor' end}
    assert.are.same({'seq', 'module', 'tensor'}, {f(nn.Sequential()), f(nn.Tanh()), f(torch.Tensor())})
  end)

  it('a torch object is not a table: one object argument is no named call', function()
    local m = nn.Linear(2, 2)
    assert.is_false(env.istype(m, 'table'))
    local f = argcheck{{name = 'm', type = 'nn.Linear'}, call = function(x) return x end}
    assert.are.equal(m, f(m))
    assert.are.equal(m, f{m = m})
  end)

  it('a class constructor table (nn.Linear) is a table, as luaT_typename saw it, not an instance', function()
    assert.is_true(env.istype(nn.Linear, 'table'))
    assert.is_false(env.istype(nn.Linear, 'nn.Linear'))
    assert.is_false(env.istype(nn.Linear, 'nn.Module'))
    assert.are.equal('table', env.type(nn.Linear))
    local f = argcheck{{name = 'pkg', type = 'table'}, {name = 'name', type = 'string'},
                       call = function(pkg, name) return name end}
    assert.are.equal('Linear', f(nn.Linear, 'Linear'))
  end)

  it('method checkers of a torch class: named and ordered calls, errors naming Class.__init', function()
    local Thing = torch.class('argcheckspec.Thing')
    Thing.__init = argcheck{{name = 'self', type = 'argcheckspec.Thing'}, {name = 'n', type = 'number', default = 1},
                            call = function(self, n) self.n = n end}
    Thing.add = argcheck{{name = 'self', type = 'argcheckspec.Thing'}, {name = 'k', type = 'number'},
                         call = function(self, k) return self.n + k end}
    local Sub = torch.class('argcheckspec.Sub', 'argcheckspec.Thing')
    assert.are.equal(3, Thing(3).n)
    assert.are.equal(1, Thing().n)
    assert.are.equal(5, Thing{n = 5}.n)
    local s = Sub(2)
    assert.are.equal(12, s:add(10))      -- a subclass instance is a self of the parent's type
    assert.are.equal(13, s:add{k = 11})
    local ok, e = pcall(Thing, 'x')
    assert.is_false(ok)
    assert.truthy(tostring(e):find('argcheckspec.Thing.__init: ', 1, true), e)
    assert.truthy(tostring(e):find('*Got:* **argcheckspec.Thing**, **string**', 1, true), e)
    local ok2, e2 = pcall(function() local v = s:add('y'); return v end)
    assert.is_false(ok2)
    assert.truthy(tostring(e2):find('argcheck_types_spec.lua:%d+: argcheckspec.Sub:add: '), e2)
  end)

  it('torchnet-style constructors: __init overloaded by list type, named-only and table-argument methods', function()
    local ns = {}
    local List = torch.class('argcheckspec.List', ns)
    List.__init = argcheck{{name = 'self', type = 'argcheckspec.List'}, {name = 'list', type = 'torch.LongTensor'},
                           {name = 'load', type = 'function'}, {name = 'path', type = 'string', opt = true},
                           call = function(self, list, load, path) self.kind, self.n = 'tensor', list:size(1) end}
    List.__init = argcheck{{name = 'self', type = 'argcheckspec.List'}, {name = 'list', type = 'table'},
                           {name = 'load', type = 'function'}, {name = 'path', type = 'string', opt = true},
                           overload = List.__init,
                           call = function(self, list, load, path) self.kind, self.n, self.path = 'table', #list, path end}
    local id = function(...) return ... end
    local t = ns.List(torch.LongTensor(4), id)
    assert.are.same({'tensor', 4}, {t.kind, t.n})
    local l = ns.List({1, 2, 3}, id, '/data')
    assert.are.same({'table', 3, '/data'}, {l.kind, l.n, l.path})
    local named = ns.List{list = {1}, load = id}
    assert.are.same({'table', 1}, {named.kind, named.n})
    local fromTensor = ns.List{list = torch.LongTensor(2), load = id}
    assert.are.same({'tensor', 2}, {fromTensor.kind, fromTensor.n})
    -- a named-only setter and a nonamed one taking a table of keys
    List.configure = argcheck{noordered = true, {name = 'self', type = 'argcheckspec.List'},
                              {name = 'keys', type = 'table'}, {name = 'onSet', type = 'table', opt = true},
                              call = function(self, keys, onSet) return #keys, onSet == nil end}
    List.set = argcheck{nonamed = true, {name = 'self', type = 'argcheckspec.List'}, {name = 'values', type = 'table'},
                        call = function(self, values) return values.a end}
    assert.are.same({2, true}, {l:configure{keys = {'a', 'b'}}})
    assert.is_false(pcall(l.configure, l, {'a', 'b'}))
    assert.are.equal(5, l:set{a = 5})
  end)

  it("follows a luaT-style class chain (a metatable's metatable is its parent's) too", function()
    local base = {__typename = 'argcheckspec.LBase'}
    base.__index = base
    local mid = setmetatable({__typename = 'argcheckspec.LMid'}, base)
    mid.__index = mid
    local leaf = setmetatable({__typename = 'argcheckspec.LLeaf'}, mid)
    leaf.__index = leaf
    local obj = setmetatable({}, leaf)
    assert.is_true(env.istype(obj, 'argcheckspec.LLeaf'))
    assert.is_true(env.istype(obj, 'argcheckspec.LMid'))
    assert.is_true(env.istype(obj, 'argcheckspec.LBase'))
    assert.is_false(env.istype(obj, 'argcheckspec.Other'))
    assert.is_false(env.istype(obj, 'table'))
  end)

  it('a replaced env.istype reaches checkers made afterwards only', function()
    local before = argcheck{{name = 'x', type = 'even'}, quiet = true}
    local saved = env.istype
    env.istype = function(obj, typename)
      if typename == 'even' then return math.type(obj) == 'integer' and obj % 2 == 0 end
      return saved(obj, typename)
    end
    local after = argcheck{{name = 'x', type = 'even'}, call = function(x) return x // 2 end}
    env.istype = saved
    assert.are.equal(2, after(4))
    assert.is_false(pcall(after, 3))
    assert.is_false((before(4)))
  end)

  it('a checker is written by torch.File:writeObject and read back working', function()
    local f = argcheck{{name = 'arg', type = 'string'}, call = function(arg) return arg .. '!' end}
    local m = torch.MemoryFile()
    m:writeObject(f)
    m:seek(1)
    local g = m:readObject()
    m:close()
    assert.are.equal('function', type(g))
    assert.are.equal('a!', g('a'))
    local ok, e = pcall(function() local v = g(1); return v end)
    assert.is_false(ok)
    assert.truthy(tostring(e):find('*Got:* **number**\n\ninvalid arguments!', 1, true), e)
    assert.are.equal('a!', f('a'))
  end)
end)
