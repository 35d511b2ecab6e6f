-- optnet.inplace's checks called one by one (lua/optnet/inplace.lua): the
-- union-find of storages made one, the put-back test, a candidate's writes
-- and the verdict with its reason. optnet_inplace_spec.lua covers the
-- choice on whole nets.
require 'nn'
local inplace = require 'optnet.inplace'
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'

local function traced(net, x, mode)
  local rec = trace.run(net, x, mode)
  return rec, plan.intervals(rec, net, x, {mode = mode})
end

describe('optnet.inplace', function()
  it('classes: union joins storages into one class, with every member', function()
    local c = inplace.classes()
    c:union({[1] = true, [2] = true})
    c:union({[3] = true, [4] = true})
    assert.are.same({[5] = true}, c:classOf({[5] = true}))
    c:union({[2] = true, [3] = true})
    assert.are.same({[1] = true, [2] = true, [3] = true, [4] = true}, c:classOf({[4] = true}))
    assert.are.equal(c:find(1), c:find(4))
  end)

  it('restoresInput: a module whose backward reads its input only in place puts it back', function()
    assert.is_true(inplace.restoresInput(nn.AddConstant(1), 'inplace'))
    assert.is_false(inplace.restoresInput(nn.ReLU(), 'inplace'))
    local m = nn.AddConstant(1)
    inplace.restoresInput(m, 'inplace')
    assert.is_false(m.inplace)
  end)

  it('choose: a ReLU between two Linears runs in place, in training', function()
    torch.manualSeed(1)
    local net = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
    local rec, p = traced(net, torch.randn(2, 4), 'training')
    local chosen = inplace.choose(rec, p, false)
    assert.are.equal(1, #chosen)
    assert.are.equal(net.modules[2], chosen[1].module)
    assert.are.equal('inplace', chosen[1].flag)
    assert.is_false(net.modules[2].inplace)   -- choose decides, it switches nothing
  end)

  it('candidate and check: the user\'s input is never written over, and the reason says so', function()
    torch.manualSeed(1)
    local net = nn.Sequential():add(nn.ReLU()):add(nn.Linear(4, 2))
    local rec, p = traced(net, torch.randn(2, 4), 'inference')
    local ctx = inplace.context(rec, p, false)
    local relu = net.modules[1]
    local c = inplace.candidate(ctx, relu, 'inplace')
    assert.is_truthy(c.fw)
    local ok, why = inplace.check(ctx, relu, c)
    assert.is_false(ok)
    assert.are.equal("forward: it would overwrite a storage the plan does not own (the user's input or gradOutput)", why)
    assert.are.equal(0, #inplace.choose(rec, p, false))
  end)

  it('undo switches a choice back and gives output private memory', function()
    local m = nn.ReLU()
    m.inplace = true
    local x = torch.randn(3)
    m:forward(x)
    assert.are.equal(x:storage(), m.output:storage())
    inplace.undo({{module = m, flag = 'inplace'}})
    assert.is_false(m.inplace)
    assert.are_not.equal(x:storage(), m.output:storage())
  end)
end)
