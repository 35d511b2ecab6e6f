-- examples/lib/training.lua (a module, not a script): what
-- examples/train_mnist.lua and examples/train_cifar.lua share, the Torch7
-- way: torch.CmdLine options, generated or real data files, optim.sgd with
-- momentum over getParameters, optnet's shared activation memory,
-- optim.ConfusionMatrix and optim.Logger (with its plot), xlua.progress,
-- and a checkpoint written every epoch that -resume continues from. A
-- script says what is its own (the dataset, its normalization and
-- augmentation, the model) and calls
--   local opt, cmd = training.options(d)          -- d: the dataset's defaults
--   local trainSet, testSet = training.load(opt, d)
--   training.run(opt, {newModel = ..., classes = ..., trainLoader = ..., testLoader = ...})
-- docs/scripts.md ("Training scripts") walks through train_mnist.lua.
require 'torch'
require 'nn'
require 'optim'
require 'xlua'
local optnet = require 'optnet'

local M = {}

-- the command line, parsed; d: title, dataHelp, nTrain and nTest (the
-- generated set's sizes), models (the -model help), save (its default),
-- more(cmd) (the script's own options, after -epochs). Sets the tensor
-- type, threads and seed, makes -save; -resume without a checkpoint is an
-- error before anything else runs.
function M.options(d)
  local cmd = torch.CmdLine()
  cmd:text()
  cmd:text(d.title)
  cmd:text()
  cmd:text('Options:')
  cmd:option('-data', '', d.dataHelp)
  cmd:option('-nTrain', 0, string.format('training samples: the first n of the files (0: all; generated: %d)', d.nTrain))
  cmd:option('-nTest', 0, string.format('test samples: the first n of the files (0: all; generated: %d)', d.nTest))
  cmd:option('-model', 'convnet', d.models)
  cmd:option('-batchSize', 32, 'minibatch size')
  cmd:option('-learningRate', 0.05, 'learning rate')
  cmd:option('-momentum', 0.9, 'momentum')
  cmd:option('-weightDecay', 5e-4, 'weight decay')
  cmd:option('-epochs', 5, 'train up to this epoch (a resumed run counts the epochs done)')
  if d.more then d.more(cmd) end
  cmd:option('-save', d.save, 'directory for the log, its plot and the checkpoint')
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
  opt.checkpointPath = paths.concat(opt.save, 'checkpoint.t7')
  if opt.resume and not paths.filep(opt.checkpointPath) then cmd:error('-resume: no checkpoint ' .. opt.checkpointPath) end
  return opt, cmd
end

-- the training and test sets: the files at -data, or files of the same
-- format generated in -save/data first (d.set: dataset.mnist or
-- dataset.cifar; d.name names them, d.shape the sample); a missing or
-- malformed file ends the run with the loader's message, no traceback
function M.load(opt, d)
  local dir = opt.data
  if dir == '' then
    dir = paths.concat(opt.save, 'data')
    local n = opt.nTrain > 0 and opt.nTrain or d.nTrain
    d.set.writeSynthetic(dir, n, {nTest = opt.nTest > 0 and opt.nTest or d.nTest})
    print(string.format('generated %s-format files in %s', d.name, dir))
  end
  local limit = function(n) return n > 0 and {n = n} or nil end
  local ok, trainSet, testSet = pcall(function()
    return d.set.load(dir, 'train', limit(opt.nTrain)), d.set.load(dir, 'test', limit(opt.nTest))
  end)
  if not ok then
    io.stderr:write(tostring(trainSet), '\n')
    os.exit(1)
  end
  print(string.format('data: %d training, %d test samples of %s', trainSet:size(), testSet:size(), d.shape))
  return trainSet, testSet
end

-- the net, sgd's state, the first epoch and the accuracy history: new, or
-- the checkpoint's. nn.fuse: a batch norm and the in-place ReLU after it run
-- as one pass (the same numbers; a checkpoint keeps the marks)
local function start(opt, newModel)
  local net, optimState, startEpoch, history
  if opt.resume then
    local checkpoint = torch.load(opt.checkpointPath)
    net, optimState, history = checkpoint.net, checkpoint.optimState, checkpoint.history
    startEpoch = checkpoint.epoch + 1
    torch.setRNGState(checkpoint.rngState)
    print(string.format('resumed from %s after epoch %d', opt.checkpointPath, checkpoint.epoch))
  else
    net = nn.fuse(newModel())
    optimState = {learningRate = opt.learningRate, momentum = opt.momentum, weightDecay = opt.weightDecay}
    startEpoch, history = 1, {}
  end
  return net, optimState, startEpoch, history
end

-- optnet: outputs and gradInputs that are never alive together share
-- memory; planned once on a batch of the training shape. A checkpoint
-- keeps the plan, so a resumed net is optimized already.
local function optimize(opt, net, criterion, trainLoader)
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
end

local function newLogger(opt, history)
  local logger = optim.Logger(paths.concat(opt.save, 'accuracy.log'))
  logger:setNames{'% train accuracy', '% test accuracy'}
  logger:style{'-', '-'}
  logger:setAxisLabels('epoch', '% accuracy')
  logger:display(false)   -- write the .svg plot, open no window
  for _, h in ipairs(history) do logger:add{h.train, h.test} end
  return logger
end

-- s: newModel() (a fresh net), classes, trainLoader, testLoader
function M.run(opt, s)
  local net, optimState, startEpoch, history = start(opt, s.newModel)
  local criterion = nn.ClassNLLCriterion()
  print(net)

  -- one flat view of all weights and of all their gradients: what optim
  -- updates (taken before optnet, which leaves parameters alone)
  local params, gradParams = net:getParameters()
  print(string.format('parameters: %d', params:nElement()))
  optimize(opt, net, criterion, s.trainLoader)

  local logger = newLogger(opt, history)
  local confusion = optim.ConfusionMatrix(s.classes)

  local function train()
    net:training()
    confusion:zero()
    local lossSum, batches = 0, 0
    for inputs, targets in s.trainLoader:run() do
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
      xlua.progress(batches, s.trainLoader:size())
    end
    confusion:updateValids()
    return lossSum / batches, confusion.totalValid * 100
  end

  local function test()
    net:evaluate()
    confusion:zero()
    local lossSum, count = 0, 0
    for inputs, targets in s.testLoader:run() do
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
    torch.save(opt.checkpointPath, {net = net:clearState(), optimState = optimState, epoch = epoch,
                                    history = history, rngState = torch.getRNGState(), opt = opt})
    if epoch == opt.epochs then print(confusion) end
  end
  print(string.format('checkpoint: %s; log: %s; plot: %s.svg', opt.checkpointPath, logger.name, logger.name))
end

return M
