-- The sgemm peak bench/speed.lua divides by: torch.mm of two 1024x1024
-- float matrices on 2 threads, as GFLOP/s (2 * 1024^3 per product), with
-- our sgemm (th_sgemm) and with OpenBLAS's, alternating product by product
-- (torch._C.gemm_backend). Prints "best=<GFLOP/s> median=<GFLOP/s>" of the
-- faster backend (the peak the speed table uses), then each backend's
-- "ours=<best>/<median> openblas=<best>/<median>", over REPS products each.
--   bin/th bench/sgemm.lua [reps]
require 'torch'
local reps = tonumber(arg[1] or 15)
torch.setnumthreads(2)
torch.manualSeed(0)
local n = 1024
local a, b = torch.FloatTensor(n, n):uniform(), torch.FloatTensor(n, n):uniform()
local c = torch.FloatTensor(n, n)
local clock = torch._C.clock
local old = torch._C.gemm_backend()
local r = {ours = {}, openblas = {}}
for _, k in ipairs{'ours', 'openblas'} do torch._C.gemm_backend(k); c:mm(a, b) end
for i = 1, reps do
  for _, k in ipairs{'ours', 'openblas'} do
    torch._C.gemm_backend(k)
    local t0 = clock()
    c:mm(a, b)
    r[k][i] = 2 * n ^ 3 / (clock() - t0) / 1e9
  end
end
torch._C.gemm_backend(old)
for _, k in ipairs{'ours', 'openblas'} do table.sort(r[k]) end
local function best(k) return r[k][#r[k]] end
local function median(k) return r[k][(#r[k] + 1) // 2] end
local top = best('ours') >= best('openblas') and 'ours' or 'openblas'
print(string.format('best=%.1f median=%.1f ours=%.1f/%.1f openblas=%.1f/%.1f', best(top), median(top),
                    best('ours'), median('ours'), best('openblas'), median('openblas')))
