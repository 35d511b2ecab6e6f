-- Step time of optnet.trainStep against the plain loop, interleaved in one
-- process (the machine is shared: only ratios of neighbouring steps mean
-- much):
--   bin/th bench/stepab.lua <model> <batch> <rounds> <variant> [variant ...]
-- variant: step | cheap | budget:<MiB> (recompute as bench/stepone.lua:
-- none, 'cheap', an arena budget of that many MiB). The plain loop
-- (optim.adam over getParameters of the unoptimized net) and one copy of the
-- net per variant (clones: the same weights) run one step each per round,
-- in an order rotated every round, after 2 warm-up rounds. Prints per
-- variant the median ratio of its step to the plain step of the same round
-- (wall and process CPU time) with the 25-75% quantiles and the extremes,
-- and the plain step's median ms. With BENCH_PHASES=1 also each one's mean
-- time per phase: forward, backward (with the loss; for trainStep the
-- re-runs are inside it), the optimizer's updates (plain: zeroing the flat
-- gradient and Adam over it; trainStep: the per-parameter updates inside
-- backward) and recompute's re-runs.
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, rounds = arg[1], tonumber(arg[2]), tonumber(arg[3])
local cfg = CONFIGS[name]
assert(cfg and batch and rounds and arg[4],
  'usage: stepab.lua model batch rounds step|cheap|budget:<MiB> ...')
torch.setnumthreads(2)
torch.manualSeed(0)
torch.setdefaulttensortype('torch.FloatTensor')
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local base, input = require('models.' .. cfg[1])(opts)
base:training()
local target = torch.LongTensor(batch):random(1, name == 'resnet-110' and 10 or 1000)
local function criterion()
  if name == 'googlenet' then
    return nn.ParallelCriterion():add(nn.ClassNLLCriterion(), 0.3):add(nn.ClassNLLCriterion(), 0.3)
      :add(nn.ClassNLLCriterion()):float(), {target, target, target}
  end
  return nn.ClassNLLCriterion():float(), target
end

local runners = {}
for i = 4, #arg do
  local v = arg[i]
  local net = base:clone()
  local crit, y = criterion()
  local rec
  if v == 'step' then rec = 'none'
  elseif v == 'cheap' then rec = 'cheap'
  elseif v:match('^budget:%d+$') then rec = tonumber(v:match('%d+')) * 1048576
  else error('stepab.lua: unknown variant ' .. v) end
  local s = optnet.trainStep(net, crit, input, {method = optim.adam, config = {learningRate = 1e-3},
                                                blockBytes = 4 * 1048576, recompute = rec})
  local x = {name = v, s = s, phases = {forward = 0, updates = 0, rerun = 0, total = 0}}
  x.run = function()
    local p, clock = x.phases, torch._C.clock
    local t0 = clock()
    s:step(input, y)
    p.total = p.total + clock() - t0
  end
  if os.getenv('BENCH_PHASES') == '1' then
    local fwd = net.updateOutput
    rawset(net, 'updateOutput', function(self, ...)
      local t0 = torch._C.clock()
      local o = fwd(self, ...)
      x.phases.forward = x.phases.forward + torch._C.clock() - t0
      return o
    end)
  end
  runners[#runners + 1] = x
end
-- per phase (BENCH_PHASES=1): the time in the per-parameter updates (inside
-- backward) and in recompute's re-runs, summed over every variant's steps
-- (each runs alone, so the sums per variant come from the shared counters
-- read around its step)
local rc = require 'optnet.recompute'
local updSeconds = 0
if os.getenv('BENCH_PHASES') == '1' then
  -- trainStep calls optim.adam once per parameter (looked up at each call)
  local adam = optim.adam
  optim.adam = function(...)
    local t0 = torch._C.clock()
    local a, b = adam(...)
    updSeconds = updSeconds + torch._C.clock() - t0
    return a, b
  end
  for _, x in ipairs(runners) do
    local run = x.run
    x.run = function()
      local u0, r0 = updSeconds, rc.stats.seconds
      run()
      x.phases.updates = x.phases.updates + updSeconds - u0
      x.phases.rerun = x.phases.rerun + rc.stats.seconds - r0
    end
  end
end
do
  local net = base
  local crit, y = criterion()
  local p, g = net:getParameters()
  local config, st = {learningRate = 1e-3}, {}
  local adam = optim.adam
  local x = {name = 'plain', phases = {forward = 0, updates = 0, rerun = 0, total = 0}}
  local clock = torch._C.clock
  x.run = function()
    local t0, t1, t2, t3 = clock()
    adam(function()
      g:zero()
      t1 = clock()
      local o = net:forward(input)
      t2 = clock()
      local l = crit:forward(o, y)
      net:backward(input, crit:backward(o, y))
      t3 = clock()
      return l, g
    end, p, config, st)
    local t4 = clock()
    local ph = x.phases
    ph.forward, ph.updates, ph.total = ph.forward + t2 - t1, ph.updates + (t1 - t0) + (t4 - t3), ph.total + t4 - t0
  end
  table.insert(runners, 1, x)
end

local clock = torch._C.clock
local function timed(f)
  local a, c = clock(), os.clock()
  f()
  return (clock() - a) * 1000, (os.clock() - c) * 1000
end
local n = #runners
for r = 1, 2 do for _, x in ipairs(runners) do x.run() end end
for _, x in ipairs(runners) do for k in pairs(x.phases) do x.phases[k] = 0 end end
local wall, cpu = {}, {}
for i = 1, n do wall[i], cpu[i] = {}, {} end
for r = 1, rounds do
  for k = 0, n - 1 do
    local i = (r + k - 1) % n + 1
    wall[i][r], cpu[i][r] = timed(runners[i].run)
  end
end
local function q(l, p)
  local s = {}
  for i, v in ipairs(l) do s[i] = v end
  table.sort(s)
  local x = 1 + (#s - 1) * p
  local lo = math.floor(x)
  return s[lo] + (s[math.min(lo + 1, #s)] - s[lo]) * (x - lo)
end
local function load()
  local f = io.open('/proc/loadavg')
  local s = f and f:read('l') or '?'
  if f then f:close() end
  return s:match('^(%S+)') or '?'
end
print(string.format('model=%s batch=%d rounds=%d plain_ms=%.1f plain_cpu_ms=%.1f load=%s', name, batch, rounds,
  q(wall[1], 0.5), q(cpu[1], 0.5), load()))
for i = 2, n do
  local rw, rc = {}, {}
  for r = 1, rounds do rw[r], rc[r] = wall[i][r] / wall[1][r], cpu[i][r] / cpu[1][r] end
  print(string.format('variant=%s ms=%.1f ratio=%.3f q25=%.3f q75=%.3f min=%.3f max=%.3f cpu_ratio=%.3f '
    .. 'cpu_q25=%.3f cpu_q75=%.3f', runners[i].name, q(wall[i], 0.5), q(rw, 0.5), q(rw, 0.25), q(rw, 0.75),
    q(rw, 0), q(rw, 1), q(rc, 0.5), q(rc, 0.25), q(rc, 0.75)))
end
if os.getenv('BENCH_PHASES') == '1' then
  -- mean ms per step; backward = the rest (loss, backward, and for the plain
  -- loop zeroing the flat gradient and Adam's update over the flat vector: 'updates')
  for _, x in ipairs(runners) do
    local p = x.phases
    local per = 1000 / rounds
    print(string.format('phases variant=%s total=%.1f forward=%.1f backward=%.1f updates=%.1f rerun=%.1f', x.name,
      p.total * per, p.forward * per, (p.total - p.forward - p.updates) * per, p.updates * per, p.rerun * per))
  end
end
