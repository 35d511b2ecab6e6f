-- One run of `make bench-mpi`, under mpirun:
--   mpirun -np R bin/th bench/mpi_one.lua <model> <global batch> [warmup] [runs]
-- Each rank builds the net in float (rank 0's weights broadcast), trains on
-- global/R random samples per step with 2/R threads (the machine has 2
-- cores): forward, ClassNLLCriterion, backward with the gradient buckets
-- averaged during it (dataparallel, 25 MB buckets), SGD step; as
-- /work/shared/peers/pytorch_ddp.py does. Rank 0 prints one line:
-- model=... ranks=... median_ms=... (the median of the timed steps) wait_ms=...
-- (rank 0's median time waiting for the reductions after the backward).
require 'torch'
require 'nn'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local optim = require 'optim'

local CONFIGS = {
  mlp = {'mlp', {}, 10},
  ['resnet-18'] = {'resnet', {dataset = 'imagenet', depth = 18}, 1000},
  ['resnet-56'] = {'resnet', {dataset = 'cifar10', depth = 56}, 10},
}
local name, global = arg[1], tonumber(arg[2])
local warmup, runs = tonumber(arg[3] or 2), tonumber(arg[4] or 7)
local cfg = CONFIGS[name]
local rank, R = mpi.init()
if not cfg or not global or global % R ~= 0 then
  if rank == 0 then io.stderr:write('usage: bench/mpi_one.lua <mlp|resnet-18|resnet-56> <global batch, a multiple of ranks> [warmup] [runs]\n') end
  mpi.abort('bad arguments', 2)
end
local batch = global // R
torch.setnumthreads(math.max(1, 2 // R))
torch.manualSeed(0)
torch.setdefaulttensortype('torch.FloatTensor')
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
torch.manualSeed(rank + 1)
input:normal()
local target = torch.LongTensor(batch):random(1, cfg[3])
local crit = nn.ClassNLLCriterion():float()
-- the input needs no gradient (as in bench/one.lua and PyTorch)
local first = net
while first.modules and first.modules[1] do first = first.modules[1] end
if torch.isTypeOf(first, 'nn.SpatialConvolution') or torch.isTypeOf(first, 'nn.Linear') then
  first.gradInput = nil
end
net:training()
local trainer = dp.new(net, {optim = optim.sgd, config = {learningRate = 0.01}})
local function feval()
  local out = net:forward(input)
  local l = crit:forward(out, target)
  net:backward(input, crit:backward(out, target))
  return l
end
local times, waits = {}, {}
for i = 1, warmup + runs do
  local t0 = mpi.wtime()
  trainer:step(feval)
  if i > warmup then
    times[#times + 1] = (mpi.wtime() - t0) * 1000
    waits[#waits + 1] = trainer.waitTime * 1000
  end
end
table.sort(times)
table.sort(waits)
-- every rank's median: the step ends when the slowest rank's does
local med = torch.DoubleTensor(1):fill(times[(#times + 1) // 2])
mpi.allreduce(med, 'max')
if rank == 0 then
  print(string.format('model=%s ranks=%d global_batch=%d median_ms=%.2f wait_ms=%.2f buckets=%d params=%d',
    name, R, global, med[1], waits[(#waits + 1) // 2], #trainer.buckets, trainer.n))
end
mpi.finalize()
