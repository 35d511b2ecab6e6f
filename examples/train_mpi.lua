-- examples/train_mpi.lua: data-parallel training over MPI ranks
-- (docs/mpi.md): the spirals MLP of examples/train_mlp.lua, each rank on its
-- own part of every global batch (dataparallel.shard), gradients averaged
-- across ranks during the backward, optionally sharded optimizer state,
-- a checkpoint every -every steps by rank 0, -resume to continue from it.
--
--   mpirun -np 2 bin/th examples/train_mpi.lua            (make demo-mpi)
--   mpirun -np 2 bin/th examples/train_mpi.lua -shard optim -optim adam -lr 0.01
--   mpirun -np 2 bin/th examples/train_mpi.lua -save /tmp/ck.t7 -every 20
--   mpirun -np 2 bin/th examples/train_mpi.lua -save /tmp/ck.t7 -resume
-- (as root, Open MPI wants --allow-run-as-root or OMPI_ALLOW_RUN_AS_ROOT=1
-- OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; --oversubscribe for more ranks than cores)
require 'torch'
require 'nn'
local optim = require 'optim'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local M = loadfile((arg[0]:match('^(.*/)') or './') .. 'train_mlp.lua')('--lib')

local cmd = torch.CmdLine()
cmd:text('Data-parallel training of an MLP on spirals over MPI ranks')
cmd:option('-epochs', 60, 'epochs')
cmd:option('-batch', 16, 'batch per rank (global batch: ranks x batch)')
cmd:option('-lr', 0.1, 'learning rate')
cmd:option('-optim', 'sgd', 'sgd | adam')
cmd:option('-shard', 'none', "none | optim (ZeRO-1) | grad (ZeRO-2)")
cmd:option('-optnet', false, 'optimize memory with optnet (training mode)')
cmd:option('-save', '', 'checkpoint file (written by rank 0)')
cmd:option('-every', 50, 'checkpoint every this many steps')
cmd:option('-resume', false, 'continue from -save')
cmd:option('-seed', 1, 'seed of the data, the weights and the shuffles')
local opt = cmd:parse(arg or {})

local rank, size = mpi.init()
local function say(...) if rank == 0 then print(string.format(...)) end end

torch.manualSeed(opt.seed)
local X, Y = M.spirals(200, 3, 0.2)
local net = M.model(2, 64, 3)
local crit = nn.ClassNLLCriterion()
if opt.optnet then
  require('optnet').optimizeMemory(net, X:narrow(1, 1, opt.batch), {mode = 'training'})
end
local method = assert(optim[opt.optim], 'no optim.' .. opt.optim)
local trainer = dp.new(net, {optim = method, config = {learningRate = opt.lr, momentum = opt.optim == 'sgd' and 0.9 or nil},
                             shard = opt.shard})
local startEpoch, startStep = 1, 0
if opt.resume then
  if opt.save == '' then error('train_mpi.lua: -resume needs -save <checkpoint>') end
  local extra = trainer:resume(opt.save)
  startEpoch, startStep = extra.epoch, trainer.steps
  say('resumed from %s at epoch %d, step %d', opt.save, startEpoch, startStep)
end
-- after one step the optimizer state exists: its bytes on every rank
local function stateReport()
  local bytes = torch.LongTensor(size):zero()
  bytes[rank + 1] = trainer:stateBytes()
  mpi.allreduce(bytes)
  local t = {}
  for r = 1, size do t[r] = tostring(bytes[r]) end
  return table.concat(t, ' ')
end
say('%d ranks, global batch %d, %d parameters, shard %s',
    size, size * opt.batch, trainer.n, opt.shard)

local x, y = torch.DoubleTensor(), torch.LongTensor()
for epoch = startEpoch, opt.epochs do
  local idx = dp.shard(X:size(1), {batch = opt.batch, seed = opt.seed, epoch = epoch})
  local steps = idx:nElement() // opt.batch
  local sum = torch.DoubleTensor(2):zero()           -- loss sum, steps
  for s = 1, steps do
    local global = (epoch - 1) * steps + s
    if global > startStep then
      local b = idx:narrow(1, (s - 1) * opt.batch + 1, opt.batch)
      x:index(X, 1, b)
      y:index(Y, 1, b)
      local loss = trainer:step(function()
        local out = net:forward(x)
        local l = crit:forward(out, y)
        net:backward(x, crit:backward(out, y))
        return l
      end)
      sum[1], sum[2] = sum[1] + loss, sum[2] + 1
      if opt.save ~= '' and trainer.steps % opt.every == 0 then
        trainer:checkpoint(opt.save, {epoch = epoch})
      end
    end
  end
  mpi.allreduce(sum)
  if epoch == startEpoch then
    local report = stateReport()
    say('optimizer state per rank (bytes): %s', report)
  end
  if epoch % 10 == 0 or epoch == opt.epochs then
    net:evaluate()
    local acc = M.accuracy(net:forward(X), Y)
    net:training()
    say('epoch %3d  loss %.4f  accuracy %.3f', epoch, sum[1] / math.max(sum[2], 1), acc)
  end
end
mpi.finalize()
