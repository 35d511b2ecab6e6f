-- optnet.models: the test networks of OptNet's own suite (fmassa/optimize-net,
-- models.lua), with the same architectures and input shapes, so that its
-- tests.lua and optnet.test run unchanged. Each entry is a function
-- (opts) -> net, input; nets and inputs are of the default tensor type and
-- inputs are uniform in [0, 1) (torch.rand), as there.
--   basic_parallel, basic_conv, basic_deep_conv, basic_unpooling, siamese,
--   basic_concat, basic_multiOutput: small nets over containers and tables
--   alexnet, googlenet, vgg([modelType = 'A']): ImageNet nets, batch 1, 224x224
--   resnet{dataset = 'cifar10' | 'imagenet', depth = , shortcutType = 'B'},
--   preresnet{...}: fb.resnet.torch's nets with every batch normalization
--   replaced by nn.MulConstant(1) (OptNet compares exact numbers between
--   runs, which batch statistics updated in training mode would spoil)
require 'nn'

local models = {}

local function defaultType()
  local t = torch.getdefaulttensortype()
  return t == 'torch.DoubleTensor' and 'double' or 'float', t
end

-- a zoo builder (models/) run in the default type, input redrawn uniform
local function fromZoo(name, opts, shape)
  local zooType, tname = defaultType()
  opts.type = zooType
  opts.batch = 1
  local net = require('models.' .. name)(opts)
  net = net:type(tname)
  return net, torch.rand(table.unpack(shape))
end

function models.basic_parallel()
  local branches = nn.ParallelTable()
    :add(nn.Linear(2, 2))
    :add(nn.Sequential():add(nn.Linear(2, 1)):add(nn.Sigmoid()):add(nn.Linear(1, 1)))
  local net = nn.Sequential()
    :add(branches)
    :add(nn.JoinTable(2))
    :add(nn.Linear(3, 2))
    :add(nn.ReLU(true))
  return net, {torch.rand(2, 2), torch.rand(2, 2)}
end

function models.basic_conv()
  local net = nn.Sequential()
    :add(nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 1, 1))
    :add(nn.View(32 * 32):setNumInputDims(3))
    :add(nn.Linear(32 * 32, 100))
  return net, torch.rand(1, 1, 32, 32)
end

-- n 1->1 channel 3x3 convolutions (padding 1), each followed by ReLU(inplace)
local function convReLUs(seq, n, inplace)
  for _ = 1, n do
    seq:add(nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(inplace))
  end
  return seq
end

function models.basic_deep_conv()
  local net = convReLUs(nn.Sequential(), 4, true)
    :add(nn.View(32 * 32):setNumInputDims(3))
    :add(nn.Linear(32 * 32, 100)):add(nn.ReLU(true))
    :add(nn.Linear(100, 10))
  return net, torch.rand(1, 1, 32, 32)
end

function models.basic_unpooling()
  local pool1 = nn.SpatialMaxPooling(2, 2, 2, 2)
  local pool2 = nn.SpatialMaxPooling(2, 2, 2, 2)
  local net = convReLUs(nn.Sequential(), 1, true):add(pool1)
  convReLUs(net, 1, true):add(pool2)
  convReLUs(net, 1, true):add(nn.SpatialMaxUnpooling(pool2))
  convReLUs(net, 1, true):add(nn.SpatialMaxUnpooling(pool1))
  net:add(nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 1, 1))
  return net, torch.rand(1, 1, 32, 32)
end

-- two branches sharing weights and their gradients, not in place
function models.siamese()
  local b1 = convReLUs(nn.Sequential(), 4, false):add(nn.View(-1):setNumInputDims(3))
  local b2 = b1:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local net = nn.Sequential()
    :add(nn.ParallelTable():add(b1):add(b2))
    :add(nn.PairwiseDistance(2))
  return net, {torch.rand(1, 1, 32, 32), torch.rand(1, 1, 32, 32)}
end

function models.basic_concat()
  local heads = nn.ConcatTable()
    :add(nn.Sequential():add(nn.Linear(2, 1)):add(nn.ReLU(true)):add(nn.Linear(1, 1)))
    :add(nn.Sequential():add(nn.Linear(2, 2)):add(nn.ReLU()))
    :add(nn.Sequential():add(nn.Linear(2, 3)):add(nn.ReLU(true)):add(nn.Linear(3, 2)))
  -- {a, b, c} -> {a, {b, c}} -> {Linear(a), b + c} -> product
  local regroup = nn.ConcatTable():add(nn.SelectTable(1)):add(nn.NarrowTable(2, 2))
  local combine = nn.ParallelTable():add(nn.Sequential():add(nn.Linear(1, 2))):add(nn.CAddTable())
  local net = nn.Sequential():add(heads):add(regroup):add(combine):add(nn.CMulTable())
  return net, torch.rand(2, 2)
end

function models.basic_multiOutput()
  local net = nn.Sequential()
  for _ = 1, 3 do net:add(nn.Linear(2, 2)):add(nn.ReLU()) end
  net:add(nn.ConcatTable():add(nn.Linear(2, 2)):add(nn.Linear(2, 2)):add(nn.Linear(2, 2)))
  return net, torch.rand(2, 2)
end

-- two towers (Concat(2)) and a Threshold(0, 1e-6) classifier: models/optnet_alexnet.lua
function models.alexnet()
  local net, input = fromZoo('optnet_alexnet', {imageSize = 224, nClasses = 1000}, {1, 3, 224, 224})
  net.imageSize, net.imageCrop = 256, 224
  return net, input
end

-- configuration A by default: models/optnet_vgg.lua
function models.vgg(modelType)
  modelType = modelType or 'A'
  local net, input = fromZoo('optnet_vgg', {modelType = modelType, imageSize = 224, nClasses = 1000},
    {1, 3, 224, 224})
  net.imageSize, net.imageCrop = 256, 224
  return net, input
end

-- GoogLeNet with batch-norm-free inception blocks as in soumith's
-- imagenet-multiGPU: config = {{1x1}, {3x3 reduce, 3x3}, {double 3x3
-- reduce, 3x3}, {'max' | 'avg', pool projection}}; a 0 leaves a branch or
-- projection out
local function inception(nIn, config)
  local concat = nn.Concat(2)
  local function convReLU(seq, a, b, k, pad)
    return seq:add(nn.SpatialConvolution(a, b, k, k, 1, 1, pad or 0, pad or 0)):add(nn.ReLU(true))
  end
  if config[1][1] ~= 0 then concat:add(convReLU(nn.Sequential(), nIn, config[1][1], 1)) end
  local c3 = convReLU(nn.Sequential(), nIn, config[2][1], 1)
  concat:add(convReLU(c3, config[2][1], config[2][2], 3, 1))
  local c33 = convReLU(nn.Sequential(), nIn, config[3][1], 1)
  convReLU(c33, config[3][1], config[3][2], 3, 1)
  concat:add(convReLU(c33, config[3][2], config[3][2], 3, 1))
  local pool = nn.Sequential():add(nn.SpatialZeroPadding(1, 1, 1, 1))
  if config[4][1] == 'max' then
    pool:add(nn.SpatialMaxPooling(3, 3, 1, 1):ceil())
  elseif config[4][1] == 'avg' then
    pool:add(nn.SpatialAveragePooling(3, 3, 1, 1):ceil())
  else
    error("optnet.models.googlenet: pooling must be 'max' or 'avg', got " .. tostring(config[4][1]), 2)
  end
  if config[4][2] ~= 0 then convReLU(pool, nIn, config[4][2], 1) end
  return concat:add(pool)
end

function models.googlenet()
  local nClasses = 1000
  local features = nn.Sequential()
    :add(nn.SpatialConvolution(3, 64, 7, 7, 2, 2, 3, 3)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
    :add(nn.SpatialConvolution(64, 64, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialConvolution(64, 192, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
    :add(inception(192, {{64}, {64, 64}, {64, 96}, {'avg', 32}}))      -- 3a
    :add(inception(256, {{64}, {64, 96}, {64, 96}, {'avg', 64}}))      -- 3b
    :add(inception(320, {{0}, {128, 160}, {64, 96}, {'max', 0}}))      -- 3c
    :add(nn.SpatialConvolution(576, 576, 2, 2, 2, 2))
    :add(inception(576, {{224}, {64, 96}, {96, 128}, {'avg', 128}}))   -- 4a
    :add(inception(576, {{192}, {96, 128}, {96, 128}, {'avg', 128}}))  -- 4b
    :add(inception(576, {{160}, {128, 160}, {128, 160}, {'avg', 96}})) -- 4c
    :add(inception(576, {{96}, {128, 192}, {160, 192}, {'avg', 96}}))  -- 4d
  local main = nn.Sequential()
    :add(inception(576, {{0}, {128, 192}, {192, 256}, {'max', 0}}))    -- 4e
    :add(nn.SpatialConvolution(1024, 1024, 2, 2, 2, 2))
    :add(inception(1024, {{352}, {192, 320}, {160, 224}, {'avg', 128}})) -- 5a
    :add(inception(1024, {{352}, {192, 320}, {192, 224}, {'max', 128}})) -- 5b
    :add(nn.SpatialAveragePooling(7, 7, 1, 1))
    :add(nn.View(1024):setNumInputDims(3))
    :add(nn.Linear(1024, nClasses)):add(nn.LogSoftMax())
  local aux = nn.Sequential()
    :add(nn.SpatialAveragePooling(5, 5, 3, 3):ceil())
    :add(nn.SpatialConvolution(576, 128, 1, 1, 1, 1))
    :add(nn.View(128 * 4 * 4):setNumInputDims(3))
    :add(nn.Linear(128 * 4 * 4, 768)):add(nn.ReLU())
    :add(nn.Linear(768, nClasses)):add(nn.LogSoftMax())
  -- the two classifiers side by side: batch x 2000
  local net = nn.Sequential():add(features):add(nn.Concat(2):add(main):add(aux))
  net.imageSize, net.imageCrop = 256, 224
  return net, torch.rand(1, 3, 224, 224)
end

-- ResNets ------------------------------------------------------------------

local IMAGENET = {
  [18] = {{2, 2, 2, 2}, 512, 'basic'}, [34] = {{3, 4, 6, 3}, 512, 'basic'},
  [50] = {{3, 4, 6, 3}, 2048, 'bottleneck'}, [101] = {{3, 4, 23, 3}, 2048, 'bottleneck'},
  [152] = {{3, 8, 36, 3}, 2048, 'bottleneck'},
}

-- what stands for batch normalization: the identity as a module, not in place
local function noBN()
  local m = nn.MulConstant(1)
  m.inplace = nil
  return m
end

local function checkResnetOpts(name, opt, depths)
  if type(opt) ~= 'table' then
    error(string.format('optnet.models.%s: options table {dataset=, depth=} expected, got %s',
      name, torch.type(opt)), 3)
  end
  local st = opt.shortcutType or 'B'
  if st ~= 'A' and st ~= 'B' and st ~= 'C' then
    error(string.format("optnet.models.%s: shortcutType must be 'A', 'B' or 'C', got %s", name, tostring(st)), 3)
  end
  local d = opt.depth
  if opt.dataset == 'imagenet' then
    if not depths[d] then
      local ks = {}
      for k in pairs(depths) do ks[#ks + 1] = k end
      table.sort(ks)
      error(string.format('optnet.models.%s: imagenet depth must be one of %s, got %s', name,
        table.concat(ks, ', '), tostring(d)), 3)
    end
  elseif opt.dataset == 'cifar10' then
    if math.type(d) ~= 'integer' or d < 8 or (d - 2) % 6 ~= 0 then
      error(string.format('optnet.models.%s: cifar10 depth must be 6n+2 (20, 32, 44, 56, 110, ...), got %s',
        name, tostring(d)), 3)
    end
  else
    error(string.format("optnet.models.%s: dataset must be 'cifar10' or 'imagenet', got %s",
      name, tostring(opt.dataset)), 3)
  end
  return st
end

-- the shortcut: a 1x1 convolution (always for C, when the width changes for
-- B; resnet adds noBN after it), a strided zero-padded identity (A), or identity
local function shortcut(shortcutType, nIn, nOut, stride, withBN)
  if shortcutType == 'C' or (shortcutType == 'B' and nIn ~= nOut) then
    local s = nn.Sequential():add(nn.SpatialConvolution(nIn, nOut, 1, 1, stride, stride))
    if withBN then s:add(noBN()) end
    return s
  elseif nIn ~= nOut then
    return nn.Sequential()
      :add(nn.SpatialAveragePooling(1, 1, stride, stride))
      :add(nn.Concat(2):add(nn.Identity()):add(nn.MulConstant(0)))
  end
  return nn.Identity()
end

-- fb.resnet.torch's initialization: He normal convolutions, zero biases
local function initResnet(net)
  for _, m in ipairs(net:findModules('nn.SpatialConvolution')) do
    m.weight:normal(0, math.sqrt(2 / (m.kW * m.kH * m.nOutputPlane)))
    m.bias:zero()
  end
  for _, m in ipairs(net:findModules('nn.Linear')) do m.bias:zero() end
end

function models.resnet(opt)
  local shortcutType = checkResnetOpts('resnet', opt, IMAGENET)
  local Conv = nn.SpatialConvolution
  local iChannels

  local function residual(s, nIn, nOut, stride)
    return nn.Sequential()
      :add(nn.ConcatTable():add(s):add(shortcut(shortcutType, nIn, nOut, stride, true)))
      :add(nn.CAddTable(true))
      :add(nn.ReLU(true))
  end
  local function basicblock(n, stride)
    local nIn = iChannels
    iChannels = n
    local s = nn.Sequential()
      :add(Conv(nIn, n, 3, 3, stride, stride, 1, 1)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, 1, 1, 1, 1)):add(noBN())
    return residual(s, nIn, n, stride)
  end
  local function bottleneck(n, stride)
    local nIn = iChannels
    iChannels = n * 4
    local s = nn.Sequential()
      :add(Conv(nIn, n, 1, 1, 1, 1, 0, 0)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, stride, stride, 1, 1)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n * 4, 1, 1, 1, 1, 0, 0)):add(noBN())
    return residual(s, nIn, n * 4, stride)
  end
  local function layer(block, features, count, stride)
    local s = nn.Sequential()
    for i = 1, count do s:add(block(features, i == 1 and stride or 1)) end
    return s
  end

  local net, input = nn.Sequential(), nil
  if opt.dataset == 'imagenet' then
    local def, nFeatures, kind = table.unpack(IMAGENET[opt.depth])
    local block = kind == 'basic' and basicblock or bottleneck
    iChannels = 64
    net:add(Conv(3, 64, 7, 7, 2, 2, 3, 3)):add(noBN()):add(nn.ReLU(true))
      :add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
      :add(layer(block, 64, def[1]))
      :add(layer(block, 128, def[2], 2))
      :add(layer(block, 256, def[3], 2))
      :add(layer(block, 512, def[4], 2))
      :add(nn.SpatialAveragePooling(7, 7, 1, 1))
      :add(nn.View(nFeatures):setNumInputDims(3))
      :add(nn.Linear(nFeatures, 1000))
    input = torch.rand(1, 3, 224, 224)
  else
    local n = (opt.depth - 2) // 6
    iChannels = 16
    net:add(Conv(3, 16, 3, 3, 1, 1, 1, 1)):add(noBN()):add(nn.ReLU(true))
      :add(layer(basicblock, 16, n))
      :add(layer(basicblock, 32, n, 2))
      :add(layer(basicblock, 64, n, 2))
      :add(nn.SpatialAveragePooling(8, 8, 1, 1))
      :add(nn.View(64):setNumInputDims(3))
      :add(nn.Linear(64, 10))
    input = torch.rand(1, 3, 32, 32)
  end
  initResnet(net)
  return net, input
end

-- pre-activation: noBN-ReLU before each convolution; 'both_preact' puts it
-- before the split (the shortcut sees it), 'no_preact' leaves it out (the
-- first block of the imagenet net, right after the stem's)
function models.preresnet(opt)
  local depths = {[200] = {{3, 24, 36, 3}, 2048, 'bottleneck'}}
  for k, v in pairs(IMAGENET) do depths[k] = v end
  local shortcutType = checkResnetOpts('preresnet', opt, depths)
  local Conv = nn.SpatialConvolution
  local iChannels

  local function preact(kind, nIn)
    local block, s = nn.Sequential(), nn.Sequential()
    if kind == 'both_preact' then
      block:add(noBN()):add(nn.ReLU(true))
    elseif kind ~= 'no_preact' then
      s:add(noBN()):add(nn.ReLU(true))
    end
    return block, s
  end
  local function join(block, s, nIn, nOut, stride)
    return block
      :add(nn.ConcatTable():add(s):add(shortcut(shortcutType, nIn, nOut, stride, false)))
      :add(nn.CAddTable(true))
  end
  local function basicblock(n, stride, kind)
    local nIn = iChannels
    iChannels = n
    local block, s = preact(kind, nIn)
    s:add(Conv(nIn, n, 3, 3, stride, stride, 1, 1)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, 1, 1, 1, 1))
    return join(block, s, nIn, n, stride)
  end
  local function bottleneck(n, stride, kind)
    local nIn = iChannels
    iChannels = n * 4
    local block, s = preact(kind, nIn)
    s:add(Conv(nIn, n, 1, 1, 1, 1, 0, 0)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, stride, stride, 1, 1)):add(noBN()):add(nn.ReLU(true))
      :add(Conv(n, n * 4, 1, 1, 1, 1, 0, 0))
    return join(block, s, nIn, n * 4, stride)
  end
  local function layer(block, features, count, stride, kind)
    local s = nn.Sequential()
    if count < 1 then return s end
    s:add(block(features, stride, kind == 'first' and 'no_preact' or 'both_preact'))
    for _ = 2, count do s:add(block(features, 1)) end
    return s
  end
  local function tail(net, nFeatures, pool, nClasses)
    return net:add(nn.Copy(nil, nil, true)):add(noBN()):add(nn.ReLU(true))
      :add(nn.SpatialAveragePooling(pool, pool, 1, 1))
      :add(nn.View(nFeatures):setNumInputDims(3))
      :add(nn.Linear(nFeatures, nClasses))
  end

  local net, input = nn.Sequential(), nil
  if opt.dataset == 'imagenet' then
    local def, nFeatures, kind = table.unpack(depths[opt.depth])
    local block = kind == 'basic' and basicblock or bottleneck
    iChannels = 64
    net:add(Conv(3, 64, 7, 7, 2, 2, 3, 3)):add(noBN()):add(nn.ReLU(true))
      :add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
      :add(layer(block, 64, def[1], 1, 'first'))
      :add(layer(block, 128, def[2], 2))
      :add(layer(block, 256, def[3], 2))
      :add(layer(block, 512, def[4], 2))
    tail(net, nFeatures, 7, 1000)
    input = torch.rand(1, 3, 224, 224)
  else
    local n = (opt.depth - 2) // 6
    iChannels = 16
    net:add(Conv(3, 16, 3, 3, 1, 1, 1, 1))
      :add(layer(basicblock, 16, n, 1))
      :add(layer(basicblock, 32, n, 2))
      :add(layer(basicblock, 64, n, 2))
    tail(net, 64, 8, 10)
    input = torch.rand(1, 3, 32, 32)
  end
  initResnet(net)
  return net, input
end

return models
