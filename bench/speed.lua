-- make bench-speed: our forward / forward+backward times and peak memory
-- against PyTorch on the same architectures, interleaved in one run.
-- Each measurement runs in its own process (bench/one.lua, and the peer
-- ../shared/peers/pytorch_bench.py under Debian's python3) so peak RSS is
-- per model. Writes the table to docs/benchmarks.md (section "Speed").
local ROWS = {
  {'mlp', 64}, {'alexnet', 16}, {'vgg-A', 8}, {'resnet-18', 16}, {'resnet-56', 64},
}
local MODES = {'infer', 'train'}
local here = arg[0]:match('^(.*)/bench/speed%.lua$') or '.'
local peer = os.getenv('PEER') or (here .. '/../shared/peers/pytorch_bench.py')
local runs = tonumber(os.getenv('RUNS') or 5)

local function exists(p) local f = io.open(p) if f then f:close() return true end return false end
local function sh(cmd)
  local f = io.popen(cmd)
  local out = f:read('a')
  f:close()
  return out
end
local havePeer = exists(peer) and sh("/usr/bin/python3 -c 'import torch' 2>&1; echo $?"):match('(%d+)%s*$') == '0'
if not havePeer then
  io.stderr:write('bench: PyTorch peer not available (make bench-deps installs python3-torch); ours only\n')
end

local function ours(model, batch, mode)
  local out = sh(string.format('%s/bin/th %s/bench/one.lua %s %d %s 2 %d 2>&1', here, here, model, batch, mode, runs))
  return {median = tonumber(out:match('median_ms=([%d%.]+)')), peak = tonumber(out:match('peak_rss_mb=([%d%.]+)')),
          raw = out}
end

local function theirs(model, batch, mode)
  if not havePeer then return {} end
  local out = sh(string.format('/usr/bin/python3 %s --model %s --batch %d --mode %s --runs %d 2>&1', peer, model, batch, mode, runs))
  return {median = tonumber(out:match('"median_ms":%s*([%d%.eE%-]+)')),
          peak = tonumber(out:match('"peak_rss_mb":%s*([%d%.eE%-]+)')), raw = out}
end

local results = {}
local total = #ROWS * #MODES
local n = 0
for _, row in ipairs(ROWS) do
  for _, mode in ipairs(MODES) do
    n = n + 1
    io.stderr:write(string.format('\r[%d/%d] %-10s b%-3d %-5s ...          ', n, total, row[1], row[2], mode))
    local a = ours(row[1], row[2], mode)
    local b = theirs(row[1], row[2], mode)
    if not a.median then io.stderr:write('\nours failed:\n' .. a.raw .. '\n') end
    results[#results + 1] = {model = row[1], batch = row[2], mode = mode, ours = a, peer = b}
  end
end
io.stderr:write('\n')

local function fmt(x, f) return x and string.format(f or '%.1f', x) or '-' end
local lines = {
  '| model | batch | mode | ours ms | PyTorch ms | ratio (ours/PyTorch) | ours peak MiB | PyTorch peak MiB |',
  '|---|---|---|---|---|---|---|---|',
}
for _, r in ipairs(results) do
  local ratio = (r.ours.median and r.peer.median) and r.ours.median / r.peer.median or nil
  lines[#lines + 1] = string.format('| %s | %d | %s | %s | %s | %s | %s | %s |', r.model, r.batch,
    r.mode == 'infer' and 'forward (evaluate)' or 'forward+backward', fmt(r.ours.median), fmt(r.peer.median),
    fmt(ratio, '%.2f'), fmt(r.ours.peak, '%.0f'), fmt(r.peer.peak, '%.0f'))
end
local table_md = table.concat(lines, '\n')
print(table_md)

local commit = sh('git -C ' .. here .. ' rev-parse --short HEAD 2>/dev/null'):gsub('%s+$', '')
local cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"):gsub('^%s+', ''):gsub('%s+$', '')
local section = string.format('## Speed\n\n%s, commit %s, %s, 2 threads, float32, median of %d runs after 2 warm-ups; '
  .. 'OPENBLAS_CORETYPE=%s. Peak = peak resident memory of the whole process for that measurement.\n\n%s\n',
  os.date('!%Y-%m-%d'), commit, cpu, runs, os.getenv('OPENBLAS_CORETYPE') or 'default', table_md)
require('bench.mdsection').write(here .. '/docs/benchmarks.md', 'Speed', section)
