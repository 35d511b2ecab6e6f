-- The job spec/dataparallel_faults_spec.lua runs under mpirun:
--   bin/th spec/support/dp_faults_job.lua DIR WHAT
-- WHAT = 'cases' (any number of ranks): every collective path of
--   dataparallel (dp.new, trainer:step, checkpoint, resume; dp.trainStep's
--   too) with nets of 1 and 2 parameter elements (empty slices when there
--   are more ranks than elements), nets that differ across ranks, a
--   schedule function in a checkpoint, crafted checkpoints, and a fault
--   injected on one rank at each step of checkpoint and resume. Every call
--   runs under pcall: an agreed error comes back on every rank and the job
--   goes on (a disagreement would hang, and the spec's timeout fails it).
--   Each rank writes DIR/rank<r>.t7 with what it saw.
-- WHAT = 'uncaught': rank 1 fails while checkpointing, uncaught: the job
--   must end within seconds with its message.
-- WHAT = 'nofinalize': every rank finishes without mpi.finalize(): exit 0.
-- WHAT = 'early': rank 1 ends normally while rank 0 waits in a collective
--   (TH_MPI_FINALIZE_TIMEOUT bounds the wait).
require 'torch'
require 'nn'
local optim = require 'optim'
local mpi = require 'mpi'
local dp = require 'dataparallel'
local ckio = require 'dataparallel.checkpoint'
local dir, what = arg[1], arg[2] or 'cases'
local rank, size = mpi.init()

local function net(kind, seed)
  torch.manualSeed(seed or 1)
  if kind == 'one' then return nn.Sequential():add(nn.Mul()):double() end      -- 1 element
  if kind == 'two' then return nn.Linear(1, 1):double() end                    -- 2 elements
  return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 1)):double()
end
local function inputs(kind)
  return kind == 'wide' and 3 or 1
end

-- a step on this rank's part of a fixed batch (every rank a different part)
local function stepOf(trainer, m, kind, s)
  torch.manualSeed(1000 + 17 * s + rank)
  local x = torch.randn(4, inputs(kind))
  trainer:step(function()
    local out = m:forward(x)
    local l = out:pow(2):sum()
    m:backward(x, out:clone():mul(2))
    return l
  end)
end

if what == 'nofinalize' then
  local t = mpi.allreduce(torch.LongTensor{rank + 1})
  print(string.format('rank %d done, sum %d', rank, t[1]))
  return
end

if what == 'early' then
  -- rank 1 ends normally; rank 0 waits for a collective rank 1 never calls
  if rank == 0 then mpi.allreduce(torch.LongTensor{1}) end
  return
end

if what == 'uncaught' then
  local m = net('wide')
  local t = dp.new(m, {optim = optim.adam, shard = 'optim'})
  stepOf(t, m, 'wide', 1)
  ckio.inject = function(where)
    if rank == 1 and where == 'checkpoint.state' then error('rank 1 fails on purpose in ' .. where, 0) end
  end
  t:checkpoint(dir .. '/unused.t7')
  mpi.finalize()
  return
end

local R = {}
local function try(f, ...)
  local ok, e = pcall(f, ...)
  return ok and 'no error' or tostring(e)
end
-- checks the ranks are still in step after an error: one more collective
local function inStep()
  return mpi.allreduce(torch.LongTensor{1})[1] == size
end

-- 1. empty slices, one parameter, more ranks than parameters: train,
-- checkpoint, train on; a new trainer resumes and trains on: the same
-- numbers as straight on, and as without sharding
R.train = {}
for _, kind in ipairs{'one', 'two', 'wide'} do
  for _, shard in ipairs{'none', 'optim', 'grad'} do
    local path = string.format('%s/%s_%s.t7', dir, kind, shard)
    local m = net(kind)
    local t = dp.new(m, {optim = optim.adam, config = {learningRate = 0.1}, shard = shard})
    stepOf(t, m, kind, 1); stepOf(t, m, kind, 2)
    t:checkpoint(path, {step = 2})
    stepOf(t, m, kind, 3)
    local straight = t.params:clone()
    local m2 = net(kind, 7)
    local t2 = dp.new(m2, {optim = optim.adam, config = {learningRate = 0.1}, shard = shard})
    local extra = t2:resume(path)
    stepOf(t2, m2, kind, 3)
    R.train[kind .. '_' .. shard] = {straight = straight, resumed = t2.params:clone(), extra = extra,
                                     count = t.count, n = t.n}
  end
end

-- adamax keeps a buffer shaped by the rank's slice (uneven here: 21
-- elements): rebuilt on resume, not restored from another rank
do
  local path = dir .. '/adamax.t7'
  local m = net('wide')
  local t = dp.new(m, {optim = optim.adamax, config = {learningRate = 0.1}, shard = 'optim'})
  stepOf(t, m, 'wide', 1); stepOf(t, m, 'wide', 2)
  t:checkpoint(path)
  stepOf(t, m, 'wide', 3)
  local m2 = net('wide', 7)
  local t2 = dp.new(m2, {optim = optim.adamax, config = {learningRate = 0.1}, shard = 'optim'})
  t2:resume(path)
  local ok = pcall(stepOf, t2, m2, 'wide', 3)
  R.adamax = {ok = ok, straight = t.params:clone(), resumed = t2.params:clone()}
end

-- dp.trainStep with the same nets: checkpoint and resume
R.step = {}
for _, kind in ipairs{'one', 'wide'} do
  for _, shard in ipairs{'none', 'optim', 'grad'} do
    local path = string.format('%s/step_%s_%s.t7', dir, kind, shard)
    local function run(seed, resume)
      local m = net(kind, seed)
      local crit = nn.MSECriterion():double()
      torch.manualSeed(5)
      local X, Y = torch.randn(4 * size, inputs(kind)), torch.randn(4 * size, 1)
      local x, y = X:narrow(1, 4 * rank + 1, 4), Y:narrow(1, 4 * rank + 1, 4)
      local s = dp.trainStep(m, crit, x, {method = 'adam', config = {learningRate = 0.1}, shard = shard})
      if resume then
        s:resume(path)
      else
        s:step(x, y); s:step(x, y)
        s:checkpoint(path)
      end
      s:step(x, y)
      local out = {}
      for i, p in ipairs(m:parameters()) do out[i] = p:clone() end
      s:remove()
      return out
    end
    R.step[kind .. '_' .. shard] = {straight = run(1, false), resumed = run(7, true)}
  end
end

-- 2. nets that differ across ranks: equal counts, different counts;
-- options that differ. Every rank raises; none trains on.
local last = size - 1
local function oddNet(sameCount)
  if rank ~= last then return nn.Linear(2, 6):double() end
  return sameCount and nn.Linear(5, 3):double() or nn.Linear(5, 4):double()
end
R.differ = {
  sameCount = try(dp.new, oddNet(true)),
  otherCount = try(dp.new, oddNet(false)),
  shard = try(dp.new, nn.Linear(2, 6):double(), {shard = rank == last and 'grad' or 'none'}),
  step = try(dp.trainStep, oddNet(true), nn.MSECriterion():double(), torch.randn(4, rank == last and 5 or 2)),
  badOption = try(dp.new, nn.Linear(2, 6):double(), {bucketMB = rank == last and -1 or 1}),
}
R.differInStep = inStep()

-- 3. a schedule (a Lua function) in a checkpoint, resumed in the same job:
-- rank 0 vetted the bytecode it wrote; every rank loads it
do
  local m = net('wide')
  local t = dp.new(m, {shard = 'optim'})
  local path = dir .. '/sched.t7'
  local factor = 0.1
  t:checkpoint(path, {schedule = function(epoch) return factor * epoch end})
  local ok, extra = pcall(t.resume, t, path)
  R.schedule = ok and type(extra.schedule) == 'function' and extra.schedule(3) or tostring(extra)
  -- bytecode rank 0 did not write (another process's): every rank refuses alike
  if rank == 0 then
    -- another process (the job runs in the tree: bin/th) writes a checkpoint with a function
    assert(os.execute(string.format([[bin/th -e "local ck = torch.load('%s'); ck.extra = {schedule = function(e) return e end}; torch.save('%s', ck)"]],
      dir .. '/wide_optim.t7', dir .. '/foreign.t7')))
  end
  mpi.barrier()
  R.foreign = try(t.resume, t, dir .. '/foreign.t7')
  R.scheduleInStep = inStep()
end

-- 4. crafted checkpoints: state tensors of n-1 elements, of another type; a
-- missing file. Every rank refuses, naming the file and the field; nothing
-- changes.
do
  local m = net('wide')
  local t = dp.new(m, {optim = optim.adam, shard = 'optim'})
  stepOf(t, m, 'wide', 1)
  local path = dir .. '/good.t7'
  t:checkpoint(path)
  if rank == 0 then
    local ck = torch.load(path)
    local n = ck.params:nElement()
    ck.state.m = torch.DoubleTensor(n - 1):zero()
    torch.save(dir .. '/short.t7', ck)
    ck = torch.load(path)
    ck.state.v = torch.FloatTensor(n):zero()
    torch.save(dir .. '/float.t7', ck)
    ck = torch.load(path)
    ck.sliced = nil
    ck.state.denom = torch.DoubleTensor(n + 2):zero()
    torch.save(dir .. '/old.t7', ck)
  end
  mpi.barrier()
  local before = t.params:clone()
  R.crafted = {short = try(t.resume, t, dir .. '/short.t7'), float = try(t.resume, t, dir .. '/float.t7'),
               old = try(t.resume, t, dir .. '/old.t7'), missing = try(t.resume, t, dir .. '/none.t7')}
  R.craftedUnchanged = (t.params - before):abs():max() == 0
  R.unwritable = try(t.checkpoint, t, dir .. '/no/such/dir/ck.t7')
  -- dp.trainStep's states: a part's tensor cut short
  local sm = net('wide')
  local crit = nn.MSECriterion():double()
  local x, y = torch.randn(4, 3), torch.randn(4, 1)
  local s = dp.trainStep(sm, crit, x, {method = 'adam', shard = 'grad'})
  s:step(x, y)
  s:checkpoint(dir .. '/sgood.t7')
  if rank == 0 then
    local ck = torch.load(dir .. '/sgood.t7')
    for r = 1, size do
      for _, st in pairs(ck.states[r]) do
        if st.m and st.m:nElement() > 1 then st.m = st.m:narrow(1, 1, st.m:nElement() - 1):clone() end
      end
    end
    torch.save(dir .. '/sshort.t7', ck)
  end
  mpi.barrier()
  R.stepCrafted = try(s.resume, s, dir .. '/sshort.t7')
  s:remove()
  R.craftedInStep = inStep()
end

-- 5. a fault on one rank at each step of checkpoint and resume (the
-- trainer's and dp.trainStep's): every rank raises the failing rank's
-- message, the ranks stay in step
R.faults = {}
local WHERE = {'checkpoint.state', 'checkpoint.write', 'resume.read', 'resume.decode', 'resume.check',
               'resume.apply'}
for _, shard in ipairs{'none', 'optim'} do
  local m = net('one')
  local t = dp.new(m, {optim = optim.adam, shard = shard})
  stepOf(t, m, 'one', 1)
  local path = string.format('%s/fault_%s.t7', dir, shard)
  t:checkpoint(path)
  local sm = net('wide')
  local x, y = torch.randn(4, 3), torch.randn(4, 1)
  local s = dp.trainStep(sm, nn.MSECriterion():double(), x, {method = 'adam', shard = shard})
  s:step(x, y)
  s:checkpoint(path .. '.step')
  for _, failing in ipairs{0, last} do
    for _, where in ipairs(WHERE) do
      ckio.inject = function(w)
        if w == where and rank == failing then error(string.format('injected fault at %s on rank %d', w, rank), 0) end
      end
      local key = string.format('%s/%d/%s', shard, failing, where)
      local fn = where:match('^checkpoint') and t.checkpoint or t.resume
      R.faults[key] = try(fn, t, path)
      local sfn = where:match('^checkpoint') and s.checkpoint or s.resume
      R.faults['step/' .. key] = try(sfn, s, path .. '.step')
      ckio.inject = nil
    end
  end
  s:remove()
  R.faultsInStep = inStep()
end

-- 6. a step failing on one rank (its feval, dp.trainStep's forward): every
-- rank raises its message, no rank updates apart, the next step works
R.stepFaults = {}
for _, shard in ipairs{'none', 'optim', 'grad'} do
  local m = net('wide')
  local t = dp.new(m, {optim = optim.adam, shard = shard, bucketMB = 1e-5})
  stepOf(t, m, 'wide', 1)
  t:checkpoint(string.format('%s/stepfault_%s.t7', dir, shard))
  local x = torch.randn(4, 3)
  local err = try(t.step, t, function()
    local out = m:forward(x)
    if rank == last then error('feval fails on purpose on rank ' .. rank, 0) end
    m:backward(x, out:clone())
    return out:sum()
  end)
  local notfn = try(t.step, t, rank == last and 42 or function() return 0 end)
  -- the optim method failing once on the last rank
  local method, failed = t.method, false
  t.method = function(...)
    if rank == last and not failed then failed = true; error('the method fails on purpose on rank ' .. rank, 0) end
    return method(...)
  end
  local merr = try(stepOf, t, m, 'wide', 2)
  t.method = method
  -- the ranks may differ now: steps are refused (on every rank) until a resume
  local broken = try(stepOf, t, m, 'wide', 2)
  t:resume(string.format('%s/stepfault_%s.t7', dir, shard))
  stepOf(t, m, 'wide', 3)
  local sm = net('wide')
  local crit = nn.MSECriterion():double()
  local sx, sy = torch.randn(4, 3), torch.randn(4, 1)
  local s = dp.trainStep(sm, crit, sx, {method = 'adam', shard = shard, bucketMB = 1e-5})
  s:step(sx, sy)
  -- rank 'last' feeds an input of the wrong width: its forward fails
  local serr = try(s.step, s, rank == last and torch.randn(4, 5) or sx, sy)
  -- optnet drops a step's plan after a failure: the next step then fails
  -- on that rank, and so raises on every rank alike
  local snext = try(s.step, s, sx, sy)
  local sp = {}
  for i, p in ipairs(sm:parameters()) do sp[i] = p:clone() end
  pcall(s.remove, s)   -- the failing rank's plan is gone already
  R.stepFaults[shard] = {err = err, notfn = notfn, merr = merr, broken = broken, params = t.params:clone(), steps = t.steps, serr = serr, snext = snext,
                         sparams = sp, ssteps = s.steps}
end
R.stepFaultsInStep = inStep()

torch.save(string.format('%s/rank%d.t7', dir, rank), R)
mpi.finalize()
