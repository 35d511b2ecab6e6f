-- Step time of optnet.trainStep against the plain loop, interleaved in one
-- process (the machine is shared: only ratios of neighbouring steps mean
-- much):
--   bin/th bench/stepab.lua <model> <batch> <rounds> <variant> [variant ...]
-- variant: step | cheap | budget:<MiB> | target:<MiB> (recompute as
-- bench/stepone.lua; target: recompute = {bytes = target}). The plain loop
-- (optim.adam over getParameters of the unoptimized net) and one copy of the
-- net per variant (clones: the same weights) run one step each per round,
-- in an order rotated every round, after 2 warm-up rounds. Prints per
-- variant the median ratio of its step to the plain step of the same round
-- (wall and process CPU time) with the 25-75% quantiles and the extremes,
-- and the plain step's median ms. With BENCH_PHASES=1 also the trainStep's
-- time per phase (forward, loss, backward, updates inside backward).
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, rounds = arg[1], tonumber(arg[2]), tonumber(arg[3])
local cfg = CONFIGS[name]
assert(cfg and batch and rounds and arg[4],
  'usage: stepab.lua model batch rounds step|cheap|budget:<MiB>|target:<MiB> ...')
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
  elseif v:match('^target:%d+$') then rec = {bytes = tonumber(v:match('%d+')) * 1048576}
  else error('stepab.lua: unknown variant ' .. v) end
  local s = optnet.trainStep(net, crit, input, {method = optim.adam, config = {learningRate = 1e-3},
                                                blockBytes = 4 * 1048576, recompute = rec})
  runners[#runners + 1] = {name = v, run = function() s:step(input, y) end, s = s}
end
do
  local net = base
  local crit, y = criterion()
  local p, g = net:getParameters()
  local config, st = {learningRate = 1e-3}, {}
  table.insert(runners, 1, {name = 'plain', run = function()
    optim.adam(function()
      g:zero()
      local o = net:forward(input)
      local l = crit:forward(o, y)
      net:backward(input, crit:backward(o, y))
      return l, g
    end, p, config, st)
  end})
end

local clock = torch._C.clock
local function timed(f)
  local a, c = clock(), os.clock()
  f()
  return (clock() - a) * 1000, (os.clock() - c) * 1000
end
local n = #runners
for r = 1, 2 do for _, x in ipairs(runners) do x.run() end end
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
