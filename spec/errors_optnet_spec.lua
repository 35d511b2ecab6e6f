-- Bad input to optnet: wrong nets, inputs and options; optimizing twice;
-- removing an optimization that was never applied. Messages name the
-- optnet function; a failed optimization leaves the net as it was.
require 'torch'
require 'nn'
local optnet = require 'optnet'

local T = torch.DoubleTensor

local fails = require('spec.support.helpers').fails

local function mlp()
  torch.manualSeed(3)
  return nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
end

describe('optnet.optimizeMemory argument checks', function()
  local net, x
  before_each(function() net, x = mlp(), T(2, 4):uniform() end)

  it('net and input', function()
    fails('optnet.optimizeMemory: nn.Module expected as argument 1, got nil', optnet.optimizeMemory, nil, x)
    fails('optnet.optimizeMemory: nn.Module expected as argument 1, got table', optnet.optimizeMemory, {}, x)
    fails('optnet.optimizeMemory: input (a tensor or a table of tensors) expected as argument 2, got nil',
          optnet.optimizeMemory, net, nil)
    fails('optnet.optimizeMemory: input (a tensor or a table of tensors) expected as argument 2, got string',
          optnet.optimizeMemory, net, 'x')
  end)

  it('options', function()
    fails('optnet.optimizeMemory: options table expected as argument 3, got string', optnet.optimizeMemory, net, x, 'o')
    fails("optnet.optimizeMemory: mode must be 'inference' or 'training', got foo",
          optnet.optimizeMemory, net, x, {mode = 'foo'})
    fails("optnet.optimizeMemory: unknown option 'bogus'", optnet.optimizeMemory, net, x, {bogus = 1})
    fails("optnet.optimizeMemory: option 'planner' must be one of 'best', 'greedy_size'", optnet.optimizeMemory,
          net, x, {planner = 'zzz'})
    fails("optnet.optimizeMemory: option 'inplace' must be a boolean, got string", optnet.optimizeMemory,
          net, x, {inplace = 'yes'})
    fails("optnet.optimizeMemory: option 'verbose' must be a boolean, got number", optnet.optimizeMemory,
          net, x, {verbose = 1})
    fails("optnet.optimizeMemory: option 'budgetMs' must be a number >= 0, got -5", optnet.optimizeMemory,
          net, x, {budgetMs = -5})
    fails("optnet.optimizeMemory: option 'budgetMs' must be a number >= 0", optnet.optimizeMemory,
          net, x, {budgetMs = 0 / 0})
    assert.is_false(optnet.isOptimized(net))
  end)

  it('planGrads without a training step is refused before the net changes', function()
    local ref = net:clone()
    local g = T(2, 2):uniform()
    fails("optnet.optimizeMemory: planGrads plans the gradients of optnet.trainStep: make one with "
          .. "optnet.trainStep(net, input, optimizer, config), which plans them itself",
          optnet.optimizeMemory, net, x, {mode = 'training', planGrads = true})
    assert.is_false(optnet.isOptimized(net))
    for _, m in ipairs{net, ref} do
      m:zeroGradParameters()
      m:forward(x)
      m:backward(x, g)
    end
    local p1, g1 = net:parameters()
    local p2, g2 = ref:parameters()
    for i = 1, #p1 do
      assert.are.equal(0, (p1[i] - p2[i]):abs():max())
      assert.are.equal(0, (g1[i] - g2[i]):abs():max())
      -- each gradient in a storage of its own size
      assert.are.equal(g1[i]:nElement(), g1[i]:storage():size())
    end
  end)

  it("names the caller's line, not optnet's, however deep the check", function()
    local here = debug.getinfo(1, 'S').short_src
    for _, bad in ipairs{{foo = 1}, {mode = 'eval'}, {planGrads = 1}} do
      local ok, err = pcall(function() optnet.optimizeMemory(net, x, bad) end)
      assert.is_false(ok)
      assert.are.equal(here, err:match('^(.-):%d+: optnet%.optimizeMemory: '), err)
    end
    local ok, err = pcall(function() optnet.graphgen(net, x, {collapse = -1}) end)
    assert.is_false(ok)
    assert.are.equal(here, err:match('^(.-):%d+: optnet%.graphgen: '), err)
  end)

  it('an input the net cannot take fails in the module and leaves the net unoptimized and working', function()
    local want = net:forward(x):clone()
    fails({'In 1 module of nn.Sequential', 'nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 4 columns, got 2D 2x5'},
          optnet.optimizeMemory, net, T(2, 5))
    fails('nn.Linear:updateOutput: input must be a torch.DoubleTensor like the weight, got torch.FloatTensor',
          optnet.optimizeMemory, net, torch.FloatTensor(2, 4))
    assert.is_false(optnet.isOptimized(net))
    assert.are.equal(0, (net:forward(x) - want):abs():max())
  end)
end)

describe('optnet: twice, never, and undo', function()
  it('optimizing an optimized net re-plans it; the answers stay the same', function()
    local net, x = mlp(), T(2, 4):uniform()
    local want = net:forward(x):clone()
    optnet.optimizeMemory(net, x, {mode = 'training'})
    optnet.optimizeMemory(net, x, {mode = 'training'})
    assert.is_true(optnet.isOptimized(net))
    assert.are.equal(0, (net:forward(x) - want):abs():max())
    optnet.removeOptimization(net)
    assert.is_false(optnet.isOptimized(net))
    assert.are.equal(0, (net:forward(x) - want):abs():max())
  end)

  it('removing an optimization that was never applied (or twice) is an error', function()
    local net, x = mlp(), T(2, 4):uniform()
    fails('optnet.removeOptimization: this net is not optimized (call optnet.optimizeMemory first)',
          optnet.removeOptimization, net)
    optnet.optimizeMemory(net, x)
    optnet.removeOptimization(net)
    fails('optnet.removeOptimization: this net is not optimized', optnet.removeOptimization, net)
    fails('optnet.removeOptimization: nn.Module expected as argument 1, got string', optnet.removeOptimization, 'x')
  end)

  it('an inference-optimized net refuses backward with a message naming optnet', function()
    local net, x = mlp(), T(2, 4):uniform()
    optnet.optimizeMemory(net, x, {mode = 'inference'})
    local out = net:forward(x)
    fails('optnet', net.backward, net, x, out:clone():fill(1))
    optnet.removeOptimization(net)
    net:forward(x)
    net:backward(x, out:clone():fill(1))
  end)

  it('countUsedMemory checks its arguments', function()
    fails('optnet.countUsedMemory: nn.Module expected as argument 1, got string', optnet.countUsedMemory, 'x')
    fails('optnet.countUsedMemory: input (a tensor or a table of tensors) expected as argument 2, got number',
          optnet.countUsedMemory, mlp(), 3)
  end)
end)

-- the plan of a training-optimized net follows backward's order; a separate
-- accGradParameters after a whole-net updateGradInput would read
-- activations the gradInputs have overwritten: refused, never wrong numbers
describe('optnet: training-optimized nets and the separate backward methods', function()
  local function pair()
    torch.manualSeed(5)
    local a, x = require('models').build('resnet', {batch = 4, dataset = 'cifar10', depth = 8, type = 'double'})
    a:training()
    return a, a:clone(), x
  end

  it('updateGradInput alone gives the right gradInput; accGradParameters outside backward is refused', function()
    local a, b, x = pair()
    optnet.optimizeMemory(b, x, {mode = 'training'})
    local g = a:forward(x):clone():uniform(-1, 1)
    b:forward(x)
    assert.are.equal(0, (a:updateGradInput(x, g) - b:updateGradInput(x, g)):abs():max())
    for _, k in ipairs{'accGradParameters', 'accUpdateGradParameters'} do
      fails({'nn.Sequential:' .. k .. ': the net is optimized by optnet for training',
             'call net:backward(input, gradOutput)'}, b[k], b, x, g, 1)
    end
    -- backward, which takes both in order, still gives identical gradients
    a:zeroGradParameters(); b:zeroGradParameters()
    a:forward(x); b:forward(x)
    assert.are.equal(0, (a:backward(x, g) - b:backward(x, g)):abs():max())
    local _, ga = a:parameters()
    local _, gb = b:parameters()
    for i = 1, #ga do assert.are.equal(0, (ga[i] - gb[i]):abs():max()) end
  end)

  it('removeOptimization gives the separate methods back', function()
    local a, b, x = pair()
    optnet.optimizeMemory(b, x, {mode = 'training'})
    optnet.removeOptimization(b)
    assert.is_nil(rawget(b, 'accGradParameters'))
    assert.is_nil(rawget(b, 'backward'))
    local g = a:forward(x):clone():uniform(-1, 1)
    b:forward(x)
    a:zeroGradParameters(); b:zeroGradParameters()
    a:updateGradInput(x, g); b:updateGradInput(x, g)
    a:accGradParameters(x, g); b:accGradParameters(x, g)
    local _, ga = a:parameters()
    local _, gb = b:parameters()
    for i = 1, #ga do assert.are.equal(0, (ga[i] - gb[i]):abs():max()) end
  end)
end)
