-- make bench-step: the whole training step with Adam, planned by
-- optnet.trainStep, against the plain loop (optim.adam over getParameters
-- on the unoptimized net) and PyTorch 1.13 (bench/torch_step_peer.py).
-- Memory: each variant in a fresh process (bench/stepone.lua: countUsedMemory
-- and the RSS peak), BENCH_STEPS steps (default 3). Time: all variants in
-- one process, one step each per round in a rotating order for BENCH_ROUNDS
-- rounds (default 10) after two warm-up rounds (bench/stepab.lua); the ratio
-- of each step to the plain step of its round, median and quartiles, wall
-- and CPU. The row's setting (the last field of ROWS) is the one the docs
-- give for it: 'cheap' or an arena budget in MiB.
-- Writes the section "Whole training step" of docs/benchmarks.md.
local measure = require 'bench.measure'
-- the load guard: docs/benchmarks.md is written only on a quiet machine
local guard = require 'bench.loadguard'
local meter = guard.start()

local ROUNDS = tonumber(os.getenv('BENCH_ROUNDS') or 10)
local STEPS = tonumber(os.getenv('BENCH_STEPS') or 3)
local ONLY = os.getenv('BENCH_ONLY')
-- {model, batch, setting}: the setting that brings the step to 0.6 x PyTorch's
local ROWS = {{'resnet-50', 16, 980}, {'vgg-A', 8, 320}, {'googlenet', 32, 1150}, {'resnet-110', 64, 350}}

local lua = arg[-1] or 'lua5.4'
local function run(cmd, pattern)
  local f = assert(io.popen(cmd))
  local out = f:read('a')
  local ok = f:close()
  local lines = {}
  for l in out:gmatch('[^\n]+') do
    if l:match(pattern) then lines[#lines + 1] = measure.fields(l) end
  end
  if not ok or #lines == 0 then error('bench/step.lua: failed: ' .. cmd .. '\n' .. out, 0) end
  return lines[1], lines
end

local function loadavg()
  local f = io.open('/proc/loadavg')
  local s = f and f:read('l') or '?'
  if f then f:close() end
  return s:match('^(%S+)') or '?'
end

local MiB = 2 ^ 20
local lines, loads = {}, {loadavg()}
for _, row in ipairs(ROWS) do
  local name, batch, setting = row[1], row[2], row[3]
  if not ONLY or ONLY == name then
    local variant = setting == 'cheap' and 'cheap' or 'budget:' .. setting
    io.stderr:write(string.format('bench-step: %s b%d memory\n', name, batch))
    local mem = {}
    for _, v in ipairs{'plain', 'step', variant} do
      mem[v] = run(string.format('%s bench/stepone.lua %s %d %s %d', lua, name, batch, v, STEPS), 'model=')
    end
    io.stderr:write(string.format('bench-step: %s b%d time (%d rounds)\n', name, batch, ROUNDS))
    local head, all = run(string.format('%s bench/stepab.lua %s %d %d step %s', lua, name, batch, ROUNDS, variant),
      '^%a+=')
    -- (fields stop at the ':' of budget:<MiB>: the variants by their order)
    local t = {}
    for _, l in ipairs(all) do if l.variant then t[#t + 1] = l end end
    t.step, t[variant] = t[1], t[2]
    local peer = run(string.format('/usr/bin/python3 bench/torch_step_peer.py %s %d %d', name, batch, STEPS),
      'baseline_mb=')
    loads[#loads + 1] = loadavg()
    local pt = (peer.peak_mb - peer.baseline_mb) * MiB
    local plain, step, best = mem.plain, mem.step, mem[variant]
    local function rss(m) return (m.peak_mb - m.baseline_mb) end
    local function ratio(x) return string.format('%.2f (%.2f-%.2f)', x.ratio, x.q25, x.q75) end
    local function cpu(x) return string.format('%.2f (%.2f-%.2f)', x.cpu_ratio, x.cpu_q25, x.cpu_q75) end
    local l = string.format('| %s | %d | %.0f + %.0f + %.0f + %.0f = %.0f | %.0f + %.0f + %.0f + %.0f = %.0f | %.0f | '
      .. '%.0f (%.2f) | %.2f | %.0f | %s | %s | %s: %.0f (%.2f) | %.0f | %s | %s |',
      name, batch,
      plain.params / MiB, plain.grads / MiB, plain.optim / MiB, plain.acts / MiB, plain.total / MiB,
      -- the arena holds gradients and activations: each byte once
      step.params / MiB, step.grads / MiB, step.optim / MiB, (step.acts - step.grads) / MiB, step.total / MiB,
      pt / MiB, rss(step), rss(step) * MiB / pt, step.total / pt, head.plain_ms, ratio(t.step), cpu(t.step),
      setting == 'cheap' and 'cheap' or 'budget ' .. setting .. ' MiB', best.total / MiB, best.total / pt, rss(best),
      ratio(t[variant]), cpu(t[variant]))
    lines[#lines + 1] = l
    print(l)
    io.stdout:flush()
  end
end

if not ONLY then
  local text = {'## Whole training step\n',
    '`make bench-step` (bench/step.lua), ' .. os.date('!%Y-%m-%d %H:%M UTC') .. ', load average ' .. table.concat(loads, ', ')
      .. ' (before, after each row: the machine is shared). One training step with Adam (float, 2 threads). Memory in MiB as',
    '`countUsedMemory` counts it after the steps: params + grads + Adam state + activations (outputs,',
    'gradInputs and buffers; after: the arena less the gradients\' slots, so the gradients, which share',
    'the arena, are counted once). Before: the plain loop, `optim.adam` over `getParameters()` of the',
    'unoptimized net (Adam\'s state is m, v and denom). After: `optnet.trainStep` (grads: the arena',
    'bytes their slots cover; state: m and v, denom takes the gradient\'s memory). PyTorch:',
    '1.13, peak RSS minus the RSS before the net is built (`bench/torch_step_peer.py`: forward, loss,',
    'backward, `Adam.step()`, `zero_grad`); ours RSS: the same for the trainStep process, its peak taken',
    'over the steps (reset after optimizing, whose small traces run the unoptimized net: `make bench-memory`',
    'measures that peak). Every trainStep here has `blockBytes = 4 MiB` (a Linear\'s weight gradient above',
    '4 MiB made and applied in row blocks: VGG-A\'s fully connected layers). *setting*: the `recompute` that',
    'brings the row to 0.6 x PyTorch, `\'cheap\'` (batch norm, ReLU and max pooling re-made in backward) or an',
    'arena budget in MiB (the least re-run work that fits it). Time: the plain loop, trainStep and trainStep with',
    'the setting run in one process, one step each per round in a rotating order, ' .. ROUNDS .. ' rounds after two',
    'warm-up rounds (`bench/stepab.lua`); a ratio is a step\'s time over the plain step of the same round: the',
    'median and, in brackets, the quartiles over the rounds, of the wall time and of the process\'s CPU time',
    '(less sensitive to the other jobs).\n',
    '| network | batch | before: params + grads + state + acts | after: params + grads + state + acts | PyTorch peak - baseline | ours RSS peak - baseline (/ PyTorch) | after / PyTorch | plain step (ms) | time ratio | CPU ratio | setting: total (/ PyTorch) | setting: RSS peak | setting: time ratio | setting: CPU ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'}
  for _, l in ipairs(lines) do text[#text + 1] = l end
  guard.write('docs/benchmarks.md', 'Whole training step', table.concat(text, '\n') .. '\n\n', meter:other())
end
