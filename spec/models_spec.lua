-- The model zoo: every builder runs forward and backward at a small size with
-- the right output shape, the options follow the classic Torch7 scripts, and
-- the parameter counts equal the published ones, exactly.

require 'torch'
require 'nn'
local models = require 'models'

local function nParams(net)
  local params = net:parameters()
  local n = 0
  for _, p in ipairs(params) do n = n + p:nElement() end
  return n
end

local function shapeOf(v)
  if torch.isTensor(v) then return v:size():totable() end
  local r = {}
  for i, x in ipairs(v) do r[i] = shapeOf(x) end
  return r
end

local function gradLike(v)
  if torch.isTensor(v) then return v:clone():uniform(-1, 1) end
  local r = {}
  for i, x in ipairs(v) do r[i] = gradLike(x) end
  return r
end

local function finite(v)
  if torch.isTensor(v) then return v:nElement() == 0 or v:eq(v):all() and v:abs():max() < math.huge end
  for _, x in ipairs(v) do if not finite(x) then return false end end
  return true
end

-- forward in training mode, backward, and a check of every shape involved
local function exercise(net, input)
  net:training()
  local out = net:forward(input)
  assert.is_true(finite(out), 'output is finite')
  net:zeroGradParameters()
  local gi = net:backward(input, gradLike(out))
  assert.are.same(shapeOf(input), shapeOf(gi))
  assert.is_true(finite(gi), 'gradInput is finite')
  local params, grads = net:parameters()
  for i, p in ipairs(params) do assert.are.same(p:size():totable(), grads[i]:size():totable()) end
  return out
end

describe('models zoo', function()
  it('lists every model with a description and small options', function()
    local names = {}
    for _, e in ipairs(models.list()) do
      assert.are.equal('string', type(e.desc))
      assert.are.equal('table', type(e.small))
      names[#names + 1] = e.name
    end
    assert.are.same({'mlp', 'lenet', 'alexnet', 'vgg', 'googlenet', 'resnet', 'preresnet', 'densenet',
                     'paralleljoin', 'convchain', 'unpool', 'siamese', 'tablenet', 'multioutput',
                     'optnet_alexnet', 'optnet_vgg'}, names)
    assert.has_error(function() models.build('nope', {}) end)
  end)

  for _, e in ipairs(models.list()) do
    it(e.name .. ' runs forward and backward at its small size (float and double)', function()
      for _, ty in ipairs{'float', 'double'} do
        torch.manualSeed(1)
        local o = {}
        for k, v in pairs(e.small) do o[k] = v end
        o.type = ty
        local net, input = models.build(e.name, o)
        local first = input
        while not torch.isTensor(first) do first = first[1] end
        assert.are.equal(ty == 'float' and 'torch.FloatTensor' or 'torch.DoubleTensor', torch.typename(first))
        assert.are.equal(o.batch, first:size(1))
        exercise(net, input)
      end
    end)
  end

  it('gives classifier outputs of the right size', function()
    local cases = {
      {'mlp', {batch = 3, hidden = {16}}, {3, 10}},
      {'lenet', {batch = 2}, {2, 10}},
      {'resnet', {batch = 2, dataset = 'cifar10', depth = 20}, {2, 10}},
      {'resnet', {batch = 2, dataset = 'cifar10', depth = 8, shortcutType = 'B'}, {2, 10}},
      {'resnet', {batch = 2, dataset = 'cifar10', depth = 8, shortcutType = 'C'}, {2, 10}},
      {'preresnet', {batch = 2, dataset = 'cifar10', depth = 20}, {2, 10}},
      {'densenet', {batch = 2, dataset = 'cifar10', depth = 16, growthRate = 6}, {2, 10}},
      {'vgg', {batch = 1, modelType = 'A', imageSize = 32}, {1, 1000}},
      {'alexnet', {batch = 1, variant = 'twotower'}, {1, 1000}},
      {'resnet', {batch = 1, dataset = 'imagenet', depth = 18, imageSize = 64}, {1, 1000}},
      {'resnet', {batch = 1, dataset = 'imagenet', depth = 50, imageSize = 64}, {1, 1000}},
    }
    for _, c in ipairs(cases) do
      torch.manualSeed(1)
      local net, input = models.build(c[1], c[2])
      local out = exercise(net, input)
      assert.are.same(c[3], shapeOf(out), c[1])
    end
  end)

  it('googlenet gives the main and both auxiliary classifier outputs in training', function()
    torch.manualSeed(1)
    local net, input = models.build('googlenet', {batch = 1})
    local out = exercise(net, input)
    local flat = {}
    local function collect(v) if torch.isTensor(v) then flat[#flat + 1] = v:size():totable() else for _, x in ipairs(v) do collect(x) end end end
    collect(out)
    assert.are.same({1, 1000}, flat[1])
    for _, s in ipairs(flat) do assert.are.same({1, 1000}, s) end
    assert.is_true(#flat == 3, 'main + 2 auxiliary outputs, got ' .. #flat)
  end)

  -- published counts: torchvision / the ResNet, VGG and DenseNet papers'
  -- reference implementations (resnet with bias-free convolutions, as Torch7's
  -- fb.resnet.torch has them after :noBias())
  it('has the published parameter counts, exactly', function()
    local counts = {
      {'resnet', {dataset = 'imagenet', depth = 18}, 11689512},
      {'resnet', {dataset = 'imagenet', depth = 34}, 21797672},
      {'resnet', {dataset = 'imagenet', depth = 50}, 25557032},
      {'resnet', {dataset = 'cifar10', depth = 20}, 269722},
      {'resnet', {dataset = 'cifar10', depth = 56}, 853018},
      {'resnet', {dataset = 'cifar10', depth = 110}, 1727962},
      {'vgg', {modelType = 'A'}, 132863336},
      {'vgg', {modelType = 'D'}, 138357544},
      {'alexnet', {}, 61100840},
      {'densenet', {dataset = 'cifar10', depth = 100, growthRate = 12}, 769162},
      {'densenet', {dataset = 'imagenet', depth = 121}, 7978856},
    }
    for _, c in ipairs(counts) do
      local o = {batch = 1, type = 'float'}
      for k, v in pairs(c[2]) do o[k] = v end
      local net = models.build(c[1], o)
      assert.are.equal(c[3], nParams(net), c[1] .. ' ' .. (o.modelType or o.depth or ''))
      net = nil
      collectgarbage()
    end
  end)

  it('rejects bad common options with clear errors', function()
    local ok, err = pcall(models.build, 'resnet', {batch = 0})
    assert.is_false(ok)
    assert.matches('models.resnet: batch must be a positive integer, got 0', tostring(err), 1, true)
    ok, err = pcall(models.build, 'mlp', {type = 'half'})
    assert.is_false(ok)
    assert.matches("models.mlp: type must be 'float' or 'double', got half", tostring(err), 1, true)
  end)
end)
