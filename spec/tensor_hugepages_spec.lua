-- blocks of 4 MiB and more start on a 2 MiB boundary and ask for
-- transparent huge pages (src/tensor/th_alloc.c); TH_HUGEPAGES=0 turns it
-- off. The kernel's answer depends on its setting: the page count is
-- checked only where the setting lets a process ask
require 'torch'

local HUGE = 2 * 1024 * 1024

local function thpMode()
  local f = io.open('/sys/kernel/mm/transparent_hugepage/enabled')
  if not f then return nil end
  local s = f:read('a')
  f:close()
  return s:match('%[(%w+)%]')
end

local function anonHugeKiB()
  local f = io.open('/proc/self/smaps_rollup')
  if not f then return nil end
  local s = f:read('a')
  f:close()
  return tonumber(s:match('AnonHugePages:%s*(%d+)'))
end

local function run(env, code)
  local p = assert(io.popen(env .. ' bin/th -e ' .. string.format('%q', code) .. ' 2>&1'))
  local out = p:read('a')
  p:close()
  return out
end

describe('huge pages for large blocks', function()
  it('a block of 4 MiB and more starts on a 2 MiB boundary', function()
    for _, n in ipairs{1024 * 1024, 3 * 1024 * 1024 + 7, 16 * 1024 * 1024} do
      local t = torch.FloatTensor(n):fill(1)
      assert.are.equal(0, torch.pointer(t:data()) % HUGE, n .. ' floats')
      assert.are.equal(n, t:sum())
    end
  end)

  it('the pages of a large block are huge where the kernel gives them on request', function()
    local mode = thpMode()
    if mode ~= 'madvise' and mode ~= 'always' then return end
    local before = anonHugeKiB()
    local t = torch.FloatTensor(16 * 1024 * 1024):fill(2)   -- 64 MiB
    local after = anonHugeKiB()
    assert.is_true(after - before >= 32 * 1024, before .. ' -> ' .. after .. ' KiB')
    assert.are.equal(2 * 16 * 1024 * 1024, t:sum())
  end)

  it('TH_HUGEPAGES=0 keeps 4 KiB pages, and the numbers are the same', function()
    local mode = thpMode()
    local code = [[
      local function huge() local f = io.open('/proc/self/smaps_rollup'); local s = f:read('a'); f:close()
        return tonumber(s:match('AnonHugePages:%s*(%d+)')) end
      local b = huge(); local t = torch.FloatTensor(16 * 1024 * 1024):fill(3)
      print(huge() - b, t:sum())]]
    local off = run('TH_HUGEPAGES=0', code)
    local on = run('TH_HUGEPAGES=1', code)
    local offKiB, offSum = off:match('^(%d+)%s+(%S+)')
    local onKiB, onSum = on:match('^(%d+)%s+(%S+)')
    assert.is_not_nil(offKiB, off)
    assert.is_not_nil(onKiB, on)
    assert.are.equal(onSum, offSum)
    if mode == 'madvise' then assert.are.equal('0', offKiB) end
    if mode == 'madvise' or mode == 'always' then assert.is_true(tonumber(onKiB) >= 32 * 1024, on) end
  end)
end)
