-- Pre-activation ResNet (He et al. 2016, "Identity mappings"), as
-- fb.resnet.torch's preresnet.lua: BN-ReLU-conv ordering inside blocks, a
-- final BN-ReLU before pooling.
--   require('models.preresnet'){dataset='cifar10'|'imagenet', depth=N, shortcutType=..., batch=, type=}
require 'nn'
local util = require 'models.util'

local imagenetCfg = {
  [18] = {{2, 2, 2, 2}, 512, 'basic'}, [34] = {{3, 4, 6, 3}, 512, 'basic'},
  [50] = {{3, 4, 6, 3}, 2048, 'bottleneck'}, [101] = {{3, 4, 23, 3}, 2048, 'bottleneck'},
  [152] = {{3, 8, 36, 3}, 2048, 'bottleneck'}, [200] = {{3, 24, 36, 3}, 2048, 'bottleneck'},
}

local function Conv(...) return nn.SpatialConvolution(...):noBias() end
local SBN = nn.SpatialBatchNormalization

local function builder(opts)
  local o = util.options('preresnet', opts, {dataset = 'cifar10', depth = 20})
  local cifar = o.dataset == 'cifar10' or o.dataset == 'cifar100'
  if not cifar and o.dataset ~= 'imagenet' then
    error("models.preresnet: dataset must be 'cifar10', 'cifar100' or 'imagenet', got " .. tostring(o.dataset), 2)
  end
  local shortcutType = o.shortcutType or (cifar and 'A' or 'B')
  local iChannels

  local function shortcut(nIn, nOut, stride)
    if shortcutType == 'C' or (shortcutType == 'B' and nIn ~= nOut) then
      return nn.Sequential():add(Conv(nIn, nOut, 1, 1, stride, stride))
    elseif nIn ~= nOut then
      return nn.Sequential()
        :add(nn.SpatialAveragePooling(1, 1, stride, stride))
        :add(nn.Concat(2):add(nn.Identity()):add(nn.MulConstant(0)))
    end
    return nn.Identity()
  end

  -- preact: 'both_preact' puts BN-ReLU before the split (the shortcut sees it too),
  -- 'no_preact' skips it (right after the stem's BN-ReLU), else inside the branch
  local function basicblock(n, stride, preact)
    local nIn = iChannels
    iChannels = n
    local block, s = nn.Sequential(), nn.Sequential()
    if preact == 'both_preact' then
      block:add(SBN(nIn)):add(nn.ReLU(true))
    elseif preact ~= 'no_preact' then
      s:add(SBN(nIn)):add(nn.ReLU(true))
    end
    s:add(Conv(nIn, n, 3, 3, stride, stride, 1, 1)):add(SBN(n)):add(nn.ReLU(true))
    s:add(Conv(n, n, 3, 3, 1, 1, 1, 1))
    return block:add(nn.ConcatTable():add(s):add(shortcut(nIn, n, stride):setName('shortcut'))):add(nn.CAddTable(true))
  end

  local function bottleneck(n, stride, preact)
    local nIn = iChannels
    iChannels = n * 4
    local block, s = nn.Sequential(), nn.Sequential()
    if preact == 'both_preact' then
      block:add(SBN(nIn)):add(nn.ReLU(true))
    elseif preact ~= 'no_preact' then
      s:add(SBN(nIn)):add(nn.ReLU(true))
    end
    s:add(Conv(nIn, n, 1, 1, 1, 1, 0, 0)):add(SBN(n)):add(nn.ReLU(true))
    s:add(Conv(n, n, 3, 3, stride, stride, 1, 1)):add(SBN(n)):add(nn.ReLU(true))
    s:add(Conv(n, n * 4, 1, 1, 1, 1, 0, 0))
    return block:add(nn.ConcatTable():add(s):add(shortcut(nIn, n * 4, stride):setName('shortcut'))):add(nn.CAddTable(true))
  end

  -- stages and blocks carry names (layer3.block2), so that reports and
  -- graphs name modules as people do: layer3.block2.conv1
  local nLayers = 0
  local function layer(block, features, count, stride, firstType)
    local s = nn.Sequential()
    for i = 1, count do
      s:add(block(features, i == 1 and stride or 1, i == 1 and firstType or nil):setName('block' .. i))
    end
    nLayers = nLayers + 1
    return s:setName('layer' .. nLayers)
  end

  local model = nn.Sequential()
  local size, nFeatures, nClasses
  if cifar then
    if (o.depth - 2) % 6 ~= 0 or o.depth < 8 then
      error('models.preresnet: cifar depth must be 6n+2, got ' .. tostring(o.depth), 2)
    end
    local n = (o.depth - 2) // 6
    iChannels = 16
    model:add(Conv(3, 16, 3, 3, 1, 1, 1, 1)):add(SBN(16)):add(nn.ReLU(true))
    model:add(layer(basicblock, 16, n, 1, 'no_preact'))
    model:add(layer(basicblock, 32, n, 2, 'both_preact'))
    model:add(layer(basicblock, 64, n, 2, 'both_preact'))
    nFeatures, size = 64, 32
    nClasses = o.dataset == 'cifar100' and 100 or 10
    model:add(SBN(nFeatures)):add(nn.ReLU(true))
    model:add(nn.SpatialAveragePooling(8, 8, 1, 1))
  else
    local cfg = imagenetCfg[o.depth]
    if not cfg then error('models.preresnet: imagenet depth must be 18, 34, 50, 101, 152 or 200, got ' .. tostring(o.depth), 2) end
    local block = cfg[3] == 'basic' and basicblock or bottleneck
    size = o.imageSize or 224
    iChannels = 64
    model:add(Conv(3, 64, 7, 7, 2, 2, 3, 3)):add(SBN(64)):add(nn.ReLU(true))
    model:add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
    model:add(layer(block, 64, cfg[1][1], 1, 'no_preact'))
    model:add(layer(block, 128, cfg[1][2], 2, 'both_preact'))
    model:add(layer(block, 256, cfg[1][3], 2, 'both_preact'))
    model:add(layer(block, 512, cfg[1][4], 2, 'both_preact'))
    nFeatures, nClasses = cfg[2], 1000
    model:add(SBN(nFeatures)):add(nn.ReLU(true))
    model:add(nn.SpatialAveragePooling(size // 32, size // 32, 1, 1))
  end
  model:add(nn.View(nFeatures):setNumInputDims(3))
  model:add(nn.Linear(nFeatures, nClasses))
  model:add(nn.LogSoftMax())
  util.msrinit(model)
  return util.finish(model, o, 3, size, size)
end

return builder
