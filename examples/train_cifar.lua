-- examples/train_cifar.lua: a convolutional net with batch normalization
-- learns CIFAR-10's ten classes, the Torch7 way (as cifar.torch did):
-- torch.CmdLine options, dataset.Loader minibatches with per-channel
-- normalization and random horizontal flips, optim.sgd with momentum over
-- getParameters, optnet's shared activation memory, optim.ConfusionMatrix
-- and optim.Logger (with its plot), xlua.progress, and a checkpoint
-- written every epoch that -resume continues from. examples/train_mnist.lua
-- is the same script for MNIST (what they share: examples/lib/training.lua);
-- docs/scripts.md walks through that one.
--
--   bin/th examples/train_cifar.lua
--       generated CIFAR-10-format files (500 training, 200 test samples, in
--       -save/data), 5 epochs: a run of a few seconds
--   bin/th examples/train_cifar.lua -data /path/to/cifar-10-batches-bin -epochs 20
--       the real binary files (data_batch_1.bin .. data_batch_5.bin, test_batch.bin)
--   bin/th examples/train_cifar.lua -epochs 7 -resume
--       continues from -save/checkpoint.t7 to epoch 7
--   bin/th examples/train_cifar.lua -h          every option
--
-- Writes in -save (default logs/cifar): accuracy.log and its plot
-- accuracy.log.svg, checkpoint.t7. Prints one line per epoch,
-- 'epoch 2  train loss 0.4123  train accuracy 88.50%  test loss 0.3012
-- test accuracy 91.00%', and the test set's confusion matrix.
require 'torch'
require 'nn'
local dataset = require 'dataset'
local training = require 'examples.lib.training'

local data = {set = dataset.cifar, name = 'CIFAR-10', shape = '3x32x32', nTrain = 500, nTest = 200}
local opt, cmd = training.options{
  title = 'Train a convolutional net on CIFAR-10 (or generated CIFAR-10-format data)',
  dataHelp = 'directory of the CIFAR-10 binary files; empty: generate a small set in -save/data',
  nTrain = data.nTrain, nTest = data.nTest, models = 'convnet | linear', save = 'logs/cifar',
  more = function(cmd)
    cmd:option('-hflip', true, 'flip training images left-right at random (-hflip gives false)')
  end}

----------------------------------------------------------------------
-- data: N x 3 x 32 x 32 bytes (red, green, blue planes) and labels 1..10
local trainSet, testSet = training.load(opt, data)

-- normalise each colour channel with the training set's mean and standard
-- deviation, batch by batch as the loader hands out float copies (the set
-- stays bytes); training batches are also flipped left-right at random
local mean, std = {}, {}
for c = 1, 3 do
  local channel = trainSet.data:select(2, c):float()
  mean[c], std[c] = channel:mean(), channel:std()
end
local function normalize(inputs)
  for c = 1, 3 do inputs:select(2, c):add(-mean[c]):div(std[c]) end
end
local reversed = torch.range(32, 1, -1):long()
local function augment(inputs)
  normalize(inputs)
  if not opt.hflip then return end
  for i = 1, inputs:size(1) do
    if torch.uniform() < 0.5 then inputs[i]:copy(inputs[i]:index(3, reversed)) end
  end
end
local trainLoader = dataset.Loader(trainSet, {batchSize = opt.batchSize, shuffle = true, dropLast = true,
                                              type = 'torch.FloatTensor', transform = augment})
local testLoader = dataset.Loader(testSet, {batchSize = opt.batchSize, type = 'torch.FloatTensor',
                                            transform = normalize})

----------------------------------------------------------------------
-- model
local classes = dataset.cifar.CLASSES

local function newModel()
  local net = nn.Sequential()
  if opt.model == 'convnet' then
    -- conv 3x3 - batch norm - ReLU blocks, halving the size: 32 -> 16 -> 8 -> 4
    local function block(nIn, nOut)
      net:add(nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1))
      net:add(nn.SpatialBatchNormalization(nOut)):add(nn.ReLU(true))
      net:add(nn.SpatialMaxPooling(2, 2, 2, 2))
    end
    block(3, 16)
    block(16, 32)
    block(32, 32)
    net:add(nn.View(32 * 4 * 4))
    net:add(nn.Linear(32 * 4 * 4, 64)):add(nn.ReLU(true))
    net:add(nn.Linear(64, #classes))
  elseif opt.model == 'linear' then
    net:add(nn.View(3 * 32 * 32))
    net:add(nn.Linear(3 * 32 * 32, #classes))
  else
    cmd:error('unknown -model ' .. opt.model .. ' (convnet or linear)')
  end
  net:add(nn.LogSoftMax())
  return net
end

-- training and test passes, one line an epoch, a checkpoint after each
training.run(opt, {newModel = newModel, classes = classes, trainLoader = trainLoader, testLoader = testLoader})
