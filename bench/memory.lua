-- make bench-memory: what optnet saves, per category, in OptNet's README
-- table format, for (a) inference batch 1 double, (b) inference batch 128
-- float, (c) training batch 64 float; the planner's arena against the lower
-- bound for each; the process peak of optimizing; and recompute's trade of
-- step time for activation memory. One process per measurement.
-- Writes docs/benchmarks.md, sections "Memory", "Memory planner", "Memory
-- peak of optimizing", "Memory recompute", "Memory reorder" (bench/reorder.lua),
-- "Memory plain vs PyTorch" (plain training, no optnet: peak RSS of a fresh
-- process, ours and PyTorch's, the bench-speed models and batches).
-- MEMORY_SECTIONS=tables,peak,recompute,reorder,plain (default all) picks what runs ("tables" gives the first two); MODELS=a,b
-- limits the nets of tables and recompute.
local MODELS = {'alexnet', 'vgg-A', 'googlenet', 'resnet-110', 'densenet', 'resnet-50'}
local SETTINGS = {
  {'(a) inference, batch 1, double', 1, 'inference', 'double'},
  {'(b) inference, batch 128, float', 128, 'inference', 'float'},
  {'(c) training, batch 64, float', 64, 'training', 'float'},
}
local here = arg[0]:match('^(.*)/bench/memory%.lua$') or '.'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile(here .. '/bench/loadguard.lua').start()
local only = os.getenv('MODELS')
if only then
  MODELS = {}
  for m in only:gmatch('[^,]+') do MODELS[#MODELS + 1] = m end
end

local function sh(cmd)
  local f = io.popen(cmd)
  local out = f:read('a')
  f:close()
  return out
end
local function MB(b) return b and string.format('%.1f', b / 2^20) or '-' end
local function pct(a, b)
  if not a or not b or a == 0 then return '-' end
  return string.format('%+.0f%%', 100 * (b - a) / a)
end

local want = {}
for w in (os.getenv('MEMORY_SECTIONS') or 'tables,peak,recompute,reorder,plain'):gmatch('[^,]+') do want[w] = true end
local commit = sh('git -C ' .. here .. ' rev-parse --short HEAD 2>/dev/null'):gsub('%s+$', '')
local stamp = string.format('%s, commit %s', os.date('!%Y-%m-%d'), commit)
local function md(title, text) dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', title, text, meter:other()) end
local fields = require('bench.measure').fields
local function run(script, args)
  local out = sh(string.format('%s/bin/th %s/bench/%s %s 2>&1', here, here, script, args))
  return fields(out), out
end

local sections = {}
local planner = {'| setting | network | tensors | arena (MB) | lower bound (MB) | arena / bound | plan (ms) | deterministic |',
                 '|---|---|---|---|---|---|---|---|'}
local total, n = #MODELS * #SETTINGS, 0
require 'xlua'
if want.tables then xlua.progress(0, total) end
for _, s in ipairs(want.tables and SETTINGS or {}) do
  local lines = {'### ' .. s[1], '',
    '| network | category | before (MB) | after (MB) | lower bound (MB) | relative save |',
    '|---|---|---|---|---|---|'}
  for _, m in ipairs(MODELS) do
    n = n + 1
    local v, out = run('memone.lua', string.format('%s %d %s %s', m, s[2], s[3], s[4]))
    xlua.progress(n, total)   -- drawn on a terminal only
    if not v.after_total_size then
      io.stderr:write('\n' .. m .. ' failed:\n' .. out .. '\n')
      lines[#lines + 1] = string.format('| %s | (failed) | | | | |', m)
    else
      local acts = {'outputs', 'gradInputs', 'buffers'}
      for _, k in ipairs(acts) do
        lines[#lines + 1] = string.format('| %s | %s | %s | %s | | %s |', m, k, MB(v['before_' .. k]),
          MB(v['after_' .. k]), pct(v['before_' .. k], v['after_' .. k]))
      end
      local ab = v.before_total_size - v.before_params - v.before_state
      local aa = v.after_total_size - v.after_params - v.after_state
      lines[#lines + 1] = string.format('| %s | activations+buffers | %s | %s | %s | %s (%.3f x bound) |', m, MB(ab), MB(aa),
        MB(v.lower_bound_activations), pct(ab, aa), aa / math.max(1, v.lower_bound_activations))
      lines[#lines + 1] = string.format('| %s | total | %s | %s | %s | %s |', m, MB(v.before_total_size),
        MB(v.after_total_size), MB(v.lower_bound), pct(v.before_total_size, v.after_total_size))
      planner[#planner + 1] = string.format('| %s | %s | %d | %s | %s | %.4f | %.1f | %s |', s[1], m, v.tensors,
        MB(v.arena), MB(v.bound), v.arena / math.max(1, v.bound), v.plan_ms, v.deterministic == 1 and 'yes' or 'NO')
    end
  end
  sections[#sections + 1] = table.concat(lines, '\n')
end
if want.tables then
  local body = table.concat(sections, '\n\n')
  print(body)
  md('Memory', string.format('## Memory\n\n%s. before = the unoptimized net after one pass '
    .. '(countUsedMemory), after = optimized, lower bound = most activation bytes alive at one step '
    .. '(plus parameters and state for the total). MB = MiB.\n\n%s\n', stamp, body))
  local ptext = table.concat(planner, '\n')
  print(ptext)
  md('Memory planner', string.format('## Memory planner\n\n%s. The activation arena the planner places '
    .. '(all pools) against its lower bound (the most bytes alive at one step), default options '
    .. '(planner best, budgetMs 50); deterministic = planning the same intervals again gives the same '
    .. 'offsets.\n\n%s\n', stamp, ptext))
end

-- the process peak of optimizing: VmHWM of optimize + one step against one
-- step of the optimized net (bench/peakone.lua), fresh processes
if want.peak then
  local rows = {'| network | mode | batch | after building | optimize + step (small trace) | '
    .. 'optimize + step (full-size trace) | one step, optimized | one step, unoptimized | '
    .. 'small-trace peak / max(built, optimized step) |', '|---|---|---|---|---|---|---|---|---|'}
  for _, c in ipairs{{'resnet-110', 64, 'training'}, {'resnet-110', 64, 'training', 'sqrt'},
                     {'alexnet', 32, 'inference'}, {'googlenet', 32, 'training'}} do
    local r = {}
    for _, variant in ipairs{'small', 'full', 'plain'} do
      io.stderr:write(string.format('peak: %s %s %s ...\n', c[1], c[3], variant))
      local v, out = run('peakone.lua', string.format('%s %d %s float %s %s', c[1], c[2], c[3], variant, c[4] or ''))
      if not v.total_kb then io.stderr:write(out .. '\n') end
      r[variant] = v
    end
    local function kMB(x) return x and string.format('%.0f', x / 1024) or '-' end
    local sm = r.small
    local ratio = sm.total_kb and string.format('%.3f', sm.total_kb / math.max(sm.built_kb, sm.step_kb)) or '-'
    rows[#rows + 1] = string.format('| %s | %s | %d | %s | %s | %s | %s | %s | %s |', c[1],
      c[4] and (c[3] .. ', recompute ' .. c[4]) or c[3], c[2],
      kMB(sm.built_kb), kMB(sm.total_kb), kMB(r.full.total_kb), kMB(sm.step_kb), kMB(r.plain.step_kb), ratio)
  end
  local text = table.concat(rows, '\n')
  print(text)
  md('Memory peak of optimizing', string.format('## Memory peak of optimizing\n\n%s. Resident memory '
    .. '(MiB, VmHWM of a fresh process, float, 2 threads). after building = resident once net and input '
    .. 'exist (the peak is reset there: building has its own); optimize + step = peak of '
    .. 'optnet.optimizeMemory(net, input) and one step, tracing at small batches (default) or at the full '
    .. 'batch (smallTrace = false, what OptNet does); one step = peak of one more step alone (the peak '
    .. 'reset before it). In inference, gradWeight/gradBias are dropped, so the optimized step can be '
    .. 'below what the net held when built.\n\n%s\n', stamp, text))
end

-- recompute: activation arena and step time for none / cheap / sqrt / a
-- third, all settings of a net in one process, their steps interleaved
if want.recompute then
  local BATCH = {['resnet-110'] = 64, densenet = 64, alexnet = 16, ['vgg-A'] = 16, googlenet = 16, ['resnet-50'] = 16}
  local rows = {'| network | batch | recompute | activations (MB) | vs none | step (s) | vs none | re-run work | optimize (s) |',
                '|---|---|---|---|---|---|---|---|---|'}
  for _, m in ipairs(MODELS) do
    io.stderr:write(string.format('recompute: %s ...\n', m))
    local out = sh(string.format('%s/bin/th %s/bench/recomputeone.lua %s %d 5 2>&1', here, here, m, BATCH[m] or 16))
    local base
    for line in out:gmatch('[^\n]+') do
      local v = fields(line)
      if v.arena then
        base = base or (v.recompute == 'none' and v)
        local label = v.recompute
        if v.budget and v.budget > 0 then label = string.format('budget %.2f (%s)', v.budget, v.chosen) end
        rows[#rows + 1] = string.format('| %s | %d | %s | %s | %s | %.2f | %s | %s | %.1f |', m, v.batch, label,
          MB(v.arena), base and string.format('%.2f', v.arena / base.arena) or '-', v.step_s,
          base and string.format('%.2fx', v.step_s / base.step_s) or '-',
          v.chosen == 'budget' and string.format('%.0f%%', 100 * v.work) or '-', v.optimize_s)
      end
    end
    if not base then
      io.stderr:write(out .. '\n')
      rows[#rows + 1] = string.format('| %s | %d | (failed) | | | | | | |', m, BATCH[m] or 16)
    end
  end
  local text = table.concat(rows, '\n')
  print(text)
  md('Memory recompute', string.format('## Memory recompute\n\n%s. Training, float, 2 threads, '
    .. 'optimizeMemory with opts.recompute; activations = the planned arena (outputs, gradInputs, buffers '
    .. 'and the re-computed copies; parameters not included); step = forward + backward, fastest of 5; '
    .. 'the settings of a net run in one process, one step each in turn, so load on the shared machine '
    .. 'hits them alike. none = the optimized net without recompute. budget f = recompute = f x the '
    .. 'none arena in bytes (a half and a third, raised by tenths until a plan fits), with the segmentation chosen; '
    .. 're-run work = the share of the forward\'s multiply-adds the budget plan re-runs.\n\n%s\n', stamp, text))
end

-- plain training against PyTorch: each side in a fresh process (bench/one.lua
-- --serve, bench/torch_peer.py: the same nets, float32, 2 threads) runs
-- STEPS training steps and reports VmHWM and its RSS before the net was built
if want.plain then
  local STEPS = 3
  local ROWS = {{'mlp', 64}, {'alexnet', 16}, {'vgg-A', 8}, {'resnet-18', 16}, {'resnet-50', 16},
                {'googlenet', 16}, {'resnet-56', 64}, {'resnet-110', 64}, {'densenet', 64}}
  -- ready line (baseline) and done line (the peak after every step) of one side
  local function side(cmd)
    local out = sh(string.format('echo quit | %s 2>&1', cmd))
    local ready = fields(out:match('ready[^\n]*') or '')
    local done = fields(out:match('done[^\n]*') or '')
    if not done.peak_mb then io.stderr:write(out .. '\n') end
    return ready.start_mb, done.peak_mb
  end
  local rows = {'| model | batch | ours peak (MiB) | PyTorch peak (MiB) | peak ratio | ours above baseline (MiB) '
    .. '| PyTorch above baseline (MiB) | above-baseline ratio |', '|---|---:|---:|---:|---:|---:|---:|---:|'}
  for _, r in ipairs(ROWS) do
    io.stderr:write(string.format('plain: %s b%d ...\n', r[1], r[2]))
    local ob, op = side(string.format('%s/bin/th %s/bench/one.lua %s %d train %d --serve', here, here, r[1], r[2], STEPS))
    local tb, tp = side(string.format('OMP_WAIT_POLICY=passive /usr/bin/python3 %s/bench/torch_peer.py %s %d train %d',
                                      here, r[1], r[2], STEPS))
    local function f(x) return x and string.format('%.0f', x) or '-' end
    local function ratio(a, b) return a and b and b > 0 and string.format('%.2f', a / b) or '-' end
    local oa, ta = op and ob and op - ob, tp and tb and tp - tb
    rows[#rows + 1] = string.format('| %s | %d | %s | %s | %s | %s | %s | %s |', r[1], r[2], f(op), f(tp),
      ratio(op, tp), f(oa), f(ta), ratio(oa, ta))
  end
  local text = table.concat(rows, '\n')
  print(text)
  md('Memory plain vs PyTorch', string.format('## Memory plain vs PyTorch\n\n%s. Plain training (no optnet): '
    .. 'a fresh process per side builds the net of bench/speed.lua in float32 on 2 threads (ours bench/one.lua, '
    .. 'PyTorch bench/torch_peer.py) and runs %d training steps (forward, NLL criterion, backward, gradients '
    .. 'zeroed between steps; no gradient for the input image). peak = VmHWM after the steps; above baseline = '
    .. 'that minus the RSS before the net was built (the runtime: Lua ~20 MiB, Python + libtorch ~200 MiB); '
    .. 'ratio = ours / PyTorch (below 1: we hold less).\n\n%s\n', stamp, STEPS, text))
end

if want.reorder then
  io.stderr:write('reorder ...\n')
  io.write(sh(string.format('%s/bin/th %s/bench/reorder.lua', here, here)))
end
