-- A failed optnet.optimizeMemory leaves the net exactly as it was: the
-- same fields holding the same objects, every tensor on the same storage
-- with the same geometry, no module switched in place, not optimized (or,
-- for a net optimized before, still optimized the way it was), the same
-- numbers, and an optimization that works once the cause is gone.
-- Failures: a module that errors at its n-th forward (so in the first,
-- second, ... trace), and a recompute budget no plan meets.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local H = require 'spec.support.helpers'

if not torch.getmetatable('nn.SpecFailNth') then
  local F = torch.class('nn.SpecFailNth', 'nn.Module')
  function F:__init(n)
    nn.Module.__init(self)
    self.n, self.calls = n, 0
  end
  function F:updateOutput(x)
    self.calls = self.calls + 1
    if self.calls == self.n then error('SpecFailNth: failing at forward ' .. self.calls, 0) end
    self.output:resizeAs(x):copy(x):mul(2)
    return self.output
  end
  function F:updateGradInput(x, g)
    self.gradInput:resizeAs(g):copy(g):mul(2)
    return self.gradInput
  end
end

local function build(n)
  torch.manualSeed(1)
  return nn.Sequential():add(nn.Linear(4, 6)):add(nn.ReLU()):add(nn.Linear(6, 6)):add(nn.ReLU())
    :add(nn.SpecFailNth(n)):add(nn.BatchNormalization(6)):add(nn.Tanh()):add(nn.Linear(6, 3))
end

-- every module's fields and every tensor's place, to compare before/after
local function fingerprint(net)
  local fp = {}
  for i, m in ipairs(net:listModules()) do
    for k, v in pairs(m) do
      if k ~= 'calls' then
        local e = {v = v}
        if torch.isTensor(v) then
          e.geom = {v:storage() and v:_storageId() or 0, v:storageOffset(), v:size():totable(),
                    v:stride():totable(), v:_limit()}
        end
        fp[i .. '.' .. tostring(k)] = e
      end
    end
  end
  return fp
end

local function sameFingerprint(a, b, what)
  for k, e in pairs(a) do
    assert(b[k], what .. ': field ' .. k .. ' is gone')
    assert(rawequal(e.v, b[k].v), what .. ': field ' .. k .. ' holds another value')
    if e.geom then assert.are.same(e.geom, b[k].geom, what .. ': tensor ' .. k .. ' moved') end
  end
  for k in pairs(b) do assert(a[k], what .. ': new field ' .. k) end
end

local function run(net, x, mode)
  if mode == 'training' then net:training() else net:evaluate() end
  local out = net:forward(x):clone()
  if mode == 'inference' then return {out} end
  net:zeroGradParameters()
  local gi = net:backward(x, H.gradFor(out, 5)):clone()
  local _, g = net:parameters()
  local gs = {}
  for i, t in ipairs(g) do gs[i] = t:clone() end
  return {out, gi, gs}
end

describe('optnet: a failed optimizeMemory', function()
  local x = torch.randn(5, 4)
  for _, mode in ipairs{'inference', 'training'} do
    for n = 1, 4 do
      it(string.format('%s, failing at forward %d: leaves the net as it was', mode, n), function()
        local net = build(n)
        local ref = build(-1)
        if mode == 'training' then net:training(); ref:training() else net:evaluate(); ref:evaluate() end
        -- a training script's flat views: they must still see the modules'
        -- parameters and gradients afterwards
        local flatP, flatG = net:getParameters()
        local refP, refG = ref:getParameters()
        local before = fingerprint(net)
        local ok, err = pcall(optnet.optimizeMemory, net, x, {mode = mode})
        if ok then return end  -- the optimization needed fewer forwards than n
        assert.truthy(tostring(err):find('SpecFailNth', 1, true), tostring(err))
        sameFingerprint(before, fingerprint(net), 'after the failure')
        assert.is_false(optnet.isOptimized(net))
        for _, m in ipairs(net:listModules()) do
          if m.inplace ~= nil then assert.is_false(m.inplace) end
        end
        net.modules[5].n = -1
        H.identical(run(ref, x, mode), run(net, x, mode), 'numbers after the failure')
        if mode == 'training' then H.identical(refG, flatG, 'the flat gradient view after the failure') end
        H.identical(refP, flatP, 'the flat parameter view after the failure')
        -- and it optimizes once the module works
        optnet.optimizeMemory(net, x, {mode = mode})
        assert.is_true(optnet.isOptimized(net))
        H.identical(run(ref, x, mode), run(net, x, mode), 'numbers once optimized')
      end)
    end

    it(mode .. ': a net optimized before stays optimized, with the same numbers', function()
      local net, ref = build(-1), build(-1)
      if mode == 'training' then net:training(); ref:training() else net:evaluate(); ref:evaluate() end
      optnet.optimizeMemory(net, x, {mode = mode})
      local used = optnet.countUsedMemory(net).total_size
      net.modules[5].n = net.modules[5].calls + 1
      assert.has_error(function() optnet.optimizeMemory(net, x, {mode = mode}) end)
      net.modules[5].n = -1
      assert.is_true(optnet.isOptimized(net))
      H.identical(run(ref, x, mode), run(net, x, mode), 'numbers after the failed re-optimization')
      assert.are.equal(used, optnet.countUsedMemory(net).total_size)
      optnet.removeOptimization(net)
      H.identical(run(ref, x, mode), run(net, x, mode), 'numbers after removal')
    end)
  end

  it('an infeasible recompute budget leaves the net as it was', function()
    local net, ref = build(-1), build(-1)
    net:training(); ref:training()
    local before = fingerprint(net)
    local ok, err = pcall(optnet.optimizeMemory, net, x, {mode = 'training', recompute = 1})
    assert.is_false(ok)
    assert.truthy(tostring(err):find('budget', 1, true), tostring(err))
    sameFingerprint(before, fingerprint(net), 'after the failure')
    assert.is_false(optnet.isOptimized(net))
    H.identical(run(ref, x, 'training'), run(net, x, 'training'), 'numbers after the failure')
  end)
end)
