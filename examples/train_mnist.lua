-- examples/train_mnist.lua: a convolutional net learns MNIST's digits, the
-- Torch7 way: torch.CmdLine options, dataset.Loader minibatches, optim.sgd
-- with momentum over getParameters, optnet's shared activation memory,
-- optim.ConfusionMatrix and optim.Logger (with its plot), xlua.progress,
-- and a checkpoint written every epoch that -resume continues from.
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
require 'optim'
require 'xlua'
local optnet = require 'optnet'
local dataset = require 'dataset'

----------------------------------------------------------------------
-- options
local cmd = torch.CmdLine()
cmd:text()
cmd:text('Train a convolutional net on MNIST (or generated MNIST-format data)')
cmd:text()
cmd:text('Options:')
cmd:option('-data', '', 'directory of the MNIST idx files; empty: generate a small set in -save/data')
cmd:option('-nTrain', 0, 'training samples: the first n of the files (0: all; generated: 2000)')
cmd:option('-nTest', 0, 'test samples: the first n of the files (0: all; generated: 500)')
cmd:option('-model', 'convnet', 'convnet | mlp')
cmd:option('-batchSize', 32, 'minibatch size')
cmd:option('-learningRate', 0.05, 'learning rate')
cmd:option('-momentum', 0.9, 'momentum')
cmd:option('-weightDecay', 5e-4, 'weight decay')
cmd:option('-epochs', 5, 'train up to this epoch (a resumed run counts the epochs done)')
cmd:option('-save', 'logs/mnist', 'directory for the log, its plot and the checkpoint')
cmd:option('-resume', false, 'continue from -save/checkpoint.t7')
cmd:option('-optnet', true, "share activation memory with optnet (-optnet gives false)")
cmd:option('-seed', 1, 'random seed')
cmd:option('-threads', 2, 'threads of the math kernels')
cmd:text()
local opt = cmd:parse(arg or {})

torch.setdefaulttensortype('torch.FloatTensor')
torch.setnumthreads(opt.threads)
torch.manualSeed(opt.seed)
paths.mkdir(opt.save)
local checkpointPath = paths.concat(opt.save, 'checkpoint.t7')
if opt.resume and not paths.filep(checkpointPath) then cmd:error('-resume: no checkpoint ' .. checkpointPath) end

----------------------------------------------------------------------
-- data: N x 1 x 28 x 28 bytes and labels 1..10 (digit + 1)
local dir = opt.data
if dir == '' then
  dir = paths.concat(opt.save, 'data')
  local n = opt.nTrain > 0 and opt.nTrain or 2000
  dataset.mnist.writeSynthetic(dir, n, {nTest = opt.nTest > 0 and opt.nTest or 500})
  print(string.format('generated MNIST-format files in %s', dir))
end
local limit = function(n) return n > 0 and {n = n} or nil end
local ok, trainSet, testSet = pcall(function()
  return dataset.mnist.load(dir, 'train', limit(opt.nTrain)), dataset.mnist.load(dir, 'test', limit(opt.nTest))
end)
if not ok then   -- a missing or malformed file: the loader's message, no traceback
  io.stderr:write(tostring(trainSet), '\n')
  os.exit(1)
end
print(string.format('data: %d training, %d test samples of 1x28x28', trainSet:size(), testSet:size()))

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
-- model, criterion, optimizer state: new, or the checkpoint's
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

local net, optimState, startEpoch, history
if opt.resume then
  local checkpoint = torch.load(checkpointPath)
  net, optimState, history = checkpoint.net, checkpoint.optimState, checkpoint.history
  startEpoch = checkpoint.epoch + 1
  torch.setRNGState(checkpoint.rngState)
  print(string.format('resumed from %s after epoch %d', checkpointPath, checkpoint.epoch))
else
  net = newModel()
  optimState = {learningRate = opt.learningRate, momentum = opt.momentum, weightDecay = opt.weightDecay}
  startEpoch, history = 1, {}
end
local criterion = nn.ClassNLLCriterion()
print(net)

-- one flat view of all weights and of all their gradients: what optim
-- updates (taken before optnet, which leaves parameters alone)
local params, gradParams = net:getParameters()
print(string.format('parameters: %d', params:nElement()))

-- optnet: outputs and gradInputs that are never alive together share
-- memory; planned once on a batch of the training shape. A checkpoint
-- keeps the plan, so a resumed net is optimized already.
if opt.optnet and not optnet.isOptimized(net) then
  local sample = trainLoader:run()():clone()
  -- one pass unoptimized, to count what its activations take
  net:forward(sample)
  net:backward(sample, criterion:backward(net.output, torch.LongTensor(sample:size(1)):fill(1)))
  local before = optnet.countUsedMemory(net)
  optnet.optimizeMemory(net, sample, {mode = 'training'})
  local after = optnet.countUsedMemory(net)
  print(string.format('optnet: activations and buffers %.1f KiB -> %.1f KiB (parameters %.1f KiB)',
                      (before.total_size - before.params) / 1024, (after.total_size - after.params) / 1024,
                      after.params / 1024))
elseif opt.optnet then
  print('optnet: the plan came with the checkpoint')
end

----------------------------------------------------------------------
-- training and test passes
local logger = optim.Logger(paths.concat(opt.save, 'accuracy.log'))
logger:setNames{'% train accuracy', '% test accuracy'}
logger:style{'-', '-'}
logger:setAxisLabels('epoch', '% accuracy')
logger:display(false)   -- write the .svg plot, open no window
for _, h in ipairs(history) do logger:add{h.train, h.test} end

local confusion = optim.ConfusionMatrix(classes)

local function train()
  net:training()
  confusion:zero()
  local lossSum, batches = 0, 0
  for inputs, targets in trainLoader:run() do
    -- f(params) and df/dparams on this batch, as optim wants them
    local function feval(x)
      if x ~= params then params:copy(x) end
      gradParams:zero()
      local outputs = net:forward(inputs)
      local loss = criterion:forward(outputs, targets)
      net:backward(inputs, criterion:backward(outputs, targets))
      confusion:batchAdd(outputs, targets)
      return loss, gradParams
    end
    local _, fs = optim.sgd(feval, params, optimState)
    lossSum, batches = lossSum + fs[1], batches + 1
    xlua.progress(batches, trainLoader:size())
  end
  confusion:updateValids()
  return lossSum / batches, confusion.totalValid * 100
end

local function test()
  net:evaluate()
  confusion:zero()
  local lossSum, count = 0, 0
  for inputs, targets in testLoader:run() do
    local outputs = net:forward(inputs)
    lossSum = lossSum + criterion:forward(outputs, targets) * inputs:size(1)
    count = count + inputs:size(1)
    confusion:batchAdd(outputs, targets)
  end
  confusion:updateValids()
  return lossSum / count, confusion.totalValid * 100
end

if startEpoch == 1 then
  local loss, acc = test()
  print(string.format('epoch 0  test loss %.4f  test accuracy %.2f%%', loss, acc))
end
for epoch = startEpoch, opt.epochs do
  local timer = torch.Timer()
  local trainLoss, trainAcc = train()
  local testLoss, testAcc = test()
  print(string.format('epoch %d  train loss %.4f  train accuracy %.2f%%  test loss %.4f  test accuracy %.2f%%  (%.1fs)',
                      epoch, trainLoss, trainAcc, testLoss, testAcc, timer:time().real))
  history[#history + 1] = {train = trainAcc, test = testAcc}
  logger:add{trainAcc, testAcc}
  logger:plot()   -- accuracy.log.svg, from the second epoch on (a curve needs two points)
  -- the checkpoint: the net (with its optnet plan; clearState drops the
  -- activations, which the next forward makes again), sgd's state (the
  -- momentum buffer), the history and where the generator stands
  torch.save(checkpointPath, {net = net:clearState(), optimState = optimState, epoch = epoch, history = history,
                              rngState = torch.getRNGState(), opt = opt})
  if epoch == opt.epochs then print(confusion) end
end
print(string.format('checkpoint: %s; log: %s; plot: %s.svg', checkpointPath, logger.name, logger.name))
