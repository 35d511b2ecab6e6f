-- Branch reordering (opts.reorder): the arena of googlenet and densenet with
-- the Concat branches in module order and with the best order found, per
-- strategy tried. Writes docs/benchmarks.md section "Memory reorder".
--   bin/th bench/reorder.lua
require 'torch'
require 'nn'
local optnet = require 'optnet'
local CONFIGS = require 'bench.memconfigs'
local here = arg[0]:match('^(.*)/bench/reorder%.lua$') or '.'

torch.setnumthreads(2)
local rows = {'| network | mode | batch | module order (MB) | reverse | largest first | smallest first | kept |',
              '|---|---|---|---|---|---|---|---|'}
for _, c in ipairs{{'googlenet', 'inference', 8}, {'googlenet', 'training', 8},
                   {'densenet', 'inference', 64}, {'densenet', 'training', 64}} do
  io.stderr:write(string.format('reorder: %s %s ...\n', c[1], c[2]))
  local cfg = CONFIGS[c[1]]
  local opts = {batch = c[3], type = 'float'}
  for k, v in pairs(cfg[2]) do opts[k] = v end
  torch.manualSeed(0)
  local net, input = require('models.' .. cfg[1])(opts)
  if c[2] == 'training' then net:training() else net:evaluate() end
  optnet.optimizeMemory(net, input, {mode = c[2], reorder = true})
  local r = optnet._state(net).result
  local function MB(s) return r.reorderTried[s] and string.format('%.2f', r.reorderTried[s] / 2^20) or '-' end
  rows[#rows + 1] = string.format('| %s | %s | %d | %s | %s | %s | %s | %s |', c[1], c[2], c[3], MB('module'),
    MB('reverse'), MB('largest'), MB('smallest'), r.reorder)
  optnet.removeOptimization(net)
  net = nil
  collectgarbage()
end
local text = table.concat(rows, '\n')
print(text)
local commit = io.popen('git -C ' .. here .. ' rev-parse --short HEAD 2>/dev/null'):read('a'):gsub('%s+$', '')
require('bench.mdsection').write(here .. '/docs/benchmarks.md', 'Memory reorder', string.format(
  '## Memory reorder\n\n%s, commit %s. Activation arena (MiB, float) for each branch order of the Concats '
  .. '(opts.reorder = true tries them all and keeps the smallest; ties keep module order).\n\n%s\n',
  os.date('!%Y-%m-%d'), commit, text))
