-- tds (lua/tds, src/tds): Torch7's data structures outside the Lua heap:
-- tds.Hash and tds.Vec checked against Lua table models, nesting and
-- lifetime (tds._memory counts what is live outside the Lua heap), tensors
-- and storages as elements, torch serialization, sharing between Lua
-- states (__share / tds._adopt), the atomic counter, and error messages.
require 'torch'
local tds = require 'tds'

local function fullgc()
  collectgarbage(); collectgarbage()
end

-- bytes and containers live outside the Lua heap
local function live()
  fullgc()
  return tds._memory()
end

-- a small deterministic generator (the model tests do not depend on torch's)
local function lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return (s >> 16) % n + 1   -- the high bits: the low ones of an LCG cycle fast
  end
end

local function errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

describe('tds.Hash', function()
  it('matches a Lua table over 20000 random sets and removals of mixed keys', function()
    local rnd = lcg(33)
    local h, model, count = tds.Hash(), {}, 0
    local function key()
      local r = rnd(4)
      if r == 1 then return rnd(500) end
      if r == 2 then return 'k' .. rnd(500) end
      if r == 3 then return rnd(500) + 0.5 end
      return rnd(2) == 1
    end
    for step = 1, 20000 do
      local k = key()
      if rnd(3) == 1 then
        if model[k] ~= nil then count = count - 1 end
        model[k] = nil
        h[k] = nil
      else
        local v = rnd(2) == 1 and step or ('v' .. step)
        if model[k] == nil then count = count + 1 end
        model[k] = v
        h[k] = v
      end
      if step % 1000 == 0 then
        assert.are.equal(count, #h)
        local seen = 0
        for hk, hv in pairs(h) do
          assert.are.equal(model[hk], hv)
          seen = seen + 1
        end
        assert.are.equal(count, seen)
        for mk, mv in pairs(model) do assert.are.equal(mv, h[mk]) end
      end
    end
    assert.is_true(count > 600)   -- the model did hold many keys
  end)

  it('treats 1 and 1.0 as one key and keeps integers and floats apart as values', function()
    local h = tds.Hash()
    h[1] = 'a'
    h[1.0] = 'b'
    h[2^53] = 'big'
    h[-0.0] = 'zero'
    h.i, h.f = 3, 3.0
    assert.are.equal(5, #h)
    assert.are.equal('b', h[1])
    assert.are.equal('big', h[math.tointeger(2^53)])
    assert.are.equal('zero', h[0])
    assert.are.equal('integer', math.type(h.i))
    assert.are.equal('float', math.type(h.f))
    for k in pairs(h) do
      if type(k) == 'number' then assert.are.equal('integer', math.type(k)) end
    end
    assert.is_nil(h[nil])
    assert.is_nil(h[0 / 0])
    assert.is_nil(h.missing)
  end)

  it('allows removing keys during pairs, as Lua tables do', function()
    local h = tds.Hash()
    for i = 1, 100 do h[i] = i * i end
    local n = 0
    for k, v in pairs(h) do
      assert.are.equal(k * k, v)
      h[k] = nil
      n = n + 1
    end
    assert.are.equal(100, n)
    assert.are.equal(0, #h)
    assert.is_nil(next({}))
    for _ in pairs(h) do error('empty hash iterated') end
  end)

  it('converts a Lua table recursively: number-keyed tables become Vecs, others Hashes', function()
    local h = tds.Hash({a = {10, 20, 30}, b = {x = 'y'}, [{1, 2}] = true, n = 1.5})
    assert.are.equal(4, #h)
    assert.are.equal('tds.Vec', torch.type(h.a))
    assert.are.equal(20, h.a[2])
    assert.are.equal('tds.Hash', torch.type(h.b))
    assert.are.equal('y', h.b.x)
    assert.are.equal(1.5, h.n)
    local vk
    for k in pairs(h) do if torch.type(k) == 'tds.Vec' then vk = k end end
    assert.are.same({1, 2}, {vk[1], vk[2]})
    assert.is_true(h[vk])           -- a container key is found by identity
    assert.is_nil(h[tds.Vec({1, 2})])
  end)

  it('prints in Torch7 tds layout', function()
    local h = tds.Hash()
    h.name = 'x'
    assert.are.equal('tds.Hash[1]{\nname : x\n}', tostring(h))
    assert.are.equal('tds.Vec[3]{\n    1 : 4\n    2 : nil\n    3 : 2.5\n}', tostring(tds.Vec(4, nil, 2.5)))
    local v = tds.Vec()
    for i = 1, 25 do v[i] = i end
    local s = tostring(v)
    assert.is_truthy(s:find('   20 : 20\n...\n}', 1, true))
    assert.is_falsy(s:find('21 :', 1, true))
  end)
end)

describe('tds.Vec', function()
  it('matches a Lua array over 20000 random sets, inserts, removals and resizes', function()
    local rnd = lcg(7)
    local v, m, n = tds.Vec(), {}, 0
    for step = 1, 20000 do
      local op = rnd(10)
      if op <= 3 then
        local i = rnd(n + 5)
        local x
        if rnd(4) ~= 1 then x = step end   -- a quarter of the stores are nil
        v[i] = x
        m[i] = x
        if i > n then n = i end
      elseif op <= 5 then
        local i = rnd(n + 1)
        v:insert(i, 's' .. step)
        if i > n then
          m[i] = 's' .. step
          n = i
        else
          for j = n, i, -1 do m[j + 1] = m[j] end
          m[i] = 's' .. step
          n = n + 1
        end
      elseif op == 6 then
        v:insert(step)
        n = n + 1
        m[n] = step
      elseif op <= 8 and n > 0 then
        local i = rnd(n)
        local got = v:remove(i)
        assert.are.equal(m[i], got)
        for j = i, n - 1 do m[j] = m[j + 1] end
        m[n] = nil
        n = n - 1
      elseif op == 9 and n > 0 then
        assert.are.equal(m[n], v:remove())
        m[n] = nil
        n = n - 1
      elseif op == 10 then
        local s = rnd(n + 3) - 1
        v:resize(s)
        for j = s + 1, n do m[j] = nil end
        n = s
      end
      if step % 500 == 0 then
        assert.are.equal(n, #v)
        for j = 1, n do assert.are.equal(m[j], v[j]) end
        local cnt = 0
        for j, x in pairs(v) do cnt = cnt + 1; assert.are.equal(j, cnt); assert.are.equal(m[j], x) end
        assert.are.equal(n, cnt)
      end
    end
  end)

  it('builds from arguments or one table, nested tables converted', function()
    local v = tds.Vec(4, 5, 'hello', true)
    assert.are.same({4, 5, 'hello', true}, {v[1], v[2], v[3], v[4]})
    assert.are.equal(4, #v)
    v = tds.Vec({1, {2, 3}, {k = 'v'}})
    assert.are.equal('tds.Vec', torch.type(v[2]))
    assert.are.equal(3, v[2][2])
    assert.are.equal('v', v[3].k)
    assert.are.equal(0, #tds.Vec())
    assert.are.equal(0, #tds.vec())
    assert.is_nil(v[100])
  end)

  it('sorts with a comparator (stable), with < by default, and stays intact when the comparator raises', function()
    local v = tds.Vec()
    local rnd = lcg(5)
    local m = {}
    for i = 1, 300 do local x = {rnd(20), i}; m[i] = x; v[i] = x[1] * 1000 + x[2] end
    v:sort(function(a, b) return a // 1000 < b // 1000 end)
    table.sort(m, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
    for i = 1, 300 do assert.are.equal(m[i][1] * 1000 + m[i][2], v[i]) end
    local s = tds.Vec('pear', 'apple', 'fig')
    s:sort()
    assert.are.equal('apple,fig,pear', s:concat(','))
    s:sort(function(a, b) return a > b end)
    assert.are.equal('pear,fig,apple', s:concat(','))
    local err = errmsg(function() s:sort(function() error('boom') end) end)
    assert.is_truthy(err:find('boom', 1, true))
    assert.are.equal('pear,fig,apple', s:concat(','))
    err = errmsg(function() s:sort(function(a, b) s:resize(1); return a < b end) end)
    assert.is_truthy(err:find('tds.Vec.sort: the comparator resized the vector (from 3 to 1 elements)', 1, true))
    assert.are.equal(1, #s)
    err = errmsg(function() tds.Vec(1, 'a'):sort() end)
    assert.is_truthy(err:find('compare', 1, true))
    err = errmsg(function() s:sort(42) end)
    assert.is_truthy(err:find("bad argument #2 to 'tds.Vec.sort' (comparison function expected, got number)", 1, true))
  end)

  it('concatenates elements as strings, in a range, or into a CharStorage', function()
    local v = tds.Vec(1, 2.5, 'x', true)
    assert.are.equal('12.5xtrue', v:concat())
    assert.are.equal('1 / 2.5 / x / true', v:concat(' / '))
    assert.are.equal('2.5-x', v:concat('-', 2, 3))
    local st = v:concatstorage(',', 1, 2)
    assert.are.equal('torch.CharStorage', torch.type(st))
    assert.are.equal('1,2.5', st:string())
  end)
end)

describe('tds nesting and lifetime', function()
  it('frees every container and its contents when the last reference goes', function()
    local bytes0, objs0 = live()
    do
      local h = tds.Hash()
      for i = 1, 200 do
        h[i] = tds.Vec('a' .. i, tds.Hash({x = string.rep('y', 100)}))
      end
      local b, o = tds._memory()
      assert.are.equal(objs0 + 401, o)
      assert.is_true(b - bytes0 > 200 * 100)
    end
    local bytes1, objs1 = live()
    assert.are.equal(objs0, objs1)
    assert.are.equal(bytes0, bytes1)
  end)

  it('keeps a shared child alive while any parent holds it', function()
    local _, objs0 = live()
    local a, b = tds.Hash(), tds.Vec()
    do
      local child = tds.Hash()
      child.v = 42
      a.c = child
      b[1] = child
    end
    fullgc()
    a.c = nil
    fullgc()
    assert.are.equal(42, b[1].v)
    assert.are.equal(b[1], b[1])      -- one box per object and Lua state
    b = nil
    a = nil
    local _, objs1 = live()
    assert.are.equal(objs0, objs1)
  end)

  it('frees a chain nested 200000 deep without recursion', function()
    local _, objs0 = live()
    local head = tds.Vec()
    local cur = head
    for _ = 1, 200000 do
      local nxt = tds.Vec()
      cur[1] = nxt
      cur = nxt
    end
    cur = nil
    local _, objs = tds._memory()
    assert.is_true(objs >= objs0 + 200001)
    head = nil
    local _, objs1 = live()
    assert.are.equal(objs0, objs1)
  end)

  it('tells the collector about memory outside the Lua heap', function()
    local big = string.rep('x', 100000)
    local bytes0 = live()
    local peak = 0
    for _ = 1, 300 do
      local h = tds.Hash()
      for i = 1, 10 do h[i] = big end   -- 1 MB outside the heap, a few bytes in it
      local b = tds._memory()
      if b - bytes0 > peak then peak = b - bytes0 end
    end
    -- 300 MB were allocated in all; unreferenced hashes were collected on the way
    assert.is_true(peak < 100 * 1000000, 'peak ' .. peak)
  end)
end)

describe('tds with tensors and storages', function()
  it('stores a tensor view sharing its storage and a storage by identity', function()
    local t = torch.DoubleTensor({1, 2, 3, 4, 5, 6}):view(2, 3)
    local col = t:select(2, 2)
    local h = tds.Hash()
    h.t, h.col, h.s = t, col, t:storage()
    local got = h.col
    assert.are.equal('torch.DoubleTensor', torch.type(got))
    assert.are.same({2}, got:size():totable())
    assert.are.same({2, 5}, got:totable())
    got:fill(9)
    assert.are.same({{1, 9, 3}, {4, 9, 6}}, t:totable())
    assert.are.equal(t:storage(), h.s)
    assert.is_true(torch.pointer(h.t:storage()) == torch.pointer(t:storage()))
    local v = tds.Vec(torch.FloatTensor(3):fill(1.5), torch.LongTensor({7}))
    assert.are.equal('torch.FloatTensor', torch.type(v[1]))
    assert.are.same({1.5, 1.5, 1.5}, v[1]:totable())
    assert.are.equal(7, v[2][1])
  end)

  it('keeps a tensor\'s storage alive after the tensor is gone', function()
    local h = tds.Hash()
    do
      local t = torch.FloatTensor(4):fill(3)
      h[1] = t
    end
    fullgc()
    assert.are.same({3, 3, 3, 3}, h[1]:totable())
  end)

  it('finds a tensor key by view (same storage, offset, sizes and strides)', function()
    local t = torch.rand(3)
    local h = tds.Hash()
    h[t] = 'seen'
    assert.are.equal('seen', h[t])
    assert.are.equal('seen', h[t:view(3)])
    assert.is_nil(h[t:narrow(1, 1, 2)])
    assert.is_nil(h[t:clone()])
    for k, v in pairs(h) do assert.are.same(t:totable(), k:totable()); assert.are.equal('seen', v) end
  end)
end)

describe('tds serialization', function()
  it('a key named __postinit is data when loaded, never called', function()
    local h = tds.Hash()
    h.__postinit, h.x = 1, 2
    local g = torch.deserialize(torch.serialize(h))
    assert.are.equal(1, g.__postinit)
    assert.are.equal(2, g.x)
  end)

  it('round-trips tds objects inside a saved table, nested, with tensors and shared references', function()
    local h = tds.Hash()
    h.n, h.f, h.s, h.b = 7, 0.25, 'str', false
    h.v = tds.Vec(1, nil, 'three', torch.DoubleTensor({4, 5}))
    h.v[5] = tds.Hash({deep = 'yes'})
    local c = tds.AtomicCounter()
    c:set(41)
    local obj = {h = h, again = h.v, counter = c}
    local file = os.tmpname()
    torch.save(file, obj)
    local r = torch.load(file)
    os.remove(file)
    assert.are.equal('tds.Hash', torch.type(r.h))
    assert.are.equal(5, #r.h)
    assert.are.equal(7, r.h.n)
    assert.are.equal('integer', math.type(r.h.n))
    assert.are.equal(0.25, r.h.f)
    assert.are.equal('str', r.h.s)
    assert.are.equal(false, r.h.b)
    assert.are.equal(5, #r.h.v)
    assert.is_nil(r.h.v[2])
    assert.are.equal('three', r.h.v[3])
    assert.are.same({4, 5}, r.h.v[4]:totable())
    assert.are.equal('yes', r.h.v[5].deep)
    assert.are.equal(r.h.v, r.again)           -- one object in the file, one on load
    assert.are.equal('tds.AtomicCounter', torch.type(r.counter))
    assert.are.equal(41, r.counter:get())
  end)

  it('writes Torch7 tds records: version 0, the class name, the count, the elements', function()
    local s = torch.serialize(tds.Vec(5, 'a'), 'ascii')
    assert.are.equal('4\n1\n3\nV 0\n7\ntds.Vec\n2\n1\n5\n2\n1\na', s:gsub('\n$', ''))
    local v = torch.deserialize(s, 'ascii')
    assert.are.equal(5, v[1])
    assert.are.equal('a', v[2])
    local hs = torch.serialize(tds.Hash({k = 1}), 'ascii')
    assert.are.equal('4\n1\n3\nV 0\n8\ntds.Hash\n1\n2\n1\nk\n1\n1', hs:gsub('\n$', ''))
  end)
end)

describe('tds legacy files', function()
  it("loads the 'tds_hash' records of tds's first versions (fields as a table)", function()
    local s = '4\n1\n3\nV 0\n8\ntds_hash\n3\n2\n1\n2\n1\na\n1\n1\n'
    local h = torch.deserialize(s, 'ascii')
    assert.are.equal('tds.Hash', torch.type(h))
    assert.are.equal(1, #h)
    assert.are.equal(1, h.a)
  end)
end)

describe('tds sharing between Lua states (__share / tds._adopt)', function()
  it('hands over one reference that _adopt takes over', function()
    local _, objs0 = live()
    local h = tds.Hash()
    h.x = 1
    local mt = getmetatable(h)
    local ptr, ctor = mt.__share(h)
    assert.are.equal('userdata', type(ptr))
    assert.are.equal('tds._adopt', ctor)
    -- the same state already has a box: adopting gives it back, dropping the extra reference
    assert.are.equal(h, tds._adopt(ptr))
    -- a state without a box (simulated by collecting ours) makes one that holds the reference
    local ptr2 = mt.__share(h)
    h = nil
    fullgc()
    local h2 = tds._adopt(ptr2)
    assert.are.equal(1, h2.x)
    h2 = nil
    local _, objs1 = live()
    assert.are.equal(objs0, objs1)
    for _, o in ipairs({tds.Vec(), tds.AtomicCounter()}) do
      local p, c = getmetatable(o).__share(o)
      assert.are.equal('tds._adopt', c)
      assert.are.equal(o, tds._adopt(p))
    end
  end)

  it('refuses what is not a shared tds pointer', function()
    assert.is_truthy(errmsg(tds._adopt, 'x'):find("bad argument #1 to 'tds._adopt' (pointer (light userdata) from __share expected, got string)", 1, true))
  end)
end)

describe('tds.AtomicCounter', function()
  it('increments (returning the value before), gets, sets and prints', function()
    local a = tds.AtomicCounter()
    assert.are.equal(0, a:get())
    assert.are.equal(0, a:inc())
    assert.are.equal(1, a:inc())
    assert.are.equal(2, a:get())
    a:set(100)
    assert.are.equal(100, a:get())
    assert.are.equal('tds.AtomicCounter=100', tostring(a))
    a:set(-(2^62) // 1)
    assert.are.equal(-(2^62) // 1, a:get())
    assert.are.equal('tds.AtomicCounter', torch.type(tds.atomic()))
    assert.are.equal(0, tds.AtomicCounter(0):get())   -- torchnet's tests pass a start value
    assert.are.equal(7, tds.AtomicCounter(7.0):get())
  end)

  it('counts every increment of 4 threads hammering it', function()
    local a = tds.AtomicCounter()
    tds._testThreads(a, 4, 100000)
    assert.are.equal(400000, a:get())
  end)
end)

describe('tds errors', function()
  it('names the function, what was expected and what came', function()
    local h, v = tds.Hash(), tds.Vec()
    local function msg(f) return errmsg(f) end
    assert.is_truthy(msg(function() h.x = {} end):find('tds.Hash: value must be a number, string, boolean, tds.Hash, tds.Vec, tds.AtomicCounter, torch tensor or storage, got a Lua table (convert it with tds.Hash(t) or tds.Vec(t))', 1, true))
    assert.is_truthy(msg(function() h.x = print end):find('tds.Hash: value must be a number, string, boolean, tds.Hash, tds.Vec, tds.AtomicCounter, torch tensor or storage, got function', 1, true))
    assert.is_truthy(msg(function() h[print] = 1 end):find('tds.Hash: key must be', 1, true))
    assert.is_truthy(msg(function() h[nil] = 1 end):find('tds.Hash: key is nil', 1, true))
    assert.is_truthy(msg(function() h[0 / 0] = 1 end):find('tds.Hash: key is NaN', 1, true))
    assert.is_truthy(msg(function() v[0] = 1 end):find("bad argument #2 to 'tds.Vec' (index must be positive, got 0)", 1, true))
    assert.is_truthy(msg(function() v[1.5] = 1 end):find("bad argument #2 to 'tds.Vec' (index must be an integer, got 1.5)", 1, true))
    assert.is_truthy(msg(function() v[1] = io.stdout end):find('tds.Vec: value must be a number, string, boolean, tds.Hash, tds.Vec, tds.AtomicCounter, torch tensor or storage, got userdata', 1, true))
    assert.is_truthy(msg(function() return v.push end):find("tds.Vec: no method 'push'", 1, true))
    assert.is_nil(v.__postinit)
    assert.is_truthy(msg(function() v:resize(-1) end):find("bad argument #2 to 'tds.Vec.resize' (size must be a non-negative integer, got -1)", 1, true))
    assert.is_truthy(msg(function() v:insert() end):find('tds.Vec.insert: ([index,] value) expected, got 0 arguments', 1, true))
    assert.is_truthy(msg(function() v:insert(nil) end):find('tds.Vec.insert: value is nil', 1, true))
    assert.is_truthy(msg(function() v.insert(h, 1) end):find("bad argument #1 to 'tds.Vec.insert' (tds.Vec expected, got tds.Hash)", 1, true))
    assert.is_truthy(msg(function() tds.Hash(5) end):find('tds.Hash: a Lua table or nothing expected, got number', 1, true))
    assert.is_truthy(msg(function() tds.Vec({a = 1}) end):find('tds.Vec: a Lua table with positive integer keys expected, got key a', 1, true))
    assert.is_truthy(msg(function() h.me = h end):find('tds.Hash: value is the container itself (a reference loop is never freed)', 1, true))
    assert.is_truthy(msg(function() h[h] = 1 end):find('tds.Hash: key is the container itself', 1, true))
    assert.is_truthy(msg(function() v[1] = v end):find('tds.Vec: value is the container itself', 1, true))
    assert.is_truthy(msg(function() v:insert(v) end):find('tds.Vec.insert: value is the container itself', 1, true))
    local loop = {}
    loop.self = loop
    assert.is_truthy(msg(function() tds.Hash(loop) end):find('tds.Hash: the table contains itself', 1, true))
    local t = torch.rand(2)
    t:free()
    assert.is_truthy(msg(function() v[1] = t end):find('tds.Vec: value is a freed tensor', 1, true))
    assert.is_truthy(msg(function() tds.AtomicCounter():set('x') end):find("bad argument #2 to 'tds.AtomicCounter.set' (integer expected, got string)", 1, true))
    assert.is_truthy(msg(function() tds.AtomicCounter(1.5) end):find('tds.AtomicCounter: an optional integer start value expected, got number 1.5', 1, true))
    assert.is_truthy(msg(function() tds.AtomicCounter(1, 2) end):find('tds.AtomicCounter: an optional integer start value expected, got 2 arguments', 1, true))
    assert.are.equal(0, #h)    -- nothing half-stored
    assert.are.equal(0, #v)
  end)
end)
