-- Peak resident memory of optimizing, in a fresh process:
--   lua5.4 bench/peakone.lua <model> <batch> <inference|training> <float|double> <variant> [recompute]
-- variant: 'small' = optimizeMemory (trace at batch 1..3, sizes scaled) + one step;
--          'full'  = optimizeMemory tracing at the full batch (smallTrace=false) + one step;
--          'plain' = one step of the unoptimized net.
-- recompute (training): opts.recompute for 'small' and 'full' ('cheap', 'sqrt').
-- Prints key=value: built_kb (resident once the net and input exist; the peak
-- is reset there), total_kb (VmHWM after optimizing and one step), step_kb (VmHWM of one more step alone: the peak
-- is reset through /proc/self/clear_refs first), so total_kb / step_kb is what
-- optimizing adds on top of running the optimized net.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, mode, ty, variant, rc = arg[1], tonumber(arg[2]), arg[3], arg[4], arg[5], arg[6]
local cfg = CONFIGS[name]
assert(cfg and batch and (mode == 'inference' or mode == 'training')
  and (variant == 'small' or variant == 'full' or variant == 'plain'),
  'usage: peakone.lua model batch inference|training float|double small|full|plain')

local function hwm()
  for l in io.lines('/proc/self/status') do
    local v = l:match('^VmHWM:%s*(%d+)')
    if v then return tonumber(v) end
  end
  error('peakone.lua: no VmHWM in /proc/self/status')
end
local function resetPeak()
  local f = assert(io.open('/proc/self/clear_refs', 'w'))
  f:write('5')
  f:close()
end

torch.setnumthreads(2)
torch.manualSeed(0)
local opts = {batch = batch, type = ty}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
if mode == 'inference' then net:evaluate() else net:training() end
collectgarbage()
-- building (weights made in double, then converted) has its own peak: not ours
resetPeak()
local built = hwm()

local gradOf = require('bench.measure').gradOf

local gradOutput
local function step()
  local out = net:forward(input)
  if mode == 'training' then
    gradOutput = gradOutput or gradOf(out)
    net:backward(input, gradOutput)
  end
end

if variant ~= 'plain' then
  optnet.optimizeMemory(net, input, {mode = mode, smallTrace = variant == 'small', recompute = rc})
end
step()
collectgarbage()
local total = hwm()
resetPeak()
step()
local one = hwm()
print(string.format('model=%s batch=%d mode=%s variant=%s recompute=%s built_kb=%d total_kb=%d step_kb=%d',
  name, batch, mode, variant, rc or 'none', built, total, one))
