-- What the planned training step holds at its peak, by category:
--   lua5.4 bench/stepparts.lua <model> <batch> [none|cheap|<MiB>]
-- optnet.trainStep with Adam (float, blockBytes = 4 MiB, recompute as
-- given: a number is a byte budget in MiB) on a zoo net (bench/memconfigs),
-- one step, then the plan's entries alive at its peak step summed by role:
-- activations (outputs and gradInputs), gradients, scratch (declared
-- buffers: pooling indices, finput/fgradInput, batch norm's saved
-- statistics, LRN's scale, recompute's re-made copies), the ten largest
-- by module and field. Prints one markdown row (MiB) and the details.
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'
local walk = require 'optnet.walk'
local CONFIGS = require 'bench.memconfigs'

local name, batch, how = arg[1], tonumber(arg[2]), arg[3] or 'none'
local cfg = CONFIGS[name]
assert(cfg and batch, 'usage: stepparts.lua model batch [none|cheap|<MiB>]')
local recompute = tonumber(how) and math.tointeger(tonumber(how)) * 1048576 or how
torch.setnumthreads(2)
torch.manualSeed(0)
torch.setdefaulttensortype('torch.FloatTensor')
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
net:training()
local target = torch.LongTensor(batch):random(1, name == 'resnet-110' and 10 or 1000)
local crit, y
if name == 'googlenet' then
  crit = nn.ParallelCriterion():add(nn.ClassNLLCriterion(), 0.3):add(nn.ClassNLLCriterion(), 0.3)
    :add(nn.ClassNLLCriterion())
  y = {target, target, target}
else
  crit, y = nn.ClassNLLCriterion(), target
end
crit:float()
local s = optnet.trainStep(net, crit, input, {method = optim.adam, config = {learningRate = 1e-3},
                                              recompute = recompute, blockBytes = 4 * 1048576})
s:step(input, y)
local MiB = 2 ^ 20
local c = optnet.countUsedMemory(net)
local st = optnet._state(net)
local entries = st.plan.entries
-- names: the module type and field of the first tensor bound to each entry
local fieldOf = {}
for _, m in ipairs(walk.modules(net)) do
  walk.moduleTensors(m, function(t, _, field)
    fieldOf[t] = fieldOf[t] or (torch.type(m):gsub('^nn%.', '') .. '.' .. field)
  end)
end
local nameOf = {}
for _, b in ipairs(st.bindings) do
  if fieldOf[b.t] then nameOf[b.entry] = nameOf[b.entry] or fieldOf[b.t] end
end
local live = {}
for _, e in ipairs(entries) do
  for i = e.first, e.last do live[i] = (live[i] or 0) + e.bytes end
end
local peak, at = 0, 0
for i = 1, st.nSteps do
  if (live[i] or 0) > peak then peak, at = live[i], i end
end
local byRole, byName = {}, {}
for _, e in ipairs(entries) do
  if e.first <= at and at <= e.last then
    local r = (e.role == 'output' or e.role == 'gradInput') and 'acts' or e.role == 'gradParam' and 'grads'
      or 'scratch'
    byRole[r] = (byRole[r] or 0) + e.bytes
    local n = nameOf[e] or e.role
    byName[n] = (byName[n] or 0) + e.bytes
  end
end
local arena = 0
for _, v in pairs(st.result.arena) do arena = arena + v end
local weights = c.params - c.grads
print(string.format('| %s | %d | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |', name, batch, tostring(how),
  weights / MiB, c.optimState / MiB, (byRole.acts or 0) / MiB, (byRole.grads or 0) / MiB,
  (byRole.scratch or 0) / MiB, arena / MiB, c.total_size / MiB))
print(string.format('peak at step %d of %d (forward: 1..%d, %s); recompute %s, re-run work %s', at, st.nSteps,
  st.nForward, at <= st.nForward and 'in forward' or 'in backward', tostring(st.result.recompute),
  st.result.recomputeWork and string.format('%.3f', st.result.recomputeWork) or '-'))
local list = {}
for k, v in pairs(byName) do list[#list + 1] = {k, v} end
table.sort(list, function(a, b) return a[2] > b[2] end)
for i = 1, math.min(10, #list) do print(string.format('  %-44s %8.1f MiB', list[i][1], list[i][2] / MiB)) end
