-- threads.Mutex, threads.Condition, threads.Thread, threads.safe: the
-- low-level pieces, used across real OS threads.
require 'torch'
local threads = require 'threads'
local core = require 'threads.core'

describe('threads.Mutex', function()
  it('locks and unlocks; Mutex(id) is the same mutex', function()
    local m = threads.Mutex()
    local id = m:id()
    assert.are.equal('number', type(id))
    local m2 = threads.Mutex(id)
    assert.are.equal(id, m2:id())
    m:lock()
    -- the same mutex through the other handle: held by this thread already
    assert.has_error(function() m2:lock() end,
      'threads.Mutex:lock: this thread holds the mutex already (it would wait forever)')
    m2:unlock()
    assert.has_error(function() m:unlock() end, 'threads.Mutex:unlock: the mutex is not locked by this thread')
    m:free()
    m2:free()
    assert.has_error(function() m:lock() end, 'threads.Mutex:lock: the threads.Mutex was freed (:free())')
  end)

  it('refuses ids of no live mutex', function()
    local m = threads.Mutex()
    local id = m:id()
    m:free()
    assert.has_error(function() threads.Mutex(id) end, 'threads.Mutex: no live mutex has id ' .. id)
    assert.has_error(function() threads.Mutex('x') end,
      'threads.Mutex: a mutex id (integer, from mutex:id()) expected, got string')
  end)

  it('keeps a counter exact across threads (read, add, write under the lock)', function()
    threads.Threads.serialization('threads.sharedserialize')
    local counter = torch.LongTensor(1):zero()
    local m = threads.Mutex()
    local pool = threads.Threads(4)
    for _ = 1, 8 do
      pool:addjob(function()
        for _ = 1, 500 do
          m:lock()
          local v = counter[1]
          counter[1] = v + 1
          m:unlock()
        end
      end)
    end
    pool:synchronize()
    pool:terminate()
    threads.Threads.serialization('threads.serialize')
    assert.are.equal(4000, counter[1])
  end)

  it('is unlocked when a job fails while holding it', function()
    local m = threads.Mutex()
    local pool = threads.Threads(1)
    pool:addjob(function() m:lock(); error('failed holding the lock') end)
    assert.has_error(function() pool:synchronize() end)
    -- the thread unlocked it: the main thread can take it
    local c = threads.Condition()
    m:lock()
    m:unlock()
    local v
    pool:addjob(function() m:lock(); m:unlock(); return 'again' end, function(x) v = x end)
    pool:synchronize()
    pool:terminate()
    assert.are.equal('again', v)
    c:free()
  end)
end)

describe('threads.Condition', function()
  it('wakes a waiting thread on signal', function()
    local m, c = threads.Mutex(), threads.Condition()
    local flag = torch.IntTensor(1):zero()
    threads.Threads.serialization('threads.sharedserialize')
    local pool = threads.Threads(1)
    pool:addjob(function()
      m:lock()
      while flag[1] == 0 do c:wait(m, 10) end
      local seen = flag[1]
      m:unlock()
      return seen
    end, function(x) flag[1] = x * 10 end)
    m:lock()
    flag[1] = 7
    c:signal()
    m:unlock()
    pool:synchronize()
    pool:terminate()
    threads.Threads.serialization('threads.serialize')
    assert.are.equal(70, flag[1])
  end)

  it('times out, and requires the mutex held', function()
    local m, c = threads.Mutex(), threads.Condition()
    assert.has_error(function() c:wait(m) end,
      'threads.Condition:wait: lock the mutex first (it is not held by this thread)')
    m:lock()
    assert.is_false(c:wait(m, 0.01))
    m:unlock()
    c:broadcast()
    assert.are.equal(c:id(), threads.Condition(c:id()):id())
    assert.has_error(function() c:wait('m') end,
      'threads.Condition:wait: threads.Mutex expected as argument 2, got string')
  end)
end)

describe('threads.Thread', function()
  it('runs Lua code in a thread of its own; free waits and tells whether it succeeded', function()
    local m, c = threads.Mutex(), threads.Condition()
    local out = torch.DoubleTensor(1):zero()
    local ptr = core.ptrtoint((core.share(out)))
    local t = threads.Thread(string.format([[
      require 'torch'
      local threads = require 'threads'
      local core = require 'threads.core'
      local out = threads._adopt(core.inttoptr(%d))
      local s = 0
      for i = 1, 100 do s = s + i end
      out[1] = s
    ]], ptr))
    assert.is_true(t:free())
    assert.are.equal(5050, out[1])
    local bad = threads.Thread('error("from the thread")')
    io.stderr:write('(an error message from a thread follows: expected)\n')
    assert.is_false(bad:free())
    assert.has_error(function() bad:free() end, 'threads.Thread:free: the thread was freed already')
    assert.has_error(function() threads.Thread(3) end, 'threads.Thread: Lua code (string) expected, got number')
    m:free(); c:free()
  end)
end)

describe('threads.safe', function()
  it('runs the function one thread at a time, and unlocks on error', function()
    threads.Threads.serialization('threads.sharedserialize')
    local acc = torch.DoubleTensor(1000):zero()
    local run = threads.safe(function(n)
      -- not atomic without the lock: read all, then write all
      local v = acc:clone()
      acc:copy(v:add(n))
      return n
    end)
    local pool = threads.Threads(4)
    local total = 0
    for i = 1, 40 do pool:addjob(function() return run(1) end, function(n) total = total + n end) end
    pool:synchronize()
    pool:terminate()
    threads.Threads.serialization('threads.serialize')
    assert.are.equal(40, total)
    assert.are.equal(40, acc:min())
    assert.are.equal(40, acc:max())
    local failing = threads.safe(function() error('inside safe') end)
    assert.has_error(function() failing() end)
    assert.has_error(function() failing() end)  -- not locked forever
    assert.has_error(function() threads.safe(3) end, 'threads.safe: function expected as argument 1, got number')
  end)
end)
