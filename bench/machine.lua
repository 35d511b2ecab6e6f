-- The machine a benchmark ran on, so that runs on different machines
-- compare: the CPU (torch.cpuInfo: brand, family/model, caches, ISA, FMA
-- units), the sgemm blocking and variants chosen for it (torch.gemmInfo),
-- and the FMA peak measured by bench/fma_peak.c, one pinned copy per core.
--   local machine = dofile('bench/machine.lua')
--   machine.describe()             -> markdown text (needs torch loaded)
--   machine.fmaPeak(probe, cores)  -> {per-core GFLOP/s...}, sum, 'avx512'|'avx2'
--   bin/th bench/machine.lua [probe]   prints the text (and the peak with a probe)
local M = {}

local function kib(b)
  if b >= 1024 * 1024 then
    local m = b / (1024 * 1024)
    return (m == math.floor(m) and string.format('%d', m) or string.format('%.3g', m)) .. ' MiB'
  end
  return string.format('%d KiB', b // 1024)
end

-- the CPU and the kernels' choices, one paragraph
function M.describe()
  require 'torch'
  local c, g = torch.cpuInfo(), torch.gemmInfo()
  local isa = {}
  if c.avx512 then
    isa[#isa + 1] = 'AVX-512' .. ((c.avx512bw or c.avx512vl) and
      (' (' .. table.concat({c.avx512bw and 'BW' or nil, c.avx512vl and 'VL' or nil}, ', ') .. ')') or '')
  end
  if c.avx2 then isa[#isa + 1] = 'AVX2' end
  if c.fma then isa[#isa + 1] = 'FMA' end
  isa[#isa + 1] = c.amx and ('AMX' .. (c.amxBf16 and ' (BF16)' or '')) or 'no AMX'
  local overrides = {}
  for _, k in ipairs{'TH_CPU_CACHES', 'TH_CPU_FMA_UNITS', 'TH_GEMM', 'TH_GEMM_KC', 'TH_GEMM_MC', 'TH_GEMM_NC'} do
    if os.getenv(k) then overrides[#overrides + 1] = k .. '=' .. os.getenv(k) end
  end
  return string.format('CPU: %s (%s, family %d model %d stepping %d), %d logical CPUs; L1d %s, L2 %s '
    .. '(%s), L3 %s shared by %d logical CPUs (%s of it each; caches from %s); %s; the kernels use '
    .. '%d-bit vectors, %d FMA units per core (%d flops/cycle, from the family/model table). sgemm: %s '
    .. '(%s micro-kernel), kc %d, mc %d, nc %d (from the caches, docs/dev/cpuinfo.md), B read in place up '
    .. 'to %d rows of C, dot products up to %d outputs and %d floats of B^T, flipped product up to %d rows.%s',
    c.model ~= '' and c.model or '?', c.vendor, c.family, c.modelNumber, c.stepping, c.logicalCpus, kib(c.l1d),
    kib(c.l2), c.l2Shared == 1 and 'per logical CPU' or ('one per ' .. c.l2Shared .. ' logical CPUs'), c.l3 > 0 and kib(c.l3) or 'none', c.l3Shared,
    kib(c.l3Share), c.cacheSource, table.concat(isa, ', '), c.vectorBits, c.fmaUnits, c.flopsPerCycle,
    g.backend == 'ours' and 'ours' or 'OpenBLAS', g.kernel, g.kc, g.mc, g.nc, g.directM, g.dotMN, g.dotBT,
    g.flipM, #overrides > 0 and (' Overrides: ' .. table.concat(overrides, ' ') .. '.') or '')
end

-- one pinned probe per core, run together: per-core GFLOP/s, their sum and
-- the vector width the probe took
function M.fmaPeak(probe, cores)
  local cmd = {}
  for c = 0, cores - 1 do cmd[#cmd + 1] = string.format("taskset -c %d '%s'", c, probe) end
  local err = os.tmpname()
  local p = io.popen('(' .. table.concat(cmd, ' & ') .. '; wait) 2>' .. err)
  local out = p:read('a')
  p:close()
  local f = io.open(err)
  local isa = f and f:read('a'):match('(avx%d+)') or '?'
  if f then f:close() end
  os.remove(err)
  local per, sum = {}, 0
  for v in out:gmatch('([%d.]+) %S+\n') do per[#per + 1] = tonumber(v); sum = sum + tonumber(v) end
  return per, sum, isa
end

if arg and arg[0] and arg[0]:match('machine%.lua$') then
  print(M.describe())
  if arg[1] then
    local n = tonumber(io.popen('nproc'):read('l')) or 1
    local per, sum, isa = M.fmaPeak(arg[1], n)
    print(string.format('FMA peak (%s): %s = %.0f GFLOP/s', isa, table.concat(per, ' + '), sum))
  end
end
return M
