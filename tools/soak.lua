-- soak.lua: a long optimized training run that must not leak or diverge.
--   bin/th tools/soak.lua [--iters 1000] [--cycles 100] [--batch 32] [--every 100]
-- Trains models.resnet (cifar10, depth 20, float) with optnet's training-mode
-- optimization and optim.sgd on synthetic data (a fixed pool of random
-- batches the net learns to memorise, so the loss must fall). Every
-- 'every' iterations it prints the resident memory (VmRSS from
-- /proc/self/status, read after a full garbage collection and malloc_trim,
-- so that only live memory counts, not what glibc keeps for reuse) and
-- the storage bytes the allocator holds. Checks:
--   * from iteration 'every' on, VmRSS stays within 1% of its value there;
--   * every loss is finite, and the mean loss of the last report period
--     is below that of the first;
--   * then 'cycles' removeOptimization/optimizeMemory cycles (each followed
--     by one training step) leave VmRSS within 1% and the live storage
--     bytes exactly where they were after a warm-up of cycles/10 cycles.
-- Exits 1 on any failed check (make soak fails), 0 otherwise.
require 'torch'
require 'nn'
require 'optim'
local optnet = require 'optnet'

local opt = {iters = 1000, cycles = 100, batch = 32, every = 100, pool = 8, seed = 1}
do
  local i = 1
  while i <= #arg do
    local k = arg[i]:match('^%-%-(%w+)$')
    if not k or opt[k] == nil or not tonumber(arg[i + 1]) then
      io.stderr:write('usage: soak.lua [--iters N] [--cycles N] [--batch N] [--every N] [--pool N] [--seed N]\n')
      os.exit(2)
    end
    opt[k] = math.tointeger(tonumber(arg[i + 1])) or tonumber(arg[i + 1])
    i = i + 2
  end
end

local function rssKiB()
  collectgarbage()
  collectgarbage()
  torch._C.mallocTrim()  -- free heap pages back to the system: RSS = live memory
  local f = assert(io.open('/proc/self/status'))
  local s = f:read('a')
  f:close()
  return tonumber(s:match('VmRSS:%s*(%d+)'))
end

local function liveBytes()
  collectgarbage()
  collectgarbage()
  return torch.memoryStats().live_bytes
end

local failures = {}
local function check(ok, fmt, ...)
  if not ok then
    failures[#failures + 1] = string.format(fmt, ...)
    print('FAIL: ' .. failures[#failures])
  end
end

torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(opt.seed)
local net = require('models.resnet'){dataset = 'cifar10', depth = 20, type = 'float'}
local crit = nn.ClassNLLCriterion():float()
local inputs, targets = {}, {}
for b = 1, opt.pool do
  inputs[b] = torch.FloatTensor(opt.batch, 3, 32, 32):normal()
  targets[b] = torch.LongTensor(opt.batch):random(1, 10)
end

local params, grads = net:getParameters()
net:training()
optnet.optimizeMemory(net, inputs[1], {mode = 'training'})
print(string.format('soak: resnet-20 cifar10, batch %d, %d parameters, optnet training mode, %d iterations, threads %d',
                    opt.batch, params:nElement(), opt.iters, torch.getnumthreads()))

local sgd = {learningRate = 0.05, momentum = 0.9, weightDecay = 1e-4}
local function step(b)
  local x, y = inputs[b], targets[b]
  local loss
  optim.sgd(function()
    grads:zero()
    local out = net:forward(x)
    loss = crit:forward(out, y)
    net:backward(x, crit:backward(out, y))
    return loss, grads
  end, params, sgd)
  return loss
end

local t0 = os.clock()
local wall0 = os.time()
local base, sum, firstMean, lastMean = nil, 0, nil, nil
local maxDrift = 0
for it = 1, opt.iters do
  local loss = step((it - 1) % opt.pool + 1)
  check(loss == loss and loss > -math.huge and loss < math.huge, 'iteration %d: loss %s is not finite', it, tostring(loss))
  sum = sum + loss
  if it % opt.every == 0 then
    local mean = sum / opt.every
    sum = 0
    firstMean = firstMean or mean
    lastMean = mean
    local rss = rssKiB()
    base = base or rss
    local drift = (rss - base) / base
    if math.abs(drift) > maxDrift then maxDrift = math.abs(drift) end
    print(string.format('iter %5d  loss %.4f  VmRSS %8d KiB  drift %+6.2f%%  storages %.1f MiB  %.2f s/iter (cpu)',
                        it, mean, rss, 100 * drift, liveBytes() / 2 ^ 20, (os.clock() - t0) / it))
    io.stdout:flush()
    check(math.abs(drift) <= 0.01, 'iteration %d: VmRSS %d KiB drifted %.2f%% from %d KiB at iteration %d',
          it, rss, 100 * drift, base, opt.every)
  end
end
if firstMean then
  check(lastMean < firstMean, 'loss did not fall: first period mean %.4f, last %.4f', firstMean, lastMean)
end
print(string.format('training: %d iterations in %d s wall, loss %.4f -> %.4f, max VmRSS drift %.2f%%',
                    opt.iters, os.time() - wall0, firstMean or 0 / 0, lastMean or 0 / 0, 100 * maxDrift))

-- optimize/remove cycles: each leaves the net as it found it
local cycleBase, liveBase
for c = 1, opt.cycles do
  optnet.removeOptimization(net)
  optnet.optimizeMemory(net, inputs[1], {mode = 'training'})
  local loss = step(c % opt.pool + 1)
  check(loss == loss, 'cycle %d: loss is NaN', c)
  -- the baseline is taken after a warm-up of 10% of the cycles: the first
  -- ones settle malloc's arenas (each trace runs the net unoptimized once)
  local warm = math.max(1, opt.cycles // 10)
  if c == warm then
    cycleBase, liveBase = rssKiB(), liveBytes()
    print(string.format('cycle %4d  VmRSS %8d KiB  (baseline)  storages %d bytes', c, cycleBase, liveBase))
  elseif c > warm and (c % 10 == 0 or c == opt.cycles) then
    local rss, live = rssKiB(), liveBytes()
    local drift = (rss - cycleBase) / cycleBase
    print(string.format('cycle %4d  VmRSS %8d KiB  drift %+6.2f%%  storages %d bytes (%+d)', c, rss,
                        100 * drift, live, live - liveBase))
    io.stdout:flush()
    if c == opt.cycles then
      check(drift <= 0.01, 'after %d cycles VmRSS grew %.2f%% (%d -> %d KiB)', c, 100 * drift, cycleBase, rss)
      check(live == liveBase, 'after %d cycles live storage bytes changed: %d -> %d', c, liveBase, live)
    end
  end
end

if #failures > 0 then
  print(string.format('soak: FAILED (%d checks)', #failures))
  os.exit(1)
end
print('soak: passed')
