-- The main job (make demo): build a zoo net, optimize its memory for
-- inference and for training, and print before / after / lower bound, and
-- whether the optimized net's output (a tensor or a table of them: googlenet,
-- multioutput) and, in training, its gradients equal the unoptimized net's.
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

-- the net's output may be a tensor or a (nested) table of tensors
local function copyOf(v)
  if torch.isTensor(v) then return v:clone() end
  local r = {}
  for k, x in pairs(v) do r[k] = copyOf(x) end
  return r
end

-- the largest elementwise difference; math.huge for another shape or a NaN
local function maxDiff(a, b)
  if torch.isTensor(a) then
    if not (torch.isTensor(b) and a:isSameSizeAs(b)) then return math.huge end
    local d = a:nElement() == 0 and 0 or (a - b):abs():max()
    return d == d and d or math.huge
  end
  if type(b) ~= 'table' or torch.isTensor(b) or #a ~= #b then return math.huge end
  local m = 0
  for k, x in pairs(a) do m = math.max(m, maxDiff(x, b[k])) end
  return m
end

-- dE/d(output) of the mean of every output
local function gradOutputOf(out)
  if torch.isTensor(out) then return out:clone():fill(1 / math.max(1, out:nElement())) end
  local r = {}
  for k, x in pairs(out) do r[k] = gradOutputOf(x) end
  return r
end

-- one pass: a copy of the output taken before backward (which may reuse its
-- memory) and, in training, of the gradients (input's, then parameters').
-- The seed makes Dropout draw the same masks in every pass.
local function pass(net, input, mode)
  torch.manualSeed(2)
  local out = net:forward(input)
  local output = copyOf(out)
  if mode == 'training' then
    net:zeroGradParameters()
    local gradInput = net:backward(input, gradOutputOf(out))
    local _, gradParams = net:parameters()
    return output, copyOf({gradInput, gradParams or {}})
  end
  return output
end

torch.manualSeed(1)
local net, input = require('models.' .. name)(opts)
print(string.format('model: %s, batch %d, float', name, batch))

for _, mode in ipairs{'inference', 'training'} do
  if mode == 'inference' then net:evaluate() else net:training() end
  -- the unoptimized net after one pass
  local reference, refGrads = pass(net, input, mode)
  local before = optnet.countUsedMemory(net)
  optnet.optimizeMemory(net, input, {mode = mode})
  local output, grads = pass(net, input, mode)
  local same = tostring(maxDiff(output, reference) == 0)
  if grads then same = same .. ', gradients: ' .. tostring(maxDiff(grads, refGrads) == 0) end
  local after = optnet.countUsedMemory(net, input, {mode = mode})
  show(string.format('%s (output identical to unoptimized: %s)', mode, same), before, after)
  optnet.removeOptimization(net)
end
