-- Memory-bound layers alone: ms per call of batch norm, ReLU and max
-- pooling (forward and backward) over a range of sizes, float32.
--   bin/th bench/layers.lua [reps] [kinds]
-- kinds: comma-separated subset of bn,relu,pool,pool2 (default all).
-- Prints one line per kind, size and phase: key=value pairs with the
-- element count (pooling: output elements) and the median and minimum ms
-- over 'reps' calls on one thread and on two, alternated in blocks of 8. Built with
-- every threshold at 0 (`make bench-layers` does that), the two-thread
-- column is what a parallel region gives at that size: the break-even
-- points of TH_NN_PAR_MIN_BN / _POOL / _CHEAP (src/nn/th_nn_internal.h;
-- docs/dev/benchmark-notes.md, "Memory-bound layers").
require 'torch'
require 'nn'

local reps = tonumber(arg[1] or 30)
local want = {}
for k in (arg[2] or 'bn,relu,pool,pool2'):gmatch('[^,]+') do want[k] = true end
torch.manualSeed(0)
torch.setdefaulttensortype('torch.FloatTensor')

local function median(t)
  local c = {table.unpack(t)}
  table.sort(c)
  return c[(#c + 1) // 2]
end

-- reps calls on 1 thread and on 2, in blocks of 8 calls alternating
-- between the two (the first call of a block is not timed: the first
-- region after a change of the thread count costs tens of microseconds
-- more), so that a neighbour's load falls on both alike
local function time(f)
  local t = {{}, {}}
  local tm = torch.Timer()
  local block = 8
  for _ = 1, math.max(1, reps // block) do
    for _, n in ipairs{1, 2} do
      torch.setnumthreads(n)
      f()
      for _ = 1, block do
        tm:reset()
        f()
        t[n][#t[n] + 1] = tm:time().real * 1e3
      end
    end
  end
  torch.setnumthreads(2)
  return median(t[1]), median(t[2]), math.min(table.unpack(t[1])), math.min(table.unpack(t[2]))
end

-- the minimum is what a quiet machine gives (a neighbour only slows calls down)
local function report(kind, shape, phase, n, f)
  local m1, m2, n1, n2 = time(f)
  print(string.format('kind=%s shape=%s phase=%s elems=%d ms_1t=%.4f ms_2t=%.4f ratio=%.3f '
                      .. 'min_1t=%.4f min_2t=%.4f min_ratio=%.3f',
                      kind, table.concat(shape, 'x'), phase, n, m1, m2, m2 / m1, n1, n2, n2 / n1))
end

-- channels x spatial at batch 64 (ResNet-56's 16x32x32, 32x16x16,
-- 64x8x8) and smaller/larger batches for the sweep
local shapes = {
  {8, 16, 8, 8}, {16, 16, 8, 8}, {16, 16, 16, 16}, {32, 16, 16, 16}, {64, 16, 16, 16},
  {64, 64, 8, 8}, {64, 32, 16, 16}, {64, 16, 32, 32}, {128, 16, 32, 32},
}

if want.bn then
  for _, s in ipairs(shapes) do
    local x = torch.randn(table.unpack(s))
    local m = nn.SpatialBatchNormalization(s[2]):float()
    local go = torch.randn(table.unpack(s))
    m:training()
    report('bn', s, 'fwd', x:nElement(), function() m:updateOutput(x) end)
    m:updateOutput(x)
    report('bn', s, 'bwd', x:nElement(), function() m:backward(x, go) end)
  end
end

if want.relu then
  for _, s in ipairs(shapes) do
    local x = torch.randn(table.unpack(s))
    local m = nn.ReLU(true)
    local go = torch.randn(table.unpack(s))
    report('relu', s, 'fwd', x:nElement(), function() m:updateOutput(x) end)
    m:updateOutput(x)
    report('relu', s, 'bwd', x:nElement(), function() m:updateGradInput(x, go) end)
  end
end

-- max pooling 3x3/2 (AlexNet's, output elements counted) and 2x2/2 (VGG's)
local pools = {
  {3, 2, {4, 64, 27, 27}}, {3, 2, {16, 64, 27, 27}}, {3, 2, {16, 256, 13, 13}},
  {3, 2, {16, 192, 27, 27}}, {3, 2, {16, 64, 55, 55}},
}
local pools2 = {
  {2, 2, {8, 64, 16, 16}}, {2, 2, {8, 128, 28, 28}}, {2, 2, {8, 256, 28, 28}},
  {2, 2, {8, 64, 112, 112}},
}
local function runPools(kind, list)
  for _, p in ipairs(list) do
    local k, d, s = p[1], p[2], p[3]
    local x = torch.randn(table.unpack(s))
    local m = nn.SpatialMaxPooling(k, k, d, d):float()
    local y = m:updateOutput(x)
    local go = torch.randn(y:size())
    report(kind, s, 'fwd', y:nElement(), function() m:updateOutput(x) end)
    report(kind, s, 'bwd', y:nElement(), function() m:updateGradInput(x, go) end)
  end
end
if want.pool then runPools('pool', pools) end
if want.pool2 then runPools('pool2', pools2) end
