-- thrnn.LSTM and thrnn.GRU over sequences (thrnn.Recurrence over models/lstm.lua
-- and models/gru.lua steps): the module checks of spec/support/modcheck.lua
-- (finite differences, types, clone, save/load, optnet in both modes at
-- another batch and length), the numbers of the step run by hand over
-- time, parameters seen once, and that building them leaves module calls
-- running forward.
require 'torch'
require 'nn'
require 'thrnn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'

describe('thrnn.LSTM and thrnn.GRU', function()
  mc.module(it, {name = 'thrnn.LSTM', make = function() return thrnn.LSTM(3, 4) end,
                 input = function() return torch.randn(2, 5, 3) end,
                 input2 = function() return torch.randn(3, 7, 3) end, tostring = 'thrnn.LSTM(3 -> 4)',
                 accUpdate = false})
  mc.module(it, {name = 'thrnn.LSTM (2 layers)', make = function() return thrnn.LSTM(3, 4, 2) end,
                 input = function() return torch.randn(2, 4, 3) end,
                 input2 = function() return torch.randn(1, 6, 3) end, tostring = 'thrnn.LSTM(3 -> 4, 2 layers)',
                 accUpdate = false})
  mc.module(it, {name = 'thrnn.GRU', make = function() return thrnn.GRU(3, 4) end,
                 input = function() return torch.randn(2, 5, 3) end,
                 input2 = function() return torch.randn(3, 2, 3) end, tostring = 'thrnn.GRU(3 -> 4)',
                 accUpdate = false})

  it('gives what its step gives run by hand over the sequence', function()
    torch.manualSeed(7)
    local m = thrnn.LSTM(3, 4):double()
    local x = torch.randn(2, 6, 3)
    local y = m:forward(x)
    local step = m.modules[1]:clone()
    local c, h = torch.zeros(2, 4), torch.zeros(2, 4)
    for t = 1, 6 do
      local out = step:forward({x:select(2, t), c, h})
      c, h = out[1]:clone(), out[2]:clone()
      assert((y:select(2, t) - h):abs():max() < 1e-12, 'time step ' .. t)
    end
  end)

  it('lists each parameter once, and all time steps use it', function()
    local m = thrnn.LSTM(3, 4):double()
    local p, g = m:getParameters()
    assert.are.equal((3 * 16 + 16) + (4 * 16 + 16), p:nElement())   -- i2h and h2h, each once
    m:forward(torch.randn(2, 5, 3))
    m:backward(torch.randn(2, 5, 3), torch.randn(2, 5, 4))
    local first = m.modules[1].modules
    for t = 2, 5 do
      for i, mod in ipairs(m.modules[t].modules) do
        if mod.weight then assert(rawequal(mod.weight, first[i].weight), 'time step ' .. t .. ' has its own weight') end
      end
    end
    p:add(1)
    assert.are.equal(m.modules[5].modules[2].weight:storage(), p:storage())
  end)

  it('learns a sequence task (the sum so far) with optim', function()
    torch.manualSeed(8)
    require 'optim'
    local net = nn.Sequential():add(thrnn.LSTM(1, 8)):add(nn.Bottle(nn.Linear(8, 1)))
    net:double()
    local p, g = net:getParameters()
    local crit = nn.MSECriterion()
    local x = torch.rand(16, 6, 1)
    local y = torch.cumsum(x, 2)
    local first, last
    local config = {learningRate = 0.02}
    for i = 1, 150 do
      local _, fs = optim.adam(function()
        g:zero()
        local out = net:forward(x)
        local l = crit:forward(out, y)
        net:backward(x, crit:backward(out, y))
        return l, g
      end, p, config)
      first = first or fs[1]
      last = fs[1]
    end
    assert(last < first / 10, string.format('loss %g -> %g', first, last))
  end)

  it('leaves module calls running forward, and refuses bad input', function()
    local m = thrnn.GRU(2, 3)
    local t = nn.Tanh()
    assert.is_true(torch.isTensor(t(torch.zeros(2))))
    assert.truthy(H.errmsg(m.forward, m, torch.randn(2, 3)):find('thrnn.GRU:updateOutput: input must be a 3D tensor', 1, true))
    assert.truthy(H.errmsg(thrnn.LSTM, 0, 3):find('thrnn.LSTM: inputSize must be a positive integer', 1, true))
    H.has(H.errmsg(thrnn.Recurrence, 'step', 1, 4), 'thrnn.Recurrence: a step module expected, got string')
    H.has(H.errmsg(thrnn.Recurrence, nn.Identity(), 0, 4), 'thrnn.Recurrence: nState must be a positive integer, got 0')
    H.has(H.errmsg(thrnn.Recurrence, nn.Identity(), 1, 2.5), 'thrnn.Recurrence: stateSize must be a positive integer, got 2.5')
  end)
end)

describe('thrnn.LSTM under optnet recompute', function()
  it('re-computes across time steps and gives the unoptimized numbers, with less memory', function()
    local optnet = require 'optnet'
    local function build()
      torch.manualSeed(9)
      return nn.Sequential():add(thrnn.LSTM(5, 8, 2)):add(nn.Bottle(nn.Linear(8, 5))):double()
    end
    local ref, net = build(), build()
    local x, go = torch.randn(4, 10, 5), torch.randn(4, 10, 5)
    ref:forward(x); ref:backward(x, go)
    local before = optnet.countUsedMemory(ref).total_size
    optnet.optimizeMemory(net, x, {mode = 'training', recompute = 'sqrt'})
    ref:zeroGradParameters(); net:zeroGradParameters()
    H.identical(ref:forward(x), net:forward(x), 'output')
    H.identical(ref:backward(x, go), net:backward(x, go), 'gradInput')
    local _, ga = ref:parameters()
    local _, gb = net:parameters()
    H.identical(ga, gb, 'gradParameters')
    local after = optnet.countUsedMemory(net).total_size
    assert(after < before, string.format('recompute memory %d, plain %d', after, before))
  end)
end)
