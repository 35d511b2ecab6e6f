-- make bench-step: the whole training step with Adam, planned by
-- optnet.trainStep, against the plain loop (optim.adam over getParameters
-- on the unoptimized net) and PyTorch 1.13 (bench/torch_step_peer.py).
-- Each variant runs in fresh processes (bench/stepone.lua), plain and step
-- alternating for BENCH_ROUNDS rounds (default 2) of BENCH_STEPS steps
-- (default 3, the first not timed); times are medians over the rounds.
-- Writes the section "Whole training step" of docs/benchmarks.md.
local measure = require 'bench.measure'
local md = require 'bench.mdsection'

local ROUNDS = tonumber(os.getenv('BENCH_ROUNDS') or 2)
local STEPS = tonumber(os.getenv('BENCH_STEPS') or 3)
local ONLY = os.getenv('BENCH_ONLY')
-- the third field: the arena budget (MiB, recompute = bytes) of the row's
-- budget variant, set where 'cheap' leaves the step above 0.6 x PyTorch's
local ROWS = {{'resnet-50', 16, 980}, {'vgg-A', 8}, {'googlenet', 32}, {'resnet-110', 64, 350}}

local lua = arg[-1] or 'lua5.4'
local function run(cmd)
  local f = assert(io.popen(cmd))
  local out = f:read('a')
  local ok = f:close()
  local line = out:match('[^\n]*model=[^\n]*') or out:match('[^\n]*baseline_mb=[^\n]*')
  if not ok or not line then error('bench/step.lua: failed: ' .. cmd .. '\n' .. out, 0) end
  return measure.fields(line)
end

local function median(l)
  table.sort(l)
  local n = #l
  return n % 2 == 1 and l[(n + 1) // 2] or (l[n // 2] + l[n // 2 + 1]) / 2
end

local MiB = 2 ^ 20
local lines = {}
for _, row in ipairs(ROWS) do
  local name, batch = row[1], row[2]
  if not ONLY or ONLY == name then
    local budget = row[3]
    local plain, step, cheap, bud, tp, ts, tc, tb, cp, cs, cc, cb = nil, nil, nil, nil, {}, {}, {}, {}, {}, {}, {}, {}
    for r = 1, ROUNDS do
      io.stderr:write(string.format('bench-step: %s b%d round %d/%d\n', name, batch, r, ROUNDS))
      plain = run(string.format('%s bench/stepone.lua %s %d plain %d', lua, name, batch, STEPS))
      step = run(string.format('%s bench/stepone.lua %s %d step %d', lua, name, batch, STEPS))
      cheap = run(string.format('%s bench/stepone.lua %s %d cheap %d', lua, name, batch, STEPS))
      tp[r], ts[r], tc[r] = plain.step_ms, step.step_ms, cheap.step_ms
      cp[r], cs[r], cc[r] = plain.cpu_ms, step.cpu_ms, cheap.cpu_ms
      if budget then
        bud = run(string.format('%s bench/stepone.lua %s %d budget:%d %d', lua, name, batch, budget, STEPS))
        tb[r], cb[r] = bud.step_ms, bud.cpu_ms
      end
    end
    local peer = run(string.format('/usr/bin/python3 bench/torch_step_peer.py %s %d %d', name, batch, STEPS))
    local pt = (peer.peak_mb - peer.baseline_mb) * MiB
    local oursRss = (step.peak_mb - step.baseline_mb) * MiB
    local mp, ms, mc = median(tp), median(ts), median(tc)
    local mcp = median(cp)
    local budgetCells = '- | - | -'
    if budget then
      budgetCells = string.format('%d: %.0f (%.2f) | %.2f | %.2f', budget, bud.total / MiB, bud.total / pt,
        median(tb) / mp, median(cb) / mcp)
    end
    local l = string.format('| %s | %d | %.0f + %.0f + %.0f + %.0f = %.0f | %.0f + %.0f + %.0f + %.0f = %.0f | %.2f | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.0f (%.2f) | %.2f | %.2f | %s |',
      name, batch,
      plain.params / MiB, plain.grads / MiB, plain.optim / MiB, plain.acts / MiB, plain.total / MiB,
      -- the arena holds gradients and activations: each byte once
      step.params / MiB, step.grads / MiB, step.optim / MiB, (step.acts - step.grads) / MiB, step.total / MiB,
      step.total / plain.total, pt / MiB, oursRss / MiB, step.total / pt, mp, ms, ms / mp, median(cs) / mcp,
      cheap.total / MiB, cheap.total / pt, mc / mp, median(cc) / mcp, budgetCells)
    lines[#lines + 1] = l
    print(l)
    io.stdout:flush()
  end
end

if not ONLY then
  local text = {'## Whole training step\n',
    '`make bench-step` (bench/step.lua): one training step with Adam (float, 2 threads). Memory in MiB as',
    '`countUsedMemory` counts it after the steps: params + grads + Adam state + activations (outputs,',
    'gradInputs and buffers; after: the arena less the gradients\' slots, so the gradients, which share',
    'the arena, are counted once). Before: the plain loop, `optim.adam` over `getParameters()` of the',
    'unoptimized net (Adam\'s state is m, v and denom). After: `optnet.trainStep` (grads: the arena',
    'bytes their slots cover; state: m and v, denom takes the gradient\'s memory). PyTorch:',
    '1.13, peak RSS minus the RSS before the net is built (`bench/torch_step_peer.py`: forward, loss,',
    'backward, `Adam.step()`, `zero_grad`); ours RSS: the same for the trainStep process, its peak taken',
    'over the steps (reset after optimizing, whose small traces run the unoptimized net: `make bench-memory`',
    'measures that peak). Time: median',
    'step (ms) over ' .. ROUNDS .. ' alternating runs of each of ' .. (STEPS - 1) .. ' timed steps, on a machine shared with',
    'other jobs (noisy); CPU ratio: the same with the processes\' CPU time, less sensitive to the other jobs.',
    'Every trainStep here has `blockBytes = 4 MiB` (a Linear\'s weight gradient above 4 MiB made and applied in',
    'row blocks: VGG-A\'s fully connected layers). *cheap*: `trainStep` with `recompute = \'cheap\'` (batch',
    'norm, ReLU and max pooling re-made in backward): total (MiB, and / PyTorch), its step time and CPU time /',
    'the plain loop\'s. *budget*: `recompute` = an arena budget in MiB (the least re-run work that fits it),',
    'on the rows where *cheap* stays above 0.6 x PyTorch.\n',
    '| network | batch | before: params + grads + state + acts | after: params + grads + state + acts | after / before | PyTorch peak - baseline | ours RSS peak - baseline | after / PyTorch | plain step (ms) | trainStep (ms) | time ratio | CPU ratio | cheap: total (/ PyTorch) | cheap: time ratio | cheap: CPU ratio | budget (MiB): total (/ PyTorch) | budget: time ratio | budget: CPU ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'}
  for _, l in ipairs(lines) do text[#text + 1] = l end
  md.write('docs/benchmarks.md', 'Whole training step', table.concat(text, '\n') .. '\n\n')
end
