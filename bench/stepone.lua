-- One whole training step with Adam, in a fresh process:
--   lua5.4 bench/stepone.lua <model> <batch> <plain|step|cheap> [steps]
-- plain: the plain loop, optim.adam over net:getParameters() on the
--   unoptimized net (forward, ClassNLLCriterion, backward, update);
-- step: optnet.trainStep with optim.adam (gradients in the activation arena,
--   each parameter updated as its gradient completes);
-- cheap: the same with recompute = 'cheap' (ReLU/BatchNorm outputs
--   re-computed in backward).
-- Prints one line of key=value: the bytes countUsedMemory sees after the
-- steps (params = weights alone, grads, optim = Adam's state, acts =
-- outputs + gradInputs + buffers, total = all once), the process's RSS
-- before the net is built and its peak during the steps (MiB; the peak is
-- reset once the net is optimized), the median
-- step time (wall and CPU ms, the first step left out: it allocates) and optimize_s.
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'

local name, batch, variant = arg[1], tonumber(arg[2]), arg[3]
local steps = tonumber(arg[4] or 4)
local cfg = CONFIGS[name]
-- budget:<MiB>: the same with recompute = that byte budget for the arena
local budget = variant and tonumber(variant:match('^budget:(%d+)$'))
assert(cfg and batch and (variant == 'plain' or variant == 'step' or variant == 'cheap' or budget) and steps >= 2,
  'usage: stepone.lua model batch plain|step|cheap|budget:<MiB> [steps >= 2]')

local function vm(field)
  local f = assert(io.open('/proc/self/status'))
  local s = f:read('a')
  f:close()
  return tonumber(s:match(field .. ':%s*(%d+)')) / 1024
end

torch.setnumthreads(2)
torch.manualSeed(0)
torch.setdefaulttensortype('torch.FloatTensor')
local baseline = vm('VmRSS')
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
net:training()
local classes = name == 'resnet-110' and 10 or 1000
local target = torch.LongTensor(batch):random(1, classes)
local crit, y
if name == 'googlenet' then
  -- {aux1, aux2, main}: main + 0.3 x each auxiliary classifier
  crit = nn.ParallelCriterion():add(nn.ClassNLLCriterion(), 0.3):add(nn.ClassNLLCriterion(), 0.3)
    :add(nn.ClassNLLCriterion())
  y = {target, target, target}
else
  crit, y = nn.ClassNLLCriterion(), target
end
crit:float()
local config = {learningRate = 1e-3}

local stepFn, t0 = nil, torch._C.clock()
local adamState = {}
if variant == 'plain' then
  local p, g = net:getParameters()
  stepFn = function()
    optim.adam(function()
      g:zero()
      local o = net:forward(input)
      local l = crit:forward(o, y)
      net:backward(input, crit:backward(o, y))
      return l, g
    end, p, config, adamState)
  end
else
  -- Linears whose gradient exceeds 4 MiB made and applied in row blocks
  local recompute = budget and budget * 1048576 or variant == 'cheap' and 'cheap' or 'none'
  local s = optnet.trainStep(net, crit, input, {method = optim.adam, config = config, blockBytes = 4 * 1048576,
                                                recompute = recompute})
  stepFn = function() s:step(input, y) end
end
local optimizeS = torch._C.clock() - t0
-- the peak of optimizing (its small traces run the unoptimized net) is not
-- the step's: the kernel's high-water mark starts again here
collectgarbage()
do
  local f = assert(io.open('/proc/self/clear_refs', 'w'))
  f:write('5')
  f:close()
end

-- wall time, and the process's CPU time (all threads: less sensitive to
-- other jobs on a shared machine than the wall clock)
local times, cpus = {}, {}
for i = 1, steps do
  local a, c0 = torch._C.clock(), os.clock()
  stepFn()
  times[i], cpus[i] = (torch._C.clock() - a) * 1000, (os.clock() - c0) * 1000
end
local function median(l)
  table.remove(l, 1)
  table.sort(l)
  return #l % 2 == 1 and l[(#l + 1) // 2] or (l[#l // 2] + l[#l // 2 + 1]) / 2
end
local medianWall, medianCpu = median(times), median(cpus)

local c = optnet.countUsedMemory(net)
local grads = c.grads
local optimBytes = c.optimState
if variant == 'plain' then
  for _, k in ipairs{'m', 'v', 'denom'} do optimBytes = optimBytes + adamState[k]:nElement() * 4 end
end
local weights = c.params - grads
local acts = c.total_size - c.optimState - c.params - c.state
if variant ~= 'plain' then
  -- the arena holds the gradients with the activations: acts is the arena less the gradients' slots
  acts = c.total_size - c.optimState - weights - c.state
end
print(string.format('model=%s batch=%d variant=%s params=%d grads=%d optim=%d state=%d acts=%d total=%d '
  .. 'baseline_mb=%.1f peak_mb=%.1f step_ms=%.1f cpu_ms=%.1f optimize_s=%.2f', name, batch, variant, weights, grads,
  optimBytes, c.state, acts, c.total_size - c.optimState + optimBytes, baseline, vm('VmHWM'), medianWall, medianCpu,
  optimizeS))
