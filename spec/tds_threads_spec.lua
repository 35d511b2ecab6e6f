-- tds between threads (threads.Threads workers, each its own Lua state):
-- containers and counters go by reference (__share / tds._adopt), in both
-- directions, and are freed once every state has dropped them. Needs the
-- threads package; pending where it is absent.
require 'torch'
local tds = require 'tds'
local hasThreads, threads = pcall(require, 'threads')
local it_threads = hasThreads and it or pending

local function live()
  collectgarbage(); collectgarbage()
  return tds._memory()
end

describe('tds shared with threads', function()
  it_threads('reads a shared Vec, counts on a shared counter, returns new containers by reference', function()
    threads.Threads.serialization('threads.sharedserialize')
    local bytes0, objs0 = live()
    do
      local src, counter, results = tds.Vec(), tds.AtomicCounter(), {}
      for i = 1, 1000 do src[i] = 'w' .. i end
      local pool = threads.Threads(3, function() require 'tds' end)
      for j = 1, 6 do
        pool:addjob(function()
          local v = tds.Vec()
          for i = 1, #src do
            v[i] = src[i] .. '-' .. j
            counter:inc()
          end
          v:insert(torch.FloatTensor(4):fill(j))
          return j, v
        end, function(j, v) results[j] = v end)
      end
      pool:synchronize()
      pool:terminate()
      assert.are.equal(6000, counter:get())
      for j = 1, 6 do
        assert.are.equal('tds.Vec', torch.type(results[j]))
        assert.are.equal(1001, #results[j])
        assert.are.equal('w1-' .. j, results[j][1])
        assert.are.equal('w1000-' .. j, results[j][1000])
        assert.are.same({j, j, j, j}, results[j][1001]:totable())
      end
    end
    local bytes1, objs1 = live()
    assert.are.equal(objs0, objs1)
    assert.are.equal(bytes0, bytes1)
  end)

  it_threads('shares one Hash: a worker\'s writes are seen by the main thread', function()
    threads.Threads.serialization('threads.sharedserialize')
    local h = tds.Hash()
    local pool = threads.Threads(1, function() require 'tds' end)
    pool:addjob(function()
      for i = 1, 100 do h[i] = i * i end
      h.t = torch.DoubleTensor({1, 2})
    end)
    pool:synchronize()
    pool:terminate()
    assert.are.equal(101, #h)
    assert.are.equal(2500, h[50])
    assert.are.same({1, 2}, h.t:totable())
  end)
end)
