-- nn and dispose scopes (issue 7, nn integration): a module's output,
-- gradInput, parameters and buffers are owned by the module, never freed by
-- the scope they were born in, so forward/backward inside a scope free only
-- true temporaries. See docs/memory.md.
require 'nn'
require 'optim'

local function stats() return torch.memoryStats() end
local function cat(name) return stats().categories[name] end

local function fresh()
  collectgarbage()
  collectgarbage()
end

-- every tensor reachable from a module is alive (not freed)
local function allAlive(root)
  local seen, dead = {}, {}
  local function walk(v, path)
    if torch.isTensor(v) then
      if v:isFreed() then dead[#dead + 1] = path end
    elseif type(v) == 'table' and not seen[v] then
      seen[v] = true
      for k, x in pairs(v) do walk(x, path .. '.' .. tostring(k)) end
    end
  end
  walk(root, 'net')
  return #dead == 0, table.concat(dead, ', ')
end

local function mlp()
  return nn.Sequential():add(nn.Linear(6, 8)):add(nn.ReLU()):add(nn.Dropout(0.2))
                        :add(nn.Linear(8, 3)):add(nn.LogSoftMax())
end

local function convnet()
  return nn.Sequential()
    :add(nn.SpatialConvolution(2, 4, 3, 3, 1, 1, 1, 1))
    :add(nn.SpatialBatchNormalization(4))
    :add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2))
    :add(nn.View(-1):setNumInputDims(3))
    :add(nn.Linear(4 * 3 * 3, 5))
end

describe('nn modules and dispose scopes', function()
  before_each(function() torch.manualSeed(3) end)
  after_each(function() assert.is_nil(torch.currentDisposeScope(), 'a test left a scope open') end)

  it('a module built inside a scope survives it, with its tensors module-owned', function()
    local net
    do
      local _ <close> = torch.DisposeScope()
      net = mlp()
    end
    local ok, dead = allAlive(net)
    assert.is_true(ok, dead)
    assert.are.equal('module', net.modules[1].weight:_memoryCategory())
    assert.are.equal(3, net:forward(torch.randn(6)):size(1))
  end)

  it('forward/backward inside a scope keep lazily made buffers and free the temporaries', function()
    local net, crit = convnet(), nn.CrossEntropyCriterion()
    for _ = 1, 3 do
      local x
      do
        local _ <close> = torch.DisposeScope()
        x = torch.randn(2, 2, 6, 6)
        local y = torch.LongTensor{1, 4}
        local out = net:forward(x)
        crit:forward(out, y)
        net:backward(x, crit:backward(out, y))
      end
      assert.is_true(x:isFreed(), 'the input was a temporary of the scope')
      local ok, dead = allAlive(net)
      assert.is_true(ok, dead)
      local ok2, dead2 = allAlive(crit)
      assert.is_true(ok2, dead2)
    end
    fresh()
    assert.are.equal(0, cat('scoped').live_bytes)
    -- the module keeps working outside any scope
    assert.are.same({2, 5}, net:forward(torch.randn(2, 2, 6, 6)):size():totable())
  end)

  it('an error inside forward in a scope leaves the module usable', function()
    local net = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Tanh())
    local ok = pcall(function()
      local _ <close> = torch.DisposeScope()
      net:forward(torch.randn(4))
      net:forward(torch.randn(5))   -- wrong size: raises
    end)
    assert.is_false(ok)
    local ok2, dead = allAlive(net)
    assert.is_true(ok2, dead)
    assert.are.equal(3, net:forward(torch.randn(4)):size(1))
  end)

  it('clone, type, getParameters and torch.load inside a scope give module-owned tensors', function()
    local net = mlp()
    local file = os.tmpname()
    torch.save(file, net)
    local c, f, loaded, p, g
    do
      local _ <close> = torch.DisposeScope()
      c = net:clone()
      f = mlp():float()
      loaded = torch.load(file)
      local n2 = mlp()
      n2:forward(torch.randn(6))
      p, g = n2:getParameters()
      n2:backward(torch.randn(6), torch.randn(3))
    end
    os.remove(file)
    for _, m in ipairs{c, f, loaded} do
      local ok, dead = allAlive(m)
      assert.is_true(ok, dead)
    end
    assert.is_false(p:isFreed())
    assert.is_false(g:isFreed())
    assert.are.equal(6 * 8 + 8 + 8 * 3 + 3, p:nElement())
    assert.are.equal('torch.FloatTensor', torch.type(f.modules[1].weight))
  end)

  it('optnet arenas made inside a scope are module memory and survive it', function()
    local ok, optnet = pcall(require, 'optnet')
    if not ok then pending('optnet did not load') return end
    local net = nn.Sequential():add(nn.Linear(10, 20)):add(nn.ReLU()):add(nn.Linear(20, 5))
    local x = torch.randn(4, 10)
    local ref = net:forward(x):clone()
    do
      local _ <close> = torch.DisposeScope()
      optnet.optimizeMemory(net, torch.randn(4, 10), {mode = 'training'})
      net:forward(torch.randn(4, 10))
    end
    local ok2, dead = allAlive(net)
    assert.is_true(ok2, dead)
    for _ = 1, 3 do
      local _ <close> = torch.DisposeScope()
      net:forward(torch.randn(4, 10))
      net:backward(x, torch.randn(4, 5))
    end
    assert.are.equal(0, (net:forward(x) - ref):abs():max())
    assert.are.equal('module', torch.getMemoryCategory(net.modules[2].output:storage()))
    optnet.removeOptimization(net)
  end)

  it('torch.memoryStats counts module memory as module, temporaries as scoped', function()
    fresh()
    local before = cat('module').live_bytes
    local net = nn.Linear(100, 50)   -- 2 x (5000 + 50) doubles of parameters and gradients
    local grew = cat('module').live_bytes - before
    assert.is_true(grew >= 2 * 5050 * 8, 'module bytes grew by ' .. grew)
    local s <close> = torch.DisposeScope()
    local fromScope = cat('scoped').live_bytes
    local x = torch.randn(100)
    net:forward(x)
    assert.is_true(cat('scoped').live_bytes - fromScope >= 100 * 8)
    assert.are.equal('module', net.output:_memoryCategory())
    assert.are.equal('scoped', x:_memoryCategory())
  end)

  it('trains 200 iterations with a scope per iteration at flat peak memory', function()
    local net = convnet()
    local crit = nn.CrossEntropyCriterion()
    local p, g = net:getParameters()
    local X = torch.randn(64, 2, 6, 6)
    local Y = torch.LongTensor(64):random(1, 5)
    local config = {learningRate = 0.05, momentum = 0.9}
    fresh()
    torch.resetPeakMemory()
    local peak10, first, last
    for it = 1, 200 do
      local _ <close> = torch.DisposeScope()
      local _, fs = optim.sgd(function()
        g:zero()
        local out = net:forward(X)
        local loss = crit:forward(out, Y)
        net:backward(X, crit:backward(out, Y))
        return loss, g
      end, p, config)
      if it == 1 then first = fs[1] end
      last = fs[1]
      if it == 10 then peak10 = stats().peak_bytes end
    end
    local peak200 = stats().peak_bytes
    -- flat: the tensors of an iteration go with its scope; only the small
    -- LongStorages of size() calls wait for the collector (a few KiB)
    assert.is_true(peak200 - peak10 <= 0.05 * peak10,
                   string.format('peak after 10: %d, after 200: %d', peak10, peak200))
    assert.is_true(last < 0.8 * first, string.format('loss %g -> %g', first, last))
    fresh()
    assert.are.equal(0, cat('scoped').live_bytes)
  end)
end)
