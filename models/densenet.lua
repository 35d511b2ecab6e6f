-- DenseNet (Huang et al. 2017), as the authors' Torch7 densenet.lua builds it:
-- each dense layer is a Concat(2) of the identity and a BN-ReLU-conv branch,
-- so the feature maps grow by growthRate per layer.
--   require('models.densenet'){dataset='cifar10'|'imagenet', depth=N, growthRate=k,
--                              bottleneck=true, reduction=0.5, dropRate=0, batch=, type=}
-- cifar: DenseNet-BC, depth 3N*2+4 (e.g. 40, 100, 190), growthRate 12 by default.
-- imagenet: DenseNet-121/169/201/161 (depth), growthRate 32 (48 for 161).
require 'nn'
local util = require 'models.util'

local imagenetCfg = {[121] = {6, 12, 24, 16}, [169] = {6, 12, 32, 32},
                     [201] = {6, 12, 48, 32}, [161] = {6, 12, 36, 24}}

local function builder(opts)
  local o = util.options('densenet', opts, {dataset = 'cifar10', bottleneck = true, reduction = 0.5, dropRate = 0})
  local cifar = o.dataset == 'cifar10' or o.dataset == 'cifar100'
  if not cifar and o.dataset ~= 'imagenet' then
    error("models.densenet: dataset must be 'cifar10', 'cifar100' or 'imagenet', got " .. tostring(o.dataset), 2)
  end
  local depth = o.depth or (cifar and 40 or 121)
  local growth = o.growthRate or (cifar and 12 or (depth == 161 and 48 or 32))

  local function denseLayer(model, nChannels)
    local branch = nn.Sequential()
    branch:add(nn.SpatialBatchNormalization(nChannels)):add(nn.ReLU(true))
    if o.bottleneck then
      branch:add(nn.SpatialConvolution(nChannels, 4 * growth, 1, 1, 1, 1, 0, 0):noBias())
      if o.dropRate > 0 then branch:add(nn.Dropout(o.dropRate)) end
      branch:add(nn.SpatialBatchNormalization(4 * growth)):add(nn.ReLU(true))
      branch:add(nn.SpatialConvolution(4 * growth, growth, 3, 3, 1, 1, 1, 1):noBias())
    else
      branch:add(nn.SpatialConvolution(nChannels, growth, 3, 3, 1, 1, 1, 1):noBias())
    end
    if o.dropRate > 0 then branch:add(nn.Dropout(o.dropRate)) end
    model:add(nn.Concat(2):add(nn.Identity()):add(branch))
    return nChannels + growth
  end

  local function transition(model, nChannels, nOut)
    model:add(nn.SpatialBatchNormalization(nChannels)):add(nn.ReLU(true))
    model:add(nn.SpatialConvolution(nChannels, nOut, 1, 1, 1, 1, 0, 0):noBias())
    if o.dropRate > 0 then model:add(nn.Dropout(o.dropRate)) end
    model:add(nn.SpatialAveragePooling(2, 2, 2, 2))
  end

  local model = nn.Sequential()
  local nChannels, size, nClasses
  if cifar then
    local N = (depth - 4) / 3
    if o.bottleneck then N = N / 2 end
    if N ~= math.floor(N) or N < 1 then
      error('models.densenet: cifar depth must be 6N+4 with bottleneck (3N+4 without), got ' .. tostring(depth), 2)
    end
    N = math.floor(N)
    nChannels = 2 * growth
    model:add(nn.SpatialConvolution(3, nChannels, 3, 3, 1, 1, 1, 1):noBias())
    for b = 1, 3 do
      for _ = 1, N do nChannels = denseLayer(model, nChannels) end
      if b < 3 then
        local nOut = math.floor(nChannels * o.reduction)
        transition(model, nChannels, nOut)
        nChannels = nOut
      end
    end
    model:add(nn.SpatialBatchNormalization(nChannels)):add(nn.ReLU(true))
    model:add(nn.SpatialAveragePooling(8, 8, 1, 1))
    size, nClasses = 32, o.dataset == 'cifar100' and 100 or 10
  else
    local cfg = imagenetCfg[depth]
    if not cfg then error('models.densenet: imagenet depth must be 121, 161, 169 or 201, got ' .. tostring(depth), 2) end
    size = o.imageSize or 224
    nChannels = 2 * growth
    model:add(nn.SpatialConvolution(3, nChannels, 7, 7, 2, 2, 3, 3):noBias())
    model:add(nn.SpatialBatchNormalization(nChannels)):add(nn.ReLU(true))
    model:add(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1))
    for b = 1, 4 do
      for _ = 1, cfg[b] do nChannels = denseLayer(model, nChannels) end
      if b < 4 then
        local nOut = math.floor(nChannels * o.reduction)
        transition(model, nChannels, nOut)
        nChannels = nOut
      end
    end
    model:add(nn.SpatialBatchNormalization(nChannels)):add(nn.ReLU(true))
    model:add(nn.SpatialAveragePooling(size // 32, size // 32, 1, 1))
    nClasses = 1000
  end
  model:add(nn.View(nChannels):setNumInputDims(3))
  model:add(nn.Linear(nChannels, nClasses))
  model:add(nn.LogSoftMax())
  util.msrinit(model)
  return util.finish(model, o, 3, size, size)
end

return builder
