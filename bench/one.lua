-- One speed measurement in a fresh process (so peak RSS is this model's):
--   lua5.4 bench/one.lua <model> <batch> <infer|train> [warmup] [runs]
-- Prints one line: key=value pairs (median_ms, min_ms, peak_rss_mb, baseline_rss_mb, params).
require 'torch'
require 'nn'

local CONFIGS = {
  mlp = {'mlp', {}},
  alexnet = {'alexnet', {}},
  ['vgg-A'] = {'vgg', {modelType = 'A'}},
  ['resnet-18'] = {'resnet', {dataset = 'imagenet', depth = 18}},
  ['resnet-56'] = {'resnet', {dataset = 'cifar10', depth = 56}},
  ['resnet-110'] = {'resnet', {dataset = 'cifar10', depth = 110}},
}

local name, batch, mode = arg[1], tonumber(arg[2]), arg[3]
local warmup, runs = tonumber(arg[4] or 2), tonumber(arg[5] or 5)
local cfg = CONFIGS[name]
if not cfg or not batch or (mode ~= 'infer' and mode ~= 'train') then
  io.stderr:write('usage: one.lua <model> <batch> <infer|train> [warmup] [runs]\n')
  os.exit(2)
end

local function rssMiB(field)
  local f = io.open('/proc/self/status')
  local s = f:read('a')
  f:close()
  return tonumber(s:match(field .. ':%s*(%d+)')) / 1024
end

torch.setnumthreads(2)
torch.manualSeed(0)
local opts = {batch = batch, type = 'float'}
for k, v in pairs(cfg[2]) do opts[k] = v end
local net, input = require('models.' .. cfg[1])(opts)
local nClasses = name:match('resnet%-%d+$') and not name:match('18') and 10 or (name == 'mlp' and 10 or 1000)
local target = torch.LongTensor(batch):random(1, nClasses)
local crit = nn.ClassNLLCriterion():float()
local params = net:getParameters():nElement()
collectgarbage()
local baseline = rssMiB('VmRSS')

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

local times = {}
for i = 1, warmup + runs do
  if mode == 'train' then net:zeroGradParameters() end
  local t0 = torch._C.clock()
  step()
  local t1 = torch._C.clock()
  if i > warmup then times[#times + 1] = (t1 - t0) * 1000 end
end
table.sort(times)
local median = times[(#times + 1) // 2]
if #times % 2 == 0 then median = (times[#times // 2] + times[#times // 2 + 1]) / 2 end
print(string.format('model=%s batch=%d mode=%s median_ms=%.2f min_ms=%.2f peak_rss_mb=%.1f baseline_rss_mb=%.1f params=%d',
  name, batch, mode, median, times[1], rssMiB('VmHWM'), baseline, params))
