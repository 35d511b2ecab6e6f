-- optnet: same numbers, less memory, exact undo, for every zoo model (small
-- variants) and every small container net, in inference and training mode.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

local helpers = require('spec.support.helpers')
local clone = helpers.clone
local each, same, gradFor = helpers.each, helpers.identical, helpers.gradFor

local function total(m) return optnet.countUsedMemory(m).total_size end

for _, entry in ipairs(models.list()) do
  describe('optnet on ' .. entry.name, function()
    it('inference: identical outputs, less memory, exact undo', function()
      torch.manualSeed(7)
      local net, input = models.build(entry.name, entry.small)
      net:evaluate()
      local ref = clone(net:forward(input))
      local before = optnet.countUsedMemory(net)
      optnet.optimizeMemory(net, input, {mode = 'inference'})
      same(ref, net:forward(input), 'optimized output')
      same(ref, net:forward(input), 'second optimized output')
      local after = optnet.countUsedMemory(net)
      assert(after.total_size < before.total_size,
        string.format('memory did not drop: %d -> %d', before.total_size, after.total_size))
      assert.has_error(function() net:backward(input, ref) end)
      optnet.removeOptimization(net)
      same(ref, net:forward(input), 'output after removeOptimization')
      assert.are.equal(before.total_size, total(net))
    end)

    it('training: identical outputs, gradInputs and gradParameters over two steps', function()
      torch.manualSeed(11)
      local a, input = models.build(entry.name, entry.small)
      local b = a:clone()
      -- the reference keeps every gradInput (Torch7's plain net, what
      -- optnet's memory is compared with); b releases what its arena does
      -- not hold (nn/gradrelease.lua), with the same numbers
      a:keepGradInputs(true)
      a:training(); b:training()
      local before = nil
      do
        a:forward(input)
        a:backward(input, gradFor(a.output, 3))
        before = optnet.countUsedMemory(a)
        a:zeroGradParameters()
      end
      local bounded = optnet.countUsedMemory(b, input, {mode = 'training'})
      optnet.optimizeMemory(b, input, {mode = 'training'})
      local pa, ga = a:parameters()
      local pb, gb = b:parameters()
      for iter = 1, 2 do
        torch.manualSeed(100 + iter)
        local oa = clone(a:forward(input))
        torch.manualSeed(100 + iter)
        local ob = b:forward(input)
        same(oa, ob, 'iteration ' .. iter .. ' output')
        local g = gradFor(oa, 20 + iter)
        a:zeroGradParameters(); b:zeroGradParameters()
        local gia = clone(a:backward(input, g))
        local gib = b:backward(input, g)
        same(gia, gib, 'iteration ' .. iter .. ' gradInput')
        for i = 1, #ga do same(ga[i], gb[i], 'iteration ' .. iter .. ' gradParameter ' .. i) end
        a:updateParameters(0.01); b:updateParameters(0.01)
        for i = 1, #pa do same(pa[i], pb[i], 'iteration ' .. iter .. ' parameter ' .. i) end
      end
      local after = optnet.countUsedMemory(b)
      assert(after.total_size < before.total_size,
        string.format('memory did not drop: %d -> %d', before.total_size, after.total_size))
      assert(bounded.lower_bound <= after.total_size)
      optnet.removeOptimization(b)
      torch.manualSeed(5)
      local oa = clone(a:forward(input))
      torch.manualSeed(5)
      same(oa, b:forward(input), 'output after removeOptimization')
    end)
  end)
end

describe('optnet API', function()
  local function mlp()
    torch.manualSeed(3)
    return models.build('mlp', {batch = 4, hidden = {16, 16}, type = 'double'})
  end

  it('re-plans when the input shape changes', function()
    local net, input = mlp()
    local ref = clone(net:forward(input))
    optnet.optimizeMemory(net, input)
    local big = torch.randn(9, 784)
    local plain = mlp()
    local want = plain:forward(big):clone()
    same(want, net:forward(big), 'bigger batch')
    same(ref, net:forward(input), 'back to the first batch')
  end)

  it('optimizing twice is the same as once', function()
    local net, input = mlp()
    local ref = clone(net:forward(input))
    optnet.optimizeMemory(net, input)
    local once = total(net)
    optnet.optimizeMemory(net, input)
    assert.are.equal(once, total(net))
    same(ref, net:forward(input), 'after optimizing twice')
  end)

  it('keeps gradient sharing when restoring removed gradParameters', function()
    local net, input = models.build('siamese', {batch = 2, type = 'double'})
    local branch1, branch2 = net:get(1):get(1), net:get(1):get(2)
    optnet.optimizeMemory(net, input, {mode = 'inference'})
    assert.are.equal(0, branch1:get(1).gradWeight:nElement())
    optnet.removeOptimization(net)
    local g1, g2 = branch1:get(1).gradWeight, branch2:get(1).gradWeight
    assert.are.equal(torch.pointer(g1:storage()), torch.pointer(g2:storage()))
    assert.are.same({4, 1, 3, 3}, g1:size():totable())
  end)

  it('counts memory per category, with a lower bound when given an input', function()
    local net, input = mlp()
    net:forward(input)
    local c = optnet.countUsedMemory(net, input)
    for _, k in ipairs{'total_size', 'outputs', 'gradInputs', 'buffers', 'params', 'lower_bound'} do
      assert.is_number(c[k], k)
    end
    assert(c.params > 0 and c.outputs > 0)
    assert(c.lower_bound <= c.total_size)
  end)

  it('reuse=false plans without sharing but still traces', function()
    local net, input = mlp()
    local ref = clone(net:forward(input))
    optnet.optimizeMemory(net, input, {reuse = false})
    same(ref, net:forward(input), 'reuse=false output')
  end)

  it('rejects bad arguments with clear errors', function()
    local net, input = mlp()
    assert.has_error(function() optnet.optimizeMemory(42, input) end,
      'optnet.optimizeMemory: nn.Module expected as argument 1, got number')
    assert.has_error(function() optnet.optimizeMemory(net, 'x') end,
      'optnet.optimizeMemory: input (a tensor or a table of tensors) expected as argument 2, got string')
    assert.has_error(function() optnet.optimizeMemory(net, input, {mode = 'fast'}) end,
      "optnet.optimizeMemory: mode must be 'inference' or 'training', got fast")
    assert.has_error(function() optnet.optimizeMemory(net, input, {bogus = 1}) end,
      "optnet.optimizeMemory: unknown option 'bogus'")
    assert.has_error(function() optnet.removeOptimization(net) end,
      'optnet.removeOptimization: this net is not optimized (call optnet.optimizeMemory first)')
  end)
end)
