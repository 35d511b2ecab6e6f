-- optnet.test(tests, opts): optnet's check over OptNet's own test networks
-- (optnet.models), as OptNet users run it after require 'optnet'. Per model
-- three tests, named as in OptNet's suite:
--   <model>           inference: the same output after optimizeMemory, and
--                     countUsedMemory's total not larger
--   <model>_backward  training (mode = 'training'): the same output, and
--                     gradInput and gradParameters within 1e-6
--   <model>_remove    optimizeMemory then removeOptimization: forward and
--                     backward give what they gave before
-- resnet and preresnet run at cifar10 depths 20, 32, 56 and 110 (resnet20,
-- preresnet56_backward, ...). tests: a test name or a list of names (all by
-- default). opts.only_basic_tests = true skips alexnet, vgg, googlenet and
-- the ResNets; opts.verbose = true prints the memory figures (OptNet's
-- opts.use_cudnn is an error: no CUDA here). Runs in
-- torch.FloatTensor (the default type is restored after) and returns the
-- torch.Tester; like every Tester run it raises an error if a test failed.
-- OptNet's own tests.lua, when dofile'd, replaces optnet.test with its own.
local optnet = require 'optnet'
local models = require 'optnet.models'
local utils = require 'optnet.utils'

local BACKWARD_TOL = 1e-6
local DEPTHS = {20, 32, 56, 110}
local BIG = {'alexnet', 'vgg', 'googlenet'}
for _, d in ipairs(DEPTHS) do
  BIG[#BIG + 1] = 'resnet' .. d
  BIG[#BIG + 1] = 'preresnet' .. d
end

local function megabytes(b) return b / 2^20 end

local function report(verbose, model, before, after, fields)
  if not verbose then return end
  print(string.format('%s: memory (MB) before, after, saved', model))
  for _, f in ipairs(fields) do
    local a, b = before[f], after[f]
    print(string.format('  %-10s %10.3f %10.3f %6.1f%%', f, megabytes(a), megabytes(b),
      a > 0 and 100 * (1 - b / a) or 0))
  end
end

-- forward, then backward of the output itself as gradOutput, from zeroed
-- gradients: the output, gradInput and flat gradParameters, cloned
local function pass(net, input)
  local out = utils.recursiveClone(net:forward(input))
  net:zeroGradParameters()
  local gradInput = utils.recursiveClone(net:backward(input, utils.recursiveClone(out)))
  local _, gradParams = net:getParameters()
  return out, gradInput, gradParams:clone()
end

local function build(name, opts)
  if opts then return models[name](opts) end
  return models[name]()
end

local function suite(tester, verbose)
  local function forward(name, opts)
    local net, input = build(name, opts)
    net:evaluate()
    local ref = utils.recursiveClone(net:forward(input))
    local before = optnet.countUsedMemory(net)
    optnet.optimizeMemory(net, input)
    local out = utils.recursiveClone(net:forward(input))
    local after = optnet.countUsedMemory(net)
    tester:eq(ref, out, 'Outputs differ after optimization of ' .. name)
    tester:assertle(after.total_size, before.total_size, string.format(
      'Optimized model uses more memory! Before: %d bytes, After: %d bytes', before.total_size, after.total_size))
    report(verbose, name, before, after, {'total_size', 'outputs', 'buffers', 'params'})
  end

  local function backward(name, opts)
    local net, input = build(name, opts)
    net:training()
    -- before: Torch7's plain net, which kept every gradInput (OptNet's
    -- figure); ours releases them in backward (nn/gradrelease.lua)
    local keep = nn.keepGradInputs(true)
    local out0, gi0, gp0 = pass(net, input)
    local before = optnet.countUsedMemory(net)
    nn.keepGradInputs(keep)
    optnet.optimizeMemory(net, input, {mode = 'training'})
    local out, gi, gp = pass(net, input)
    local after = optnet.countUsedMemory(net)
    tester:eq(out0, out, 'Outputs differ after optimization of ' .. name)
    tester:eq(gi0, gi, BACKWARD_TOL, 'GradInputs differ after optimization of ' .. name)
    tester:eq(gp0, gp, BACKWARD_TOL, 'GradParams differ after optimization of ' .. name)
    tester:assertle(after.total_size, before.total_size, string.format(
      'Optimized model uses more memory! Before: %d bytes, After: %d bytes', before.total_size, after.total_size))
    report(verbose, name, before, after, {'total_size', 'outputs', 'gradInputs', 'buffers', 'params'})
  end

  local function remove(name, opts)
    local net, input = build(name, opts)
    net:training()
    local out0, gi0, gp0 = pass(net, input)
    optnet.optimizeMemory(net, input)
    optnet.removeOptimization(net)
    local out, gi, gp = pass(net, input)
    tester:eq(out0, out, 'Outputs differ after removing the optimization of ' .. name)
    tester:eq(gi0, gi, BACKWARD_TOL, 'GradInputs differ after removing the optimization of ' .. name)
    tester:eq(gp0, gp, BACKWARD_TOL, 'GradParams differ after removing the optimization of ' .. name)
  end

  local tests = torch.TestSuite()
  local function add(name, model, opts)
    tests[name] = function() forward(model, opts) end
    tests[name .. '_backward'] = function() backward(model, opts) end
    tests[name .. '_remove'] = function() remove(model, opts) end
  end
  for name in pairs(models) do
    if name ~= 'resnet' and name ~= 'preresnet' then add(name, name) end
  end
  for _, d in ipairs(DEPTHS) do
    add('resnet' .. d, 'resnet', {dataset = 'cifar10', depth = d})
    add('preresnet' .. d, 'preresnet', {dataset = 'cifar10', depth = d})
  end
  tester:add(tests)
end

return function(tests, opts)
  if opts ~= nil and type(opts) ~= 'table' then
    error(string.format('optnet.test: options table expected as argument 2, got %s', torch.type(opts)), 2)
  end
  opts = opts or {}
  if opts.use_cudnn then
    error('optnet.test: use_cudnn = true needs cudnn and CUDA tensors, which this CPU engine does not have', 2)
  end
  local tester = torch.Tester()
  suite(tester, opts.verbose)
  if opts.only_basic_tests then
    local off = {}
    for _, name in ipairs(BIG) do
      for _, suffix in ipairs{'', '_backward', '_remove'} do off[#off + 1] = name .. suffix end
    end
    tester:disable(off)
  end
  local saved = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.FloatTensor')
  local ok, err = pcall(tester.run, tester, tests)
  torch.setdefaulttensortype(saved)
  if not ok then error(err, 0) end
  return tester
end
