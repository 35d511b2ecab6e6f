-- One memory measurement in a fresh process:
--   lua5.4 bench/memone.lua <model> <batch> <inference|training> <float|double>
-- Prints one line of key=value pairs: per category before / after, lower bounds.
require 'torch'
require 'nn'
local optnet = require 'optnet'

local CONFIGS = require 'bench.memconfigs'

local name, batch, mode, ty = arg[1], tonumber(arg[2]), arg[3], arg[4]
local cfg = CONFIGS[name]
assert(cfg and batch and (mode == 'inference' or mode == 'training'), 'usage: memone.lua model batch mode type')
torch.setnumthreads(2)
torch.manualSeed(0)
local opts = {batch = batch, type = ty}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)

local gradOf = require('bench.measure').gradOf

if mode == 'inference' then net:evaluate() else net:training() end
local t0 = torch._C.clock()
local out = net:forward(input)
if mode == 'training' then net:backward(input, gradOf(out)) end
local before = optnet.countUsedMemory(net)
local t1 = torch._C.clock()
optnet.optimizeMemory(net, input, {mode = mode})
local t2 = torch._C.clock()
out = net:forward(input)
if mode == 'training' then net:backward(input, gradOf(out)) end
local after = optnet.countUsedMemory(net, input, {mode = mode})
local parts = {string.format('model=%s batch=%d mode=%s type=%s optimize_s=%.2f', name, batch, mode, ty, t2 - t1)}
for _, k in ipairs{'outputs', 'gradInputs', 'buffers', 'params', 'state', 'total_size'} do
  parts[#parts + 1] = string.format('before_%s=%d after_%s=%d', k, before[k], k, after[k])
end
parts[#parts + 1] = string.format('lower_bound=%d lower_bound_activations=%d', after.lower_bound, after.lower_bound_activations)
local st = optnet._state(net)
local arena = 0
for _, v in pairs(st.result.arena) do arena = arena + v end
local lb = 0
for _, v in pairs(st.result.lowerBound) do lb = lb + v end
-- plans are deterministic: planning the same intervals again gives the same offsets
local offsets = {}
for i, e in ipairs(st.plan.entries) do offsets[i] = e.offset end
require('optnet.plan').solve(st.plan, st.opts)
local same = 1
for i, e in ipairs(st.plan.entries) do if e.offset ~= offsets[i] then same = 0 end end
parts[#parts + 1] = string.format('arena=%d bound=%d plan_ms=%.1f tensors=%d deterministic=%d', arena, lb,
  st.result.planSeconds * 1000, #st.plan.entries, same)
-- the kernels' shared workspace (src/tensor/th_scratch.c), outside the arena
local scratch = torch.memoryStats().categories.scratch
parts[#parts + 1] = string.format('scratch=%d', scratch and scratch.peak_bytes or 0)
print(table.concat(parts, ' '))
