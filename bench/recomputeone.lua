-- One recompute measurement, in a fresh process:
--   lua5.4 bench/recomputeone.lua <model> <batch> <none|cheap|sqrt> [steps]
-- Optimizes the net for training (float) with opts.recompute, then times
-- training steps (forward + backward, after one warm-up step; the fastest of
-- 'steps', default 3, counts: the machine is shared). Prints key=value:
-- arena (planned activation bytes: outputs, gradInputs, buffers, and the
-- re-computed copies), bound (their lower bound), step_s, peak_kb (VmHWM).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, how, steps = arg[1], tonumber(arg[2]), arg[3], tonumber(arg[4] or 3)
local cfg = CONFIGS[name]
assert(cfg and batch and (how == 'none' or how == 'cheap' or how == 'sqrt') and steps,
  'usage: recomputeone.lua model batch none|cheap|sqrt [steps]')
torch.setnumthreads(2)
torch.manualSeed(0)
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
net:training()
optnet.optimizeMemory(net, input, {mode = 'training', recompute = how})
local st = optnet._state(net)
-- a gradOutput like the output (googlenet's is a table: aux classifiers)
local function gradOf(out)
  if torch.isTensor(out) then return out:clone():fill(1 / out:nElement()) end
  local g = {}
  for i, v in ipairs(out) do g[i] = gradOf(v) end
  return g
end
local out = net:forward(input)
local g = gradOf(out)
net:backward(input, g)
local best = math.huge
for _ = 1, steps do
  local t0 = torch._C.clock()
  net:forward(input)
  net:backward(input, g)
  best = math.min(best, torch._C.clock() - t0)
end
local arena, bound = 0, 0
for _, v in pairs(st.result.arena) do arena = arena + v end
for _, v in pairs(st.result.lowerBound) do bound = bound + v end
local peak
for l in io.lines('/proc/self/status') do peak = peak or tonumber(l:match('^VmHWM:%s*(%d+)')) end
print(string.format('model=%s batch=%d recompute=%s arena=%d bound=%d step_s=%.3f peak_kb=%d',
  name, batch, how, arena, bound, best, peak))
