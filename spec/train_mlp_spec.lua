-- examples/train_mlp.lua: the MLP learns the synthetic spirals (the loss
-- at least halves, accuracy ends well above chance), the run is
-- reproducible from its seed, and it prints its progress.
require 'torch'
require 'nn'

local M = assert(loadfile('examples/train_mlp.lua'))('--lib')

describe('examples/train_mlp.lua', function()
  local lines = {}
  local result
  setup(function()
    -- the example calls the global print: busted gives specs their own
    -- environment, so replace it in _G
    local oldprint = _G.print
    _G.print = function(...)
      local parts = {}
      for i = 1, select('#', ...) do parts[i] = tostring(select(i, ...)) end
      lines[#lines + 1] = table.concat(parts, '\t')
    end
    local ok, r = pcall(M.train, {epochs = 120})
    _G.print = oldprint
    assert(ok, r)
    result = r
  end)

  it('halves the loss at least', function()
    assert.is_true(result.finalLoss <= 0.5 * result.initialLoss,
                   string.format('loss %.4f -> %.4f', result.initialLoss, result.finalLoss))
  end)

  it('ends well above chance', function()
    assert.are.equal(1 / 3, result.chance)
    assert.is_true(result.accuracy >= result.chance + 0.4,
                   string.format('accuracy %.3f (chance %.3f)', result.accuracy, result.chance))
  end)

  it('mostly falls: the last loss is below the loss a tenth of the way in', function()
    local early = result.losses[math.floor(#result.losses / 10)]
    assert.is_true(result.finalLoss < early)
  end)

  it('prints falling loss and accuracy', function()
    assert.truthy(lines[1]:find('spirals: 300 points, 3 classes', 1, true))
    local first = tonumber(lines[2]:match('loss (%d+%.%d+)'))
    local last = tonumber(lines[#lines]:match('loss (%d+%.%d+)'))
    local acc = tonumber(lines[#lines]:match('accuracy%s+(%d+%.%d)%%'))
    assert.is_true(last < first)
    assert.is_true(acc > 73)
    assert.truthy(lines[#lines]:find('^epoch  120'))
  end)

  it('is reproducible from its seed', function()
    local r = M.train{epochs = 3, verbose = false}
    local r2 = M.train{epochs = 3, verbose = false}
    assert.are.same(r.losses, r2.losses)
    local r3 = M.train{epochs = 3, verbose = false, seed = 2}
    assert.are_not.same(r.losses, r3.losses)
  end)
end)
