-- threads.serialize copies tensors between threads; threads.sharedserialize
-- shares their storage: what a worker writes, the main thread sees.
require 'torch'
local threads = require 'threads'
local core = require 'threads.core'

local function withpool(mode, n, f)
  threads.Threads.serialization(mode)
  local pool = threads.Threads(n)
  local ok, err = pcall(f, pool)
  pool:terminate()
  threads.Threads.serialization('threads.serialize')
  if not ok then error(err, 0) end
end

describe('threads.sharedserialize', function()
  it('shares a tensor: filled in a worker, visible in the main thread', function()
    local x = torch.FloatTensor(4, 5):zero()
    withpool('threads.sharedserialize', 2, function(pool)
      for r = 1, 4 do
        pool:addjob(function(row) x[row]:fill(row * 10) end, nil, r)
      end
      pool:synchronize()
    end)
    for r = 1, 4 do assert.are.equal(r * 10 * 5, x[r]:sum()) end
  end)

  it('shares views with their geometry, and storages as themselves', function()
    local base = torch.DoubleTensor(6, 4):zero()
    local col = base:select(2, 3)       -- strided view
    local st = torch.IntStorage(3):fill(1)
    withpool('threads.sharedserialize', 1, function(pool)
      local info
      pool:addjob(function()
        col:fill(5)
        st[2] = 9
        return col:size(1), col:stride(1), col:storageOffset(), torch.type(st)
      end, function(...) info = {...} end)
      pool:synchronize()
      assert.are.same({6, 4, 3, 'torch.IntStorage'}, info)
    end)
    assert.are.equal(30, base:sum())
    assert.are.equal(30, base:select(2, 3):sum())
    assert.are.same({1, 9, 1}, {st[1], st[2], st[3]})
  end)

  it('keeps one Lua object per storage and identity between tensors of a job', function()
    local a = torch.FloatTensor(10):fill(1)
    local b = a:narrow(1, 3, 4)
    withpool('threads.sharedserialize', 1, function(pool)
      local res
      pool:addjob(function(t)
        return t == a, torch.pointer(a:storage()) == torch.pointer(b:storage())
      end, function(same, samest) res = {same, samest} end, a)
      pool:synchronize()
      assert.are.same({true, true}, res)
    end)
  end)

  it('brings back tensors made in a worker, alive after the worker dropped them', function()
    local got = {}
    withpool('threads.sharedserialize', 2, function(pool)
      for i = 1, 6 do
        pool:addjob(function(k)
          local t = torch.LongTensor(100):fill(k)
          return t
        end, function(t) got[i] = t end, i)
      end
      pool:synchronize()
      pool:specific(true)
      for i = 1, 2 do pool:addjob(i, function() collectgarbage(); collectgarbage() end) end
      pool:synchronize()
    end)
    collectgarbage()
    for i = 1, 6 do assert.are.equal(100 * i, got[i]:sum()) end
  end)

  it('counts references exactly: nothing in flight, storages freed with their last holder', function()
    local x = torch.FloatTensor(1000):fill(3)
    local refs0 = x:storage():_refcount()
    withpool('threads.sharedserialize', 2, function(pool)
      for _ = 1, 10 do pool:addjob(function() return x:sum() end) end
      pool:synchronize()
    end)
    collectgarbage(); collectgarbage()
    assert.are.equal(refs0, x:storage():_refcount())
    assert.are.same({0, 0}, {core.count()})
  end)

  it('collects batches a worker made once the main thread drops them (no pile-up)', function()
    collectgarbage(); collectgarbage()
    torch.resetPeakMemory()
    local n = 0
    withpool('threads.sharedserialize', 2, function(pool)
      for _ = 1, 40 do
        pool:addjob(function() return torch.FloatTensor(2000000):fill(1) end, function(t) n = n + t[1] end)
      end
      pool:synchronize()
    end)
    assert.are.equal(40, n)
    -- 40 batches of 8 MB: without pacing this thread's collector by the
    -- bytes it adopts, all 320 MB stay alive (305 MiB peak)
    assert.is_true(torch.memoryStats().peak_bytes < 160 * 2^20, torch.memoryStats().peak_bytes)
  end)

  it('serialize.save/load round trip and share', function()
    local ser = require 'threads.sharedserialize'
    local t = torch.DoubleTensor(3):fill(2)
    local st = ser.save({t = t, n = 4, f = function(a) return a + 1 end})
    assert.are.equal('torch.CharStorage', torch.type(st))
    local v = ser.load(st)
    assert.are.equal(5, v.f(v.n))
    v.t:fill(7)
    assert.are.equal(21, t:sum())
    local plain = require 'threads.serialize'
    local c = plain.load(plain.save(t))
    c:fill(1)
    assert.are.equal(21, t:sum())
    assert.are.equal(3, c:sum())
    assert.are.same({0, 0}, {core.count()})
  end)

  it('refuses to adopt a reference twice or one never shared', function()
    local ptr = core.share(torch.FloatTensor(2))
    local t = threads._adopt(ptr)
    assert.are.equal(2, t:size(1))
    assert.has_error(function() threads._adopt(ptr) end,
      'threads._adopt: not a reference in flight (adopted already, or never shared)')
    assert.has_error(function() threads._adopt(core.inttoptr(123456789)) end,
      'threads._adopt: not a reference in flight (adopted already, or never shared)')
    assert.has_error(function() threads._adopt(1) end,
      'threads._adopt: a shared reference (light userdata from __share) expected, got number')
  end)

  it('gives tensors and storages the __share protocol', function()
    local mt = getmetatable(torch.FloatTensor())
    local ptr, ctor = mt.__share(torch.FloatTensor(3):fill(4))
    assert.are.equal('threads._adopt', ctor)
    local modname, fname = ctor:match('^(.*)%.([^%.]+)$')
    local back = require(modname)[fname](ptr)
    assert.are.equal(12, back:sum())
  end)
end)

describe('threads.serialize (default)', function()
  it('copies tensors: a worker change is not seen by the main thread', function()
    local x = torch.FloatTensor(5):fill(1)
    local sum
    withpool('threads.serialize', 1, function(pool)
      pool:addjob(function() x:fill(9); return x:sum() end, function(s) sum = s end)
      pool:synchronize()
    end)
    assert.are.equal(45, sum)
    assert.are.equal(5, x:sum())
  end)

  it('still shares threads objects (a mutex passed as an upvalue is the same mutex)', function()
    local m = threads.Mutex()
    local id
    withpool('threads.serialize', 1, function(pool)
      pool:addjob(function() return m:id() end, function(i) id = i end)
      pool:synchronize()
    end)
    assert.are.equal(m:id(), id)
  end)
end)

describe('threads.Queue', function()
  it('carries jobs between threads, shared as an upvalue', function()
    local q = threads.Queue(4)
    local pool = threads.Threads(2)
    for i = 1, 6 do
      pool:addjob(function(k) q:addjob(function(v) return v * 2 end, k) end, nil, i)
    end
    local total = 0
    for _ = 1, 6 do total = total + q:dojob() end
    pool:synchronize()
    pool:terminate()
    assert.are.equal(42, total)
    assert.has_error(function() threads.Queue(-1) end, 'threads.Queue: the queue size (integer >= 0) expected, got -1')
  end)
end)
