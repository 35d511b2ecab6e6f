-- The data-loading pattern of fb.resnet.torch's dataloader.lua, run as
-- written there: a dataset class from a module on package.path, required
-- by an init function; a main function storing the dataset (an upvalue)
-- in each thread; batches made in the threads and shared back.
require 'torch'
local threads = require 'threads'
local core = require 'threads.core'

describe('threads: a data loader the fb.resnet.torch way', function()
  local dir, savedpath

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    os.execute('mkdir -p ' .. dir .. '/loaderds')
    local f = assert(io.open(dir .. '/loaderds/squares.lua', 'w'))
    f:write([[
      local M = {}
      local SquaresDataset = torch.class('loaderspec.SquaresDataset', M)
      function SquaresDataset:__init(n)
        self.values = torch.range(1, n):float()
        self.split = 'train'
      end
      function SquaresDataset:size() return self.values:size(1) end
      function SquaresDataset:get(i)
        return {input = torch.FloatTensor(3):fill(self.values[i] ^ 2), target = i}
      end
      function SquaresDataset:preprocess()
        return function(x) return x:clone():mul(2) end
      end
      return M
    ]])
    f:close()
    savedpath = package.path
    package.path = dir .. '/?.lua;' .. package.path
  end)

  teardown(function()
    package.path = savedpath
    os.execute('rm -rf ' .. dir)
    threads.Threads.serialization('threads.serialize')
  end)

  it('loads every sample once, with the values the serial loop gives', function()
    local M = require 'loaderds.squares'
    local dataset = M.SquaresDataset(23)
    threads.Threads.serialization('threads.sharedserialize')
    local manualSeed = 5
    local function init() require('loaderds.squares') end
    local function main(idx)
      torch.manualSeed(manualSeed + idx)
      torch.setnumthreads(1)
      _G.dataset = dataset
      _G.preprocess = dataset:preprocess()
      return dataset:size()
    end
    local pool, sizes = threads.Threads(3, init, main)
    assert.are.equal(23, sizes[1][1])
    local perm = torch.randperm(23)
    local batchSize, idx = 4, 1
    local inputs, targets = torch.FloatTensor(23, 3):zero(), {}
    local function enqueue()
      while idx <= 23 and pool:acceptsjob() do
        local indices = perm:narrow(1, idx, math.min(batchSize, 23 - idx + 1))
        pool:addjob(function(ind)
          local sz = ind:size(1)
          local batch = torch.FloatTensor(sz, 3)
          local target = torch.IntTensor(sz)
          for i, k in ipairs(ind:totable()) do
            local sample = _G.dataset:get(k)
            batch[i]:copy(_G.preprocess(sample.input))
            target[i] = sample.target
          end
          collectgarbage()
          return {input = batch, target = target}
        end, function(s)
          for i = 1, s.target:size(1) do
            local k = s.target[i]
            targets[#targets + 1] = k
            inputs[k]:copy(s.input[i])
          end
        end, indices)
        idx = idx + batchSize
      end
    end
    repeat
      enqueue()
      if pool:hasjob() then pool:dojob() end
    until not pool:hasjob() and idx > 23
    pool:terminate()
    table.sort(targets)
    for k = 1, 23 do
      assert.are.equal(k, targets[k])
      assert.are.equal(2 * k * k * 3, inputs[k]:sum())
    end
    collectgarbage()
    assert.are.same({0, 0}, {core.count()})
  end)
end)
