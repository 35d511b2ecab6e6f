-- OptNet's package layout: optnet.env is the optnet table, optnet.utils has
-- OptNet's helpers with their semantics, optnet.models builds OptNet's test
-- nets (architectures and sizes checked by hand-counted parameters and
-- output sizes), and optnet.test runs its checks over them. The 224x224
-- alexnet and vgg (240 MB and 530 MB of weights) are built only with
-- OPTNET_UPSTREAM_BIG=1.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'

local BIG = os.getenv('OPTNET_UPSTREAM_BIG') == '1'

-- runs f with the default tensor type set to float, as OptNet's suite does
local function inFloat(f)
  local saved = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.FloatTensor')
  local ok, err = pcall(f)
  torch.setdefaulttensortype(saved)
  if not ok then error(err, 0) end
end

local function nParams(net)
  local n = 0
  for _, p in ipairs((net:parameters())) do n = n + p:nElement() end
  return n
end

local function sizes(t)
  if torch.isTensor(t) then return t:size():totable() end
  local r = {}
  for i, v in ipairs(t) do r[i] = sizes(v) end
  return r
end

describe('optnet.env', function()
  it('is the table require "optnet" returns, both ways round', function()
    local env = require 'optnet.env'
    assert.are.equal(optnet, env)
    assert.is_function(env.optimizeMemory)
    assert.is_function(env.test)
    -- what a script assigns through one name is seen through the other
    local saved = env.test
    local mine = function() return 'replaced' end
    env.test = mine
    assert.are.equal(mine, require('optnet').test)
    env.test = saved
    -- env loaded first (a fresh state): optnet comes with it
    local core = package.searchpath('torch.core', package.cpath)
    local build = core and core:match('^(.*)/torch/core%.so$') or 'build'
    local out = io.popen('TH_BUILD=' .. build .. ' bin/th -e "local e = require(\'optnet.env\'); '
      .. 'io.write(tostring(e == require(\'optnet\')), \' \', type(e.optimizeMemory))" 2>&1'):read('a')
    assert.are.equal('true function', out)
  end)
end)

describe('optnet.utils', function()
  local utils = require 'optnet.utils'

  it('keepTrack: entry_fun once per storage, fun for every tensor met, arrays only', function()
    local a = torch.Tensor(4)
    local view = a:narrow(1, 2, 2)
    local b = torch.Tensor(3)
    local input = {a, {view, b}, extra = torch.Tensor(5)}
    local track, entries, calls = {}, {}, {}
    local function entry(t, tag)
      entries[#entries + 1] = t
      return {tag = tag, n = 0}
    end
    local function fun(t, tr, tag)
      local e = tr[torch.pointer(t:storage())]
      e.n = e.n + 1
      calls[#calls + 1] = tag
    end
    utils.keepTrack(input, track, entry, fun, 'x')
    -- a and its view share one entry, b has its own; the hash part is not walked
    assert.are.equal(2, #entries)
    assert.are.equal(a, entries[1])
    assert.are.equal(b, entries[2])
    assert.are.equal(2, track[torch.pointer(a:storage())].n)
    assert.are.equal(1, track[torch.pointer(b:storage())].n)
    assert.are.equal('x', track[torch.pointer(b:storage())].tag)
    assert.are.same({'x', 'x', 'x'}, calls)
    -- a second walk adds no entry, fun runs again; fun may be left out
    utils.keepTrack(b, track, entry)
    assert.are.equal(2, #entries)
    -- an empty tensor has no storage: skipped
    utils.keepTrack(torch.Tensor(), track, entry, fun)
    assert.are.equal(2, #entries)
    helpers.errors(function() utils.keepTrack(a, nil, entry) end,
      'optnet.utils.keepTrack: table expected as argument 2')
    helpers.errors(function() utils.keepTrack(a, {}, 3) end, 'optnet.utils.keepTrack: function expected as argument 3')
  end)

  it('recursiveClone: new storages, same values, the nesting kept', function()
    local a = torch.Tensor{1, 2, 3}
    local b = torch.Tensor{{4, 5}, {6, 7}}:t()
    local c = utils.recursiveClone({a, {b}})
    assert.are.equal(2, #c)
    assert.are.same({1, 2, 3}, c[1]:totable())
    assert.are.same({{4, 6}, {5, 7}}, c[2][1]:totable())
    assert.is_true(c[2][1]:isContiguous())
    a[1] = 10
    assert.are.equal(1, c[1][1])
    assert.are_not.equal(torch.pointer(a:storage()), torch.pointer(c[1]:storage()))
    local single = utils.recursiveClone(b)
    assert.is_true(torch.isTensor(single))
    helpers.errors(function() utils.recursiveClone(3) end,
      'optnet.utils.recursiveClone: tensor or table of tensors expected, got number')
    helpers.errors(function() utils.recursiveClone({a, 'x'}) end, 'got string')
  end)

  it('copyTable: nested tables copied, the rest (tensors too) shared', function()
    local t = torch.Tensor(2)
    local src = {1, {2, {3}}, k = {t = t}, s = 'x'}
    local c = utils.copyTable(src)
    assert.are.same({1, {2, {3}}, k = {t = t}, s = 'x'}, c)
    assert.are_not.equal(src[2], c[2])
    assert.are_not.equal(src[2][2], c[2][2])
    assert.are.equal(t, c.k.t)
    assert.are.equal(5, utils.copyTable(5))
  end)
end)

describe('optnet.models', function()
  local models = require 'optnet.models'

  it("has OptNet's twelve builders", function()
    local names = {}
    for k, v in pairs(models) do
      assert.is_function(v)
      names[#names + 1] = k
    end
    table.sort(names)
    assert.are.same({'alexnet', 'basic_concat', 'basic_conv', 'basic_deep_conv', 'basic_multiOutput',
      'basic_parallel', 'basic_unpooling', 'googlenet', 'preresnet', 'resnet', 'siamese', 'vgg'}, names)
  end)

  -- hand-counted parameters; output sizes of one forward
  local small = {
    basic_parallel = {params = 2 * 2 + 2 + 2 + 1 + 1 + 1 + 3 * 2 + 2, input = {{2, 2}, {2, 2}}, output = {2, 2}},
    basic_conv = {params = 9 + 1 + 1024 * 100 + 100, input = {1, 1, 32, 32}, output = {1, 100}},
    basic_deep_conv = {params = 4 * 10 + 1024 * 100 + 100 + 100 * 10 + 10, input = {1, 1, 32, 32}, output = {1, 10}},
    basic_unpooling = {params = 5 * 10, input = {1, 1, 32, 32}, output = {1, 1, 32, 32}},
    -- the two branches share their 4 convolutions
    siamese = {params = 2 * 4 * 10, input = {{1, 1, 32, 32}, {1, 1, 32, 32}}, output = {1}},
    basic_concat = {params = (2 + 1) + (1 + 1) + (4 + 2) + (6 + 3) + (6 + 2) + (2 + 2),
                    input = {2, 2}, output = {2, 2}},
    basic_multiOutput = {params = 6 * 6, input = {2, 2}, output = {{2, 2}, {2, 2}, {2, 2}}},
  }
  for name, want in pairs(small) do
    it(name .. ': the parameters and sizes of OptNet\'s net', function()
      inFloat(function()
        local net, input = models[name]()
        assert.are.equal(want.params, nParams(net))
        assert.are.same(want.input, sizes(input))
        assert.are.equal('torch.FloatTensor', torch.type(net:parameters()[1]))
        assert.are.same(want.output, sizes(net:forward(input)))
      end)
    end)
  end

  it('uniform inputs in the default type', function()
    local _, x = models.basic_conv()
    assert.are.equal(torch.getdefaulttensortype(), torch.type(x))
    assert.is_true(x:min() >= 0 and x:max() < 1)
  end)

  it('resnet and preresnet 20 (cifar10): batch norm as MulConstant(1), shortcut B', function()
    inFloat(function()
      for _, name in ipairs{'resnet', 'preresnet'} do
        local net, x = models[name]({dataset = 'cifar10', depth = 20})
        -- 19 3x3 convolutions with biases, two 1x1 projections (16->32, 32->64), Linear(64, 10):
        -- 448 + 6*2320 + 4640 + 5*9248 + 544 + 18496 + 5*36928 + 2112 + 650
        assert.are.equal(271690, nParams(net))
        assert.are.equal(21, #net:findModules('nn.SpatialConvolution'))
        assert.are.equal(0, #net:findModules('nn.SpatialBatchNormalization'))
        for _, m in ipairs(net:findModules('nn.MulConstant')) do
          assert.are.equal(1, m.constant_scalar)
          assert.is_nil(m.inplace)
        end
        assert.are.same({1, 3, 32, 32}, sizes(x))
        assert.are.same({1, 10}, sizes(net:forward(x)))
        -- fb.resnet.torch's initialization: zero biases
        for _, m in ipairs(net:findModules('nn.SpatialConvolution')) do assert.are.equal(0, m.bias:abs():max()) end
      end
      local noBN = #models.resnet({dataset = 'cifar10', depth = 20}):findModules('nn.MulConstant')
      -- resnet: 19 after convolutions + 2 after projections
      assert.are.equal(21, noBN)
      -- shortcut A: no projection, zero-padded identity (MulConstant(0) in a Concat)
      local a = models.resnet({dataset = 'cifar10', depth = 20, shortcutType = 'A'})
      assert.are.equal(19, #a:findModules('nn.SpatialConvolution'))
      assert.are.equal(2, #a:findModules('nn.Concat'))
    end)
  end)

  it('resnet and preresnet reject bad options with the builder named', function()
    helpers.errors(function() models.resnet({dataset = 'cifar10', depth = 21}) end,
      'optnet.models.resnet: cifar10 depth must be 6n+2')
    helpers.errors(function() models.preresnet({dataset = 'imagenet', depth = 19}) end,
      'optnet.models.preresnet: imagenet depth must be one of 18, 34, 50, 101, 152, 200, got 19')
    helpers.errors(function() models.resnet({dataset = 'mnist', depth = 20}) end,
      "optnet.models.resnet: dataset must be 'cifar10' or 'imagenet', got mnist")
    helpers.errors(function() models.resnet() end, 'optnet.models.resnet: options table')
    helpers.errors(function() models.vgg('Z') end, "modelType must be 'A', 'B', 'D' or 'E', got Z")
  end)

  it('googlenet: main and auxiliary classifiers side by side', function()
    inFloat(function()
      local net, x = models.googlenet()
      assert.are.same({1, 3, 224, 224}, sizes(x))
      assert.are.equal(224, net.imageCrop)
      -- 2 classifiers' LogSoftMax; 10 inceptions (3a-c, 4a-e, 5a-b: a Concat(2) each) + the splitter
      assert.are.equal(2, #net:findModules('nn.LogSoftMax'))
      assert.are.equal(11, #net:findModules('nn.Concat'))
      -- parameters from the layer shapes: an inception {{c1}, {r3, o3}, {r33, o33}, {pool, p}}
      -- has 1x1 and 3x3 convolutions with biases; its output has c1 + o3 + o33 + (p or nIn) planes
      local function inception(nIn, c)
        local n = nIn * c[2][1] + c[2][1] + c[2][1] * c[2][2] * 9 + c[2][2]
          + nIn * c[3][1] + c[3][1] + c[3][1] * c[3][2] * 9 + c[3][2] + c[3][2] * c[3][2] * 9 + c[3][2]
        if c[1][1] > 0 then n = n + nIn * c[1][1] + c[1][1] end
        if c[4][2] > 0 then n = n + nIn * c[4][2] + c[4][2] end
        return n, c[1][1] + c[2][2] + c[3][2] + (c[4][2] > 0 and c[4][2] or nIn)
      end
      local total = 3 * 64 * 49 + 64 + 64 * 64 + 64 + 64 * 192 * 9 + 192
      local planes = 192
      local function stage(cfgs)
        for _, c in ipairs(cfgs) do
          local n
          n, planes = inception(planes, c)
          total = total + n
        end
      end
      stage{{{64}, {64, 64}, {64, 96}, {'avg', 32}}, {{64}, {64, 96}, {64, 96}, {'avg', 64}},
            {{0}, {128, 160}, {64, 96}, {'max', 0}}}
      assert.are.equal(576, planes)
      total = total + 576 * 576 * 4 + 576
      stage{{{224}, {64, 96}, {96, 128}, {'avg', 128}}, {{192}, {96, 128}, {96, 128}, {'avg', 128}},
            {{160}, {128, 160}, {128, 160}, {'avg', 96}}, {{96}, {128, 192}, {160, 192}, {'avg', 96}},
            {{0}, {128, 192}, {192, 256}, {'max', 0}}}
      total = total + 1024 * 1024 * 4 + 1024
      stage{{{352}, {192, 320}, {160, 224}, {'avg', 128}}, {{352}, {192, 320}, {192, 224}, {'max', 128}}}
      assert.are.equal(1024, planes)
      -- main Linear(1024, 1000); aux 1x1 conv 576->128, Linear(2048, 768), Linear(768, 1000)
      total = total + 1024 * 1000 + 1000 + 576 * 128 + 128 + 2048 * 768 + 768 + 768 * 1000 + 1000
      assert.are.equal(total, nParams(net))
    end)
  end)

  if BIG then
    it('alexnet and vgg: the 224x224 ImageNet nets', function()
      inFloat(function()
        local net, x = models.alexnet()
        -- towers: 2 * (17472 + 153728 + 221376 + 331968 + 221312);
        -- classifier: 9216*4096+4096 + 4096*4096+4096 + 4096*1000+1000
        assert.are.equal(60522856, nParams(net))
        assert.are.same({1, 3, 224, 224}, sizes(x))
        assert.are.same({1000}, sizes(net:forward(x)))
        net = nil
        collectgarbage()
        net, x = models.vgg()
        assert.are.equal(132863336, nParams(net))
        assert.are.equal(8, #net:findModules('nn.SpatialConvolution'))
        assert.are.same({1, 3, 224, 224}, sizes(x))
      end)
    end)
  end
end)

describe('optnet.test', function()
  it('runs the basic nets: forward, backward and remove pass, the big ones disabled', function()
    local saved = torch.getdefaulttensortype()
    local out = {}
    local write = io.write
    io.write = function(...) for _, s in ipairs({...}) do out[#out + 1] = tostring(s) end end
    local ok, tester = pcall(optnet.test, nil, {only_basic_tests = true})
    io.write = write
    assert(ok, tostring(tester))
    local text = table.concat(out)
    assert.are.equal('torch.Tester', torch.type(tester))
    assert.are.equal(saved, torch.getdefaulttensortype())
    assert.are.equal(0, #tester.errors)
    -- 7 basic nets x 3 tests pass; 3 ImageNet nets + 8 ResNets x 3 are skipped
    local _, pass = text:gsub('%[PASS%]', '')
    local _, skip = text:gsub('%[SKIP%]', '')
    assert.are.equal(21, pass)
    assert.are.equal(33, skip)
    for _, name in ipairs{'basic_concat_backward', 'siamese_remove', 'basic_unpooling'} do
      assert.is_truthy(text:find(name .. ' %.+ %[PASS%]'), name)
    end
    assert.is_truthy(text:find('resnet110_backward %.+ %[SKIP%]'))
    -- forward 2 asserts, backward 4, remove 3 per net
    assert.are.equal(7 * 9, tester.countasserts)
  end)

  it('fails a net whose optimized numbers differ', function()
    local real = optnet.optimizeMemory
    -- an "optimizer" that changes a weight: every check must catch it
    optnet.optimizeMemory = function(net, ...)
      local r = real(net, ...)
      net:parameters()[1]:add(1)
      return r
    end
    local write = io.write
    io.write = function() end
    local ok, err = pcall(optnet.test, {'basic_conv', 'basic_conv_backward'})
    io.write = write
    optnet.optimizeMemory = real
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find('2 of 2 tests failed', 1, true), tostring(err))
  end)

  it('runs a named test only, and rejects bad arguments', function()
    local saved = torch.getdefaulttensortype()
    local write = io.write
    io.write = function() end
    local ok, tester = pcall(optnet.test, 'basic_parallel_remove')
    io.write = write
    assert(ok, tostring(tester))
    assert.are.equal(3, tester.countasserts)
    helpers.errors(function() optnet.test(nil, 5) end, 'optnet.test: options table expected as argument 2, got number')
    helpers.errors(function() optnet.test('nosuchtest') end, "no test named 'nosuchtest'")
    helpers.errors(function() optnet.test(nil, {use_cudnn = true}) end, 'optnet.test: use_cudnn = true needs cudnn')
    assert.are.equal(saved, torch.getdefaulttensortype())
  end)
end)
