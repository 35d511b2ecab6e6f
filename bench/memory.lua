-- make bench-memory: what optnet saves, per category, in OptNet's README
-- table format, for (a) inference batch 1 double, (b) inference batch 128
-- float, (c) training batch 64 float. One process per measurement.
-- Writes docs/benchmarks.md (section "Memory").
local MODELS = {'alexnet', 'vgg-A', 'googlenet', 'resnet-110', 'densenet', 'resnet-50'}
local SETTINGS = {
  {'(a) inference, batch 1, double', 1, 'inference', 'double'},
  {'(b) inference, batch 128, float', 128, 'inference', 'float'},
  {'(c) training, batch 64, float', 64, 'training', 'float'},
}
local here = arg[0]:match('^(.*)/bench/memory%.lua$') or '.'
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

local sections = {}
local total, n = #MODELS * #SETTINGS, 0
for _, s in ipairs(SETTINGS) do
  local lines = {'### ' .. s[1], '',
    '| network | category | before (MB) | after (MB) | lower bound (MB) | relative save |',
    '|---|---|---|---|---|---|'}
  for _, m in ipairs(MODELS) do
    n = n + 1
    io.stderr:write(string.format('\r[%d/%d] %-10s %s ...            ', n, total, m, s[1]))
    local out = sh(string.format('%s/bin/th %s/bench/memone.lua %s %d %s %s 2>&1', here, here, m, s[2], s[3], s[4]))
    local v = {}
    for k, x in out:gmatch('([%w_]+)=([%w%.%-]+)') do v[k] = tonumber(x) or x end
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
    end
  end
  sections[#sections + 1] = table.concat(lines, '\n')
end
io.stderr:write('\n')
local body = table.concat(sections, '\n\n')
print(body)
local commit = sh('git -C ' .. here .. ' rev-parse --short HEAD 2>/dev/null'):gsub('%s+$', '')
local text = string.format('## Memory\n\n%s, commit %s. before = the unoptimized net after one pass '
  .. '(countUsedMemory), after = optimized, lower bound = most activation bytes alive at one step '
  .. '(plus parameters and state for the total). MB = MiB.\n\n%s\n', os.date('!%Y-%m-%d'), commit, body)
require('bench.mdsection').write(here .. '/docs/benchmarks.md', 'Memory', text)
