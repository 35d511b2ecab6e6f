-- optnet verify (opts.verify = true): after each step the slots of the
-- storages the plan says are dead are filled with NaN, so a plan that shares
-- memory still in use shows as NaN. The zoo (small variants) runs with it in
-- inference and training and must give exactly the unoptimized numbers; and
-- a deliberately wrong plan must show NaN.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'
local apply = require 'optnet.apply'

-- identical tensors (or tables of them, compared by key)
local function same(a, b, what)
  if torch.isTensor(a) then
    assert(torch.isTensor(b), what .. ': tensor expected')
    assert.are.same(a:size():totable(), b:size():totable())
    local d = a:nElement() > 0 and (a:double() - b:double()):abs():max() or 0
    assert(d == 0, string.format('%s differs by %s', what, tostring(d)))
    return
  end
  for k, x in pairs(a) do same(x, b[k], what .. '.' .. tostring(k)) end
end

local helpers = require 'spec.support.helpers'
local clone, gradFor = helpers.clone, helpers.gradFor

for _, entry in ipairs(models.list()) do
  describe('optnet verify on ' .. entry.name, function()
    it('inference: no NaN, same output', function()
      torch.manualSeed(3)
      local net, input = models.build(entry.name, entry.small)
      net:evaluate()
      local ref = clone(net:forward(input))
      optnet.optimizeMemory(net, input, {mode = 'inference', verify = true})
      same(ref, net:forward(input), 'output')
      same(ref, net:forward(input), 'second output')
      local st = optnet._state(net)
      assert.are.equal(st.nSteps, st.verify.step)
    end)

    it('training: no NaN, same output, gradInput and gradParameters', function()
      torch.manualSeed(4)
      local a, input = models.build(entry.name, entry.small)
      local b = a:clone()
      a:training(); b:training()
      optnet.optimizeMemory(b, input, {mode = 'training', verify = true})
      local _, ga = a:parameters()
      local _, gb = b:parameters()
      for iter = 1, 2 do
        torch.manualSeed(iter)
        local oa = clone(a:forward(input))
        torch.manualSeed(iter)
        same(oa, b:forward(input), 'output')
        local g = gradFor(oa)
        a:zeroGradParameters(); b:zeroGradParameters()
        same(clone(a:backward(input, g)), b:backward(input, g), 'gradInput')
        for i = 1, #(ga or {}) do same(ga[i], gb[i], 'gradParameter ' .. i) end
      end
      local st = optnet._state(b)
      assert.are.equal(st.nSteps, st.verify.step)
      assert(st.verify.filled > 0)
    end)
  end)
end

describe('optnet verify', function()
  it('shows a plan that frees memory still in use as NaN', function()
    torch.manualSeed(5)
    local net, input = models.build('convchain', {batch = 2, depth = 4, size = 8, type = 'double'})
    net:evaluate()
    optnet.optimizeMemory(net, input, {mode = 'inference'})
    local st = optnet._state(net)
    assert.is_nil(st.verify)
    local out = net:forward(input):clone()
    assert(out:eq(out):all(), 'no NaN without verify')
    -- a wrong plan: every storage declared dead right after its first step
    local wrong = {entries = {}}
    for i, e in ipairs(st.plan.entries) do
      wrong.entries[i] = {dtype = e.dtype, pool = e.pool, offset = e.offset, bytes = e.bytes, last = e.first}
    end
    local v = apply.verifier(st.modules, wrong, st.arenas, st.nSteps)
    net:forward(input)
    local bad = net.output
    require('optnet.trace').unwrap(v.saved)
    assert(v.filled > 0)
    assert.is_false(bad:eq(bad):all(), 'the wrong plan must show as NaN')
  end)

  it('rejects a non-boolean verify', function()
    local net, input = models.build('mlp', {batch = 2, hidden = {4}})
    assert.has_error(function() optnet.optimizeMemory(net, input, {verify = 1}) end,
      "optnet.optimizeMemory: option 'verify' must be a boolean, got number")
  end)
end)
