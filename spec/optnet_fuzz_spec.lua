-- optnet's differential fuzzer (fuzz/optnet/) on a fixed range of seeds:
-- each seed is a random valid net, and every optnet entry point (inference
-- and training optimization with each option, trainStep with each optim
-- method, clone / float / save-load / removeOptimization after them) must
-- give exactly the unoptimized net's numbers, or refuse with a clean optnet
-- error at the optimizing call. Each seed runs in its own process (a crash
-- or hang is that seed's failure, with its signal), two at a time.
-- The range is set here only; `make fuzz-optnet SEEDS=a-b` runs more and
-- `make fuzz-optnet SEED=n SHRINK=1` shrinks a failure (docs/dev/reliability-report.md).
local FIRST, LAST = 1, 30
local TIMEOUT = 170 -- seconds per seed (seeds 1-30 took 0-20 s each on 2026-11-29, 25 s in all with 2 jobs; seed 32 takes 39 s)

local function lines(path)
  local t = {}
  local f = io.open(path)
  if not f then return t end
  for l in f:lines() do t[#t + 1] = l end
  f:close()
  return t
end

local function fields(l)
  local t = {}
  for x in (l .. '\t'):gmatch('([^\t]*)\t') do t[#t + 1] = x end
  return t
end

describe('optnet differential fuzzer', function()
  local dir = os.tmpname()
  os.remove(dir)
  local ran = false
  local function run()
    if ran then return end
    ran = true
    os.execute('mkdir -p ' .. dir)
    os.execute(string.format('OMP_NUM_THREADS=1 fuzz/optnet/driver.sh %d %d 2 %d %s > %s/summary.txt 2>&1',
                             FIRST, LAST, TIMEOUT, dir, dir))
  end
  local nchecks = #dofile('fuzz/optnet/checks.lua').names

  it('has a seed range and every check', function()
    assert.is_true(LAST >= FIRST)
    assert.is_true(nchecks >= 30)
  end)

  for seed = FIRST, LAST do
    it('seed ' .. seed .. ': every check passes or is refused cleanly', function()
      run()
      local out = lines(dir .. '/seed-' .. seed .. '.out')
      local rc = lines(dir .. '/seed-' .. seed .. '.rc')[1] or '?'
      local results, last, done = {}, '-', false
      for _, l in ipairs(out) do
        local t = fields(l)
        if t[1] == 'BEGIN' or t[1] == 'STAGE' then last = l
        elseif t[1] == 'RESULT' then results[#results + 1] = t
        elseif t[1] == 'DONE' then done = true end
      end
      assert(done, string.format('seed %d: the process ended early (exit %s) in %s; make fuzz-optnet SEED=%d SHRINK=1',
                                 seed, rc, last, seed))
      assert.are.equal(nchecks, #results)
      local bad = {}
      for _, t in ipairs(results) do
        if t[3] ~= 'pass' and t[3] ~= 'refused' then
          bad[#bad + 1] = string.format('%s: %s at "%s": %s', t[2], t[3], t[4], (t[5] or ''):sub(1, 160))
        end
        if t[3] == 'refused' then assert.truthy(t[5]:find('^optnet')) end
      end
      assert(#bad == 0, string.format('seed %d (make fuzz-optnet SEED=%d SHRINK=1 CHECK=...):\n%s', seed, seed,
                                      table.concat(bad, '\n')))
    end)
  end

  teardown(function() os.execute('rm -rf ' .. dir) end)
end)
