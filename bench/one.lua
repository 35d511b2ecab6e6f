-- Our side of `make bench-speed`, one model in a fresh process:
--   bin/th bench/one.lua <model> <batch> <infer|train> [warmup] [runs]
--     runs warmup + runs steps, prints one line of key=value pairs
--     (median_ms, min_ms, peak_mb, first_peak_mb, baseline_mb, params, blas;
--     baseline_mb = RSS once the net is built, start_mb = before it is built);
--     handy under `perf record`.
--   bin/th bench/one.lua <model> <batch> <infer|train> [warmup] --serve
--     the protocol bench/speed.lua alternates with bench/torch_peer.py:
--     after the warm-up prints "ready peak_mb=<VmHWM after the first step> ...",
--     then answers each "step" line with "ms=<one step>" and "quit" with
--     "done cpu_s=<CPU seconds since ready> peak_mb=...".
-- A training step is forward, ClassNLLCriterion, backward, with
-- zeroGradParameters outside the timed part; inference is forward in evaluate mode.
require 'torch'
require 'nn'

local CONFIGS = {
  mlp = {'mlp', {}, 10},
  alexnet = {'alexnet', {}, 1000},
  ['vgg-A'] = {'vgg', {modelType = 'A'}, 1000},
  ['resnet-18'] = {'resnet', {dataset = 'imagenet', depth = 18}, 1000},
  ['resnet-56'] = {'resnet', {dataset = 'cifar10', depth = 56}, 10},
  ['resnet-110'] = {'resnet', {dataset = 'cifar10', depth = 110}, 10},
  ['resnet-50'] = {'resnet', {dataset = 'imagenet', depth = 50}, 1000},
  googlenet = {'googlenet', {aux = false}, 1000},
  densenet = {'densenet', {dataset = 'cifar10', depth = 100, growthRate = 12}, 10},
}

-- '--optnet' anywhere after the mode: the net is then run after
-- optnet.optimizeMemory (mode 'inference' with foldBatchNorm for infer,
-- 'training' for train)
local useOptnet = false
for i = #arg, 4, -1 do
  if arg[i] == '--optnet' then useOptnet = true; table.remove(arg, i) end
end
local name, batch, mode = arg[1], tonumber(arg[2]), arg[3]
local warmup = tonumber(arg[4] or 2)
local serve = arg[5] == '--serve'
local runs = serve and 0 or tonumber(arg[5] or 5)
local cfg = CONFIGS[name]
if not cfg or not batch or (mode ~= 'infer' and mode ~= 'train') or not warmup or warmup < 1
    or not runs or (not serve and runs < 1) then
  local names = {}
  for k in pairs(CONFIGS) do names[#names + 1] = k end
  table.sort(names)
  io.stderr:write('usage: bench/one.lua <' .. table.concat(names, '|')
    .. '> <batch> <infer|train> [warmup>=1] [runs|--serve] [--optnet]\n')
  os.exit(2)
end

local function vm(field)
  local f = assert(io.open('/proc/self/status'))
  local s = f:read('a')
  f:close()
  return tonumber(s:match(field .. ':%s*(%d+)')) / 1024
end

torch.setnumthreads(2)
torch.manualSeed(0)
-- built in float from the start, as PyTorch builds it: building in double
-- and converting would leave twice the parameters in the peak memory
torch.setdefaulttensortype('torch.FloatTensor')
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
collectgarbage()
local startRss = vm('VmRSS')  -- the runtime alone, before the net is built
local net, input = require('models.' .. cfg[1])(opts)
local target = torch.LongTensor(batch):random(1, cfg[3])
local crit = nn.ClassNLLCriterion():float()
-- counted without getParameters, whose flattening copy would double the
-- parameters for a moment and so the peak memory
local params = 0
for _, p in ipairs((net:parameters())) do params = params + p:nElement() end
collectgarbage()
local baseline = vm('VmRSS')

-- the input needs no gradient: its first layer computes none (Torch7's
-- idiom, as in fb.resnet.torch; PyTorch skips it for an input that does
-- not require grad)
local first = net
while first.modules and first.modules[1] do first = first.modules[1] end
if torch.isTypeOf(first, 'nn.SpatialConvolution') or torch.isTypeOf(first, 'nn.Linear') then
  first.gradInput = nil
end

-- work of one step counted as direct convolution and dense products:
-- 2 * B * nOut * nIn * kH * kW * oH * oW per convolution phase (forward,
-- gradInput unless the module computes none, gradWeight), 2 * B * in * out
-- per Linear phase; sizes from a forward at this batch
local function countGflop()
  net:evaluate()
  net:forward(input)
  local fl = 0
  for _, m in ipairs(net:listModules()) do
    local per
    local tn = torch.typename(m)
    if tn == 'nn.SpatialConvolution' or tn == 'nn.SpatialConvolutionMM' then
      local o = m.output
      local d = o:dim()
      per = 2 * (d == 4 and o:size(1) or 1) * m.nOutputPlane * m.nInputPlane * m.kH * m.kW
        * o:size(d - 1) * o:size(d)
    elseif tn == 'nn.Linear' then
      local o = m.output
      per = 2 * (o:dim() == 2 and o:size(1) or 1) * m.weight:size(1) * m.weight:size(2)
    end
    if per then
      fl = fl + per
      if mode == 'train' then fl = fl + per + (m.gradInput and per or 0) end
    end
  end
  return fl / 1e9
end
local gflop = countGflop()

if useOptnet then
  local optnet = require 'optnet'
  if mode == 'infer' then net:evaluate() else net:training() end
  if mode == 'infer' then
    optnet.optimizeMemory(net, input, {mode = 'inference', foldBatchNorm = true})
  else
    optnet.optimizeMemory(net, input, {mode = 'training'})
  end
end

local step
if mode == 'infer' then
  net:evaluate()
  step = function() net:forward(input) end
else
  net:training()
  step = function()
    local out = net:forward(input)
    crit:forward(out, target)
    net:backward(input, crit:backward(out, target))
  end
end

local clock = torch._C.clock
local function timed()
  if mode == 'train' then net:zeroGradParameters() end
  local t0 = clock()
  step()
  return (clock() - t0) * 1000
end

timed()
local firstPeak = vm('VmHWM')
for _ = 2, warmup do timed() end
local core, blasThreads = torch._C.blasinfo()
local blas = string.format('%s/%d', core, blasThreads)

if serve then
  io.stdout:setvbuf('line')
  print(string.format('ready peak_mb=%.1f baseline_mb=%.1f start_mb=%.1f blas=%s threads=%d params=%d gflop=%.4f',
    firstPeak, baseline, startRss, blas, torch.getnumthreads(), params, gflop))
  local _, cpu0 = clock()
  for line in io.lines() do
    if line == 'step' then
      print(string.format('ms=%.3f', timed()))
    elseif line == 'quit' then
      break
    end
  end
  local _, cpu1 = clock()
  print(string.format('done cpu_s=%.3f peak_mb=%.1f', cpu1 - cpu0, vm('VmHWM')))
  return
end

local times = {}
for i = 1, runs do times[i] = timed() end
table.sort(times)
local median = times[(#times + 1) // 2]
if #times % 2 == 0 then median = (times[#times // 2] + times[#times // 2 + 1]) / 2 end
print(string.format('model=%s batch=%d mode=%s median_ms=%.2f min_ms=%.2f peak_mb=%.1f '
  .. 'first_peak_mb=%.1f baseline_mb=%.1f params=%d blas=%s gflop=%.4f gflops=%.1f optnet=%s', name,
  batch, mode, median, times[1], vm('VmHWM'), firstPeak, baseline, params, blas, gflop,
  gflop / median * 1000, tostring(useOptnet)))
