-- The job spec/mpi_step_spec.lua runs under mpirun:
--   bin/th spec/support/mpi_step_job.lua DIR
-- dataparallel.trainStep (optnet.trainStep across ranks) on the spec's tiny
-- net, 10 steps at per-rank batch 4, for several methods and shard modes;
-- batch normalisation's running statistics with syncBatchNorm and in a
-- checkpoint. Each rank writes DIR/rank<r>.t7 with what the spec checks.
require 'torch'
require 'nn'
local optim = require 'optim'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local dir = arg[1]
local rank, size = mpi.init()
local support = dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'mpi_net.lua')
local B, STEPS = 4, 10

-- the parameters laid end to end
local function flat(net)
  local ps = net:parameters()
  local n = 0
  for _, p in ipairs(ps) do n = n + p:nElement() end
  local out = ps[1].new(n)
  local o = 0
  for _, p in ipairs(ps) do
    out:narrow(1, o + 1, p:nElement()):copy(p:contiguous():view(-1))
    o = o + p:nElement()
  end
  return out
end

local CASES = dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'mpi_step_cases.lua')
local res = {rank = rank, size = size, cases = {}}
for i, c in ipairs(CASES) do
  local tname = c.tname
  local net = support.net(tname, 1, c.net)
  local crit = nn.ClassNLLCriterion():type(tname)
  local X, Y = support.data(tname, size * B * STEPS, c.net)
  local s = dp.trainStep(net, crit, X:narrow(1, 1, B), {method = optim[c.method], config = c.config,
                                                        shard = c.shard, bucketMB = c.bucketMB,
                                                        recompute = c.recompute})
  for st = 1, STEPS do
    local base = (st - 1) * size * B + rank * B
    s:step(X:narrow(1, base + 1, B), Y:narrow(1, base + 1, B))
  end
  local m = s:memory()
  res.cases[i] = {params = flat(net), grads = m.grads, optimState = m.optimState, n = s.n,
                  buckets = #s.buckets, pool = m.grads - (s.gshard and s.gshard:nElement() * s.elemBytes or 0)}
end

-- batch normalisation first: its running statistics depend on the inputs only
local function bnNet()
  torch.manualSeed(3)
  return nn.Sequential():add(nn.BatchNormalization(10)):add(nn.Linear(10, 3)):add(nn.LogSoftMax()):float()
end
do
  local net, crit = bnNet(), nn.ClassNLLCriterion():float()
  local X, Y = support.data('torch.FloatTensor', size * B * STEPS)
  local s = dp.trainStep(net, crit, X:narrow(1, 1, B), {method = optim.sgd, config = {learningRate = 0.1},
                                                        syncBatchNorm = true})
  for st = 1, STEPS do
    local base = (st - 1) * size * B + rank * B
    s:step(X:narrow(1, base + 1, B), Y:narrow(1, base + 1, B))
  end
  local bn = net:get(1)
  res.sync = {mean = bn.running_mean:clone(), var = bn.running_var:clone()}
end
-- the flat-gradient trainer: ranks' statistics apart, the checkpoint's averaged
do
  local net, crit = bnNet(), nn.ClassNLLCriterion():float()
  local X, Y = support.data('torch.FloatTensor', size * B * STEPS)
  local trainer = dp.new(net, {config = {learningRate = 0.1}})
  for st = 1, 3 do
    local base = (st - 1) * size * B + rank * B
    local x, y = X:narrow(1, base + 1, B), Y:narrow(1, base + 1, B)
    trainer:step(function()
      local out = net:forward(x)
      local l = crit:forward(out, y)
      net:backward(x, crit:backward(out, y))
      return l
    end)
  end
  -- with syncBatchNorm: the ranks' statistics averaged at each step
  local netS = bnNet()
  local ts = dp.new(netS, {config = {learningRate = 0.1}, syncBatchNorm = true})
  for st = 1, 3 do
    local base = (st - 1) * size * B + rank * B
    local x, y = X:narrow(1, base + 1, B), Y:narrow(1, base + 1, B)
    ts:step(function()
      local out = netS:forward(x)
      local l = crit:forward(out, y)
      netS:backward(x, crit:backward(out, y))
      return l
    end)
  end
  res.trainerSync = {mean = netS:get(1).running_mean:clone(), var = netS:get(1).running_var:clone()}
  local path = dir .. '/bn.t7'
  trainer:checkpoint(path)
  local bn = net:get(1)
  res.own = {mean = bn.running_mean:clone(), var = bn.running_var:clone()}
  local net2 = bnNet()
  local t2 = dp.new(net2, {config = {learningRate = 0.1}})
  t2:resume(path)
  res.resumed = {mean = net2:get(1).running_mean:clone(), var = net2:get(1).running_var:clone()}
end
-- dp.trainStep's checkpoint: 3 steps, checkpoint, 3 steps; a net of other
-- weights resumed from it, 3 steps: the same weights
do
  local X, Y = support.data('torch.FloatTensor', size * B * 6)
  local function run(net, s, from)
    for st = from, from + 2 do
      local base = (st - 1) * size * B + rank * B
      s:step(X:narrow(1, base + 1, B), Y:narrow(1, base + 1, B))
    end
  end
  local o = {method = optim.adam, config = {learningRate = 0.01}, shard = 'grad', bucketMB = 64 / 2^20}
  local crit = nn.ClassNLLCriterion():float()
  local net = support.net('torch.FloatTensor', 1)
  local s = dp.trainStep(net, crit, X:narrow(1, 1, B), o)
  run(net, s, 1)
  s:checkpoint(dir .. '/step.t7', {epoch = 4})
  run(net, s, 4)
  local net2 = support.net('torch.FloatTensor', 5)
  local s2 = dp.trainStep(net2, crit, X:narrow(1, 1, B), o)
  local extra = s2:resume(dir .. '/step.t7')
  run(net2, s2, 4)
  res.ckpt = {a = flat(net), b = flat(net2), extra = extra, steps = s2.steps}
  local ok, err = pcall(function()
    local s3 = dp.trainStep(support.net('torch.FloatTensor', 1), crit, X:narrow(1, 1, B), {shard = 'optim'})
    s3:resume(dir .. '/step.t7')
  end)
  res.ckptErr = ok and 'no error' or tostring(err)
end

-- bad options: errors naming the call
do
  local net, crit = support.net('torch.FloatTensor', 1), nn.ClassNLLCriterion():float()
  local x = torch.randn(2, 10):float()
  res.errors = {}
  for _, o in ipairs{{shard = 'zero'}, {method = optim.nag}, {twoPass = true}, {syncBatchNorm = 1},
                     {bucketMB = 0}} do
    local ok, err = pcall(dp.trainStep, net, crit, x, o)
    res.errors[#res.errors + 1] = ok and 'no error' or tostring(err)
  end
end
torch.save(string.format('%s/rank%d.t7', dir, rank), res)
mpi.finalize()
