-- optnet plan-before-allocate: with a batch above a few samples the trace
-- runs at three small batches and scales every size to the real batch
-- (smallTrace, the default). The plan must be the full-size trace's plan:
-- same intervals, and every size at least the true one (sizes that do not
-- scale with the batch, as per-thread convolution buffers and batch norm
-- statistics, included), and the numbers identical to the unoptimized net.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

local function entries(net)
  local st = optnet._state(net)
  local list = {}
  for i, e in ipairs(st.plan.entries) do list[i] = {e.first, e.last, e.role} end
  return list, st
end

local CASES = {
  {'resnet', {batch = 9, dataset = 'cifar10', depth = 8, type = 'double'}},
  {'densenet', {batch = 12, dataset = 'cifar10', depth = 10, growthRate = 4, type = 'double'}},
  {'lenet', {batch = 12, type = 'double'}},
}

for _, case in ipairs(CASES) do
  for _, mode in ipairs{'inference', 'training'} do
    it(case[1] .. ' ' .. mode .. ': the scaled plan equals the full-size plan, numbers identical', function()
      torch.manualSeed(2)
      local a, input = models.build(case[1], case[2])
      local b, c = a:clone(), a:clone()
      for _, n in ipairs{a, b, c} do if mode == 'training' then n:training() else n:evaluate() end end
      optnet.optimizeMemory(b, input, {mode = mode})
      -- buffers a backward creates lazily are first seen one step later in
      -- a fresh net than in one that ran before: the scaled trace ran before
      c:forward(input)
      if mode == 'training' then c:backward(input, c.output:clone():fill(1)) end
      optnet.optimizeMemory(c, input, {mode = mode, smallTrace = false})
      local eb, sb = entries(b)
      local ec, sc = entries(c)
      assert.is_true(sb.result.scaled)
      assert.is_false(sc.result.scaled)
      assert.are.same(ec, eb)
      for i, e in ipairs(sc.plan.entries) do
        assert(sb.plan.entries[i].bytes >= e.bytes, 'scaled size below the true one')
      end
      local function arena(st) local n = 0 for _, v in pairs(st.result.arena) do n = n + v end return n end
      assert(arena(sb) <= 1.05 * arena(sc), string.format('arena %d vs %d', arena(sb), arena(sc)))
      torch.manualSeed(3)
      local oa = a:forward(input):clone()
      torch.manualSeed(3)
      assert.are.equal(0, (oa - b:forward(input)):abs():max())
      if mode == 'training' then
        local g = oa:clone():uniform(-1, 1)
        a:zeroGradParameters(); b:zeroGradParameters()
        assert.are.equal(0, (a:backward(input, g) - b:backward(input, g)):abs():max())
        local _, ga = a:parameters()
        local _, gb = b:parameters()
        for i = 1, #ga do assert.are.equal(0, (ga[i] - gb[i]):abs():max()) end
      end
    end)
  end
end
