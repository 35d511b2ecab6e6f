-- examples/train_mnist.lua: a convolutional net learns MNIST's digits, the
-- Torch7 way: torch.CmdLine options, dataset.Loader minibatches, optim.sgd
-- with momentum over getParameters, optnet's shared activation memory,
-- optim.ConfusionMatrix and optim.Logger (with its plot), xlua.progress,
-- and a checkpoint written every epoch that -resume continues from. What
-- it shares with examples/train_cifar.lua is examples/lib/training.lua.
--
--   bin/th examples/train_mnist.lua
--       generated MNIST-format files (2000 training, 500 test samples, in
--       -save/data), 5 epochs: a run of a few seconds
--   bin/th examples/train_mnist.lua -data /path/to/mnist -epochs 10
--       the real files (train-images-idx3-ubyte etc., plain or .gz)
--   bin/th examples/train_mnist.lua -epochs 7 -resume
--       continues from -save/checkpoint.t7 to epoch 7
--   bin/th examples/train_mnist.lua -h          every option
--
-- Writes in -save (default logs/mnist): accuracy.log and its plot
-- accuracy.log.svg, checkpoint.t7. Prints one line per epoch,
-- 'epoch 2  train loss 0.4123  train accuracy 88.50%  test loss 0.3012
-- test accuracy 91.00%', and the test set's confusion matrix.
-- docs/scripts.md ("Training scripts") walks through this file.
require 'torch'
require 'nn'
local dataset = require 'dataset'
local training = require 'examples.lib.training'

local data = {set = dataset.mnist, name = 'MNIST', shape = '1x28x28', nTrain = 2000, nTest = 500}
local opt, cmd = training.options{
  title = 'Train a convolutional net on MNIST (or generated MNIST-format data)',
  dataHelp = 'directory of the MNIST idx files; empty: generate a small set in -save/data',
  nTrain = data.nTrain, nTest = data.nTest, models = 'convnet | mlp', save = 'logs/mnist'}

----------------------------------------------------------------------
-- data: N x 1 x 28 x 28 bytes and labels 1..10 (digit + 1)
local trainSet, testSet = training.load(opt, data)

-- normalise with the training set's mean and standard deviation, batch by
-- batch as the loader hands out float copies (the set stays bytes)
local mean = trainSet.data:float():mean()
local std = trainSet.data:float():std()
local function normalize(inputs) inputs:add(-mean):div(std) end
local trainLoader = dataset.Loader(trainSet, {batchSize = opt.batchSize, shuffle = true, dropLast = true,
                                              type = 'torch.FloatTensor', transform = normalize})
local testLoader = dataset.Loader(testSet, {batchSize = opt.batchSize, type = 'torch.FloatTensor',
                                            transform = normalize})

----------------------------------------------------------------------
-- model
local classes = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'}

local function newModel()
  local net = nn.Sequential()
  if opt.model == 'convnet' then
    -- LeNet-5's shape: 28 -> conv 5x5 -> 24 -> pool -> 12 -> conv 5x5 -> 8 -> pool -> 4
    net:add(nn.SpatialConvolution(1, 16, 5, 5)):add(nn.ReLU(true)):add(nn.SpatialMaxPooling(2, 2, 2, 2))
    net:add(nn.SpatialConvolution(16, 32, 5, 5)):add(nn.ReLU(true)):add(nn.SpatialMaxPooling(2, 2, 2, 2))
    net:add(nn.View(32 * 4 * 4))
    net:add(nn.Linear(32 * 4 * 4, 128)):add(nn.ReLU(true))
    net:add(nn.Linear(128, #classes))
  elseif opt.model == 'mlp' then
    net:add(nn.View(28 * 28))
    net:add(nn.Linear(28 * 28, 256)):add(nn.ReLU(true))
    net:add(nn.Linear(256, #classes))
  else
    cmd:error('unknown -model ' .. opt.model .. ' (convnet or mlp)')
  end
  net:add(nn.LogSoftMax())
  return net
end

-- training and test passes, one line an epoch, a checkpoint after each
training.run(opt, {newModel = newModel, classes = classes, trainLoader = trainLoader, testLoader = testLoader})
