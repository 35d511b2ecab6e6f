-- ResNet (He et al. 2015) as fb.resnet.torch builds it.
--   require('models.resnet'){dataset='cifar10'|'imagenet', depth=N, shortcutType='A'|'B'|'C',
--                            batch=, type='float'|'double', imageSize=224}
-- cifar: depth 6n+2 (20, 32, 44, 56, 110, 1202), basic blocks, shortcut A by default.
-- imagenet: 18, 34 (basic), 50, 101, 152 (bottleneck), shortcut B by default;
-- convolutions carry no bias (:noBias()), as in the published parameter counts.
-- The net ends in LogSoftMax, as the peer benchmark's nets do.
require 'nn'
local util = require 'models.util'

local imagenetCfg = {
  [18] = {{2, 2, 2, 2}, 512, 'basic'},
  [34] = {{3, 4, 6, 3}, 512, 'basic'},
  [50] = {{3, 4, 6, 3}, 2048, 'bottleneck'},
  [101] = {{3, 4, 23, 3}, 2048, 'bottleneck'},
  [152] = {{3, 8, 36, 3}, 2048, 'bottleneck'},
}

local function Conv(...) return nn.SpatialConvolution(...):noBias() end
local SBN = nn.SpatialBatchNormalization

local function builder(opts)
  local o = util.options('resnet', opts, {dataset = 'cifar10', depth = 20})
  local cifar = o.dataset == 'cifar10' or o.dataset == 'cifar100'
  if not cifar and o.dataset ~= 'imagenet' then
    error("models.resnet: dataset must be 'cifar10', 'cifar100' or 'imagenet', got " .. tostring(o.dataset), 2)
  end
  local shortcutType = o.shortcutType or (cifar and 'A' or 'B')
  if shortcutType ~= 'A' and shortcutType ~= 'B' and shortcutType ~= 'C' then
    error("models.resnet: shortcutType must be 'A', 'B' or 'C', got " .. tostring(shortcutType), 2)
  end
  local iChannels

  -- the identity path: parameter-free (A), projection where needed (B), always (C)
  local function shortcut(nIn, nOut, stride)
    local useConv = shortcutType == 'C' or (shortcutType == 'B' and nIn ~= nOut)
    if useConv then
      return nn.Sequential():add(Conv(nIn, nOut, 1, 1, stride, stride)):add(SBN(nOut))
    elseif nIn ~= nOut then
      -- strided subsampling, then zero channels appended
      return nn.Sequential()
        :add(nn.SpatialAveragePooling(1, 1, stride, stride))
        :add(nn.Concat(2):add(nn.Identity()):add(nn.MulConstant(0)))
    else
      return nn.Identity()
    end
  end

  local function basicblock(n, stride)
    local nIn = iChannels
    iChannels = n
    local s = nn.Sequential()
      :add(Conv(nIn, n, 3, 3, stride, stride, 1, 1)):add(SBN(n)):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, 1, 1, 1, 1)):add(SBN(n))
    return nn.Sequential()
      :add(nn.ConcatTable():add(s):add(shortcut(nIn, n, stride):setName('shortcut')))
      :add(nn.CAddTable(true))
      :add(nn.ReLU(true))
  end

  local function bottleneck(n, stride)
    local nIn = iChannels
    iChannels = n * 4
    local s = nn.Sequential()
      :add(Conv(nIn, n, 1, 1, 1, 1, 0, 0)):add(SBN(n)):add(nn.ReLU(true))
      :add(Conv(n, n, 3, 3, stride, stride, 1, 1)):add(SBN(n)):add(nn.ReLU(true))
      :add(Conv(n, n * 4, 1, 1, 1, 1, 0, 0)):add(SBN(n * 4))
    return nn.Sequential()
      :add(nn.ConcatTable():add(s):add(shortcut(nIn, n * 4, stride):setName('shortcut')))
      :add(nn.CAddTable(true))
      :add(nn.ReLU(true))
  end

  -- stages and blocks carry names (layer3.block2), so that reports and
  -- graphs name modules as people do: layer3.block2.conv1
  local nLayers = 0
  local function layer(block, features, count, stride)
    local s = nn.Sequential()
    for i = 1, count do s:add(block(features, i == 1 and stride or 1):setName('block' .. i)) end
    nLayers = nLayers + 1
    return s:setName('layer' .. nLayers)
  end

  local model = nn.Sequential()
  local nClasses, size
  if cifar then
    if (o.depth - 2) % 6 ~= 0 or o.depth < 8 then
      error('models.resnet: cifar depth must be 6n+2 (20, 32, 44, 56, 110, 1202), got ' .. tostring(o.depth), 2)
    end
    local n = (o.depth - 2) // 6
    iChannels = 16
    model:add(Conv(3, 16, 3, 3, 1, 1, 1, 1)):add(SBN(16)):add(nn.ReLU(true))
    model:add(layer(basicblock, 16, n, 1))
    model:add(layer(basicblock, 32, n, 2))
    model:add(layer(basicblock, 64, n, 2))
    model:add(nn.SpatialAveragePooling(8, 8, 1, 1))
    model:add(nn.View(64):setNumInputDims(3))
    nClasses = o.dataset == 'cifar100' and 100 or 10
    model:add(nn.Linear(64, nClasses))
    size = 32
  else
    local cfg = imagenetCfg[o.depth]
    if not cfg then
      error('models.resnet: imagenet depth must be 18, 34, 50, 101 or 152, got ' .. tostring(o.depth), 2)
    end
    local def, nFeatures, kind = cfg[1], cfg[2], cfg[3]
    local block = kind == 'basic' and basicblock or bottleneck
    size = o.imageSize or 224
    if size % 32 ~= 0 then error('models.resnet: imageSize must be a multiple of 32, got ' .. size, 2) end
    iChannels = 64
    model:add(Conv(3, 64, 7, 7, 2, 2, 3, 3)):add(SBN(64)):add(nn.ReLU(true))
    model:add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
    model:add(layer(block, 64, def[1], 1))
    model:add(layer(block, 128, def[2], 2))
    model:add(layer(block, 256, def[3], 2))
    model:add(layer(block, 512, def[4], 2))
    local f = size // 32
    model:add(nn.SpatialAveragePooling(f, f, 1, 1))
    model:add(nn.View(nFeatures):setNumInputDims(3))
    nClasses = 1000
    model:add(nn.Linear(nFeatures, nClasses))
  end
  model:add(nn.LogSoftMax())
  util.msrinit(model)
  return util.finish(model, o, 3, size, size)
end

return builder
