-- dataparallel's collective paths under faults (docs/dev/hardening-36.md):
-- spec/support/dp_faults_job.lua on 2 ranks and on 4 (oversubscribed: more
-- ranks than parameter elements, empty slices). Every job runs under
-- `timeout`: a disagreement between ranks (a hang) fails the spec within
-- seconds instead of stalling CI. Skips, saying so, only where mpirun is
-- absent (CI installs it).
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/dataparallel_faults_spec%.lua$') or ''
root = root ~= '' and root or './'
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

if not os.execute('command -v mpirun >/dev/null 2>&1') then
  print('spec/dataparallel_faults_spec.lua: skipped, mpirun is not installed (tools/deps.sh installs openmpi-bin)')
  return
end

local OMPI_ENV = 'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none '

-- the job on np ranks, killed after 'limit' seconds: output, status, seconds
local function mpirun(np, dir, what, env, limit)
  local cmd = string.format('cd %s && ' .. OMPI_ENV .. '%s TH_BUILD=%s timeout -s KILL %d mpirun --oversubscribe '
    .. '-np %d bin/th spec/support/dp_faults_job.lua %s %s 2>&1', sh(root), env or '', sh(build), limit or 60, np,
    sh(dir), what)
  local timer = torch.Timer()
  local p = io.popen(cmd)
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status, timer:time().real
end

local function newdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute('mkdir -p ' .. sh(dir)))
  return dir
end

local function relerr(a, b)
  return (a - b):abs():max() / math.max(torch.abs(b):max(), 1e-30)
end

-- the checks shared by 2 and 4 ranks; Rs[r + 1] is rank r's record
local function checks(np)
  local dir = newdir()
  local out, status, secs = mpirun(np, dir, 'cases')
  local Rs = {}
  for r = 0, np - 1 do
    local ok, R = pcall(torch.load, string.format('%s/rank%d.t7', dir, r))
    Rs[r + 1] = ok and R or nil
  end
  os.execute('rm -rf ' .. sh(dir))
  local last = np - 1
  -- errors name the job's line that called into dataparallel: checked
  -- here, then left out of the messages compared below
  local positioned = 0
  local function strip(t)
    for k, v in pairs(t) do
      if type(v) == 'string' then
        local rest, n = v:gsub('^spec/support/dp_faults_job%.lua:%d+: ', '')
        positioned, t[k] = positioned + n, rest
      elseif type(v) == 'table' then
        strip(v)
      end
    end
  end
  for _, R in ipairs(Rs) do strip(R) end

  it("errors carry the line of the job's call", function()
    assert.is_true(positioned >= np * 70, positioned)
  end)

  it('the job ends, in seconds', function()
    assert.is_true(status == 0 and #Rs == np, out)
    assert.is_true(secs < 45, secs)
  end)

  it('one parameter, two, more ranks than parameters (empty slices): checkpoint and resume give the '
     .. 'numbers of training straight on, sharded or not', function()
    for r, R in ipairs(Rs) do
      for _, kind in ipairs{'one', 'two', 'wide'} do
        local none = R.train[kind .. '_none'].straight
        for _, shard in ipairs{'none', 'optim', 'grad'} do
          local c = R.train[kind .. '_' .. shard]
          assert.are.equal(0, (c.straight - c.resumed):abs():max(), kind .. ' ' .. shard)
          assert.are.same({step = 2}, c.extra)
          assert.is_true(relerr(c.straight, none) < 1e-12, kind .. ' ' .. shard)
          -- every rank holds the same parameters
          assert.are.equal(0, (c.straight - Rs[1].train[kind .. '_' .. shard].straight):abs():max())
        end
      end
      assert.is_true(R.adamax.ok)
      assert.are.equal(0, (R.adamax.straight - R.adamax.resumed):abs():max())
      -- 1 element on np ranks: only the last rank's slice is not empty
      assert.are.equal(r == np and 1 or 0, R.train.one_optim.count)
      for _, shard in ipairs{'none', 'optim', 'grad'} do
        for _, kind in ipairs{'one', 'wide'} do
          local c = R.step[kind .. '_' .. shard]
          for i = 1, #c.straight do
            assert.are.equal(0, (c.straight[i] - c.resumed[i]):abs():max(), 'trainStep ' .. kind .. ' ' .. shard)
          end
        end
      end
    end
  end)

  it('nets or options that differ across ranks raise on every rank, naming the rank and the difference', function()
    for _, R in ipairs(Rs) do
      local d = R.differ
      local at = string.format(' on rank %d is ', last)
      assert.are.equal("dataparallel.new: the ranks' nets differ: parameter 1" .. at
        .. '3x5 torch.DoubleTensor, on rank 0 6x2 torch.DoubleTensor', d.sameCount)
      assert.are.equal("dataparallel.new: the ranks' nets differ: parameter 1" .. at
        .. '4x5 torch.DoubleTensor, on rank 0 6x2 torch.DoubleTensor', d.otherCount)
      assert.are.equal("dataparallel.new: the ranks' nets differ: option shard" .. at .. 'grad, on rank 0 none', d.shard)
      assert.are.equal("dataparallel.trainStep: the ranks' nets differ: parameter 1" .. at
        .. '3x5 torch.DoubleTensor, on rank 0 6x2 torch.DoubleTensor', d.step)
      assert.are.equal(string.format('dataparallel.new: bucketMB should be a number > 0, got -1 (failed on rank %d of %d)',
        last, np), d.badOption)
      assert.is_true(R.differInStep)
    end
  end)

  it("a schedule function in a checkpoint: rank 0's vetted bytecode loads on every rank; "
     .. "another process's is refused by every rank alike", function()
    for _, R in ipairs(Rs) do
      assert.are.equal(0.1 * 3, R.schedule)
      assert.matches('trainer:resume: cannot read .*/foreign%.t7: torch%.load: .*the Lua function at byte %d+ was not '
        .. 'written by this process.* %(failed on rank 0 of ' .. np .. '%)$', R.foreign)
      assert.is_true(R.scheduleInStep)
    end
  end)

  it('a crafted optimizer state is refused on every rank, naming the file and the field; nothing changes', function()
    for _, R in ipairs(Rs) do
      local c = R.crafted
      local all = np == 2 and '(failed on ranks 0, 1 of 2)' or '(failed on ranks 0, 1, 2, 3 of 4)'
      assert.matches('^trainer:resume: .*/short%.t7: field state%.m holds 20 elements %(size 20%), the net has 21 '
        .. 'parameters', c.short)
      assert.is_true(c.short:sub(-#all) == all, c.short)
      assert.matches('^trainer:resume: .*/float%.t7: field state%.v is a torch%.FloatTensor, torch%.DoubleTensor '
        .. 'expected', c.float)
      -- a checkpoint without the list of fields: optim's names are known
      assert.matches('^trainer:resume: .*/old%.t7: field state%.denom holds 23 elements %(size 23%), the net has 21 '
        .. 'parameters', c.old)
      assert.matches('^trainer:resume: cannot read .*/none%.t7: torch%.load: .*No such file or directory '
        .. '%(failed on rank 0 of ' .. np .. '%)$', c.missing)
      assert.is_true(R.craftedUnchanged)
      assert.matches('^trainer:checkpoint: cannot write .*/no/such/dir/ck%.t7: .*%(failed on rank 0 of ' .. np .. '%)$',
        R.unwritable)
      assert.matches("^dataparallel%.Step:resume: .*/sshort%.t7: field states%[%d%]%['%d+:%d+'%]%.m holds %d+ "
        .. 'elements, the part has %d+', R.stepCrafted)
      assert.is_true(R.craftedInStep)
    end
  end)

  it("a rank failing at any step of checkpoint or resume: every rank raises its message, the ranks stay in step",
     function()
    for _, R in ipairs(Rs) do
      for _, shard in ipairs{'none', 'optim'} do
        for _, failing in ipairs{0, last} do
          for _, where in ipairs{'checkpoint.state', 'checkpoint.write', 'resume.read', 'resume.decode',
                                 'resume.check', 'resume.apply'} do
            local want = string.format('injected fault at %s on rank %d (failed on rank %d of %d)', where, failing,
                                       failing, np)
            for _, key in ipairs{string.format('%s/%d/%s', shard, failing, where),
                                 string.format('step/%s/%d/%s', shard, failing, where)} do
              assert.are.equal(want, R.faults[key], key)
            end
          end
        end
      end
      assert.is_true(R.faultsInStep)
    end
  end)

  it('a step failing on one rank raises its message on every rank; the ranks keep the same parameters and '
     .. 'step on', function()
    for _, R in ipairs(Rs) do
      for _, shard in ipairs{'none', 'optim', 'grad'} do
        local f = R.stepFaults[shard]
        local on = string.format('(failed on rank %d of %d)', last, np)
        assert.are.equal(string.format('feval fails on purpose on rank %d %s', last, on), f.err)
        assert.are.equal('trainer:step: a function expected, got number ' .. on, f.notfn)
        assert.are.equal('the method fails on purpose on rank ' .. last .. ' ' .. on, f.merr)
        assert.matches('^trainer:step: an earlier step failed in the optim '
          .. 'method, so the ranks may hold different '
          .. 'parameters; resume from a checkpoint first', f.broken)
        assert.are.equal(2, f.steps)
        assert.are.equal(0, (f.params - Rs[1].stepFaults[shard].params):abs():max())
        assert.matches('nn%.Linear:updateOutput: size mismatch: input must be 1D or 2D with 3 columns, got 2D 4x5 '
          .. on:gsub('%p', '%%%0') .. '$', f.serr)
        assert.are.equal(Rs[1].stepFaults[shard].serr, f.serr)
        assert.are.equal('optnet.trainStep: the net is no longer planned for a training step; make a new one with '
          .. 'optnet.trainStep ' .. on, f.snext)
        assert.are.equal(1, f.ssteps)
        for i, p in ipairs(f.sparams) do
          assert.are.equal(0, (p - Rs[1].stepFaults[shard].sparams[i]):abs():max())
        end
      end
      assert.is_true(R.stepFaultsInStep)
    end
  end)
end

describe('dataparallel faults on 2 ranks', function() checks(2) end)
describe('dataparallel faults on 4 ranks (2 per core, more ranks than parameters)', function() checks(4) end)

describe('mpi exits', function()
  it('a rank failing uncaught in a checkpoint ends the job within seconds, its message shown', function()
    local dir = newdir()
    local out, status, secs = mpirun(2, dir, 'uncaught')
    os.execute('rm -rf ' .. sh(dir))
    assert.are_not.equal(0, status)
    assert.is_true(secs < 30, secs)
    assert.matches('rank 1 fails on purpose in checkpoint.state (failed on rank 1 of 2)', out, 1, true)
    assert.matches('exits without mpi.finalize() (the error above?): aborting the job', out, 1, true)
  end)

  it('a script ending without mpi.finalize() exits 0 (MPI finalized at exit)', function()
    local out, status = mpirun(2, '/tmp', 'nofinalize')
    assert.are.equal(0, status, out)
    assert.matches('rank 0 done, sum 3', out, 1, true)
    assert.matches('rank 1 done, sum 3', out, 1, true)
    assert.is_nil(out:find('aborting', 1, true), out)
  end)

  it('a rank ending normally while another waits in a collective: the job ends after '
     .. 'TH_MPI_FINALIZE_TIMEOUT', function()
    local out, status, secs = mpirun(2, '/tmp', 'early', 'TH_MPI_FINALIZE_TIMEOUT=1')
    assert.are_not.equal(0, status)
    assert.is_true(secs < 20, secs)
    assert.matches('mpi: the other ranks did not finish within TH_MPI_FINALIZE_TIMEOUT seconds', out, 1, true)
  end)
end)
