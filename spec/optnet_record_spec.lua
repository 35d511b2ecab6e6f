-- optnet's records: the optimization as plain data on the net (what
-- travels through clone, type, save and load), the transient wrappers
-- (never saved, never copied), slot limits on parts of an optimized net,
-- recompute nets planned again after a copy, damaged records refused.
-- The whole matrix of operations x nets x batches is optnet_lifecycle_spec.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'
local fails = helpers.fails

local TMP = os.tmpname()

local function mlp()
  torch.manualSeed(5)
  return nn.Sequential():add(nn.Linear(6, 5)):add(nn.ReLU()):add(nn.Linear(5, 4)):add(nn.Tanh())
    :add(nn.Linear(4, 3))
end

local function convnet()
  torch.manualSeed(6)
  return nn.Sequential():add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2, 2, 2)):add(nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1))
    :add(nn.ReLU()):add(nn.View(-1):setNumInputDims(3)):add(nn.Linear(4 * 4 * 4, 3))
end

local function maxdiff(a, b) return (a:double() - b:double()):abs():max() end

-- every value reachable from v, each once: f(value, key)
local function everything(v, f, seen)
  seen = seen or {}
  if type(v) ~= 'table' or seen[v] then return end
  seen[v] = true
  for k, x in pairs(v) do
    f(x, k)
    everything(x, f, seen)
  end
end

-- the class names of every torch object in a value graph
local function classes(v)
  local set = {}
  everything({v}, function(x) if torch.typename(x) then set[torch.typename(x)] = true end end)
  return set
end

-- what torch.save writes to stderr while saving v
local function saveQuietly(path, v, mode)
  local real = io.stderr
  local said = {}
  io.stderr = {write = function(_, ...) for _, s in ipairs{...} do said[#said + 1] = tostring(s) end end}
  local ok, err = pcall(torch.save, path, v, mode)
  io.stderr = real
  if not ok then error(err, 0) end
  return table.concat(said)
end

describe('optnet records', function()
  after_each(function() os.remove(TMP) end)

  it('are plain data: no function is reachable from a saved optimized net, and no warning is written', function()
    for _, mode in ipairs{'inference', 'training'} do
      local net = convnet()
      optnet.optimizeMemory(net, torch.randn(4, 3, 8, 8), {mode = mode})
      assert.is_table(rawget(net, '_optnet'))
      assert.are.equal('', saveQuietly(TMP, net, 'ascii'))
      -- the wrappers' field names never reach the file (the loaded net gets
      -- its own wrappers again from the records)
      local text = helpers.readfile(TMP)
      for _, k in ipairs{'updateOutput', 'updateGradInput', 'accGradParameters', 'getParameters', 'clearState'} do
        assert(not text:find(k, 1, true), 'the file holds a field ' .. k)
      end
      everything(rawget(net, '_optnet'), function(x, k)
        assert(type(x) ~= 'function' and type(x) ~= 'userdata', 'not plain data at ' .. tostring(k))
      end)
      assert.is_true(optnet.isOptimized(torch.load(TMP, 'ascii')))
    end
  end)

  it('leave the saved file with the classes of the unoptimized net only (Torch7 loads it)', function()
    local net = convnet()
    local plain = net:clone()
    net:forward(torch.randn(4, 3, 8, 8))
    plain:forward(torch.randn(4, 3, 8, 8))
    optnet.optimizeMemory(net, torch.randn(4, 3, 8, 8), {mode = 'training'})
    torch.save(TMP, net)
    local a = classes(torch.load(TMP))
    torch.save(TMP, plain)
    local b = classes(torch.load(TMP))
    assert.are.same(b, a)
  end)

  it('are what clone, type and load put back in force: limits, wrappers, recognition', function()
    local net = mlp()
    optnet.optimizeMemory(net, torch.randn(4, 6))
    for _, derived in ipairs{net:clone(), net:clone():float(), torch.deserialize(torch.serialize(net))} do
      assert.is_true(optnet.isOptimized(derived))
      local st = optnet._state(derived)
      assert.is_truthy(st and st.bindings and #st.bindings > 0)
      -- the hooks are the derived net's own, not the original's
      assert.is_true(derived:hooked('updateOutput'))
      assert.are_not.equal(net.updateOutput, derived.updateOutput)
      fails('optnet', derived.backward, derived, torch.randn(4, 6):type(derived:type()),
            torch.randn(4, 3):type(derived:type()))
    end
  end)

  it('hooks are transient: clone copies none of the original hooks, the modules hold no closure', function()
    local net = mlp()
    optnet.optimizeMemory(net, torch.randn(4, 6), {mode = 'training'})
    assert.is_true(net:hooked('updateOutput'))
    local c = net:clone()
    for _, m in ipairs(c:listModules()) do
      for k, v in pairs(m) do
        assert(type(v) ~= 'function', 'the clone holds a closure ' .. tostring(k))
      end
    end
    -- the clone's hooks are its own (put back in force from the records)
    assert.are_not.equal(net.updateOutput, c.updateOutput)
    for _, m in ipairs(net:listModules()) do
      for k, v in pairs(m) do assert(type(v) ~= 'function', 'the net holds a closure ' .. tostring(k)) end
    end
  end)

  it('clearState lets the arena go and the next forward gives the slots back', function()
    local net = convnet()
    local ref = net:clone()
    local x = torch.randn(4, 3, 8, 8)
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local g = torch.randn(4, 3)
    net:forward(x); net:backward(x, g)
    local optimized = optnet.countUsedMemory(net).total_size
    net:clearState()
    assert.is_true(optnet.countUsedMemory(net).total_size < optimized)
    ref:clearState()
    assert.are.equal(0, maxdiff(net:forward(x), ref:forward(x)))
    assert.are.equal(0, maxdiff(net:backward(x, g), ref:backward(x, g)))
    assert.are.equal(optimized, optnet.countUsedMemory(net).total_size)
    optnet.removeOptimization(net)
    -- the plain net's released gradInputs count at the bytes they held, the
    -- undone net's (released by removeOptimization) nothing: never more
    local want, got = optnet.countUsedMemory(ref).total_size, optnet.countUsedMemory(net).total_size
    assert.is_true(got > 0 and got <= want, got .. ' > ' .. want)
  end)

  it('keep a part cloned or loaded on its own inside its slots, and removeOptimization frees it', function()
    local net = convnet()
    optnet.optimizeMemory(net, torch.randn(4, 3, 8, 8))
    local part = net:get(1):clone()
    torch.save(TMP, net:get(1))
    local loaded = torch.load(TMP)
    local plain = net:get(1):clone()
    optnet.removeOptimization(plain)
    for _, p in ipairs{part, loaded} do
      assert.is_true(optnet.isOptimized(p))
      -- the traced size fits its slot; a bigger one is an error naming optnet, never an overlap
      p:forward(torch.randn(4, 3, 8, 8))
      fails({'planned memory slot', 'optnet.removeOptimization'}, p.forward, p, torch.randn(9, 3, 8, 8))
      optnet.removeOptimization(p)
      assert.is_false(optnet.isOptimized(p))
      local x = torch.randn(9, 3, 8, 8)
      assert.are.equal(0, maxdiff(p:forward(x), plain:forward(x)))
    end
    -- a module inside a net optimized as a whole is not a net of its own
    assert.is_false(optnet.isOptimized(net:get(1)))
    fails('part of a net optimized by optnet', optnet.removeOptimization, net:get(1))
  end)

  it('a net optimized with recompute is planned again at the first forward of its copy', function()
    local net = require('models.resnet')({dataset = 'cifar10', depth = 20, batch = 4, type = 'double'})
    net:training()
    torch.manualSeed(9)
    local x = torch.randn(8, 3, 32, 32)
    local ref = net:clone()
    optnet.optimizeMemory(net, x, {mode = 'training', recompute = 'sqrt'})
    torch.save(TMP, net)
    for _, c in ipairs{net:clone(), torch.load(TMP)} do
      assert.is_true(optnet.isOptimized(c))
      assert.is_true(optnet._state(c).pending)
      local g = torch.randn(8, 10)
      c:zeroGradParameters(); ref:zeroGradParameters()
      assert.are.equal(0, maxdiff(c:forward(x), ref:forward(x)))
      assert.are.equal(0, maxdiff(c:backward(x, g), ref:backward(x, g)))
      local _, gc = c:parameters()
      local _, gr = ref:parameters()
      for i = 1, #gr do assert.are.equal(0, maxdiff(gc[i], gr[i])) end
      assert.are.equal('sqrt', optnet._state(c).result.recompute)
      optnet.removeOptimization(c)
      assert.is_nil(rawget(c, '_optnet'))
    end
  end)

  it('a damaged root record is refused with a message naming optnet', function()
    local net = mlp()
    optnet.optimizeMemory(net, torch.randn(4, 6))
    local c = net:clone()
    optnet.removeOptimization(c)
    rawset(c, '_optnet', {opts = 3})
    fails({'optnet', 'damaged optimization record'}, optnet.removeOptimization, c)
  end)

  it('removal leaves no record behind, on the net and on its modules', function()
    local net = convnet()
    optnet.optimizeMemory(net, torch.randn(4, 3, 8, 8), {mode = 'training'})
    local c = net:clone()
    for _, n in ipairs{net, c} do
      optnet.removeOptimization(n)
      for _, m in ipairs(n:listModules()) do
        for k in pairs(m) do
          assert(type(k) ~= 'string' or not k:match('^_optnet'), 'left behind: ' .. tostring(k))
        end
        for _, k in ipairs{'updateOutput', 'clearState', 'backward', 'accGradParameters'} do
          assert.is_nil(rawget(m, k))
        end
      end
    end
  end)
  it('optimizing a net that holds a net optimized on its own replaces the inner optimization', function()
    local inner = mlp()
    optnet.optimizeMemory(inner, torch.randn(4, 6))
    local outer = nn.Sequential():add(inner):add(nn.Tanh()):add(nn.Linear(3, 2))
    local ref = outer:clone()
    optnet.removeOptimization(ref:get(1))
    local y, g = torch.randn(9, 6), torch.randn(9, 2)
    assert.are.equal(0, maxdiff(outer:forward(y), ref:forward(y)))
    optnet.optimizeMemory(outer, torch.randn(4, 6), {mode = 'training'})
    assert.is_false(optnet.isOptimized(inner))
    assert.is_true(optnet.isOptimized(outer))
    outer:zeroGradParameters(); ref:zeroGradParameters()
    assert.are.equal(0, maxdiff(outer:forward(y), ref:forward(y)))
    assert.are.equal(0, maxdiff(outer:backward(y, g), ref:backward(y, g)))
    optnet.removeOptimization(outer)
    assert.are.equal(0, maxdiff(outer:forward(y), ref:forward(y)))
  end)
  it('an arena view no record covers gets private memory in a copy, never an unlimited view', function()
    local net = mlp()
    optnet.optimizeMemory(net, torch.randn(4, 6))
    net:forward(torch.randn(4, 6))
    -- a view a module made after the plan was written: no slot record
    local m = net:get(2)
    m.stray = m.output.new():set(m.output)
    local c = net:clone()
    local cm = c:get(2)
    assert.are_not.equal(cm.output:_storageId(), cm.stray:_storageId())
    assert.are.equal(0, maxdiff(cm.stray, m.output))
    -- the copy grows on its own: a resize is no overlap with the arena
    cm.stray:resize(1000):fill(7)
    local x = torch.randn(4, 6)
    assert.are.equal(0, maxdiff(c:forward(x), net:forward(x)))
  end)

end)
