-- The sgemm peak bench/speed.lua divides by: torch.mm of two 1024x1024
-- float matrices on 2 threads (OpenBLAS), as GFLOP/s (2 * 1024^3 per
-- product). Prints "best=<GFLOP/s> median=<GFLOP/s>" over REPS products.
--   bin/th bench/sgemm.lua [reps]
require 'torch'
local reps = tonumber(arg[1] or 15)
torch.setnumthreads(2)
torch.manualSeed(0)
local n = 1024
local a, b = torch.FloatTensor(n, n):uniform(), torch.FloatTensor(n, n):uniform()
local c = torch.FloatTensor(n, n)
local clock = torch._C.clock
c:mm(a, b)
local r = {}
for i = 1, reps do
  local t0 = clock()
  c:mm(a, b)
  r[i] = 2 * n ^ 3 / (clock() - t0) / 1e9
end
table.sort(r)
print(string.format('best=%.1f median=%.1f', r[#r], r[(#r + 1) // 2]))
