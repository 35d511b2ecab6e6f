-- luaT's conventions and Torch7 runtime details third-party packages use
-- (issue 33): torch.include / torch.packageLuaPath / the global include,
-- torch.class on a name that exists, the class chain as metatables
-- (getmetatable(class) == parent class), x:data() as an identity pointer,
-- math on plain numbers giving floats. Written from Torch7's init.lua,
-- luaT.c and TensorMath.lua, and from what totem, torchx, rnn, dpnn,
-- argcheck and torch-autograd read.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute('mkdir -p ' .. d .. '/share/luatpkg/sub'))
  return d
end

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

local n = 0
local function fresh(parent)
  n = n + 1
  local name = 'SpecLuat' .. n
  local C, p = torch.class(name, parent)
  return C, p, name
end

describe('torch.packageLuaPath, torch.include and include', function()
  local dir, oldpath
  setup(function()
    dir = tmpdir()
    -- a package installed as luarocks installs one: luatpkg/init.lua + files
    write(dir .. '/share/luatpkg/init.lua', table.concat({
      'luatpkg = {loaded = {}}',
      "torch.include('luatpkg', 'a.lua')",
      "luatpkg.fromB = torch.include('luatpkg', 'sub/b.lua')",
      "include('c.lua')",
      'return luatpkg'}, '\n'))
    write(dir .. '/share/luatpkg/a.lua', "table.insert(luatpkg.loaded, 'a')\n")
    write(dir .. '/share/luatpkg/sub/b.lua', "table.insert(luatpkg.loaded, 'b')\nreturn 42\n")
    write(dir .. '/share/luatpkg/c.lua', "table.insert(luatpkg.loaded, 'c')\n")
    oldpath = package.path
    package.path = dir .. '/share/?.lua;' .. dir .. '/share/?/init.lua;' .. package.path
  end)
  teardown(function()
    package.path = oldpath
    package.loaded.luatpkg = nil
    luatpkg = nil
    os.execute('rm -rf ' .. dir)
  end)

  it('finds the folder of a package on package.path', function()
    assert.are.equal(dir .. '/share/luatpkg', torch.packageLuaPath('luatpkg'))
    assert.is_nil(torch.packageLuaPath('no_such_package_here'))
    -- without a name: the folder holding torch's own folder
    local torchdir = torch.packageLuaPath('torch')
    assert.are.equal(torchdir:match('(.*)/'), torch.packageLuaPath())
  end)

  it('lets a package init.lua include its files (totem, torchx, rnn)', function()
    local pkg = require 'luatpkg'
    assert.are.same({'a', 'b', 'c'}, pkg.loaded)
    assert.are.equal(42, pkg.fromB)
  end)

  it('include runs a file next to the calling file', function()
    write(dir .. '/share/luatpkg/sub/d.lua', "return 'd'\n")
    -- not a tail call: that would leave no caller to take the folder of
    write(dir .. '/share/luatpkg/sub/caller.lua', "local r = include('d.lua')\nreturn r\n")
    assert.are.equal('d', dofile(dir .. '/share/luatpkg/sub/caller.lua'))
    assert.are.equal(include, rawget(_G, 'include'))
  end)

  it('names the function on bad input', function()
    H.has(H.errmsg(torch.include, 'no_such_package_here', 'x.lua'),
          "torch.include: package 'no_such_package_here' not found on package.path")
    H.has(H.errmsg(torch.include, 3, 'x.lua'), 'torch.include: package name (string) expected as argument 1, got number')
    H.has(H.errmsg(torch.include, 'luatpkg', nil), 'torch.include: file name (string) expected as argument 2, got nil')
    H.has(H.errmsg(torch.packageLuaPath, {}), 'torch.packageLuaPath: package name (string) expected, got table')
    H.has(H.errmsg(include, 5), 'include: file name (string) expected, got number')
  end)
end)

describe('torch.class on a name that exists', function()
  it('gives the existing class back, methods and all', function()
    local A, _, name = fresh('nn.Module')
    function A:__init(x) nn.Module.__init(self); self.x = x end
    function A:twice() return 2 * self.x end
    local a = A(3)
    local A2, parent = torch.class(name, 'nn.Module')
    assert.are.equal(A, A2)
    assert.are.equal(torch.getmetatable('nn.Module'), parent)
    assert.are.equal(6, A2(3):twice())
    -- a method defined again replaces the old one, for old objects too
    function A2:twice() return 20 * self.x end
    assert.are.equal(60, a:twice())
  end)

  it('lets a class file run twice, and under two module names', function()
    local file = os.tmpname()
    write(file, table.concat({
      "local C = torch.class('nn.SpecLuatTwice', 'nn.Module')",
      'function C:__init() nn.Module.__init(self); self.v = 7 end',
      'function C:updateOutput(input) self.output = input * self.v; return self.output end',
      'return C'}, '\n'))
    local C1 = dofile(file)
    local C2 = dofile(file)
    os.remove(file)
    assert.are.equal(C1, C2)
    assert.are.equal(nn.SpecLuatTwice, C1)
    assert.are.equal(14, nn.SpecLuatTwice():forward(torch.Tensor{2})[1])
  end)

  it('places the class in a module table given the second time', function()
    local A, _, name = fresh()
    local M = {}
    local A2 = torch.class(name, M)
    assert.are.equal(A, A2)
    assert.are.equal(A, M[name])
  end)

  it('takes a new parent given for an existing class', function()
    local P1, _, p1 = fresh()
    local P2, _, p2 = fresh()
    function P1:who() return 'p1' end
    function P2:who() return 'p2' end
    local _, _, name = fresh(p1)
    local C = torch.class(name, p2)
    assert.are.equal('p2', C():who())
    assert.are.equal(p2, torch.parentname(name))
  end)

  it('still refuses real misuse, naming what was wrong', function()
    local _, _, name = fresh()
    H.has(H.errmsg(torch.class, 5), 'torch.class: class name (string) expected as argument 1, got number')
    H.has(H.errmsg(torch.class, ''), 'torch.class: class name (string) expected as argument 1, got an empty string')
    H.has(H.errmsg(torch.class, name, 5), 'torch.class: parent class name (string) or module (table) expected as argument 2, got number')
    H.has(H.errmsg(torch.class, name, 'nn.Module', 'x'), 'torch.class: module (table) expected as argument 3, got string')
    H.has(H.errmsg(torch.class, name, 'SpecLuatNoSuchParent'), "torch.class: parent class 'SpecLuatNoSuchParent' does not exist")
    H.has(H.errmsg(torch.class, name, 'torch.FloatTensor'), "parent class 'torch.FloatTensor' is a C type")
    H.has(H.errmsg(torch.class, 'torch.FloatTensor'), "'torch.FloatTensor' is a C type")
    H.has(H.errmsg(torch.class, name, name), 'the chain would loop')
    local _, _, child = fresh(name)
    H.has(H.errmsg(torch.class, name, child), 'the chain would loop')
    assert.are.equal(name, torch.parentname(child))
  end)
end)

describe('the class chain as metatables (luaT)', function()
  it("makes a class metatable's metatable its parent's, up to nn.Module", function()
    local S, C, M = torch.getmetatable('nn.Sequential'), torch.getmetatable('nn.Container'),
                    torch.getmetatable('nn.Module')
    assert.are.equal(C, getmetatable(S))
    assert.are.equal(M, getmetatable(C))
    assert.is_nil(getmetatable(M))
    -- the walk a type check does: names along the chain, then it ends
    local names, mt = {}, torch.getmetatable('nn.ReLU')
    while mt do
      names[#names + 1] = mt.__typename
      mt = getmetatable(mt)
    end
    assert.are.same({'nn.ReLU', 'nn.Threshold', 'nn.Module'}, names)
  end)

  it('gives what argcheck reads: type nn.Module accepts an nn.Sequential', function()
    -- argcheck's env.istype: torch.typename, then mt.__typename up the chain
    local function istype(obj, typename)
      local mt = torch.getmetatable(torch.typename(obj))
      while mt do
        if mt.__typename == typename then return true end
        mt = getmetatable(mt)
      end
      return false
    end
    assert.is_true(istype(nn.Sequential(), 'nn.Module'))
    assert.is_true(istype(nn.Sequential(), 'nn.Container'))
    assert.is_false(istype(nn.Sequential(), 'nn.Criterion'))
    assert.is_true(istype(nn.MSECriterion(), 'nn.Criterion'))
  end)

  it("gives what torch-autograd's functionalize reads from constructors", function()
    -- nnwrapper: getmetatable(nn.X) is the class, its metatable the parent
    local function grand(ctor)
      local mt = getmetatable(ctor)
      local mmt = mt and getmetatable(mt)
      local mmmt = mmt and getmetatable(mmt)
      return mt.__typename, mmt and mmt.__typename, mmmt and mmmt.__typename
    end
    assert.are.same({'nn.Linear', 'nn.Module'}, {grand(nn.Linear)})
    assert.are.same({'nn.Sequential', 'nn.Container', 'nn.Module'}, {grand(nn.Sequential)})
    assert.are.same({'nn.MSECriterion', 'nn.Criterion'}, {grand(nn.MSECriterion)})
    local mt = getmetatable(nn.Linear)
    assert.are.equal(1, mt.__version)
    assert.are.equal(mt, mt.__index)
    assert.are.equal('function', type(mt.new))
    assert.are.equal('nn.Linear', torch.type(mt.new(2, 3)))
  end)

  it('leaves lookup, types, operators, tostring and serialization as they were', function()
    local A, _, an = fresh('nn.Module')
    function A:__init() nn.Module.__init(self); self.k = 1 end
    function A:__tostring__() return 'A(' .. self.k .. ')' end
    function A:__call__(x) return x + self.k end
    function A:__add__(o) return self.k + o.k end
    local B, _, bn = fresh(an)
    function B:__init() A.__init(self); self.k = 5 end
    local b = B()
    assert.are.equal(bn, torch.type(b))
    assert.is_true(torch.isTypeOf(b, an))
    assert.is_true(torch.isTypeOf(b, 'nn.Module'))
    assert.is_false(torch.isTypeOf(b, 'nn.Criterion'))
    assert.are.equal('A(5)', tostring(b))
    assert.are.equal(7, b(2))
    assert.are.equal(6, b + A())
    assert.are.equal(b, b:training())
    local f = torch.MemoryFile()
    f:writeObject(b)
    f:seek(1)
    local back = f:readObject()
    assert.are.equal(bn, torch.type(back))
    assert.are.equal(5, back.k)
    assert.are.equal('A(5)', tostring(back))
    -- a class seen as an object of its parent stays a plain table
    assert.are.equal(bn, tostring(torch.getmetatable(bn)))
    assert.are.equal(0, #torch.getmetatable(bn))
    assert.is_true(torch.getmetatable(bn) == torch.getmetatable(bn))
  end)

  it("keeps a parent's __index__ hook off its subclasses' class tables", function()
    local P, _, pn = fresh()
    local selves = {}
    function P:__index__(k)
      selves[#selves + 1] = self
      if k == 'magic' then return 42, true end
      return false
    end
    local p = P()   -- the hooks are installed at the first construction
    assert.are.equal(42, p.magic)
    local C = fresh(pn)
    -- defining and finding methods on the subclass: the hook only ever
    -- sees objects, never a class table
    function C:own() return 'own' end
    local c = C()
    assert.are.equal('own', c:own())
    assert.are.equal(42, c.magic)
    assert.is_true(#selves > 1)
    for _, s in ipairs(selves) do
      assert.is_nil(rawget(s, '__typename'))
      assert.is_true(s == p or s == c)
    end
  end)
end)

describe('x:data() and torch.pointer', function()
  it('gives a light userdata torch.pointer turns into the address', function()
    local x = torch.DoubleTensor(4, 3):zero()
    assert.are.equal('userdata', type(x:data()))
    assert.are.equal('userdata', type(x:storage():data()))
    -- the tensor's is the address of its first element
    local y = x:narrow(1, 2, 2)
    assert.are.equal(3 * 8, torch.pointer(y:data()) - torch.pointer(x:data()))
    assert.are.equal(torch.pointer(x:storage():data()), torch.pointer(x:data()))
    -- an empty tensor has none
    assert.are.equal(0, torch.pointer(torch.Tensor():data()))
  end)

  it('identifies a storage: the key dpnn sharedClone and getParameters use', function()
    local x = torch.FloatTensor(10)
    local views = {x:narrow(1, 1, 5), x:view(2, 5), torch.FloatTensor(x:storage())}
    for _, v in ipairs(views) do
      assert.are.equal(torch.pointer(x:storage():data()), torch.pointer(v:storage():data()))
    end
    assert.are_not.equal(torch.pointer(x:storage():data()), torch.pointer(x:clone():storage():data()))
    local l = nn.Linear(3, 2)
    local seen = {}
    for _, p in ipairs(l:parameters()) do seen[torch.pointer(p:storage():data())] = true end
    local shared = l:clone('weight', 'bias')
    for _, p in ipairs(shared:parameters()) do
      assert.is_true(seen[torch.pointer(p:storage():data())])
    end
  end)

  it('has torch.data and torch.cdata, the address as a number on request', function()
    local x = torch.FloatTensor(6):zero()
    local y = x:narrow(1, 3, 2)
    assert.are.equal(y:data(), torch.data(y))
    assert.are.equal(torch.pointer(x:data()) + 2 * 4, torch.data(y, true))
    assert.are.equal('integer', math.type(torch.data(y, true)))
    assert.are.equal(torch.pointer(x:storage()), torch.cdata(x:storage(), true))
    assert.are.equal(torch.pointer(x), torch.cdata(x, true))
    assert.is_nil(torch.data(nil))
    H.has(H.errmsg(torch.data, 5), 'torch.data: tensor or storage expected, got number')
  end)

  it('names the function on bad input', function()
    H.has(H.errmsg(torch.DoubleTensor.data, 5), 'data')
    H.has(H.errmsg(torch.DoubleStorage.data, {}), 'data')
  end)
end)

describe('math on plain numbers', function()
  it('returns floats, as Torch7 (C doubles)', function()
    for _, v in ipairs{torch.round(2.5), torch.floor(2.7), torch.ceil(2.1), torch.trunc(-2.7),
                       torch.abs(-3), torch.sqrt(4), torch.pow(2, 10), torch.frac(3)} do
      assert.are.equal('float', math.type(v))
    end
    assert.are.same({3.0, 2.0, 3.0, -2.0, 3.0, 2.0, 1024.0, 0.0},
                    {torch.round(2.5), torch.floor(2.7), torch.ceil(2.1), torch.trunc(-2.7),
                     torch.abs(-3), torch.sqrt(4), torch.pow(2, 10), torch.frac(3)})
  end)

  it('lets step % torch.round(n / 10) run when the round gives 0', function()
    local step = 7
    local r = step % torch.round(3 / 10)
    assert.is_true(r ~= r)   -- nan, as Torch7's double arithmetic
    assert.are.equal(1.0, step % torch.round(60 / 10))
  end)
end)
