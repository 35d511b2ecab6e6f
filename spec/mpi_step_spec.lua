-- dataparallel.trainStep (optnet.trainStep across MPI ranks) and batch
-- normalisation's running statistics across ranks: one 2-rank job
-- (spec/support/mpi_step_job.lua) checked against single-process training
-- at the global batch, the memory a rank holds, and averages by definition.
-- Skips, saying so, only where mpirun is absent (CI installs it).
require 'torch'
require 'nn'
local optim = require 'optim'
local optnet = require 'optnet'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/mpi_step_spec%.lua$') or ''
root = root ~= '' and root or './'
local support = dofile(root .. 'spec/support/mpi_net.lua')
local CASES = dofile(root .. 'spec/support/mpi_step_cases.lua')
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

if not os.execute('command -v mpirun >/dev/null 2>&1') then
  print('spec/mpi_step_spec.lua: skipped, mpirun is not installed (tools/deps.sh installs openmpi-bin)')
  return
end
local OMPI_ENV = 'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none '
local R, B, STEPS = 2, 4, 10

local function relerr(a, b)
  return (a - b):abs():max() / math.max(torch.abs(b):max(), 1e-30)
end

-- the plain loop (getParameters, optim) at batch R*B over the same samples
local function plain(c)
  local net = support.net(c.tname, 1, c.net)
  local crit = nn.ClassNLLCriterion():type(c.tname)
  local X, Y = support.data(c.tname, R * B * STEPS, c.net)
  local p, g = net:getParameters()
  local state, config = {}, {}
  for k, v in pairs(c.config) do config[k] = v end
  for s = 1, STEPS do
    local x, y = X:narrow(1, (s - 1) * R * B + 1, R * B), Y:narrow(1, (s - 1) * R * B + 1, R * B)
    optim[c.method](function()
      g:zero()
      local out = net:forward(x)
      local l = crit:forward(out, y)
      net:backward(x, crit:backward(out, y))
      return l, g
    end, p, config, state)
  end
  return p
end

-- optnet.trainStep in one process at batch R*B, its parameters end to end
local function single(c)
  local net = support.net(c.tname, 1, c.net)
  local crit = nn.ClassNLLCriterion():type(c.tname)
  local X, Y = support.data(c.tname, R * B * STEPS, c.net)
  local config = {}
  for k, v in pairs(c.config) do config[k] = v end
  local s = optnet.trainStep(net, crit, X:narrow(1, 1, R * B), {method = optim[c.method], config = config})
  for st = 1, STEPS do
    s:step(X:narrow(1, (st - 1) * R * B + 1, R * B), Y:narrow(1, (st - 1) * R * B + 1, R * B))
  end
  local parts = {}
  for _, p in ipairs(net:parameters()) do parts[#parts + 1] = p:contiguous():view(-1) end
  return torch.cat(parts, 1)
end

describe('dataparallel.trainStep on 2 ranks', function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute('mkdir -p ' .. sh(dir)))
  local cmd = string.format('cd %s && ' .. OMPI_ENV .. 'TH_BUILD=%s timeout -s KILL 120 mpirun --oversubscribe '
    .. '-np %d bin/th spec/support/mpi_step_job.lua %s 2>&1', sh(root), sh(build), R, sh(dir))
  local p = io.popen(cmd)
  local out = p:read('a')
  local _, _, status = p:close()
  local ok0, R0 = pcall(torch.load, dir .. '/rank0.t7')
  local ok1, R1 = pcall(torch.load, dir .. '/rank1.t7')
  os.execute('rm -rf ' .. sh(dir))

  it('runs the job', function()
    assert.is_true(status == 0 and ok0 and ok1, out)
  end)

  it('10 steps at batch B on each rank equal the plain loop and trainStep at batch 2B', function()
    for i, c in ipairs(CASES) do
      local ref, one = plain(c), single(c)
      local tol = c.tname == 'torch.FloatTensor' and 1e-5 or 1e-12
      for _, Rk in ipairs{R0, R1} do
        local got = Rk.cases[i].params
        local what = string.format('case %d (%s, shard %s, %s)', i, c.method, c.shard, c.tname)
        assert.is_true(relerr(got, ref) < tol, what .. ' vs plain loop: ' .. relerr(got, ref))
        assert.is_true(relerr(got, one) < tol, what .. ' vs trainStep: ' .. relerr(got, one))
      end
      -- the ranks agree exactly
      assert.are.equal(0, (R0.cases[i].params - R1.cases[i].params):abs():max())
    end
    -- tiny buckets: several, parameters split across them
    assert.is_true(R0.cases[1].buckets > 5)
  end)

  it("shard = 'grad' keeps about 1/R of the gradient and optimizer state per rank", function()
    for i, c in ipairs(CASES) do
      if c.method == 'adam' and c.bucketMB then
        local whole = R0.cases[i].n * 4 * 3 -- gradient + adam's m and v, float
        for _, Rk in ipairs{R0, R1} do
          local r = Rk.cases[i]
          local per = r.grads + r.optimState
          if c.shard == 'grad' then
            -- its slice of the gradient, adam's state of that slice, the bucket pool
            assert.is_true(per <= whole / R * 1.15, string.format('%d of %d bytes', per, whole))
            assert.is_true(per >= whole / R, string.format('%d of %d bytes', per, whole))
          else
            -- 'optim': the state is sharded, no gradient held past the pool
            assert.is_true(r.optimState <= R0.cases[i].n * 8 / R + 64, r.optimState)
            assert.is_true(r.grads <= 3 * 64, r.grads)
          end
        end
      end
    end
  end)

  -- the running statistics by definition after n steps: the mean is linear
  -- in the batch means (the global batch's), the variance the average of
  -- each rank's own running variance
  local function bnReference(n)
    local X = select(1, support.data('torch.FloatTensor', R * B * STEPS))
    local bn = nn.BatchNormalization(10):float()
    local per = {nn.BatchNormalization(10):float(), nn.BatchNormalization(10):float()}
    for s = 1, n do
      bn:forward(X:narrow(1, (s - 1) * R * B + 1, R * B))
      for r = 1, R do per[r]:forward(X:narrow(1, (s - 1) * R * B + (r - 1) * B + 1, B)) end
    end
    return bn.running_mean, (per[1].running_var + per[2].running_var) / 2
  end

  it('syncBatchNorm averages the running statistics across ranks at each step', function()
    for _, c in ipairs{{'sync', STEPS}, {'trainerSync', 3}} do
      local mean, var = bnReference(c[2])
      for _, Rk in ipairs{R0, R1} do
        local got = Rk[c[1]]
        assert.is_true(relerr(got.mean, mean) < 1e-5, c[1] .. ' mean: ' .. relerr(got.mean, mean))
        assert.is_true(relerr(got.var, var) < 1e-5, c[1] .. ' var: ' .. relerr(got.var, var))
      end
    end
  end)

  it('a checkpoint saves the running statistics averaged across ranks; resume restores them', function()
    assert.is_true((R0.own.mean - R1.own.mean):abs():max() > 1e-3, 'ranks apart without syncBatchNorm')
    local mean, var = (R0.own.mean + R1.own.mean) / 2, (R0.own.var + R1.own.var) / 2
    for _, Rk in ipairs{R0, R1} do
      assert.is_true(relerr(Rk.resumed.mean, mean) < 1e-6)
      assert.is_true(relerr(Rk.resumed.var, var) < 1e-6)
    end
  end)

  it("dp.trainStep's checkpoint resumes with identical numbers", function()
    for _, Rk in ipairs{R0, R1} do
      assert.are.equal(0, (Rk.ckpt.a - Rk.ckpt.b):abs():max())
      assert.are.same({epoch = 4}, Rk.ckpt.extra)
      assert.are.equal(6, Rk.ckpt.steps)
      assert.matches("dataparallel.Step:resume: .* was written by 2 ranks, shard grad, buckets of 16 elements; "
        .. "this job has 2, optim", Rk.ckptErr)
    end
  end)

  it('bad options are errors naming the call', function()
    local e = R0.errors
    assert.matches("dataparallel.trainStep: option 'shard' should be 'none', 'optim' or 'grad', got zero", e[1], 1,
      true)
    assert.matches('dataparallel.trainStep: optim.nag is not supported across ranks', e[2], 1, true)
    assert.matches("dataparallel.trainStep: option 'twoPass' is not available across ranks", e[3], 1, true)
    assert.matches("dataparallel.trainStep: option 'syncBatchNorm' should be a boolean, got number", e[4], 1, true)
    assert.matches("dataparallel.trainStep: option 'bucketMB' should be a number > 0, got 0", e[5], 1, true)
  end)
end)
