-- make bench-gemm: our sgemm (th_sgemm, src/tensor/th_gemm.c) against
-- OpenBLAS's on the shapes the engine multiplies: convolutions (row-major,
-- as conv.c calls them, one thread each as inside its parallel tiles),
-- Winograd's batched products, nn.Linear and big squares, on 1 and 2
-- threads. The two backends alternate call by call in this one process
-- (torch._C.gemm_backend before each call), so load from other processes
-- hits both alike; GFLOP/s = 2 M N K over the median call. The FMA peak
-- comes from bench/fma_peak.c in the same run (one pinned copy per core).
-- Writes docs/benchmarks.md, section "sgemm: ours against OpenBLAS"
-- (NO_WRITE=1: print only).
--   bin/th bench/gemm.lua [fma_peak binary]
require 'torch'

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/bench/[^/]*$') or '.'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile(here .. '/bench/loadguard.lua').start()
local probe = arg[1] or (here .. '/build/fma_peak')
local C = torch._C
local clock = C.clock

-- {use, transA, transB, M, N, K, threads}: 1 = single (as in conv tiles), 2 = both
local shapes = {
  {'conv fwd ResNet-56 16ch', 'N', 'N', 16, 768, 144, {1}},
  {'conv fwd ResNet-56 32ch', 'N', 'N', 32, 768, 288, {1}},
  {'conv fwd ResNet-56 64ch', 'N', 'N', 64, 704, 576, {1}},
  {'conv fwd ResNet-18 64ch', 'N', 'N', 64, 3136, 576, {1}},
  {'conv fwd AlexNet conv1', 'N', 'N', 96, 3025, 363, {1}},
  {'conv fwd AlexNet conv2', 'N', 'N', 192, 729, 1600, {1}},
  {'conv fwd AlexNet conv3', 'N', 'N', 384, 169, 1728, {1}},
  {'conv gradInput 16ch', 'T', 'N', 144, 768, 16, {1}},
  {'conv gradInput 32ch', 'T', 'N', 288, 768, 32, {1}},
  {'conv gradInput 64ch', 'T', 'N', 576, 704, 64, {1}},
  {'conv gradWeight 16ch', 'N', 'T', 16, 144, 768, {1}},
  {'conv gradWeight 32ch', 'N', 'T', 32, 288, 768, {1}},
  {'conv gradWeight 64ch', 'N', 'T', 64, 576, 704, {1}},
  {'Winograd 64x128x64', 'N', 'N', 64, 128, 64, {1}},
  {'Winograd 128x128x128', 'N', 'N', 128, 128, 128, {1}},
  {'Linear fwd 784->1024 b64', 'N', 'T', 64, 1024, 784, {1, 2}},
  {'Linear fwd 1024->1024 b64', 'N', 'T', 64, 1024, 1024, {1, 2}},
  {'Linear gradInput 1024->784 b64', 'N', 'N', 64, 784, 1024, {1, 2}},
  {'Linear gradWeight 784->1024 b64', 'T', 'N', 1024, 784, 64, {1, 2}},
  {'AlexNet FC 9216->4096 b16', 'N', 'T', 16, 4096, 9216, {1, 2}},
  {'square 1024', 'N', 'N', 1024, 1024, 1024, {1, 2}},
  {'square 2048', 'N', 'N', 2048, 2048, 2048, {1, 2}},
}

local function sh(cmd)
  local p = io.popen(cmd)
  local out = p:read('a')
  p:close()
  return out
end

-- the FMA peak: one pinned probe per core, run together
local function fmaPeak(ncores)
  local cmd = {}
  for c = 0, ncores - 1 do cmd[#cmd + 1] = string.format('taskset -c %d %s', c, probe) end
  local out = sh('(' .. table.concat(cmd, ' & ') .. '; wait) 2>/dev/null')
  local per = {}
  for v in out:gmatch('([%d.]+) %S+\n') do per[#per + 1] = tonumber(v) end
  return per
end

local function loadavg()
  local f = io.open('/proc/loadavg')
  local s = f and f:read('l') or '?'
  if f then f:close() end
  return tonumber(s:match('^(%S+)')) or 0
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function bench(s, threads)
  local _, ta, tb, M, N, K = table.unpack(s)
  local lda, ldb = ta == 'N' and K or M, tb == 'N' and N or K
  local A = torch.FloatTensor(M * K):uniform(-1, 1)
  local B = torch.FloatTensor(K * N):uniform(-1, 1)
  local Cm = torch.FloatTensor(M * N):zero()
  local function call() C.sgemm('R', ta, tb, M, N, K, 1, A, lda, B, ldb, 0, Cm, N) end
  torch.setnumthreads(threads)
  local times = {ours = {}, openblas = {}}
  local flops = 2 * M * N * K
  -- as many alternating rounds as fit in about 0.6 s, 5 to 201
  local rounds = math.max(5, math.min(201, math.floor(0.3 / (flops / 150e9))))
  for _, b in ipairs{'ours', 'openblas'} do C.gemm_backend(b); call(); call() end
  for _ = 1, rounds do
    for _, b in ipairs{'ours', 'openblas'} do
      C.gemm_backend(b)
      local t0 = clock()
      call()
      local t = clock() - t0
      table.insert(times[b], t)
    end
  end
  return flops / median(times.ours) / 1e9, flops / median(times.openblas) / 1e9, rounds
end

local old = C.gemm_backend()
local _, supported = C.gemm_backend()
local nt0 = torch.getnumthreads()
local cpu = sh("grep -m1 'model name' /proc/cpuinfo"):match(':%s*(.-)%s*$') or '?'
local family = sh("grep -m1 'cpu family' /proc/cpuinfo"):match(':%s*(%d+)') or '?'
local load0 = loadavg()
local peak0 = fmaPeak(2)
local rows = {}
local header = '| product | op(A), op(B) | M x N x K | threads | ours GFLOP/s | OpenBLAS GFLOP/s | ours / OpenBLAS speed | ours % FMA peak | rounds |'
print(header)
for _, s in ipairs(shapes) do
  for _, t in ipairs(s[7]) do
    local o, b, r = bench(s, t)
    local peak = t == 1 and math.max(peak0[1] or 0, peak0[2] or 0) or (peak0[1] or 0) + (peak0[2] or 0)
    rows[#rows + 1] = string.format('| %s | %s%s | %dx%dx%d | %d | %.0f | %.0f | %.2f | %.0f%% | %d |', s[1], s[2],
                                    s[3], s[4], s[5], s[6], t, o, b, o / b, 100 * o / peak, r)
    print(rows[#rows])
  end
end
local peak1 = fmaPeak(2)
local load1 = loadavg()
C.gemm_backend(old)
torch.setnumthreads(nt0)

local fmt = function(p) return string.format('%.0f + %.0f', p[1] or 0, p[2] or 0) end
local text = string.format([[
## sgemm: ours against OpenBLAS

Written by `make bench-gemm` (bench/gemm.lua) on %s (CPU family %s, %d vCPUs),
%s UTC.
%s

Our th_sgemm (src/tensor/th_gemm.c: packed panels, 8 x 48 AVX-512
micro-kernel%s) against %s's cblas_sgemm (core %s), the two alternating call
by call in one process; GFLOP/s = 2 M N K over the median call; A and B row-major
(T: the operand is stored transposed), beta = 0. Threads 1 = one thread each, as the
convolutions call it inside their parallel tiles; 2 = th_sgemm's own split over
torch.getnumthreads() threads against OpenBLAS's threads. FMA peak (bench/fma_peak.c,
one pinned copy per core, before and after): %s and %s GFLOP/s; a 1-thread row is
compared with the best core, a 2-thread row with the sum. Load average before and
after: %.1f, %.1f (the machine is shared: the FMA peak and both columns move with it;
the ratio column is what to compare).

%s
%s
]], cpu, family, #peak0, os.date('!%Y-%m-%d %H:%M'), dofile(here .. '/bench/machine.lua').describe(),
  supported and '' or ' — NOT run here: this CPU lacks AVX-512, both columns are OpenBLAS',
  (select(3, C.blasinfo()) or 'OpenBLAS'):match('^(%S+ %S+)') or 'OpenBLAS', C.blasinfo(), fmt(peak0), fmt(peak1), load0, load1, header,
  '|---|---|---|--:|--:|--:|--:|--:|--:|\n' .. table.concat(rows, '\n'))
if os.getenv('NO_WRITE') ~= '1' then
  dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'sgemm: ours against OpenBLAS', text, meter:other())
end
