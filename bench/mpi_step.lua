-- Run under mpirun (docs/mpi.md, "Whole-step planning across ranks"):
--   mpirun --oversubscribe -np 2 bin/th bench/mpi_step.lua [steps]
-- MLP 784-1024x3-10 at per-rank batch 32, Adam: for the flat-gradient
-- trainer (dp.new) and dp.trainStep in each shard mode, the bytes a rank
-- holds for gradients (outside the activation arena) and optimizer state,
-- the modules' gradients as planned in the activation arena (countUsedMemory's
-- grads; trainStep only) and ms per step.
require 'torch'
require 'nn'
local optim = require 'optim'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local optnet = require 'optnet'
local rank, size = mpi.init()
local steps = tonumber(arg[1]) or 20
torch.setnumthreads(1)

local function mlp()
  torch.manualSeed(1)
  local net = nn.Sequential():add(nn.Linear(784, 1024)):add(nn.ReLU())
  for _ = 1, 2 do net:add(nn.Linear(1024, 1024)):add(nn.ReLU()) end
  return net:add(nn.Linear(1024, 10)):add(nn.LogSoftMax()):float()
end
local B = 32
torch.manualSeed(2)
local x, y = torch.randn(B, 784):float(), torch.LongTensor(B):random(1, 10):float()
local MB = 2^20

local function line(what, grads, state, arena, ms)
  if rank == 0 then
    print(string.format('%-28s grads %6.2f MiB  optim state %6.2f MiB  module grads in arena %s  %7.1f ms/step',
      what, grads / MB,
      state / MB, arena and string.format('%6.2f MiB', arena / MB) or '     -    ', ms))
  end
end

for _, shard in ipairs{'none', 'optim', 'grad'} do
  local net, crit = mlp(), nn.ClassNLLCriterion():float()
  local tr = dp.new(net, {optim = optim.adam, config = {learningRate = 1e-3}, shard = shard})
  local feval = function()
    local out = net:forward(x)
    local l = crit:forward(out, y)
    net:backward(x, crit:backward(out, y))
    return l
  end
  tr:step(feval)
  mpi.barrier()
  local t0 = mpi.wtime()
  for _ = 1, steps do tr:step(feval) end
  local ms = (mpi.wtime() - t0) / steps * 1000
  local grads = tr.grads:nElement() * 4 + (tr.gshard and tr.gshard:nElement() * 4 or 0)
  line('dp.new shard=' .. shard, grads, tr:stateBytes(), nil, ms)
end
for _, shard in ipairs{'none', 'optim', 'grad'} do
  local net, crit = mlp(), nn.ClassNLLCriterion():float()
  local s = dp.trainStep(net, crit, x, {method = optim.adam, config = {learningRate = 1e-3}, shard = shard,
                                        bucketMB = 1})
  s:step(x, y)
  mpi.barrier()
  local t0 = mpi.wtime()
  for _ = 1, steps do s:step(x, y) end
  local ms = (mpi.wtime() - t0) / steps * 1000
  local m = s:memory()
  local used = optnet.countUsedMemory(net)
  line('dp.trainStep shard=' .. shard, m.grads, m.optimState, used.grads, ms)
end
mpi.finalize()
