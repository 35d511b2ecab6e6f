-- DenseNet-BC's plain training memory (docs/dev/densenet.md): the block
-- cache resizes a cached block for a request of another class instead of
-- keeping blocks above the high-water mark of large blocks handed out plus
-- a slack (a sixteenth of it, or up to 128 MiB while under a quarter; a
-- quarter before).
require 'torch'
require 'nn'

local MiB = 1024 * 1024

-- what the cache may hold above the high-water mark of large blocks handed
-- out (th_blockcache.c): a sixteenth of it, or up to 128 MiB while that is
-- under a quarter
local function slack(hwm)
  return math.max(hwm // 16, math.min(hwm // 4, 128 * MiB))
end

local function settle()
  collectgarbage(); collectgarbage()
  torch.freeBlockCache()
end

-- a DenseNet-BC of the zoo (cifar, depth 16: two dense layers per block), float
local function smallDenseNet(batch)
  torch.manualSeed(7)
  local net, input = require('models.densenet'){dataset = 'cifar10', depth = 16, growthRate = 12,
                                                batch = batch, type = 'float'}
  return net, input
end

local function trainStep(net, crit, input, target)
  net:zeroGradParameters()
  local out = net:forward(input)
  crit:forward(out, target)
  net:backward(input, crit:backward(out, target))
end

-- calls check() after every method call of every module of net
local function watch(net, check)
  local function wrap(m)
    for _, meth in ipairs{'updateOutput', 'updateGradInput', 'accGradParameters', 'backward'} do
      local f = m[meth]
      m[meth] = function(self, ...)
        local r = f(self, ...)
        check(torch.type(self) .. '.' .. meth)
        return r
      end
    end
    if m.modules then for _, c in ipairs(m.modules) do wrap(c) end end
  end
  wrap(net)
end

describe('DenseNet-BC plain training memory', function()
  it('resident large blocks (handed out + cached) stay within the slack above the high-water mark of those handed out', function()
    settle()
    local net, input = smallDenseNet(16)
    local target = torch.LongTensor(16):random(1, 10)
    local crit = nn.ClassNLLCriterion():float()
    local worst, where = 0, nil
    watch(net, function(name)
      local s = torch.memoryStats()
      local hwm = s.large_high_water_bytes
      local over = s.large_bytes + s.cached_bytes - (hwm + slack(hwm))
      if over > worst then worst, where = over, name end
    end)
    for _ = 1, 3 do trainStep(net, crit, input, target) end
    assert.are.equal(0, worst, tostring(where))
    assert.is_true(torch.memoryStats().resized_count > 0)
  end)

  it('gives the same gradients with the cache as without it', function()
    local function grads(limit)
      settle()
      local prev = torch.blockCacheLimit(limit)
      local net, input = smallDenseNet(8)
      local target = torch.LongTensor(8):random(1, 10)
      local crit = nn.ClassNLLCriterion():float()
      for _ = 1, 3 do trainStep(net, crit, input, target) end
      local _, g = net:parameters()
      local copy = {}
      for i, t in ipairs(g) do copy[i] = t:clone() end
      torch.blockCacheLimit(prev)
      return copy, net.output:clone()
    end
    local ga, oa = grads(0)
    local gb, ob = grads(1024 * MiB)
    assert.are.equal(#ga, #gb)
    assert.is_true(#ga > 10)
    for i = 1, #ga do assert.are.equal(0, (ga[i] - gb[i]):abs():max()) end
    assert.are.equal(0, (oa - ob):abs():max())
  end)

  it('a resized block holds every value written to it', function()
    settle()
    local st = torch.memoryStats()
    local a = torch.FloatStorage(MiB)           -- 4 MiB
    a = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    -- a request past the mark plus the slack: the cached block, grown
    local n = 1
    local hwm = st.large_high_water_bytes
    while 4 * n <= hwm + slack(hwm) - st.large_bytes do n = n * 2 end
    n = n + 12345
    local t = torch.FloatTensor(n)
    assert.are.equal(st.resized_count + 1, torch.memoryStats().resized_count)
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    t:copy(torch.range(1, n):fmod(1000))
    local expect = 0
    for k = 1, n do expect = expect + (k % 1000) end
    assert.are.equal(expect, t:double():sum())
    assert.are.equal(999, t[999])
    assert.are.equal(0, t[1000])
    assert.are.equal(n % 1000, t[n])
    t = nil
    settle()
  end)
end)
