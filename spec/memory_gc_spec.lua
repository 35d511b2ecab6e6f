-- GC pressure (issue 7, first technique): every storage allocation is
-- reported to the Lua collector in bytes (th_lua_gcstep), so loops making
-- large temporaries stay bounded without free() or collectgarbage().
require 'torch'

local MiB, GiB = 1024 * 1024, 1024 * 1024 * 1024

-- starts a measurement from a clean state (garbage of earlier specs freed)
local function fresh()
  collectgarbage()
  collectgarbage()
  torch.resetPeakMemory()
  return torch.memoryStats()
end

describe('GC pressure', function()
  it('keeps 10 GiB of 100 MiB temporary tensors under 1 GiB at peak', function()
    local before = fresh()
    for _ = 1, 100 do
      local t = torch.FloatTensor(25 * MiB)   -- 100 MiB, never freed explicitly
      assert.are.equal(25 * MiB, t:nElement())
    end
    local after = torch.memoryStats()
    assert.are.equal(100, after.total_count - before.total_count)   -- all 100 were really allocated
    assert.is_true(after.peak_bytes < GiB, 'peak ' .. after.peak_bytes / MiB .. ' MiB')
  end)

  -- the variants below allocate 3 GiB: enough to show a bound under 1 GiB,
  -- and quick under the sanitizers
  it('does the same for storages', function()
    local before = fresh()
    for _ = 1, 30 do
      local s = torch.DoubleStorage(100 * MiB // 8)
      assert.are.equal(100 * MiB // 8, s:size())
    end
    local after = torch.memoryStats()
    assert.are.equal(30, after.total_count - before.total_count)
    assert.is_true(after.peak_bytes < GiB, 'peak ' .. after.peak_bytes / MiB .. ' MiB')
  end)

  -- each temporary here lives across later allocations: in generational
  -- mode (lua5.4's default) it gets old, and old objects die only in a
  -- major collection, which th_lua_gcstep has to start itself
  for _, mode in ipairs{'generational', 'incremental'} do
    it('collects temporaries that outlive other allocations (' .. mode .. ' mode)', function()
      local old = collectgarbage(mode)
      local a = torch.FloatTensor(1024, 1024):fill(1)   -- 4 MiB, touched: keep it small
      local base = fresh().live_bytes
      local sum = 0
      for i = 1, 40 do   -- 40 x (4 + 8 + 8) MiB = 800 MiB worth
        local c = a:clone()
        local d = c:double()
        local e = d:t():contiguous()
        sum = sum + e[1][i]
      end
      local peak = torch.memoryStats().peak_bytes - base
      collectgarbage(old)
      assert.are.equal(40, sum)
      assert.is_true(peak < 256 * MiB, 'peak above the base ' .. peak / MiB .. ' MiB')
    end)
  end

  it('stays bounded with a large live Lua heap', function()
    local keep = {}
    for i = 1, 100000 do keep[i] = {i} end   -- ~9 MiB of live Lua objects
    fresh()
    for _ = 1, 30 do local _ = torch.FloatTensor(25 * MiB) end
    assert.is_true(torch.memoryStats().peak_bytes < GiB)
    assert.are.equal(100000, #keep)
  end)

  it('stays bounded in incremental mode too', function()
    local old = collectgarbage('incremental')
    fresh()
    for _ = 1, 30 do local _ = torch.FloatTensor(25 * MiB) end
    local peak = torch.memoryStats().peak_bytes
    collectgarbage(old)
    assert.is_true(peak < GiB, 'peak ' .. peak / MiB .. ' MiB')
  end)

  it('leaves a stopped collector stopped', function()
    local base = fresh().live_bytes
    collectgarbage('stop')
    for _ = 1, 3 do local _ = torch.FloatTensor(25 * MiB) end
    local live = torch.memoryStats().live_bytes - base
    collectgarbage('restart')
    assert.are.equal(300 * MiB, live)
  end)

  it('frees what the loop left behind once collected', function()
    fresh()
    for _ = 1, 10 do local _ = torch.FloatTensor(25 * MiB) end
    local live = fresh().live_bytes
    assert.is_true(live < 100 * MiB, 'live ' .. live / MiB .. ' MiB')
  end)
end)
