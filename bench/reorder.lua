-- Branch reordering (opts.reorder): the activation arena of the zoo nets with
-- branching containers (Concat in googlenet and densenet, ConcatTable in the
-- resnets) with the branches in module order and under each strategy tried,
-- the per-container greedy pass on top of the best, the plans it took and the
-- time of the whole reorder search. Writes docs/benchmarks.md section
-- "Memory reorder".
--   bin/th bench/reorder.lua [net,...]   (default: all below; a list prints only)
require 'torch'
require 'nn'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'
local here = arg[0]:match('^(.*)/bench/reorder%.lua$') or '.'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile(here .. '/bench/loadguard.lua').start()
local reorder = require 'optnet.reorder'
-- the per-container pass is measured with this many plans whatever the default
local DEFAULT_GREEDY = reorder.GREEDY_PLANS
reorder.GREEDY_PLANS = 8

torch.setnumthreads(2)
local CASES = {{'googlenet', 8}, {'densenet', 64}, {'resnet-110', 64}, {'resnet-50', 4}}
local only = arg[1] and {}
for n in (arg[1] or ''):gmatch('[^,]+') do only[n] = true end
local rows = {'| network | mode | batch | containers | module order (MB) | reverse | largest first | smallest first '
              .. '| + greedy | kept | plans | search (s) |',
              '|---|---|---|---|---|---|---|---|---|---|---|---|'}
for _, c in ipairs(CASES) do
  for _, mode in ipairs{'inference', 'training'} do
    if not only or only[c[1]] then
      io.stderr:write(string.format('reorder: %s %s ...\n', c[1], mode))
      local cfg = CONFIGS[c[1]]
      local opts = {batch = c[2], type = 'float'}
      for k, v in pairs(cfg[2]) do opts[k] = v end
      torch.manualSeed(0)
      local net, input = require('models.' .. cfg[1])(opts)
      if mode == 'training' then net:training() else net:evaluate() end
      optnet.optimizeMemory(net, input, {mode = mode, reorder = true})
      local r = optnet._state(net).result
      local function MB(s) return r.reorderTried[s] and string.format('%.2f', r.reorderTried[s] / 2^20) or '-' end
      rows[#rows + 1] = string.format('| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %d | %.1f |', c[1], mode,
        c[2], r.reorderContainers, MB('module'), MB('reverse'), MB('largest'), MB('smallest'), MB('greedy'),
        r.reorder == 'greedy' and string.format('greedy (%d flipped)', r.reorderFlips) or r.reorder,
        r.reorderPlans, r.reorderSeconds)
      io.stderr:write(rows[#rows] .. '\n')
      optnet.removeOptimization(net)
      net = nil
      collectgarbage()
    end
  end
end
local text = table.concat(rows, '\n')
print(text)
if only then return end
local commit = io.popen('git -C ' .. here .. ' rev-parse --short HEAD 2>/dev/null'):read('a'):gsub('%s+$', '')
dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'Memory reorder', string.format(
  '## Memory reorder\n\n%s, commit %s. Activation arena (MiB, float) for each branch order of the branching '
  .. 'containers (Concat, ConcatTable; "containers": how many may be reordered). opts.reorder = true plans '
  .. 'the four orders for all containers at once, then flips single containers (module order vs largest '
  .. 'first, at most %d plans here; the default is %d) on top of the best, keeping a change only if the arena '
  .. 'drops; ties keep module order. "+ greedy": the arena after the flips; "plans": traces and plans beyond '
  .. 'the first; "search": wall time of the reorder search (2 threads, shared machine).\n\n%s\n',
  os.date('!%Y-%m-%d'), commit, reorder.GREEDY_PLANS, DEFAULT_GREEDY, text), meter:other())
