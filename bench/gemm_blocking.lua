-- The sgemm blocking A/B: several (kc, mc, nc) in one process, call by call
-- (torch._C.gemm_set_blocking between calls, alternating the order each
-- round), so that load from other processes falls on all alike; one thread
-- unless told. Prints per shape the first blocking's GFLOP/s and the others'
-- median time over its, then the geometric mean of those ratios
-- (docs/dev/cpuinfo.md). Prints only.
--   bin/th bench/gemm_blocking.lua "512,64,960;320,96,960" [threads]
require 'torch'
local C = torch._C
local clock = C.clock
local g0 = torch.gemmInfo()
local cfgs = {}
for s in (arg[1] or string.format('%d,%d,%d;512,32,960', g0.kc, g0.mc, g0.nc)):gmatch('[^;]+') do
  local k, m, n = s:match('^(%d+),(%d+),(%d+)$')
  if not k then error('bench/gemm_blocking.lua: expected kc,mc,nc;kc,mc,nc..., got ' .. s) end
  cfgs[#cfgs + 1] = {tonumber(k), tonumber(m), tonumber(n)}
end
local shapes = {
  {'N', 'N', 16, 768, 144}, {'N', 'N', 32, 768, 288}, {'N', 'N', 64, 704, 576}, {'N', 'N', 64, 3136, 576},
  {'N', 'N', 96, 3025, 363}, {'N', 'N', 192, 729, 1600}, {'N', 'N', 384, 169, 1728},
  {'T', 'N', 144, 768, 16}, {'T', 'N', 288, 768, 32}, {'T', 'N', 576, 704, 64},
  {'N', 'T', 64, 576, 704}, {'N', 'N', 128, 128, 128}, {'N', 'T', 64, 1024, 1024},
  {'N', 'N', 64, 784, 1024}, {'T', 'N', 1024, 784, 64}, {'N', 'N', 1024, 1024, 1024},
  {'N', 'N', 2048, 2048, 2048}, {'N', 'N', 128, 784, 1152}, {'N', 'N', 256, 196, 2304},
  {'N', 'T', 64, 1024, 784}, {'N', 'T', 16, 4096, 9216}, {'T', 'N', 1024, 1152, 64},
}
torch.setnumthreads(tonumber(arg[2] or 1))
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local tot = {}
for _, s in ipairs(shapes) do
  local ta, tb, M, N, K = table.unpack(s)
  local lda, ldb = ta == 'N' and K or M, tb == 'N' and N or K
  local A = torch.FloatTensor(M * K):uniform(-1, 1)
  local B = torch.FloatTensor(K * N):uniform(-1, 1)
  local Cm = torch.FloatTensor(M * N):zero()
  local function call() C.sgemm('R', ta, tb, M, N, K, 1, A, lda, B, ldb, 0, Cm, N) end
  local flops = 2 * M * N * K
  local rounds = math.max(5, math.min(101, math.floor(0.25 / (flops / 150e9))))
  local times = {}
  for i, c in ipairs(cfgs) do times[i] = {}; C.gemm_set_blocking(c[1], c[2], c[3]); call() end
  for r = 1, rounds do
    for j = 1, #cfgs do
      local i = (r % 2 == 0) and j or (#cfgs - j + 1)
      local c = cfgs[i]
      C.gemm_set_blocking(c[1], c[2], c[3])
      local t0 = clock(); call(); table.insert(times[i], clock() - t0)
    end
  end
  local line = string.format('%s%s %4dx%4dx%4d', ta, tb, M, N, K)
  local b = median(times[1])
  line = line .. string.format(' base %5.0f', flops / b / 1e9)
  for i = 2, #cfgs do
    local r = median(times[i]) / b
    tot[i] = (tot[i] or 0) + math.log(r)
    line = line .. string.format(' | %s %.3f', table.concat(cfgs[i], ','), r)
  end
  print(line)
end
local g = 'geomean time ratio:'
for i = 2, #cfgs do g = g .. string.format(' %s %.3f', table.concat(cfgs[i], ','), math.exp(tot[i] / #shapes)) end
print(g)
C.gemm_set_blocking(g0.kc, g0.mc, g0.nc)
