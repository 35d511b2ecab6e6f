-- make bench-speed: our forward (evaluate mode) and forward+backward
-- (training mode) times against PyTorch's on the same architectures, float32,
-- 2 threads, our net again after optnet.optimizeMemory, the achieved GFLOP/s
-- and its share of an sgemm peak measured in the same run, and the peak
-- resident memory of one training step.
--
-- Per model and mode, three fresh processes: ours (bench/one.lua --serve),
-- ours after optnet (the same with --optnet: mode 'inference' with
-- foldBatchNorm for forward, 'training' for fwd+bwd) and PyTorch's (bench/torch_peer.py, under Debian's
-- /usr/bin/python3). Each builds the net, records VmHWM after its first step
-- (the train process's figure is the table's peak memory), warms up, then
-- waits on a FIFO. The driver then alternates single timed steps of the
-- three, rotating who goes first each round, with a short pause between
-- steps so neither process's idle spinning threads (OpenMP, OpenBLAS) eat
-- into the other's step. On a shared machine all sides then see the same
-- disturbance, and the ratios are what to read: ratio of the medians, and
-- the interquartile range of the per-round ratios (the run-to-run spread).
-- 'other load' is the CPU (in cores) that other processes used meanwhile:
-- /proc/stat busy time minus the processes' own.
-- GFLOP/s = the step's work counted as direct convolution and dense
-- products (bench/one.lua's gflop) over our median time; % sgemm peak
-- divides it by the best sgemm rate of bench/sgemm.lua, % FMA peak by the
-- machine's FMA peak (bench/fma_peak.c, one pinned copy per core, summed;
-- FMA_PEAK names the binary, `make bench-speed` builds it), both sampled
-- before every row and at the end. The page records the machine
-- (bench/machine.lua: CPU, caches, the sgemm blocking chosen).
--
-- Environment: RUNS (timed steps per side, default 7, at least 5),
-- WARMUP (default 2), MODELS (comma list, default all), PEER (python script),
-- OPTNET=0 (leave out the optnet processes), QUICK=1 (development: RUNS 5,
-- at most 9 rounds, models mlp and resnet-56 unless MODELS says otherwise).
-- Writes the tables to stdout and to docs/benchmarks.md, section "Speed".
local ROWS = {
  {'mlp', 64, 'MLP 784-1024-1024-1024-10'},
  {'alexnet', 16, 'AlexNet (one tower)'},
  {'vgg-A', 8, 'VGG-A (11 layers)'},
  {'resnet-18', 16, 'ResNet-18 imagenet'},
  {'resnet-50', 16, 'ResNet-50 imagenet'},
  {'googlenet', 16, 'GoogLeNet (no aux heads)'},
  {'resnet-56', 64, 'ResNet-56 cifar'},
  {'resnet-110', 64, 'ResNet-110 cifar'},
  {'densenet', 64, 'DenseNet-BC-100 (k=12) cifar'},
}
local quick = os.getenv('QUICK') == '1'
local here = arg[0]:match('^(.*)/bench/speed%.lua$') or '.'
local runs = tonumber(os.getenv('RUNS') or (quick and 5 or 7))
local MAX_ROUNDS, ROUND_MS = quick and 9 or 41, 2000
local withOptnet = os.getenv('OPTNET') ~= '0'
local warmup = tonumber(os.getenv('WARMUP') or 2)
local peer = os.getenv('PEER') or (here .. '/bench/torch_peer.py')
local PY = '/usr/bin/python3'
if not runs or runs < 5 or not warmup or warmup < 1 then
  error('bench/speed.lua: RUNS must be >= 5 and WARMUP >= 1, got RUNS=' .. tostring(os.getenv('RUNS'))
    .. ' WARMUP=' .. tostring(os.getenv('WARMUP')))
end
local models = os.getenv('MODELS') or (quick and 'mlp,resnet-56' or nil)
if models then
  local keep, want = {}, {}
  for m in models:gmatch('[^,]+') do want[m] = true end
  for _, r in ipairs(ROWS) do if want[r[1]] then keep[#keep + 1] = r; want[r[1]] = nil end end
  if next(want) then error('bench/speed.lua: unknown model in MODELS: ' .. next(want)) end
  ROWS = keep
end

local function sh(cmd)
  local f = assert(io.popen(cmd))
  local out = f:read('a')
  f:close()
  return (out:gsub('%s+$', ''))
end
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local havePeer = os.execute(PY .. ' -c "import torch" >/dev/null 2>&1')
if not havePeer then
  io.stderr:write('bench: python3-torch not importable by ' .. PY
    .. ' (make bench-deps installs it): timing ours only\n')
end

-- the driver runs under make's RUNENV or by hand: either way both sides
-- get the same OpenMP wait policy, bin/th's default unless the caller chose one
local policy = os.getenv('OMP_WAIT_POLICY')
if not policy or policy == '' then policy = 'passive' end
local envPrefix = 'OMP_WAIT_POLICY=' .. q(policy) .. ' '

local tmp = sh('mktemp -d /tmp/th-bench.XXXXXX')
assert(tmp ~= '', 'bench/speed.lua: mktemp failed')

-- a child process speaking the ready/step/quit protocol: commands go in
-- through a FIFO, answers come back through the popen pipe
local Child = {}
Child.__index = Child
local nchild = 0

local function kv(line)
  local t = {}
  for k, v in line:gmatch('([%w_]+)=(%S+)') do t[k] = tonumber(v) or v end
  return t
end

function Child.start(label, cmd)
  nchild = nchild + 1
  local fifo, err = string.format('%s/in%d', tmp, nchild), string.format('%s/err%d', tmp, nchild)
  assert(os.execute('mkfifo ' .. q(fifo)), 'bench/speed.lua: mkfifo failed')
  local self = setmetatable({label = label, err = err}, Child)
  self.out = assert(io.popen(string.format('%sexec %s < %s 2> %s', envPrefix, cmd, q(fifo), q(err))))
  self.inp = assert(io.open(fifo, 'w'))  -- pairs with the child's open of the FIFO
  self.inp:setvbuf('no')
  local line = self.out:read('l')
  if not line or not line:match('^ready') then return self:fail('no ready line') end
  self.ready = kv(line)
  return self
end

function Child:fail(what)
  local f = io.open(self.err)
  local msg = f and f:read('a') or ''
  if f then f:close() end
  io.stderr:write(string.format('\nbench: %s failed (%s):\n%s\n', self.label, what, msg:sub(-2000)))
  self.dead = true
  self:close()
  return self
end

function Child:step()
  if self.dead then return nil end
  self.inp:write('step\n')
  local line = self.out:read('l')
  local ms = line and tonumber(line:match('^ms=([%d%.]+)'))
  if not ms then self:fail('no answer to step') end
  return ms
end

function Child:quit()
  if self.dead then return nil end
  self.inp:write('quit\n')
  local line = self.out:read('l')
  self.done = line and kv(line)
  self:close()
  return self.done
end

function Child:close()
  if self.inp then self.inp:close(); self.inp = nil end
  if self.out then self.out:close(); self.out = nil end
end

-- busy CPU seconds of the whole machine (user nice system irq softirq steal)
local HZ = tonumber(sh('getconf CLK_TCK')) or 100
local function busy()
  local f = assert(io.open('/proc/stat'))
  local l = f:read('l')
  f:close()
  local v = {}
  for n in l:gmatch('%d+') do v[#v + 1] = tonumber(n) end
  return (v[1] + v[2] + v[3] + v[6] + v[7] + (v[8] or 0)) / HZ
end

local function median(t)
  if #t == 0 then return nil end
  local s = {table.unpack(t)}
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

local function pause() os.execute('sleep 0.2') end

local ourCmd = string.format('%s/bin/th %s/bench/one.lua', q(here), q(here))
local info = {}

local function quantile(t, p)
  local s = {table.unpack(t)}
  table.sort(s)
  if #s == 0 then return nil end
  local x = 1 + (#s - 1) * p
  local lo = math.floor(x)
  return s[lo] + (x - lo) * ((s[lo + 1] or s[lo]) - s[lo])
end

-- the sgemm peak: best of bench/sgemm.lua's runs so far (each run's
-- figure is the faster of our sgemm and OpenBLAS's)
local peak = {best = 0, runs = {}}
-- the FMA peak: the best sum over the cores of bench/fma_peak.c's runs
local machine = dofile(here .. '/bench/machine.lua')
local probe = os.getenv('FMA_PEAK') or (here .. '/build/fma_peak')
local ncores = tonumber(sh('nproc')) or 1
local fma = {best = 0, runs = {}, isa = '?'}
if not io.open(probe) then
  io.stderr:write('bench: no FMA peak probe at ' .. probe .. ' (make bench-speed builds it): no % FMA peak\n')
  probe = nil
end
local function samplePeak()
  local out = sh(string.format('%s/bin/th %s/bench/sgemm.lua 7', q(here), q(here)))
  local best = tonumber(out:match('best=([%d%.]+)'))
  if best then
    peak.runs[#peak.runs + 1] = best
    if best > peak.best then peak.best = best end
  end
  if probe then
    local _, sum, isa = machine.fmaPeak(probe, ncores)
    fma.runs[#fma.runs + 1], fma.isa = sum, isa
    if sum > fma.best then fma.best = sum end
  end
end

-- one model in one mode: the processes' times, alternating
local function measure(model, batch, mode)
  local kids = {}
  kids[#kids + 1] = {key = 'ours', c = Child.start('ours ' .. model .. ' ' .. mode,
    string.format('%s %s %d %s %d --serve', ourCmd, q(model), batch, mode, warmup))}
  if withOptnet then
    kids[#kids + 1] = {key = 'opt', c = Child.start('ours+optnet ' .. model .. ' ' .. mode,
      string.format('%s %s %d %s %d --serve --optnet', ourCmd, q(model), batch, mode, warmup))}
  end
  if havePeer then
    kids[#kids + 1] = {key = 'theirs', c = Child.start('PyTorch ' .. model .. ' ' .. mode,
      string.format('%s %s %s %d %s %d', PY, q(peer), q(model), batch, mode, warmup))}
  end
  local r = {ours = {}, opt = {}, theirs = {}, ratio = {}, optRatio = {}}
  local busy0 = busy()
  local t0 = sh('date +%s.%N')
  -- at least RUNS rounds; short steps get more rounds (up to MAX_ROUNDS,
  -- about ROUND_MS of stepping per side), since a single disturbed step
  -- moves the median of a few short ones a lot
  local rounds, i = runs, 0
  while i < rounds do
    i = i + 1
    local got = {}
    for k = 0, #kids - 1 do
      local kid = kids[(i + k - 1) % #kids + 1]
      if not kid.c.dead then
        pause()
        got[kid.key] = kid.c:step()
        r[kid.key][#r[kid.key] + 1] = got[kid.key]
      end
    end
    if got.ours and got.theirs then r.ratio[#r.ratio + 1] = got.ours / got.theirs end
    if got.ours and got.opt then r.optRatio[#r.optRatio + 1] = got.opt / got.ours end
    if i == 1 then
      local slowest = math.max(got.ours or 0, got.opt or 0, got.theirs or 0)
      if slowest > 0 then rounds = math.max(runs, math.min(MAX_ROUNDS, ROUND_MS // slowest)) end
    end
  end
  r.rounds = i
  local t1 = sh('date +%s.%N')
  local used, own = busy() - busy0, 0
  for _, kid in ipairs(kids) do
    local d = kid.c:quit()
    own = own + (d and d.cpu_s or 0)
  end
  r.other = math.max(0, used - own) / (tonumber(t1) - tonumber(t0))
  r.oursMedian, r.optMedian, r.theirsMedian = median(r.ours), median(r.opt), median(r.theirs)
  local ours, theirs = kids[1].c, havePeer and kids[#kids].c or nil
  r.oursPeak = not ours.dead and ours.ready and ours.ready.peak_mb or nil
  r.theirsPeak = theirs and not theirs.dead and theirs.ready and theirs.ready.peak_mb or nil
  r.gflop = ours.ready and ours.ready.gflop
  if ours.ready then info.ours = ours.ready.blas .. ', ' .. ours.ready.threads .. ' threads' end
  if theirs and theirs.ready then
    info.theirs = theirs.ready.blas .. ', ' .. theirs.ready.threads .. ' threads'
    info.torch = theirs.ready.torch
  end
  return r
end

local results = {}
for i, row in ipairs(ROWS) do
  local model, batch = row[1], row[2]
  samplePeak()
  io.stderr:write(string.format('[%d/%d] %-10s batch %-3d ', i, #ROWS, model, batch))
  local res = {row = row}
  for _, mode in ipairs({'infer', 'train'}) do
    res[mode] = measure(model, batch, mode)
    local m = res[mode]
    io.stderr:write(string.format('%s %s/%s/%s ms', mode == 'infer' and 'fwd' or '  fwd+bwd',
      m.oursMedian and string.format('%.1f', m.oursMedian) or '-',
      m.optMedian and string.format('%.1f', m.optMedian) or '-',
      m.theirsMedian and string.format('%.1f', m.theirsMedian) or '-'))
  end
  io.stderr:write(string.format('   peak %s/%s MiB   other load %.1f/%.1f cores\n',
    res.train.oursPeak and string.format('%.0f', res.train.oursPeak) or '-',
    res.train.theirsPeak and string.format('%.0f', res.train.theirsPeak) or '-',
    res.infer.other, res.train.other))
  results[i] = res
end
samplePeak()
os.execute('rm -rf ' .. q(tmp))

local function f1(x) return x and string.format('%.1f', x) or '-' end
local function ratio(a, b) return (a and b) and string.format('%.2f', a / b) or '-' end
local function spread(t)
  if #t < 2 then return '-' end
  return string.format('%.2f-%.2f', quantile(t, 0.25), quantile(t, 0.75))
end
local function table_for(mode, title)
  local lines = {
    string.format('| model | batch | %s GFLOP | ours ms | PyTorch ms | ratio | ratio IQR | ours GFLOP/s | %% sgemm peak '
      .. '| %% FMA peak | optnet ms | optnet / ours |%s steps per side | other load (cores) |', title,
      mode == 'train' and ' train peak ours MiB | PyTorch MiB |' or ''),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|' .. (mode == 'train' and '---:|---:|' or '')
      .. '---:|---:|',
  }
  for _, res in ipairs(results) do
    local a = res[mode]
    local rate = a.gflop and a.oursMedian and a.gflop / a.oursMedian * 1000
    lines[#lines + 1] = string.format('| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s %d | %.1f |',
      res.row[3], res.row[2], a.gflop and string.format('%.2f', a.gflop) or '-', f1(a.oursMedian),
      f1(a.theirsMedian), ratio(a.oursMedian, a.theirsMedian), spread(a.ratio), f1(rate),
      (rate and peak.best > 0) and string.format('%.0f%%', 100 * rate / peak.best) or '-',
      (rate and fma.best > 0) and string.format('%.0f%%', 100 * rate / fma.best) or '-',
      f1(a.optMedian), ratio(a.optMedian, a.oursMedian),
      mode == 'train' and string.format(' %s | %s |',
        a.oursPeak and string.format('%.0f', a.oursPeak) or '-',
        a.theirsPeak and string.format('%.0f', a.theirsPeak) or '-') or '',
      a.rounds, a.other)
  end
  return table.concat(lines, '\n')
end
local peakLine = string.format('sgemm peak (bench/sgemm.lua, torch.mm 1024x1024x1024 on 2 threads, best of 7 '
  .. 'of the faster of our sgemm and OpenBLAS\'s, '
  .. 'sampled before every row and at the end): best %.1f GFLOP/s; the samples: %s.', peak.best,
  table.concat((function()
    local t = {}
    for i, v in ipairs(peak.runs) do t[i] = string.format('%.0f', v) end
    return t
  end)(), ', '))
  .. (fma.best > 0 and string.format(' FMA peak (bench/fma_peak.c, %s, one pinned copy on each of the %d cores, '
    .. 'summed, sampled likewise): best %.0f GFLOP/s (samples %s); the sgemm peak is %.0f%% of it.', fma.isa, ncores,
    fma.best, table.concat((function()
      local t = {}
      for i, v in ipairs(fma.runs) do t[i] = string.format('%.0f', v) end
      return t
    end)(), ', '), 100 * peak.best / fma.best) or ' FMA peak: not measured (no bench/fma_peak.c binary).')
local tableMd = '### Forward (evaluate mode)\n\n' .. table_for('infer', 'forward') .. '\n\n'
  .. '### Forward + backward (training mode)\n\n' .. table_for('train', 'fwd+bwd') .. '\n\n' .. peakLine
print(tableMd)

local commit = sh('git -C ' .. q(here) .. ' rev-parse --short HEAD 2>/dev/null')
if sh('git -C ' .. q(here) .. ' status --porcelain --untracked-files=no 2>/dev/null') ~= '' then
  commit = commit .. ' (with uncommitted changes)'
end
local cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'")
local described = sh(string.format('%s/bin/th %s/bench/machine.lua', q(here), q(here)))
local section = table.concat({
  '## Speed',
  '',
  string.format('Written by `make bench-speed` on %s UTC, commit %s. Machine: %s, %s cores '
    .. '(nproc), OPENBLAS_CORETYPE=%s; OpenBLAS as the processes report it: ours %s, PyTorch %s%s.',
    os.date('!%Y-%m-%d %H:%M'), commit, cpu, sh('nproc'), os.getenv('OPENBLAS_CORETYPE') or '(unset)',
    info.ours or '-', info.theirs or '-', info.torch and (' (PyTorch ' .. info.torch .. ')') or ''),
  '',
  described,
  '',
  string.format('float32, 2 threads (torch.setnumthreads / torch.set_num_threads), median of at least %d timed '
    .. 'steps per side (more for short steps: as many as fit in about 2 s, at most %d; see the steps column) '
    .. 'after %d warm-up steps%s. Forward = forward pass in evaluate mode; fwd+bwd = '
    .. 'forward, ClassNLLCriterion / NLLLoss and backward in training mode, gradients zeroed '
    .. 'outside the timed part; neither side computes the gradient of the input image (our '
    .. 'first layer\'s gradInput is nil, Torch7\'s idiom). Both sides build the net in float32 and run '
    .. 'with OMP_WAIT_POLICY=%s (bin/th\'s default, passed to PyTorch too, so that the '
    .. 'comparison is of the kernels: with libgomp\'s default spinning waits both run several times '
    .. 'slower on a loaded machine). Each model and mode runs in three fresh processes, ours, ours '
    .. 'after optnet.optimizeMemory (mode inference with foldBatchNorm for forward, training for fwd+bwd) and '
    .. 'PyTorch\'s, whose steps alternate one by one, so all see the same machine; '
    .. 'ratio = ours / PyTorch time (below 1: we are faster), ratio IQR = interquartile range of the '
    .. 'per-round ratios (the run-to-run spread); optnet / ours likewise from the same rounds. '
    .. 'GFLOP = one step\'s work counted as direct convolution and dense products (2·B·Cout·Cin·k²·Hout·Wout '
    .. 'per convolution phase, 2·B·in·out per Linear phase; fwd+bwd counts forward, gradInput where computed '
    .. 'and gradWeight); GFLOP/s = that over our median; %% sgemm peak = GFLOP/s over the sgemm peak below, '
    .. '%% FMA peak = GFLOP/s over the FMA peak below (the machine\'s: fma_peak x cores). '
    .. 'Train peak = VmHWM of the '
    .. 'process after its first training step (model, input, activations, gradients and the '
    .. 'runtime: Lua ~20 MiB, Python + libtorch ~200 MiB). Other load = CPU cores other '
    .. 'processes kept busy meanwhile: the machine is shared, so times are '
    .. 'noisy where it is above 0; the interleaved ratios are what to compare.', runs, MAX_ROUNDS, warmup,
    quick and ' (QUICK=1: the development mode, few rounds)' or '', policy),
  '',
  tableMd,
  '',
}, '\n')
-- a ratio taken while other processes hold the cores is not the kernels'
-- ratio (PyTorch's oneDNN loses more to them than we do: 2026-11-25, a
-- loaded run gave ResNet-56 fwd+bwd 0.93 and a quiet one 1.49), so such a
-- run prints its tables but leaves the docs alone unless LOADED_OK=1
-- (bench/loadguard.lua: the same guard as every bench that writes the page;
-- the load here is measured per row around this bench's own processes)
local busiest = 0
for _, res in ipairs(results) do
  busiest = math.max(busiest, res.infer.other or 0, res.train.other or 0)
end
dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'Speed', section, busiest)
