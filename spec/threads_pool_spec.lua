-- threads.Threads: jobs run in other OS threads (each its own Lua state)
-- and their results come back to end callbacks on the main thread.
require 'torch'
local threads = require 'threads'
local core = require 'threads.core'

local function serialsum(n)
  local s = 0
  for i = 1, n do s = s + i * i end
  return s
end

describe('threads.Threads', function()
  before_each(function() threads.Threads.serialization('threads.serialize') end)

  it('runs jobs in the pool and hands their results to end callbacks', function()
    local pool = threads.Threads(3)
    local sum, seen = 0, {}
    for i = 1, 30 do
      pool:addjob(function(x) return x * x, __threadid end,
                  function(v, tid) sum = sum + v; seen[tid] = true end, i)
    end
    pool:synchronize()
    assert.are.equal(serialsum(30), sum)
    for tid in pairs(seen) do assert.is_true(tid >= 1 and tid <= 3) end
    assert.is_false(pool:hasjob())
    pool:terminate()
    assert.is_false(pool:isrunning())
  end)

  it('computes in threads what the serial loop computes (tensor sums)', function()
    torch.manualSeed(1)
    local data = {}
    for i = 1, 8 do data[i] = torch.DoubleTensor(1000):uniform() end
    local pool = threads.Threads(2)
    local got = {}
    for i = 1, 8 do
      pool:addjob(function(t) return t:sum() end, function(s) got[i] = s end, data[i])
    end
    pool:synchronize()
    pool:terminate()
    for i = 1, 8 do assert.are.equal(data[i]:sum(), got[i]) end
  end)

  it('runs every init function in every thread with its index, returns the last ones results', function()
    local base = 100
    local pool, initres = threads.Threads(3,
      function(i) gbase = base + i end,
      function(i) return gbase, i end)
    table.sort(initres, function(a, b) return a[2] < b[2] end)
    assert.are.same({{101, 1}, {102, 2}, {103, 3}}, initres)
    local ids = {}
    pool:specific(true)
    for i = 1, 3 do pool:addjob(i, function() return gbase, __threadid end, function(b, t) ids[t] = b end) end
    pool:synchronize()
    pool:terminate()
    assert.are.same({101, 102, 103}, ids)
  end)

  it('serializes closures with their upvalues (tables, shared upvalues, nested functions)', function()
    local cfg = {scale = 3, names = {'a', 'b'}}
    local counter = 10
    local function bump() counter = counter + 1; return counter end
    local function peek() return counter end
    local pool = threads.Threads(1)
    local res
    pool:addjob(function()
      local x = bump(); bump()
      return x * cfg.scale, peek(), cfg.names[2]
    end, function(a, b, c) res = {a, b, c} end)
    pool:synchronize()
    pool:terminate()
    -- bump and peek share 'counter' in the thread too; the main's is untouched
    assert.are.same({33, 12, 'b'}, res)
    assert.are.equal(10, counter)
  end)

  it('sends modules by name: an upvalue holding torch is the thread own torch', function()
    local t = torch
    local pool = threads.Threads(1)
    local res
    pool:addjob(function() return t == torch, t.FloatTensor(3):fill(2):sum() end,
                function(same, s) res = {same, s} end)
    pool:synchronize()
    pool:terminate()
    assert.are.same({true, 6}, res)
  end)

  it('copies a loaded module of plain data (a config changed since it was loaded)', function()
    package.loaded['threads_spec_config'] = {batch = 32}
    local cfg = require 'threads_spec_config'
    cfg.batch = 64
    local pool = threads.Threads(1)
    local got
    pool:addjob(function() return cfg.batch end, function(b) got = b end)
    pool:synchronize()
    pool:terminate()
    package.loaded['threads_spec_config'] = nil
    assert.are.equal(64, got)
  end)

  it('passes job arguments and several results, nils included', function()
    local pool = threads.Threads(1)
    local res
    pool:addjob(function(a, b, c) return c, b, a, nil, 'end' end,
                function(...) res = table.pack(...) end, 1, nil, 'x')
    pool:synchronize()
    pool:terminate()
    assert.are.equal(5, res.n)
    assert.are.same({'x', nil, 1, nil, 'end'}, {res[1], res[2], res[3], res[4], res[5]})
  end)

  it('works asynchronously with acceptsjob, hasjob and dojob', function()
    local pool = threads.Threads(2)
    local nsent, ndone, total = 0, 0, 0
    while ndone < 20 do
      while nsent < 20 and pool:acceptsjob() do
        nsent = nsent + 1
        pool:addjob(function(i) return i end, function(i) total = total + i; ndone = ndone + 1 end, nsent)
      end
      if pool:hasjob() then pool:dojob() end
    end
    assert.are.equal(210, total)
    -- dojob with nothing running returns at once
    pool:dojob()
    pool:terminate()
  end)

  it('lets end callbacks yield in a coroutine', function()
    local pool = threads.Threads(1)
    local got = {}
    for r in coroutine.wrap(function()
      pool:addjob(function() return 1 end, coroutine.yield)
      pool:addjob(function() return 2 end, coroutine.yield)
      pool:synchronize()
    end) do got[#got + 1] = r end
    pool:terminate()
    assert.are.same({1, 2}, got)
  end)

  it('raises a job error at synchronize with the thread message and traceback, and stays usable', function()
    local pool = threads.Threads(1)
    pool:addjob(function()
      function failing_here() error('bad value 42') end
      failing_here()
    end)
    local ok, err = pcall(pool.synchronize, pool)
    assert.is_false(ok)
    assert.truthy(err:find('[thread 1 callback]', 1, true))
    assert.truthy(err:find('bad value 42', 1, true))
    assert.truthy(err:find("in function 'failing_here'", 1, true))
    local v
    pool:addjob(function() return 7 end, function(x) v = x end)
    pool:synchronize()
    assert.are.equal(7, v)
    pool:terminate()
  end)

  it('raises an end callback error, naming it', function()
    local pool = threads.Threads(1)
    pool:addjob(function() return 1 end, function() error('in the end callback') end)
    local ok, err = pcall(pool.synchronize, pool)
    assert.is_false(ok)
    assert.truthy(err:find('[thread 1 endcallback]', 1, true))
    assert.truthy(err:find('in the end callback', 1, true))
    pool:terminate()
  end)

  it('terminates cleanly with failed jobs pending, then raises the first error', function()
    local pool = threads.Threads(2)
    -- two jobs fit the queue (N jobs): addjob does not run end callbacks
    for i = 1, 2 do pool:addjob(function() error('job failed ' .. 1) end) end
    local ok, err = pcall(pool.terminate, pool)
    assert.is_false(ok)
    assert.truthy(err:find('job failed 1', 1, true))
    assert.is_false(pool:isrunning())
    pool:terminate()  -- twice is harmless
    pool:synchronize()
    assert.are.same({0, 0}, {core.count('queue')})
  end)

  it('raises an init function error from the constructor and stops its threads', function()
    local ok, err = pcall(threads.Threads, 2, function(i) if i == 2 then error('init of 2 failed') end end)
    assert.is_false(ok)
    assert.truthy(err:find('init of 2 failed', 1, true))
    assert.truthy(err:find('[thread 2 callback]', 1, true))
    assert.are.equal(0, (core.count('queue')))
  end)

  it('raises instead of waiting forever when its threads cannot start', function()
    local saved = package.path
    package.path = '/nonexistent/?.lua'   -- the threads find no worker loop
    io.stderr:write('(errors of threads that cannot start follow: expected)\n')
    local ok, err = pcall(threads.Threads, 2)
    package.path = saved
    assert.is_false(ok)
    assert.truthy(err:find('died (its error is above): its jobs are lost', 1, true))
    assert.are.same({0, 0}, {core.count()})
  end)

  it('refuses what cannot be serialized, in the main thread', function()
    local pool = threads.Threads(1)
    local cfun = io.write
    local ok, err = pcall(pool.addjob, pool, function() return cfun end)
    assert.is_false(ok)
    assert.truthy(err:find('threads.Threads:addjob: cannot serialize the job', 1, true))
    assert.truthy(err:find('C function', 1, true))
    assert.is_false(pool:hasjob())
    pool:terminate()
  end)

  it('reports results that cannot be sent back as the job error', function()
    local pool = threads.Threads(1)
    pool:addjob(function() return coroutine.create(function() end) end)
    local ok, err = pcall(pool.synchronize, pool)
    assert.is_false(ok)
    assert.truthy(err:find('cannot send the results of the job back', 1, true))
    pool:terminate()
  end)

  it('checks its arguments', function()
    assert.has_error(function() threads.Threads(0) end,
      'threads.Threads: the number of threads (integer >= 1) expected, got 0')
    assert.has_error(function() threads.Threads(1, 'x') end,
      'threads.Threads: argument 2 must be an init function, got string')
    assert.has_error(function() threads.Threads.serialization('no.such.module') end)
    local pool = threads.Threads(1)
    assert.has_error(function() pool:addjob('x') end, 'threads.Threads:addjob: function callback expected, got string')
    assert.has_error(function() pool:addjob(function() end, 3) end,
      'threads.Threads:addjob: function (or nil) endcallback expected, got number')
    pool:specific(true)
    assert.has_error(function() pool:addjob(function() end) end)
    assert.has_error(function() pool:addjob(2, function() end) end)
    pool:terminate()
    assert.has_error(function() pool:addjob(function() end) end, 'threads.Threads:addjob: the pool was terminated')
  end)

  it('keeps the old forms: require returns a callable, serialization on it', function()
    assert.are.equal('threads.serialize', threads.serialization())
    local pool = threads(1)
    local v
    pool:addjob(function() return 5 end, function(x) v = x end)
    pool:synchronize()
    pool:terminate()
    assert.are.equal(5, v)
  end)

  it('gives each thread its own random generator, seeded as in the main thread', function()
    torch.manualSeed(42)
    local want = torch.uniform()
    local pool = threads.Threads(2)
    local got = {}
    pool:specific(true)
    for i = 1, 2 do
      pool:addjob(i, function() torch.manualSeed(42); return torch.uniform() end, function(u) got[i] = u end)
    end
    pool:synchronize()
    pool:terminate()
    assert.are.same({want, want}, got)
  end)

  it('leaves no shared object behind', function()
    local pool = threads.Threads(2)
    for i = 1, 10 do pool:addjob(function() return torch.ones(4) end) end
    pool:terminate()
    collectgarbage()
    assert.are.same({0, 0}, {core.count()})
  end)
end)
