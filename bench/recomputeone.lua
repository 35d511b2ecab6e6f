-- Recompute measurements for one net, in a fresh process:
--   lua5.4 bench/recomputeone.lua <model> <batch> [steps] [how,how,...]
-- Optimizes one copy of the net for training (float) per opts.recompute
-- setting (default none,cheap,sqrt,0.5,third; a number or 'third' is a
-- byte budget of that share of the arena planned without recompute, raised
-- by tenths until a plan fits; budget= reports the share), then times training steps
-- (forward + backward) of the copies in turn, one step each round, after a
-- warm-up round: interleaving makes the ratios fair on a shared machine,
-- where load comes and goes. The fastest of 'steps' rounds (default 3)
-- counts. Prints one line per setting, key=value: arena (planned
-- activation bytes: outputs, gradInputs, buffers, and the re-computed
-- copies), bound (their lower bound), step_s, optimize_s, chosen (the
-- segmentation kept), work (the share of the forward's multiply-adds that
-- a budget plan re-runs).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, steps = arg[1], tonumber(arg[2]), tonumber(arg[3] or 3)
local hows = {}
for h in (arg[4] or 'none,cheap,sqrt,0.5,third'):gmatch('[^,]+') do hows[#hows + 1] = h end
local cfg = CONFIGS[name]
assert(cfg and batch and steps, 'usage: recomputeone.lua model batch [steps] [none,cheap,sqrt,0.5,third]')
torch.setnumthreads(2)
torch.manualSeed(0)
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local proto, input = require('models.' .. cfg[1])(opts)
proto:training()

-- the planned bytes over all pools: result.arena or result.lowerBound
local function sum(t)
  local n = 0
  for _, v in pairs(t) do n = n + v end
  return n
end
local function arenaOf(net) return sum(optnet._state(net).result.arena) end
local function boundOf(net) return sum(optnet._state(net).result.lowerBound) end
local gradOf = require('bench.measure').gradOf

local runs, noneArena = {}, nil
for _, how in ipairs(hows) do
  local share = how == 'third' and 1 / 3 or tonumber(how)
  assert(how == 'none' or how == 'cheap' or how == 'sqrt' or share, 'unknown setting ' .. how)
  local net = proto:clone()
  local rc = how
  if share then
    if not noneArena then
      local probe = proto:clone()
      optnet.optimizeMemory(probe, input, {mode = 'training'})
      noneArena = arenaOf(probe)
      probe = nil
      collectgarbage()
    end
    rc = math.floor(noneArena * share)
  end
  local t0 = torch._C.clock()
  local ok, err = pcall(optnet.optimizeMemory, net, input, {mode = 'training', recompute = rc})
  -- a third may be out of reach: the budget is raised by a tenth of the
  -- arena at a time until a plan fits, and the budget reported
  while not ok and share and tostring(err):find('no segmentation fits', 1, true) do
    rc = rc + noneArena // 10
    ok, err = pcall(optnet.optimizeMemory, net, input, {mode = 'training', recompute = rc})
  end
  if not ok then error(err, 0) end
  local r = {how = how, net = net, optimize = torch._C.clock() - t0, best = math.huge,
             budget = share and rc / noneArena or 0}
  if how == 'none' then noneArena = arenaOf(net) end
  r.g = gradOf(net:forward(input))
  net:backward(input, r.g)
  runs[#runs + 1] = r
end
for _ = 1, steps do
  for _, r in ipairs(runs) do
    local t0 = torch._C.clock()
    r.net:forward(input)
    r.net:backward(input, r.g)
    r.best = math.min(r.best, torch._C.clock() - t0)
  end
end
for _, r in ipairs(runs) do
  local st = optnet._state(r.net)
  print(string.format('model=%s batch=%d recompute=%s arena=%d bound=%d step_s=%.3f optimize_s=%.2f chosen=%s '
    .. 'work=%.3f budget=%.3f', name, batch, r.how, arenaOf(r.net), boundOf(r.net), r.best, r.optimize,
    st.result.recompute, st.result.recomputeWork or 0, r.budget))
end
