-- examples/train_mnist.lua and examples/train_cifar.lua, each run through
-- bin/th in a subprocess on a few hundred generated samples: the test loss
-- falls, the log, its plot and a loadable checkpoint are written, -resume
-- continues exactly where a run without a stop would be, -data reads files
-- from a path, and a missing data file is a clear error.
require 'torch'
require 'nn'
local optnet = require 'optnet'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/examples_spec%.lua$') or ''
-- the build the specs run against (make test BUILD=...), so bin/th neither
-- builds nor picks another one
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function exists(p)
  local f = io.open(p, 'rb')
  if f then f:close() end
  return f ~= nil
end

-- stdout and stderr together, and the exit status
local function run(script, args)
  local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th examples/%s %s 2>&1',
                                   sh(root ~= '' and root or '.'), sh(build), script, args))
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status
end

-- epoch number -> the line's numbers
local function epochs(out)
  local t = {}
  for line in out:gmatch('[^\n]+') do
    local e = tonumber(line:match('^epoch (%d+) '))
    if e then
      t[e] = {line = line:gsub('%s+%(%d+%.%ds%)$', ''),
              trainLoss = tonumber(line:match('train loss (%d+%.%d+)')),
              testLoss = tonumber(line:match('test loss (%d+%.%d+)')),
              testAccuracy = tonumber(line:match('test accuracy (%d+%.%d+)%%'))}
    end
  end
  return t
end

for _, case in ipairs{{script = 'train_mnist.lua', shape = '1x28x28', file = 'train-images-idx3-ubyte'},
                      {script = 'train_cifar.lua', shape = '3x32x32', file = 'data_batch_1.bin'}} do
  describe('examples/' .. case.script, function()
    local tmp
    setup(function()
      tmp = os.tmpname()
      os.remove(tmp)
    end)
    teardown(function() os.execute('rm -rf ' .. sh(tmp)) end)
    local small = '-nTrain 300 -nTest 100 -batchSize 20 '

    it('trains on generated data: the loss falls, log, plot and checkpoint written, -resume continues exactly',
       function()
      local out, status = run(case.script, small .. '-epochs 1 -save ' .. sh(tmp .. '/a'))
      assert.are.equal(0, status, out)
      assert.is_truthy(out:find('data: 300 training, 100 test samples of ' .. case.shape, 1, true), out)
      assert.is_truthy(out:find('optnet: activations and buffers', 1, true), out)
      local e = epochs(out)
      assert.is_truthy(e[0] and e[1] and not e[2], out)
      assert.is_true(e[1].testLoss < e[0].testLoss, out)
      for _, f in ipairs{'checkpoint.t7', 'accuracy.log', 'data/' .. case.file} do
        assert.is_true(exists(tmp .. '/a/' .. f), f)
      end

      local checkpoint = torch.load(tmp .. '/a/checkpoint.t7')
      assert.are.equal(1, checkpoint.epoch)
      assert.are.equal('nn.Sequential', torch.type(checkpoint.net))
      assert.is_true(optnet.isOptimized(checkpoint.net))
      assert.is_truthy(checkpoint.optimState.dfdx, 'the momentum buffer is saved')
      local C, H, W = case.shape:match('(%d+)x(%d+)x(%d+)')
      checkpoint.net:evaluate()
      local y = checkpoint.net:forward(torch.FloatTensor(4, tonumber(C), tonumber(H), tonumber(W)):zero())
      assert.are.same({4, 10}, y:size():totable())

      -- epoch 2 from the checkpoint is epoch 2 of a run that never stopped
      local resumed, rs = run(case.script, small .. '-epochs 2 -resume -save ' .. sh(tmp .. '/a'))
      assert.are.equal(0, rs, resumed)
      assert.is_truthy(resumed:find('resumed from ' .. tmp .. '/a/checkpoint.t7 after epoch 1', 1, true), resumed)
      local r = epochs(resumed)
      assert.is_truthy(r[2] and not r[1] and not r[0], resumed)
      assert.is_true(r[2].testLoss < e[0].testLoss)
      assert.are.equal(2, torch.load(tmp .. '/a/checkpoint.t7').epoch)
      local whole, ws = run(case.script, small .. '-epochs 2 -save ' .. sh(tmp .. '/b'))
      assert.are.equal(0, ws, whole)
      assert.are.equal(epochs(whole)[2].line, r[2].line)
      -- the log carries both epochs; its plot (two points and more) is drawn
      local log = assert(io.open(tmp .. '/a/accuracy.log')):read('a')
      assert.are.equal(3, select(2, log:gsub('\n', '')), log)
      local svg = assert(io.open(tmp .. '/a/accuracy.log.svg')):read('a')
      assert.is_truthy(svg:find('<svg', 1, true))
      assert.is_truthy(svg:find('% test accuracy', 1, true))
    end)

    it('reads the files at -data; a missing file is a clear error', function()
      local out, status = run(case.script, '-nTrain 100 -nTest 50 -epochs 1 -optnet -data ' .. sh(tmp .. '/a/data')
                              .. ' -save ' .. sh(tmp .. '/c'))
      assert.are.equal(0, status, out)
      assert.is_truthy(out:find('data: 100 training, 50 test samples', 1, true), out)
      assert.is_nil(out:find('optnet:', 1, true), out)
      assert.is_nil(out:find('generated', 1, true), out)
      local missing, ms = run(case.script, '-data ' .. sh(tmp .. '/nothing') .. ' -save ' .. sh(tmp .. '/d'))
      assert.are.equal(1, ms, missing)
      assert.is_truthy(missing:find('load: file not found: ', 1, true), missing)
      assert.is_nil(missing:find('traceback', 1, true), missing)
    end)
  end)
end
