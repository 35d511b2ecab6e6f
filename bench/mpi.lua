-- make bench-mpi: data-parallel training over MPI (dataparallel, bench/mpi_one.lua
-- under mpirun) against PyTorch 1.13's DistributedDataParallel on gloo
-- (/work/shared/peers/pytorch_ddp.py, or PEER), same global batch, 2
-- processes of 1 thread, forward + NLL + backward + SGD step. Per model,
-- ROUNDS rounds (default 3) alternate ours and theirs at R = 2 and R = 1
-- (one process of 2 threads), who goes first swapped each round; the table
-- gives the medians of the rounds' medians, the ratio ours/theirs, and the
-- scaling efficiency T(R=1) / T(R) at the same global batch and the same 2
-- cores (1.0: no loss from splitting across processes). R = 4 (two
-- processes per core, oversubscribed) runs ours once, for correctness only.
-- Writes the table to stdout and docs/benchmarks.md, section "Data parallel over MPI".
local ROWS = {
  {'resnet-56', 64, 'ResNet-56 cifar'},
  {'mlp', 64, 'MLP 784-1024x3-10'},
  {'resnet-18', 16, 'ResNet-18 imagenet'},
}
local here = arg[0]:match('^(.*)/bench/mpi%.lua$') or '.'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile(here .. '/bench/loadguard.lua').start()
local rounds = tonumber(os.getenv('ROUNDS') or 3)
local peer = os.getenv('PEER') or '/work/shared/peers/pytorch_ddp.py'
local PY = '/usr/bin/python3'
if os.getenv('MODELS') then
  local keep = {}
  for m in os.getenv('MODELS'):gmatch('[^,]+') do
    for _, r in ipairs(ROWS) do if r[1] == m then keep[#keep + 1] = r end end
  end
  ROWS = keep
end
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function sh(cmd)
  local f = assert(io.popen(cmd))
  local out = f:read('a')
  local ok = f:close()
  return out, ok
end
local havePeer = io.open(peer) and os.execute(PY .. ' -c "import torch" >/dev/null 2>&1')
if not havePeer then io.stderr:write('bench-mpi: no PyTorch peer (' .. peer .. '): timing ours only\n') end

local MPIRUN = 'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --bind-to none --oversubscribe'
local function ours(model, batch, R)
  local out, ok = sh(string.format('cd %s && %s -np %d bin/th bench/mpi_one.lua %s %d 2>&1', q(here), MPIRUN, R, model, batch))
  local ms = tonumber(out:match('median_ms=([%d.]+)'))
  if not ok or not ms then error('bench-mpi: our run failed:\n' .. out) end
  return ms, tonumber(out:match('wait_ms=([%d.]+)'))
end
local function theirs(model, batch, R)
  local out, ok = sh(string.format('%s %s --model %s --global-batch %d --ranks %d 2>&1', PY, q(peer), model, batch, R))
  local ms = tonumber(out:match('"median_ms": ([%d.]+)'))
  if not ok or not ms then error('bench-mpi: the peer failed:\n' .. out) end
  return ms
end
local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or (t[n // 2] + t[n // 2 + 1]) / 2
end
local function loadavg()
  local f = io.open('/proc/loadavg')
  local s = f and f:read('l') or '?'
  if f then f:close() end
  return s:match('^(%S+ %S+ %S+)') or s
end

local load0 = loadavg()
local lines = {}
for _, row in ipairs(ROWS) do
  local model, batch = row[1], row[2]
  local o, waits = {[1] = {}, [2] = {}}, {}
  local t = {[1] = {}, [2] = {}}
  for round = 1, rounds do
    for _, R in ipairs{2, 1} do
      if havePeer and round % 2 == 0 then t[R][#t[R] + 1] = theirs(model, batch, R) end
      local ms, w = ours(model, batch, R)
      o[R][#o[R] + 1] = ms
      if R == 2 then waits[#waits + 1] = w end
      if havePeer and round % 2 == 1 then t[R][#t[R] + 1] = theirs(model, batch, R) end
    end
  end
  local o4 = ours(model, batch, 4)
  local o1, o2 = median(o[1]), median(o[2])
  local t1, t2 = havePeer and median(t[1]), havePeer and median(t[2])
  local function f(x) return x and string.format('%.1f', x) or '-' end
  local function r(a, b) return (a and b) and string.format('%.2f', a / b) or '-' end
  local line = string.format('| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |', row[3], batch,
    f(o2), f(median(waits)), f(t2), r(o2, t2), f(o1), f(t1), r(o1, t1), r(o1, o2), havePeer and r(t1, t2) or '-',
    string.format('%.1f (%s)', o4, r(o1, o4)))
  print(line)
  lines[#lines + 1] = line
end
local load1 = loadavg()

local commit = sh('cd ' .. q(here) .. ' && git rev-parse --short HEAD 2>/dev/null'):gsub('%s+$', '')
local text = {
  '## Data parallel over MPI', '',
  string.format('Written by `make bench-mpi` on %s, commit %s. 2 cores (nproc %s); load average %s at the start, %s at the end '
    .. '(the machine was shared with other jobs when the load exceeds ~2: read the ratios, not the absolute times).',
    os.date('!%Y-%m-%d %H:%M UTC'), commit, sh('nproc'):gsub('%s+$', ''), load0, load1), '',
  'Ours: `dataparallel` over Open MPI (bench/mpi_one.lua); PyTorch 1.13 DistributedDataParallel on gloo '
    .. '(pytorch_ddp.py). Same global batch, float32; R = 2: two processes of 1 thread, each half the batch; '
    .. 'R = 1: one process of 2 threads (PyTorch without DDP). A step: forward, NLL, backward (with the '
    .. 'gradient averaging), SGD. Medians of ' .. rounds .. ' rounds of the runs\' median step, ours and '
    .. 'theirs alternated. Scaling efficiency: T(R=1) / T(R) at the same global batch on the same 2 cores '
    .. '(1.00: nothing lost by splitting the batch across processes). "Waiting for the reduction": rank 0\'s '
    .. 'median time in the step between the end of the backward and the last bucket\'s completion (the '
    .. 'communication the backward did not hide). R = 4: 4 processes on 2 cores '
    .. '(oversubscribed), ours only, correctness only.', '',
  '| model | global batch | ours R=2 ms | of which waiting for the reduction | DDP R=2 ms | ratio | ours R=1 ms | PyTorch R=1 ms | ratio | efficiency ours R=2 | efficiency DDP R=2 | ours R=4 ms (efficiency) |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
}
for _, l in ipairs(lines) do text[#text + 1] = l end
text[#text + 1] = ''
dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'Data parallel over MPI', table.concat(text, '\n') .. '\n',
  meter:other())
