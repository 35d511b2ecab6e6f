-- optnet.optimizeMemory's reuseBuffers (OptNet's option): true plans the
-- modules' internal buffers (finput, fgradInput, ...) by their lifespans
-- with the activations; false leaves each in a storage of its own. The
-- answers are the same either way. SpatialConvolution's columns live in the
-- kernels' shared scratch (src/tensor/th_scratch.c), so its finput and
-- fgradInput are empty and planned as nothing; TemporalConvolution builds
-- its columns in Lua, in buffers the plan places.
require 'torch'
require 'nn'
local optnet = require 'optnet'

local function net()
  torch.manualSeed(5)
  return nn.Sequential():add(nn.SpatialConvolution(3, 8, 3, 3)):add(nn.ReLU())
    :add(nn.View(8 * 14, 14):setNumInputDims(3)):add(nn.Transpose({2, 3}))
    :add(nn.TemporalConvolution(8 * 14, 8, 3)):add(nn.ReLU()):add(nn.TemporalConvolution(8, 4, 3))
end

-- the storages (by pointer) the outputs and gradInputs of n live in
local function activationStorages(n)
  local set = {}
  for _, m in ipairs(n:listModules()) do
    for _, f in ipairs{'output', 'gradInput'} do
      local t = m[f]
      if torch.isTensor(t) and t:nElement() > 0 then set[torch.pointer(t:storage())] = true end
    end
  end
  return set
end

describe('optnet reuseBuffers', function()
  for _, mode in ipairs{'inference', 'training'} do
    it('false keeps the buffers out of the plan, true plans them (' .. mode .. ')', function()
      local x = torch.randn(2, 3, 16, 16)
      local g = torch.randn(2, 10, 4)
      local results = {}
      for _, rb in ipairs{true, false} do
        local n = net()
        local ref = n:clone()
        optnet.optimizeMemory(n, x, {mode = mode, reuseBuffers = rb})
        local y = n:forward(x)
        assert.are.equal(0, (y - ref:forward(x)):abs():max())
        if mode == 'training' then
          assert.are.equal(0, (n:backward(x, g) - ref:backward(x, g)):abs():max())
        end
        local acts = activationStorages(n)
        local shared = 0
        for _, c in ipairs(n:findModules('nn.TemporalConvolution')) do
          if c.finput:nElement() > 0 and acts[torch.pointer(c.finput:storage())] then shared = shared + 1 end
        end
        for _, c in ipairs(n:findModules('nn.SpatialConvolution')) do
          assert.are.equal(0, c.finput:nElement())
          assert.are.equal(0, c.fgradInput:nElement())
        end
        results[rb] = shared
      end
      -- planned, the columns sit in the arena the activations use
      assert.is_true(results[true] > 0)
      assert.are.equal(0, results[false])
    end)
  end
end)
