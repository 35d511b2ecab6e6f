-- The main job (make demo): build a zoo net, optimize its memory for
-- inference and for training, and print before / after / lower bound.
--   bin/th examples/demo.lua [model] [batch]     (default: resnet-56 cifar, batch 32)
require 'torch'
require 'nn'
local optnet = require 'optnet'

local name = arg and arg[1] or 'resnet'
local batch = tonumber(arg and arg[2] or 32)
local opts = {batch = batch, type = 'float'}
if name == 'resnet' then opts.dataset, opts.depth = 'cifar10', 56 end

local function MiB(b) return string.format('%9.2f', b / 2^20) end

local function show(title, before, after)
  print(string.format('\n%s', title))
  print(string.format('  %-12s %12s %12s %12s %8s', 'category', 'before MiB', 'after MiB', 'bound MiB', 'save'))
  for _, k in ipairs{'outputs', 'gradInputs', 'buffers', 'params', 'total_size'} do
    local save = before[k] > 0 and string.format('%7.1f%%', 100 * (after[k] - before[k]) / before[k]) or '      -'
    local bound = ''
    if k == 'total_size' then bound = MiB(after.lower_bound) end
    print(string.format('  %-12s %12s %12s %12s %8s', k, MiB(before[k]), MiB(after[k]), bound, save))
  end
  print(string.format('  activations after / lower bound: %.3f',
    (after.total_size - after.params - after.state) / math.max(1, after.lower_bound_activations)))
end

torch.manualSeed(1)
local net, input = require('models.' .. name)(opts)
print(string.format('model: %s, batch %d, float', name, batch))

for _, mode in ipairs{'inference', 'training'} do
  if mode == 'inference' then net:evaluate() else net:training() end
  -- the unoptimized net after one pass
  local out = net:forward(input)
  if mode == 'training' then net:backward(input, out:clone():fill(1 / out:nElement())) end
  local reference = net.output:clone()
  local before = optnet.countUsedMemory(net)
  optnet.optimizeMemory(net, input, {mode = mode})
  net:forward(input)
  local same = (net.output - reference):abs():max() == 0
  local after = optnet.countUsedMemory(net, input, {mode = mode})
  show(string.format('%s (output identical to unoptimized: %s)', mode, tostring(same)), before, after)
  optnet.removeOptimization(net)
end
