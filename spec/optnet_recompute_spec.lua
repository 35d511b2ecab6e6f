-- optnet recompute (opts.recompute = 'cheap' | 'sqrt' | bytes): activations
-- dropped after forward and re-computed during backward give the very same
-- outputs, gradInputs, gradParameters, parameters and batch norm running
-- statistics as the unoptimized net, over two sgd steps; memory drops.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

-- conv / batch norm / ReLU / Dropout chain: BN running statistics must be
-- updated once per step, Dropout must draw the same noise in the re-run
local function bnnet()
  local net = nn.Sequential()
  net:add(nn.SpatialConvolution(3, 6, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(6)):add(nn.ReLU(true))
  net:add(nn.SpatialConvolution(6, 6, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(6)):add(nn.ReLU())
  net:add(nn.Dropout(0.3))
  net:add(nn.SpatialConvolution(6, 4, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(4)):add(nn.Tanh())
  net:add(nn.View(4 * 6 * 6):setNumInputDims(3))
  net:add(nn.Linear(4 * 6 * 6, 5)):add(nn.LogSoftMax())
  net:double()
  return net, torch.randn(3, 3, 6, 6)
end

-- max pooling after an in-place ReLU and before a convolution: 'cheap'
-- re-makes its output and indices from its input in backward
local function poolnet()
  local net = nn.Sequential()
  net:add(nn.SpatialConvolution(3, 6, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(6)):add(nn.ReLU(true))
  net:add(nn.SpatialMaxPooling(2, 2, 2, 2))
  net:add(nn.SpatialConvolution(6, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
  net:add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
  net:add(nn.SpatialConvolution(8, 4, 1, 1)):add(nn.SpatialBatchNormalization(4)):add(nn.Tanh())
  net:add(nn.View(4 * 2 * 2):setNumInputDims(3))
  net:add(nn.Linear(4 * 2 * 2, 5)):add(nn.LogSoftMax())
  net:double()
  return net, torch.randn(3, 3, 8, 8)
end

local function resnet()
  return models.build('resnet', {batch = 2, dataset = 'cifar10', depth = 14, type = 'double'})
end

local function maxdiff(a, b)
  assert.are.same(a:size():totable(), b:size():totable())
  return (a - b):abs():max()
end

local function state(net)
  local list = {}
  for _, m in ipairs(net:listModules()) do
    if m.running_mean then list[#list + 1] = m.running_mean; list[#list + 1] = m.running_var end
  end
  return list
end

local function activations(net)
  local st = optnet._state(net)
  local n = 0
  for _, v in pairs(st.result.arena) do n = n + v end
  return n
end

-- trains a (reference) and an optimized clone side by side for two steps
local function compare(build, opts)
  torch.manualSeed(9)
  local a, input = build()
  local b = a:clone()
  a:training(); b:training()
  optnet.optimizeMemory(b, input, opts)
  local pa, ga = a:parameters()
  local pb, gb = b:parameters()
  for iter = 1, 2 do
    torch.manualSeed(40 + iter)
    local oa = a:forward(input):clone()
    torch.manualSeed(40 + iter)
    local ob = b:forward(input)
    assert.are.equal(0, maxdiff(oa, ob), 'output')
    local g = oa:clone():uniform(-1, 1)
    a:zeroGradParameters(); b:zeroGradParameters()
    local gia = a:backward(input, g):clone()
    local gib = b:backward(input, g)
    assert.are.equal(0, maxdiff(gia, gib), 'gradInput')
    for i = 1, #ga do assert.are.equal(0, maxdiff(ga[i], gb[i]), 'gradParameter ' .. i) end
    a:updateParameters(0.05); b:updateParameters(0.05)
    for i = 1, #pa do assert.are.equal(0, maxdiff(pa[i], pb[i]), 'parameter ' .. i) end
    local sa, sb = state(a), state(b)
    assert(#sa > 0)
    for i = 1, #sa do assert.are.equal(0, maxdiff(sa[i], sb[i]), 'running statistic ' .. i) end
  end
  return b, input
end

-- (the pooling net is no chain of comparable children: 'sqrt' saves nothing there)
local CASES = {{'resnet cifar', resnet}, {'conv/BN/Dropout net', bnnet}, {'conv/pooling net', poolnet, {'cheap'}}}
for _, case in ipairs(CASES) do
  describe('optnet recompute on ' .. case[1], function()
    local base
    it('none: the reference arena', function()
      local net = compare(case[2], {mode = 'training'})
      base = activations(net)
      assert(base > 0)
    end)
    for _, how in ipairs(case[3] or {'cheap', 'sqrt'}) do
      it(how .. ': identical numbers over two sgd steps, fewer activation bytes, verify clean', function()
        local net = compare(case[2], {mode = 'training', recompute = how, verify = true})
        local st = optnet._state(net)
        assert.are.equal(how, st.result.recompute)
        assert(st.verify.filled > 0)
        assert(activations(net) < base, string.format('%s: %d not below %d', how, activations(net), base))
        -- undo gives the plain net back
        optnet.removeOptimization(net)
        for _, m in ipairs(net:listModules()) do assert.is_nil(rawget(m, '_optnetShadow')) end
        assert.is_nil(rawget(net, 'backward'))
      end)
    end
    if case[1] == 'conv/BN/Dropout net' then
      it('cheap: batch norm re-made from its forward\'s coefficients, fused with an in-place ReLU', function()
        local C = torch._C.nn
        local apply, calls = C.batchnorm_apply, {}
        C.batchnorm_apply = function(m, x, y, cf, relu)
          calls[#calls + 1] = relu
          return apply(m, x, y, cf, relu)
        end
        local ok, err = pcall(compare, case[2], {mode = 'training', recompute = 'cheap'})
        C.batchnorm_apply = apply
        assert(ok, err)
        -- three batch norms re-run per backward, in backward order: the one
        -- before Tanh alone, the two before a ReLU fused with it (the
        -- planner runs the second ReLU in place too)
        local n = #calls
        assert(n >= 6 and n % 3 == 0, 'calls: ' .. n)
        assert.are.same({false, true, true}, {calls[n - 2], calls[n - 1], calls[n]})
      end)
    end
    it('a byte budget picks the cheapest segmentation that fits', function()
      local net = compare(case[2], {mode = 'training', recompute = 'sqrt'})
      local sqrtBytes = activations(net)
      net = compare(case[2], {mode = 'training', recompute = sqrtBytes})
      assert(activations(net) <= sqrtBytes)
      net = compare(case[2], {mode = 'training', recompute = 1 << 40})
      assert.are.equal('none', optnet._state(net).result.recompute)
    end)
  end)
end

-- the byte budget's own segmentation (recompute.budget): a third and a half
-- of the arena without recompute. (A small batch cannot get far below half:
-- the kernels' batch-independent scratch is a big share of its arena.)
local function wideResnet()
  return models.build('resnet', {batch = 16, dataset = 'cifar10', depth = 20, type = 'double'})
end

for _, case in ipairs{{'resnet cifar', resnet}, {'deeper resnet cifar', wideResnet}, {'conv/BN/Dropout net', bnnet}} do
  describe('optnet recompute budget on ' .. case[1], function()
    local base
    it('none: the reference arena', function()
      base = activations(compare(case[2], {mode = 'training'}))
    end)
    for _, f in ipairs{1 / 2, 1 / 3} do
      it(string.format('%.2f of it: identical numbers, the arena within the budget, verify clean', f), function()
        local budget = math.floor(base * f)
        local ok, net = pcall(compare, case[2], {mode = 'training', recompute = budget, verify = true})
        -- half is within reach of the bigger net
        if case[2] == wideResnet and f == 1 / 2 then assert(ok, net) end
        if not ok then
          -- only a budget no plan reaches may fail, and it says so
          assert.matches('no segmentation fits the recompute budget', net, 1, true)
          return
        end
        local st = optnet._state(net)
        assert(activations(net) <= budget, string.format('%d over the budget %d', activations(net), budget))
        assert(st.verify.filled > 0)
        if st.result.recompute == 'budget' then
          assert(st.result.recomputeWork > 0 and st.result.recomputeWork <= 1, tostring(st.result.recomputeWork))
        else
          assert.are.equal('sqrt', st.result.recompute)
        end
        optnet.removeOptimization(net)
        for _, m in ipairs(net:listModules()) do
          assert.is_nil(rawget(m, '_optnetShadow'))
          assert.is_nil(rawget(m, '_branchOrder'))
        end
      end)
    end
  end)
end

describe('optnet recompute budget plans', function()
  local function plan(budget)
    torch.manualSeed(1)
    local net, input = wideResnet()
    net:training()
    optnet.optimizeMemory(net, input, {mode = 'training', recompute = budget})
    local st = optnet._state(net)
    local paths = require('optnet.walk').paths(net)
    local segs = {}
    for _, seg in ipairs(st.recompute.segments) do
      segs[#segs + 1] = string.format('%s:%d-%d%s', paths[seg.seq], seg.from, seg.to, seg.inclusive and 'i' or 'x')
    end
    return table.concat(segs, ' '), activations(net), st.result.recompute
  end

  it('are the same at every run, and a smaller budget re-runs more', function()
    local net, input = wideResnet()
    net:training()
    optnet.optimizeMemory(net, input, {mode = 'training'})
    local base = activations(net)
    local a1, b1, how = plan(math.floor(base * 0.6))
    local a2, b2 = plan(math.floor(base * 0.6))
    assert.are.equal('budget', how)
    assert.are.equal(a1, a2)
    assert.are.equal(b1, b2)
    local a3, b3, how3 = plan(math.floor(base * 0.48))
    assert.are.equal('budget', how3)
    assert(b3 <= base * 0.48 and b1 <= base * 0.6)
    assert.are_not.equal(a1, a3)
  end)
end)

-- an inclusive segment re-runs its last child too (from its input, the
-- previous child's output) and keeps nothing but that input; here one
-- spans a whole Sequential, so the re-run starts from the net's input
describe('optnet recompute inclusive segments', function()
  it('give identical numbers, by hand and through the planner', function()
    local recompute = require 'optnet.recompute'
    torch.manualSeed(3)
    local a, input = bnnet()
    local b = a:clone()
    a:training(); b:training()
    local undo = recompute.install(b, {{seq = b, from = 1, to = #b.modules - 2, inclusive = true},
                                       {seq = b, from = #b.modules - 1, to = #b.modules, inclusive = true}})
    for iter = 1, 2 do
      torch.manualSeed(10 + iter)
      local oa = a:forward(input):clone()
      torch.manualSeed(10 + iter)
      local ob = b:forward(input)
      assert.are.equal(0, maxdiff(oa, ob))
      local g = oa:clone():uniform(-1, 1)
      a:zeroGradParameters(); b:zeroGradParameters()
      assert.are.equal(0, maxdiff(a:backward(input, g):clone(), b:backward(input, g)))
      local _, ga = a:parameters()
      local _, gb = b:parameters()
      for i = 1, #ga do assert.are.equal(0, maxdiff(ga[i], gb[i])) end
    end
    recompute.uninstall(undo)
    for _, m in ipairs(b:listModules()) do
      assert.is_nil(rawget(m, '_optnetShadow'))
      assert.is_nil(rawget(m, '_gradStats') and m._gradStats:nElement() == 0 and nil)
    end
    assert.is_nil(rawget(b, 'backward'))
  end)
end)

-- an in-place, not idempotent module right after a boundary: re-running it
-- would add the constant twice to the kept input
local function inplaceNet()
  local net = nn.Sequential()
  net:add(nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1)):add(nn.AddConstant(1, true))
  net:add(nn.SpatialConvolution(3, 3, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(3)):add(nn.Tanh())
  net:add(nn.SpatialConvolution(3, 2, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(2))
  net:double()
  return net, torch.randn(2, 2, 5, 5)
end

describe('optnet recompute with an in-place module after a boundary', function()
  for _, how in ipairs{'cheap', 'sqrt'} do
    it(how .. ': the in-place module is not re-run, numbers identical', function()
      local net = compare(inplaceNet, {mode = 'training', recompute = how})
      for _, seg in ipairs(optnet._state(net).recompute.segments) do
        assert.are_not.equal('nn.AddConstant', torch.typename(seg.seq.modules[seg.from]))
      end
    end)
  end
end)

describe('optnet recompute API', function()
  it('rejects bad values, inference mode and budgets nothing fits', function()
    local net, input = bnnet()
    assert.has_error(function() optnet.optimizeMemory(net, input, {mode = 'training', recompute = 'all'}) end,
      "optnet.optimizeMemory: recompute must be 'none', 'cheap', 'sqrt' or a byte budget (a positive integer), got all")
    assert.has_error(function() optnet.optimizeMemory(net, input, {recompute = 'sqrt'}) end,
      "optnet.optimizeMemory: recompute needs mode = 'training' (inference keeps no activation for backward), "
      .. "got mode = 'inference'")
    local ok, err = pcall(optnet.optimizeMemory, net, input, {mode = 'training', recompute = 64})
    assert.is_false(ok)
    assert.matches('no segmentation fits the recompute budget of 64 bytes', err, 1, true)
    assert.is_false(optnet.isOptimized(net))
    -- the failed attempts left the net as it was
    for _, m in ipairs(net:listModules()) do assert.is_nil(rawget(m, '_optnetShadow')) end
    net:training()
    local out = net:forward(input)
    net:backward(input, out:clone():fill(1))
  end)

  it('a type change between forward and backward re-runs batch norm in full (its kept coefficients are of the old type)', function()
    torch.manualSeed(11)
    local net = nn.Sequential()
    for i = 1, 6 do
      net:add(nn.SpatialConvolution(i == 1 and 3 or 8, 8, 3, 3, 1, 1, 1, 1))
      net:add(nn.SpatialBatchNormalization(8)):add(nn.ReLU(true))
    end
    net:add(nn.View(8 * 8 * 8):setNumInputDims(3)):add(nn.Linear(8 * 8 * 8, 10))
    net:double()
    local ref = net:clone()
    local x = torch.randn(4, 3, 8, 8)
    optnet.optimizeMemory(net, x, {mode = 'training', recompute = 'sqrt'})
    assert.are_not.equal('none', optnet._state(net).result.recompute)
    net:training(); ref:training()
    net:zeroGradParameters(); ref:zeroGradParameters()
    net:forward(x)
    ref:forward(x)
    net:float(); ref:float()
    local xf, go = x:float(), torch.randn(4, 10):float()
    ref:forward(xf)   -- the reference's activations in the new type
    local gi = net:backward(xf, go)
    local giRef = ref:backward(xf, go)
    assert(maxdiff(gi, giRef) < 1e-4, 'gradInput ' .. maxdiff(gi, giRef))
    local p, gp = net:parameters()
    local pr, gpr = ref:parameters()
    for i = 1, #gp do assert(maxdiff(gp[i], gpr[i]) < 1e-3, 'gradient ' .. i .. ' ' .. maxdiff(gp[i], gpr[i])) end
  end)

  it('a re-computing Sequential asks for backward, not its two halves', function()
    local net, input = bnnet()
    optnet.optimizeMemory(net, input, {mode = 'training', recompute = 'sqrt'})
    local out = net:forward(input)
    assert.has_error(function() net:updateGradInput(input, out) end,
      'nn.Sequential:updateGradInput: this Sequential re-computes activations during backward (optnet recompute); '
      .. 'call backward(input, gradOutput), or optnet.removeOptimization(net) first')
  end)
end)
