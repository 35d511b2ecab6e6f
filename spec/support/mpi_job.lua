-- The job spec/mpi_spec.lua runs under mpirun: bin/th spec/support/mpi_job.lua DIR WHAT
-- WHAT = 'all': every rank computes, and writes DIR/rank<r>.t7 with what the
--   spec checks (collectives, training equivalence, sharding, memory,
--   checkpoints, optnet and recompute, data shards);
-- WHAT = 'train': the training comparisons only, on any number of ranks;
-- WHAT = 'error' / 'kill': rank 1 raises an error / kills itself at step 3
--   of a training loop while rank 0 goes on (the job must end, not hang).
require 'torch'
require 'nn'
local optim = require 'optim'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local dir, what = arg[1], arg[2] or 'all'
local rank, size = mpi.init()

-- the spec's tiny net and data (the spec builds the same for its reference)
local support = dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'mpi_net.lua')

if what == 'error' or what == 'kill' then
  local net = support.net('torch.FloatTensor', 1)
  local trainer = dp.new(net, {config = {learningRate = 0.1}})
  local crit = nn.ClassNLLCriterion():float()
  local X, Y = support.data('torch.FloatTensor', 64)
  for step = 1, 1000 do
    if rank == 1 and step == 3 then
      if what == 'error' then error('rank 1 fails on purpose at step 3') end
      local pid = io.open('/proc/self/stat'):read('l'):match('^(%d+)')
      os.execute('kill -9 ' .. pid)
    end
    trainer:step(function()
      local x, y = X:narrow(1, 1, 4), Y:narrow(1, 1, 4)
      local out = net:forward(x)
      local l = crit:forward(out, y)
      net:backward(x, crit:backward(out, y))
      return l
    end)
  end
  mpi.finalize()
  return
end

local R = {}
local full = what == 'all'      -- 'train': only the training comparisons (any number of ranks)

-- collectives: each rank contributes rank+1; R[...] holds what this rank got
if full then
  local t = torch.FloatTensor(5):fill(rank + 1)
  R.sum = mpi.allreduce(t):clone()
  local nc = torch.DoubleTensor(4, 3):fill(rank + 1):t()      -- not contiguous
  mpi.allreduce(nc, 'max')
  R.maxnc = nc:clone()
  local l = torch.LongTensor(3):fill(rank + 2)
  local req = mpi.iallreduce(l, 'prod')
  R.reqtype = torch.type(req)
  while not req:test() do end
  req:wait()
  R.prod = l:clone()
  local m = torch.DoubleTensor(2):fill(rank + 1)
  R.min = mpi.allreduce(m, 'min'):clone()
  local b = torch.DoubleTensor(3):fill(rank + 7)
  R.bcast = mpi.broadcast(b, 1):clone()
  local first, n = mpi.range(7)
  R.first, R.n = first, n
  local send = torch.range(1, 7):double():mul(rank + 1)
  local recv = torch.DoubleTensor(n)
  mpi.reducescatter(recv, send)
  R.rs = recv:clone()
  local rq = torch.DoubleTensor(n)
  mpi.ireducescatter(rq, send, 'max'):wait()
  R.rsmax = rq:clone()
  local g = torch.DoubleTensor(7):zero()
  g:narrow(1, first, n):fill(rank + 10)
  mpi.allgather(g)
  R.ag = g:clone()
  local g2 = torch.FloatTensor(2, 7):zero():t()                -- recv not contiguous
  mpi.iallgather(g2:select(2, 1), torch.FloatTensor(n):fill(rank + 20)):wait()
  R.ag2 = g2:select(2, 1):clone()
  R.counts = torch.DoubleTensor(rank == 0 and 1 or 3):fill(rank + 1)
  local full = torch.DoubleTensor(4)
  mpi.allgather(full, R.counts, {1, 3})
  R.agcounts = full
  local errs = {}
  for _, f in ipairs{
    function() mpi.allreduce(torch.HalfTensor(2)) end,
    function() mpi.allreduce(torch.FloatTensor(2), 'mean') end,
    function() mpi.broadcast(torch.FloatTensor(2), 2) end,
    function() mpi.reducescatter(torch.FloatTensor(9), torch.FloatTensor(7)) end,
    function() mpi.reducescatter(torch.FloatTensor(n), torch.DoubleTensor(7)) end,
    function() mpi.allgather(torch.FloatTensor(4), nil, {1, 1}) end,
    function() mpi.allgather(torch.FloatTensor(4), nil, 2) end,
    function() mpi.range(-1) end,
    function() dp.new(nn.Linear(2, 2), {shard = 'zero'}) end,
    function() dp.new(nn.Sequential():add(nn.ReLU())) end,
    function() dp.new(nn.Linear(2, 2)):step(42) end,
    function()
      local lin = nn.Linear(2, 2)
      local t = dp.new(lin)
      local x = torch.randn(3, 2)
      t:step(function()
        lin:forward(x)
        lin:backward(x, torch.ones(3, 2))
        lin:backward(x, torch.ones(3, 2))
      end)
    end,
  } do
    local ok, e = pcall(f)
    errs[#errs + 1] = ok and 'no error' or tostring(e)
  end
  R.errors = errs
end

-- training: 10 SGD steps at batch B per rank on rank's part of each global
-- batch; the spec compares with one process at batch size*B
local B, STEPS = 4, 10
local function train(tname, opts, net, steps, from, between)
  net = net or support.net(tname, 1)
  local crit = nn.ClassNLLCriterion():type(tname)
  local X, Y = support.data(tname, size * B * 12)
  local trainer = dp.new(net, opts)
  for s = from or 1, (from or 1) + steps - 1 do
    local idx = torch.range((s - 1) * size * B + rank * B + 1, (s - 1) * size * B + rank * B + B):long()
    local x, y = X:index(1, idx), Y:index(1, idx)
    trainer:step(function()
      local out = net:forward(x)
      local l = crit:forward(out, y)
      net:backward(x, crit:backward(out, y))
      return l
    end)
    if between then between(net, X) end
  end
  return trainer, net
end
local sgd = {learningRate = 0.1, momentum = 0.9}
local function cfg(c) local t = {} for k, v in pairs(c) do t[k] = v end return t end
R.float = train('torch.FloatTensor', {config = cfg(sgd)}, nil, STEPS).params:clone()
R.double = train('torch.DoubleTensor', {config = cfg(sgd)}, nil, STEPS).params:clone()
-- a tiny bucket size: several buckets, started during the backward
local tb = train('torch.DoubleTensor', {config = cfg(sgd), bucketMB = 1e-4}, nil, STEPS)
R.buckets, R.doubleBuckets = #tb.buckets, tb.params:clone()

-- sharding with adam: same numbers as no sharding; state bytes per rank
local adam = {learningRate = 0.01}
local none = train('torch.DoubleTensor', {optim = optim.adam, config = cfg(adam)}, nil, STEPS)
local so = train('torch.DoubleTensor', {optim = optim.adam, config = cfg(adam), shard = 'optim', bucketMB = 1e-4}, nil, STEPS)
local sg = train('torch.DoubleTensor', {optim = optim.adam, config = cfg(adam), shard = 'grad', bucketMB = 1e-4}, nil, STEPS)
R.adamNone, R.adamOptim, R.adamGrad = none.params:clone(), so.params:clone(), sg.params:clone()
R.nparams = none.n
R.bytesNone, R.bytesOptim, R.bytesGrad = none:stateBytes(), so:stateBytes(), sg:stateBytes()
R.gshard = sg.gshard:nElement()
-- the allocator's count of the same: live bytes that dropping the state
-- frees (the trainers are not used after this)
local function allocBytes(trainer)
  collectgarbage(); collectgarbage()
  local before = torch.memoryStats().live_bytes
  trainer.state = {}
  collectgarbage(); collectgarbage()
  return before - torch.memoryStats().live_bytes
end
R.allocNone, R.allocOptim, R.allocGrad = allocBytes(none), allocBytes(so), allocBytes(sg)

-- checkpoint every K = 3 steps by rank 0; a new job resumes from it
if full then
  local path = dir .. '/ck.t7'
  local opts = {optim = optim.adam, config = cfg(adam), shard = 'optim'}
  local t1, net1 = train('torch.DoubleTensor', opts, nil, 3)
  t1:checkpoint(path, {step = 3})
  local crit = nn.ClassNLLCriterion():double()
  local X, Y = support.data('torch.DoubleTensor', size * B * 12)
  local function more(trainer, net)
    for s = 4, 6 do
      local idx = torch.range((s - 1) * size * B + rank * B + 1, (s - 1) * size * B + rank * B + B):long()
      local x, y = X:index(1, idx), Y:index(1, idx)
      trainer:step(function()
        local out = net:forward(x)
        local l = crit:forward(out, y)
        net:backward(x, crit:backward(out, y))
        return l
      end)
    end
  end
  more(t1, net1)
  R.straight = t1.params:clone()
  local net2 = support.net('torch.DoubleTensor', 99)          -- other weights: resume overwrites them
  local t2 = dp.new(net2, {optim = optim.adam, config = cfg(adam), shard = 'optim'})
  local extra = t2:resume(path)
  R.extraStep, R.resumedSteps = extra.step, t2.steps
  more(t2, net2)
  R.resumed = t2.params:clone()
end

-- optnet in training mode, with and without recompute: the same numbers
if full then
  local optnet = require 'optnet'
  local function withOptnet(o, between)
    local net = support.net('torch.DoubleTensor', 1)
    local x = support.data('torch.DoubleTensor', B)
    optnet.optimizeMemory(net, x, o)
    return train('torch.DoubleTensor', {config = cfg(sgd)}, net, STEPS, 1, between).params:clone()
  end
  R.optnet = withOptnet({mode = 'training'})
  R.recompute = withOptnet({mode = 'training', recompute = 'sqrt'})
  -- a forward at another batch size between steps: optnet re-plans (tracing
  -- a backward) inside the next step's forward
  R.replan = withOptnet({mode = 'training'}, function(net, X) net:forward(X:narrow(1, 1, 7)) end)
end

-- data shards of 22 samples, batch 2: epoch 1 and 2
R.shard1 = dp.shard(22, {batch = 2, seed = 5, epoch = 1})
R.shard2 = dp.shard(22, {batch = 2, seed = 5, epoch = 2})

torch.save(string.format('%s/rank%d.t7', dir, rank), R)
mpi.finalize()
