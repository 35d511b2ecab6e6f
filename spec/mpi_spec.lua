-- mpi and dataparallel: 2-rank jobs under mpirun (spec/support/mpi_job.lua),
-- checked here against hand-computed collectives and single-process
-- training at the global batch; a failing or killed rank ends the job.
-- Skips, saying so, only where mpirun is absent (CI installs it).
require 'torch'
require 'nn'
local optim = require 'optim'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/mpi_spec%.lua$') or ''
root = root ~= '' and root or './'
local support = dofile(root .. 'spec/support/mpi_net.lua')
-- the build the specs run against (make test BUILD=...)
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local hasMpirun = os.execute('command -v mpirun >/dev/null 2>&1')
if not hasMpirun then
  print('spec/mpi_spec.lua: skipped, mpirun is not installed (tools/deps.sh installs openmpi-bin)')
  return
end

-- root may run mpirun (CI does); no single-copy shared memory (CMA), which
-- containers without ptrace rights refuse
local OMPI_ENV = 'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none '

-- runs the job on np ranks; its output, exit status and seconds taken
local function mpirun(np, dir, what)
  local cmd = string.format('cd %s && ' .. OMPI_ENV .. 'TH_BUILD=%s '
    .. 'timeout -s KILL 120 mpirun --oversubscribe -np %d bin/th spec/support/mpi_job.lua %s %s 2>&1',
    sh(root), sh(build), np, sh(dir), what)
  local timer = torch.Timer()
  local p = io.popen(cmd)
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status, timer:time().real
end

local function relerr(a, b)
  return (a - b):abs():max() / math.max(torch.abs(b):max(), 1e-30)
end

-- one process at global batch R*B (B = 4) over the same samples in the same order
local function reference(tname, method, config, steps, R)
  R = R or 2
  local net = support.net(tname, 1)
  local crit = nn.ClassNLLCriterion():type(tname)
  local X, Y = support.data(tname, R * 4 * 12)
  local p, g = net:getParameters()
  local state = {}
  for s = 1, steps do
    local x, y = X:narrow(1, (s - 1) * R * 4 + 1, R * 4), Y:narrow(1, (s - 1) * R * 4 + 1, R * 4)
    method(function()
      g:zero()
      local out = net:forward(x)
      local l = crit:forward(out, y)
      net:backward(x, crit:backward(out, y))
      return l, g
    end, p, config, state)
  end
  return p
end

describe('mpi on 2 ranks', function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute('mkdir -p ' .. sh(dir)))
  local out, status = mpirun(2, dir, 'all')
  local ok0, R0 = pcall(torch.load, dir .. '/rank0.t7')
  local ok1, R1 = pcall(torch.load, dir .. '/rank1.t7')
  os.execute('rm -rf ' .. sh(dir))

  it('runs the job', function()
    assert.is_true(status == 0 and ok0 and ok1, out)
  end)

  it('collectives give the hand-computed values on every rank', function()
    for r, R in ipairs{R0, R1} do
      local rank = r - 1
      assert.are.same({3, 3, 3, 3, 3}, R.sum:totable())
      assert.are.same({3, 4}, R.maxnc:size():totable())
      assert.are.equal(2, R.maxnc:min()); assert.are.equal(2, R.maxnc:max())
      assert.are.equal('mpi.Request', R.reqtype)
      assert.are.same({6, 6, 6}, R.prod:totable())
      assert.are.same({1, 1}, R.min:totable())
      assert.are.same({8, 8, 8}, R.bcast:totable())
      assert.are.same(rank == 0 and {1, 3} or {4, 4}, {R.first, R.n})
      -- (1..7) * 1 + (1..7) * 2, rank 0 gets elements 1..3, rank 1 4..7
      assert.are.same(rank == 0 and {3, 6, 9} or {12, 15, 18, 21}, R.rs:totable())
      assert.are.same(rank == 0 and {2, 4, 6} or {8, 10, 12, 14}, R.rsmax:totable())
      assert.are.same({10, 10, 10, 11, 11, 11, 11}, R.ag:totable())
      assert.are.same({20, 20, 20, 21, 21, 21, 21}, R.ag2:totable())
      assert.are.same({1, 2, 2, 2}, R.agcounts:totable())
    end
  end)

  it('bad arguments are errors naming the call', function()
    local e = R0.errors
    assert.matches("bad argument #1 to 'mpi.allreduce' %(a Byte, Char, Short, Int, Long, Float or Double tensor expected, got torch.HalfTensor%)", e[1])
    assert.matches("bad argument #2 to 'mpi.allreduce' %('sum', 'max', 'min' or 'prod' expected, got 'mean'%)", e[2])
    assert.matches("bad argument #2 to 'mpi.broadcast' %(root rank in 0..1 expected, got 2%)", e[3])
    assert.matches("bad argument #1 to 'mpi.reducescatter' %(rank 0's block holds 3 elements, recv has 9%)", e[4])
    assert.matches("bad argument #2 to 'mpi.reducescatter' %(torch.FloatTensor expected %(as argument #1%), got torch.DoubleTensor%)", e[5])
    assert.matches("bad argument #3 to 'mpi.allgather' %(counts add up to 2, the tensor holds 4 elements%)", e[6])
    assert.matches("bad argument #3 to 'mpi.allgather' %(a table of counts %(one per rank%) expected, got number%)", e[7])
    assert.matches("mpi.range: a count >= 0 expected, got %-1", e[8])
    assert.matches("dataparallel.new: shard should be 'none', 'optim' or 'grad', got zero", e[9])
    assert.matches("dataparallel.new: the net %(nn.Sequential%) has no parameters to train", e[10])
    assert.matches("trainer:step: a function expected, got number", e[11])
    assert.matches("trainer:step: nn.Linear accumulated its gradient again after its bucket was sent", e[12], 1, true)
  end)

  it('10 SGD steps on 2 ranks at batch B equal one process at batch 2B', function()
    local sgd = {learningRate = 0.1, momentum = 0.9}
    local f = reference('torch.FloatTensor', optim.sgd, {learningRate = 0.1, momentum = 0.9}, 10)
    local d = reference('torch.DoubleTensor', optim.sgd, sgd, 10)
    for _, R in ipairs{R0, R1} do
      assert.is_true(relerr(R.float, f) < 1e-5, 'float: ' .. relerr(R.float, f))
      -- BLAS sums a batch of 8 in another order than two of 4: rounding only
      assert.is_true(relerr(R.double, d) < 1e-14, 'double: ' .. relerr(R.double, d))
      -- buckets change when the reduction starts, never the numbers
      assert.is_true(R.buckets >= 3)
      assert.are.equal(0, (R.doubleBuckets - R.double):abs():max())
      -- optnet (training mode), with recompute too: the same numbers
      assert.are.equal(0, (R.optnet - R.double):abs():max())
      assert.are.equal(0, (R.recompute - R.double):abs():max())
      assert.are.equal(0, (R.replan - R.double):abs():max())
    end
    assert.are.equal(0, (R0.float - R1.float):abs():max())
    assert.are.equal(0, (R0.double - R1.double):abs():max())
  end)

  it("shard = 'optim' and 'grad' with adam: same weights, 1/R of the optimizer state per rank", function()
    local d = reference('torch.DoubleTensor', optim.adam, {learningRate = 0.01}, 10)
    local n = R0.nparams
    for r, R in ipairs{R0, R1} do
      assert.is_true(relerr(R.adamNone, d) < 1e-13, 'adam: ' .. relerr(R.adamNone, d))
      assert.are.equal(0, (R.adamOptim - R.adamNone):abs():max())
      assert.are.equal(0, (R.adamGrad - R.adamNone):abs():max())
      -- adam keeps m, v and denom: 3 doubles per parameter, or per parameter of the slice
      local mine = (r * n // 2) - ((r - 1) * n // 2)
      assert.are.equal(3 * n * 8, R.bytesNone)
      assert.are.equal(3 * mine * 8, R.bytesOptim)
      assert.are.equal(3 * mine * 8, R.bytesGrad)
      assert.are.equal(mine, R.gshard)
      -- and as the allocator counts them: what dropping the state frees
      assert.are.equal(R.bytesNone, R.allocNone)
      assert.are.equal(R.bytesOptim, R.allocOptim)
      assert.are.equal(R.bytesGrad, R.allocGrad)
    end
    assert.are.equal(R0.bytesNone, R0.bytesOptim + R1.bytesOptim)
  end)

  it('a checkpoint (rank 0, shards gathered) resumes with identical numbers', function()
    for _, R in ipairs{R0, R1} do
      assert.are.equal(3, R.extraStep)
      assert.are.equal(3, R.resumedSteps)
      assert.are.equal(0, (R.resumed - R.straight):abs():max())
    end
  end)

  it('data shards: disjoint, each global batch split in rank order, reshuffled per epoch', function()
    local dp = require 'dataparallel'
    local whole = dp.shard(22, {batch = 4, seed = 5, epoch = 1, size = 1, rank = 0})
    assert.are.equal(20, whole:nElement())
    assert.are.equal(10, R0.shard1:nElement())
    local seen = {}
    for s = 0, 4 do
      for j = 1, 2 do
        assert.are.equal(whole[s * 4 + j], R0.shard1[s * 2 + j])
        assert.are.equal(whole[s * 4 + 2 + j], R1.shard1[s * 2 + j])
      end
    end
    for _, t in ipairs{R0.shard1, R1.shard1} do
      for i = 1, t:nElement() do
        assert.is_nil(seen[t[i]]); seen[t[i]] = true
        assert.is_true(t[i] >= 1 and t[i] <= 22)
      end
    end
    assert.is_true((R0.shard1 - R0.shard2):abs():max() > 0)
  end)
end)

describe('mpi on 4 ranks (2 per core)', function()
  it('train as one process at batch 4B, sharded or not', function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute('mkdir -p ' .. sh(dir)))
    local out, status = mpirun(4, dir, 'train')
    local Rs = {}
    for r = 0, 3 do
      local ok, R = pcall(torch.load, string.format('%s/rank%d.t7', dir, r))
      assert.is_true(status == 0 and ok, out)
      Rs[#Rs + 1] = R
    end
    os.execute('rm -rf ' .. sh(dir))
    local f = reference('torch.FloatTensor', optim.sgd, {learningRate = 0.1, momentum = 0.9}, 10, 4)
    local d = reference('torch.DoubleTensor', optim.adam, {learningRate = 0.01}, 10, 4)
    local bytes = 0
    for _, R in ipairs(Rs) do
      assert.is_true(relerr(R.float, f) < 1e-5, 'float: ' .. relerr(R.float, f))
      assert.is_true(relerr(R.adamNone, d) < 1e-13, 'adam: ' .. relerr(R.adamNone, d))
      -- 4 ranks sum in an order of MPI's choosing: rounding only
      assert.is_true(relerr(R.adamOptim, R.adamNone) < 1e-13)
      assert.is_true(relerr(R.adamGrad, R.adamNone) < 1e-13)
      bytes = bytes + R.bytesOptim
      assert.is_true(math.abs(R.bytesOptim - R.bytesNone / 4) <= 3 * 8)
    end
    assert.are.equal(Rs[1].bytesNone, bytes)
  end)
end)

describe('examples/train_mpi.lua', function()
  it('learns the spirals on 2 ranks and resumes from its checkpoint with the same numbers', function()
    local ck = os.tmpname()
    local function run(extra)
      local p = io.popen(string.format('cd %s && ' .. OMPI_ENV .. 'TH_BUILD=%s '
        .. 'timeout -s KILL 120 mpirun --oversubscribe -np 2 bin/th examples/train_mpi.lua -epochs 30 -shard grad '
        .. '-optim adam -lr 0.01 -save %s -every 200 %s 2>&1', sh(root), sh(build), sh(ck), extra))
      local out = p:read('a')
      local _, _, status = p:close()
      assert.are.equal(0, status, out)
      return out
    end
    local straight = run('')
    local resumed = run('-resume')
    os.remove(ck)
    local last = straight:match('(epoch  30[^\n]*)')
    assert.is_truthy(last, straight)
    assert.is_true(tonumber(last:match('accuracy ([%d.]+)')) > 0.9, last)
    assert.matches('resumed from .* at epoch 23, step 400', resumed)
    assert.are.equal(last, resumed:match('(epoch  30[^\n]*)'))
    -- adam's 3 doubles per parameter of 4547, split between the 2 ranks
    local b0, b1 = straight:match('optimizer state per rank %(bytes%): (%d+) (%d+)')
    assert.are.same({2273 * 24, 2274 * 24}, {tonumber(b0), tonumber(b1)})
  end)
end)

describe('mpi faults', function()
  it('a rank raising an error ends the job on every rank within 60 s, with the message', function()
    local out, status, secs = mpirun(2, '/tmp', 'error')
    assert.are_not.equal(0, status)
    assert.is_true(secs < 60, secs)
    assert.matches('rank 1 fails on purpose at step 3', out, 1, true)
    assert.matches('mpi: rank 1 of 2 exits without mpi.finalize() (the error above?): aborting the job', out, 1, true)
  end)

  it('a rank killed mid-training ends the job within 60 s', function()
    local out, status, secs = mpirun(2, '/tmp', 'kill')
    assert.are_not.equal(0, status)
    assert.is_true(secs < 60, secs)
    assert.matches('exited on signal 9', out, 1, true)
  end)
end)
