-- containers release their children's gradInputs once consumed, in
-- backward only (lua/nn/gradrelease.lua): the numbers are those of a net
-- that keeps them (exact), what the container returns and the user's
-- gradOutput stay, the memory is freed, the opt-outs keep, optnet's
-- arena is left alone; and the allocator's block cache (th_blockcache.c)
require 'torch'
require 'nn'
local models = require 'models'
local optnet = require 'optnet'
local utils = nn.utils

local function clone(x) return require('optnet.utils').recursiveClone(x) end

local function sameTensors(a, b, what)
  if torch.isTensor(a) then
    assert.is_true(torch.isTensor(b), what)
    assert.are.same(a:size():totable(), b:size():totable(), what)
    assert.is_true(a:equal(b), what)
  else
    assert.are.equal(#a, #b, what)
    for i = 1, #a do sameTensors(a[i], b[i], what .. '[' .. i .. ']') end
  end
end

-- two steps (different inputs) of net and a keep-all copy: same output,
-- gradInput and parameter gradients, bit for bit; returns both nets
local function lockstep(net, input, what)
  local ref = net:clone():keepGradInputs(true)
  local w, gw = net:getParameters()
  local rw, rgw = ref:getParameters()
  assert.is_true(w:equal(rw))
  for step = 1, 2 do
    local x = input
    local out = net:forward(x)
    local rout = ref:forward(x)
    sameTensors(out, rout, what .. ' output')
    local g = clone(rout)
    net:zeroGradParameters()
    ref:zeroGradParameters()
    local gi = net:backward(x, g)
    local rgi = ref:backward(x, clone(g))
    sameTensors(gi, rgi, what .. ' gradInput, step ' .. step)
    assert.is_true(rawequal(gi, net.gradInput), what .. ': backward returns net.gradInput')
    assert.is_true(gw:equal(rgw), what .. ' gradParameters, step ' .. step)
  end
  return net, ref
end

local function held(net)
  local n = 0
  for _, m in ipairs(net:listModules()) do
    if torch.isTensor(m.gradInput) then n = n + m.gradInput:nElement() end
  end
  return n
end

describe('nn gradInput release', function()
  it('Sequential keeps the first child\'s gradInput and releases the others', function()
    torch.manualSeed(1)
    local net = nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh()):add(nn.Linear(5, 3))
    local x = torch.randn(2, 4)
    net:forward(x)
    local gi3 = net:get(3).gradInput
    local gi = net:backward(x, torch.randn(2, 3))
    assert.is_true(rawequal(gi, net:get(1).gradInput))
    assert.are.same({2, 4}, gi:size():totable())
    assert.are.equal(0, net:get(2).gradInput:nElement())
    assert.are.equal(0, net:get(3).gradInput:nElement())
    -- the object stays: the next backward refills it
    assert.is_true(rawequal(gi3, net:get(3).gradInput))
    net:updateGradInput(x, torch.randn(2, 3))
    assert.are.same({2, 5}, net:get(3).gradInput:size():totable())
  end)

  it('updateGradInput then accGradParameters releases nothing (Torch7\'s accGradParameters reads them)', function()
    torch.manualSeed(2)
    local net = nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh()):add(nn.Linear(5, 3))
    local ref = net:clone():keepGradInputs(true)
    local x, g = torch.randn(2, 4), torch.randn(2, 3)
    net:forward(x)
    ref:forward(x)
    net:zeroGradParameters()
    ref:zeroGradParameters()
    net:updateGradInput(x, g)
    assert.are.equal(10, net:get(3).gradInput:nElement())
    net:accGradParameters(x, g)
    ref:backward(x, g)
    local _, gw = net:getParameters()
    local _, rgw = ref:getParameters()
    assert.is_true(gw:equal(rgw))
  end)

  it('the user\'s gradOutput and an Identity\'s gradInput (the gradOutput itself) are never cleared', function()
    torch.manualSeed(3)
    local g = torch.randn(2, 4)
    local gcopy = g:clone()
    local net = nn.Sequential():add(nn.Linear(4, 4)):add(nn.Identity()):add(nn.Identity())
    local x = torch.randn(2, 4)
    net:forward(x)
    net:backward(x, g)
    assert.is_true(g:equal(gcopy))
    -- the criterion's gradInput the user holds
    local crit = nn.MSECriterion()
    local y = net:forward(x)
    local cg = crit:backward(y, torch.zeros(2, 4))
    local keep = cg:clone()
    net:backward(x, cg)
    assert.is_true(crit.gradInput:equal(keep))
    -- ConcatTable with Identity children: their gradInputs are gradOutput[i]
    local ct = nn.ConcatTable():add(nn.Identity()):add(nn.Linear(4, 4))
    ct:forward(x)
    local gos = {torch.randn(2, 4), torch.randn(2, 4)}
    local saved = clone(gos)
    local gi = ct:backward(x, gos)
    sameTensors(gos, saved, 'gradOutput table')
    assert.is_true(gi:equal(saved[1] + ct:get(2):updateGradInput(x, saved[2])))
  end)

  it('in-place modules and shared gradOutput storages give the same numbers', function()
    torch.manualSeed(4)
    local net = nn.Sequential()
      :add(nn.Linear(6, 8)):add(nn.ReLU(true)):add(nn.Identity())
      :add(nn.ConcatTable():add(nn.Identity()):add(nn.Sequential():add(nn.Linear(8, 8)):add(nn.ReLU(true))))
      :add(nn.CAddTable(true)):add(nn.Dropout(0)):add(nn.Linear(8, 3))
    lockstep(net, torch.randn(3, 6), 'in-place chain')
  end)

  it('every container of nn gives the same numbers and table gradInputs are released leaf by leaf', function()
    torch.manualSeed(5)
    local x = torch.randn(2, 4)
    local nets = {
      concat = nn.Sequential():add(nn.Linear(4, 4)):add(nn.Concat(2):add(nn.Linear(4, 3)):add(nn.Tanh())),
      depthconcat = nn.Sequential():add(nn.Linear(4, 4)):add(nn.DepthConcat(2):add(nn.Linear(4, 3)):add(nn.Linear(4, 5))),
      concattable = nn.Sequential():add(nn.Linear(4, 4))
        :add(nn.ConcatTable():add(nn.Linear(4, 2)):add(nn.Sequential():add(nn.Tanh()):add(nn.Linear(4, 2))))
        :add(nn.CAddTable()),
      tableinput = nn.Sequential():add(nn.ConcatTable():add(nn.Linear(4, 3)):add(nn.Linear(4, 3)))
        :add(nn.ConcatTable():add(nn.ParallelTable():add(nn.Tanh()):add(nn.Sigmoid())):add(nn.CMulTable()))
        :add(nn.FlattenTable()):add(nn.JoinTable(2)),
      maptable = nn.Sequential():add(nn.ConcatTable():add(nn.Linear(4, 3)):add(nn.Linear(4, 3)))
        :add(nn.MapTable(nn.Linear(3, 2))):add(nn.CAddTable()),
      bottle = nn.Sequential():add(nn.Linear(4, 6)):add(nn.View(2, 3, 2)):add(nn.Bottle(nn.Linear(2, 2))),
    }
    for name, net in pairs(nets) do lockstep(net, x, name) end
    local par = nn.Sequential():add(nn.Linear(4, 4)):add(nn.View(2, 2, 2))
      :add(nn.Parallel(2, 2):add(nn.Linear(2, 3)):add(nn.Tanh()))
    lockstep(par, x, 'parallel')
    -- the table gradInput of a ConcatTable inside: its leaves emptied, the table kept
    local tin = nets.tableinput
    local t = tin:get(2).gradInput
    assert.is_true(utils.istable(t))
    assert.are.equal(0, t[1]:nElement())
  end)

  for _, name in ipairs{'mlp', 'lenet', 'resnet', 'preresnet', 'densenet', 'paralleljoin', 'convchain', 'unpool',
                        'siamese', 'tablenet', 'multioutput'} do
    it('the zoo\'s ' .. name .. ': the same numbers over two steps, and less held after backward', function()
      torch.manualSeed(6)
      local opts
      for _, e in ipairs(models.list()) do if e.name == name then opts = e.small end end
      local net, input = models.build(name, opts)
      net:training()
      local _, ref = lockstep(net, input, name)
      assert.is_true(held(net) < held(ref), name .. ': ' .. held(net) .. ' vs ' .. held(ref))
    end)
  end

  it('frees the storages: live bytes drop', function()
    torch.manualSeed(7)
    local function build()
      local s = nn.Sequential()
      for _ = 1, 6 do s:add(nn.Linear(256, 256)):add(nn.Tanh()) end
      return s
    end
    local x = torch.randn(64, 256)
    local function liveAfter(keep)
      local net = build()
      if keep then net:keepGradInputs(true) end
      net:forward(x)
      net:backward(x, torch.randn(64, 256))
      collectgarbage(); collectgarbage()
      local live = torch.memoryStats().live_bytes
      return live, net
    end
    local kept, n1 = liveAfter(true)
    n1 = nil
    collectgarbage(); collectgarbage()
    local released, n2 = liveAfter(false)
    -- 11 of the 12 gradInputs (64x256 doubles) released: 11 x 131072 bytes
    assert.is_true(kept - released >= 10 * 64 * 256 * 8, (kept - released) .. ' bytes')
    assert.is_not_nil(n2)
  end)

  it('opt-outs: nn.keepGradInputs(true) and module:keepGradInputs(true)', function()
    torch.manualSeed(8)
    local function build()
      return nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh())
        :add(nn.Sequential():add(nn.Linear(5, 5)):add(nn.Tanh())):add(nn.Linear(5, 3))
    end
    local x, g = torch.randn(2, 4), torch.randn(2, 3)
    local prev = nn.keepGradInputs(true)
    assert.is_false(prev)
    local a = build()
    a:forward(x)
    a:backward(x, g)
    assert.are.equal(nn.keepGradInputs(prev), true)
    for _, m in ipairs(a:listModules()) do assert.is_true(m.gradInput:nElement() > 0, torch.type(m)) end
    -- one module marked: its gradInput stays, the others go
    local b = build()
    b:get(2):keepGradInputs(true)
    b:forward(x)
    b:backward(x, g)
    assert.are.equal(10, b:get(2).gradInput:nElement())
    assert.are.equal(0, b:get(4).gradInput:nElement())
    -- a container marked: it and what it holds keep theirs; clone and save keep the mark
    local c = build()
    c:get(3):keepGradInputs(true)
    c = c:clone()
    c:forward(x)
    c:backward(x, g)
    assert.are.equal(10, c:get(3):get(2).gradInput:nElement())
    assert.are.equal(10, c:get(3).gradInput:nElement())
    assert.are.equal(0, c:get(2).gradInput:nElement())
    c:get(3):keepGradInputs(false)
    c:backward(x, g)
    assert.are.equal(0, c:get(3):get(2).gradInput:nElement())
    -- bad flags
    local ok, err = pcall(nn.keepGradInputs, 1)
    assert.is_false(ok)
    assert.is_truthy(err:find('nn.keepGradInputs: flag must be a boolean, got number', 1, true))
    ok, err = pcall(function() c:keepGradInputs('yes') end)
    assert.is_false(ok)
    assert.is_truthy(err:find('nn.Sequential:keepGradInputs: flag must be a boolean, got string', 1, true))
  end)

  it('optnet on top: the arena\'s gradInputs stay bound, the numbers are the same, the undo resumes the release', function()
    torch.manualSeed(9)
    local net, input = models.build('resnet', {batch = 2, dataset = 'cifar10', depth = 8})
    net:training()
    local ref = net:clone():keepGradInputs(true)
    optnet.optimizeMemory(net, input, {mode = 'training'})
    local bound = {}
    for _, m in ipairs(net:listModules()) do
      if torch.isTensor(m.gradInput) and m.gradInput:_limit() > 0 then bound[#bound + 1] = m.gradInput end
    end
    assert.is_true(#bound > 0)
    local _, gw = net:getParameters()
    local _, rgw = ref:getParameters()
    for _ = 1, 2 do
      net:zeroGradParameters()
      ref:zeroGradParameters()
      local out = net:forward(input)
      sameTensors(out, ref:forward(input), 'output')
      local g = out:clone()
      sameTensors(net:backward(input, g), ref:backward(input, g:clone()), 'gradInput')
      assert.is_true(gw:equal(rgw))
      for _, t in ipairs(bound) do assert.is_true(t:_limit() > 0 and t:nElement() > 0) end
    end
    optnet.removeOptimization(net)
    net:forward(input)
    net:backward(input, net.output:clone())
    assert.is_true(held(net) < held(ref))
  end)
end)

describe('nn gradInput release in an nngraph gModule', function()
  require 'nngraph'
  -- x -> Linear -> Tanh -> (Linear, Linear -> Sigmoid) -> CAddTable, and a
  -- second output from the Tanh: a fork, a join, a node with two successors
  local function graph()
    torch.manualSeed(5)
    local x = nn.Identity()()
    local h = nn.Tanh()(nn.Linear(6, 8)(x))
    local a = nn.Linear(8, 8)(h)
    local b = nn.Sigmoid()(nn.Linear(8, 8)(h))
    local y = nn.Linear(8, 3)(nn.ReLU(true)(nn.CAddTable()({a, b})))
    return nn.gModule({x}, {y, nn.Tanh()(h)})
  end

  it('gives the numbers of a keep-all graph, bit for bit, and returns its gradInput', function()
    local net, ref = lockstep(graph(), torch.randn(5, 6), 'graph')
    assert.is_true(held(net) < held(ref), held(net) .. ' vs ' .. held(ref))
    -- the Linears' gradInputs after the first one are let go of
    local lins = net:findModules('nn.Linear')
    local released = 0
    for _, m in ipairs(lins) do if m.gradInput:nElement() == 0 then released = released + 1 end end
    assert.is_true(released >= 3, released .. ' released')
  end)

  it('the LSTM and GRU cells of the zoo give the keep-all numbers', function()
    for _, name in ipairs{'lstm', 'gru'} do
      torch.manualSeed(3)
      local net = require('models.' .. name)({inputSize = 5, rnnSize = 6, layers = 2, nOutput = 4})
      local input = {torch.randn(4, 5)}
      for i = 2, net.nInputs do input[i] = torch.randn(4, 6) end
      lockstep(net, input, name)
    end
  end)

  it('never releases the caller\'s gradOutput nor what an Identity node hands on', function()
    local x = nn.Identity()()
    local y = nn.Identity()(nn.Linear(4, 4)(x))
    torch.manualSeed(2)
    local g = nn.gModule({x}, {y})
    local input, go = torch.randn(3, 4), torch.randn(3, 4)
    g:forward(input)
    local gi = g:backward(input, go)
    assert.are.equal(12, go:nElement())
    assert.are.equal(12, gi:nElement())
    assert.is_true(rawequal(gi, g.gradInput))
  end)

  it('the opt-outs keep every gradient; updateGradInput + accGradParameters keep them too', function()
    local function count(keepHow)
      local net = graph()
      local prev
      if keepHow == 'global' then prev = nn.keepGradInputs(true) end
      if keepHow == 'module' then net:keepGradInputs(true) end
      local x = torch.randn(5, 6)
      local out = net:forward(x)
      local go = {out[1]:clone():fill(1), out[2]:clone():fill(1)}
      if keepHow == 'split' then
        net:updateGradInput(x, go); net:accGradParameters(x, go)
      else
        net:backward(x, go)
      end
      if prev ~= nil then nn.keepGradInputs(prev) end
      return held(net)
    end
    local all = count('global')
    assert.are.equal(all, count('module'))
    assert.are.equal(all, count('split'))
    assert.is_true(count('none') < all)
  end)

  it('accGradParameters after a backward makes the gradients again: the keep-all numbers', function()
    local nets = {}
    for _, keep in ipairs{true, false} do
      local net = graph()
      if keep then net:keepGradInputs(true) end
      local x = torch.randn(5, 6)
      torch.manualSeed(8)
      local go = {torch.randn(5, 3), torch.randn(5, 8)}
      net:zeroGradParameters()
      net:forward(x)
      net:backward(x, go)
      net:accGradParameters(x, go)
      nets[keep] = net
    end
    local _, g1 = nets[true]:parameters()
    local _, g2 = nets[false]:parameters()
    for k = 1, #g1 do assert.is_true(g1[k]:equal(g2[k]), 'gradient ' .. k) end
    -- an in-place module a second run would repeat: an error naming the way out
    local x = nn.Identity()()
    local g = nn.gModule({x}, {nn.Linear(4, 2)(nn.MulConstant(2, true)(nn.Linear(4, 4)(x)))})
    local input, go = torch.randn(3, 4), torch.randn(3, 2)
    g:forward(input)
    g:backward(input, go)
    local ok, err = pcall(g.accGradParameters, g, input, go)
    assert.is_false(ok)
    assert.truthy(tostring(err):find('nn.gModule:accGradParameters: gradients its backward let go of are needed', 1, true), err)
  end)

  it('holds less at the peak of a backward: live bytes', function()
    local function build()
      torch.manualSeed(6)
      local x = nn.Identity()()
      local h = x
      for _ = 1, 8 do h = nn.Tanh()(nn.Linear(512, 512)(h)) end
      return nn.gModule({x}, {h})
    end
    local x = torch.randn(256, 512)
    local function peak(keep)
      local net = build()
      if keep then net:keepGradInputs(true) end
      net:forward(x)
      collectgarbage(); collectgarbage()
      torch.resetPeakMemory()
      local before = torch.memoryStats().live_bytes
      net:backward(x, torch.randn(256, 512))
      return torch.memoryStats().peak_bytes - before
    end
    local kept, released = peak(true), peak(false)
    -- 16 gradInputs of 256 x 512 doubles (1 MiB each) when kept; a few in flight
    assert.is_true(kept - released >= 10 * 256 * 512 * 8, kept .. ' vs ' .. released)
  end)
end)

describe('the allocator\'s block cache', function()
  local MiB = 1024 * 1024
  -- garbage collected, then the cache emptied: what follows is this test's
  local function settle()
    collectgarbage(); collectgarbage()
    torch.freeBlockCache()
  end

  it('a freed large block is cached, not live, and reused by a request of its class', function()
    settle()
    local before = torch.memoryStats()
    assert.are.equal(0, before.cached_bytes)
    local a = torch.FloatStorage(1000000)       -- 4,000,000 bytes: class 4 MiB
    assert.are.equal(4000000, torch.memoryStats().live_bytes - before.live_bytes)
    a = nil
    collectgarbage(); collectgarbage()
    local s = torch.memoryStats()
    assert.are.equal(before.live_bytes, s.live_bytes)
    assert.are.equal(4 * MiB, s.cached_bytes)
    assert.are.equal(1, s.cached_count)
    local b = torch.FloatStorage(1040000)       -- 4,160,000 bytes: the same class
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    b = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    -- another class, a new block: the cached one stays while the large
    -- blocks out, cached and new fit under the most ever out at once ...
    local st = torch.memoryStats()
    local room = st.large_high_water_bytes - st.large_bytes - st.cached_bytes
    assert.is_true(room > 2 * MiB, tostring(room))
    local fits = MiB                                 -- a power of two: its own class
    while fits * 2 <= room - MiB do fits = fits * 2 end
    local c = torch.ByteStorage(fits)
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    assert.are.equal(st.large_bytes + fits, torch.memoryStats().large_bytes)
    c = nil
    collectgarbage(); collectgarbage()
    torch.freeBlockCache()
    b = torch.FloatStorage(1000000)
    b = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    -- ... and is resized for a request that would not fit under the mark
    -- plus the slack (a sixteenth of it, or up to 128 MiB while under a
    -- quarter): the cache raises the peak of large blocks by at most that
    st = torch.memoryStats()
    local over = 1 * MiB
    local hwm = st.large_high_water_bytes
    local slack = math.max(hwm // 16, math.min(hwm // 4, 128 * MiB))
    while over <= hwm + slack - st.large_bytes do over = over * 2 end
    c = torch.ByteStorage(over)
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    assert.are.equal(st.resized_count + 1, torch.memoryStats().resized_count)
    assert.are.equal(st.large_bytes + over, torch.memoryStats().large_high_water_bytes)
    c = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(over, torch.memoryStats().cached_bytes)
    assert.are.equal(over, torch.freeBlockCache())
    assert.are.equal(0, torch.memoryStats().cached_bytes)
  end)

  it('a request with no block of its class borrows one up to 1/4 larger, which comes back whole', function()
    settle()
    local a = torch.ByteStorage(4 * MiB)
    a = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    local b = torch.ByteStorage(3.5 * MiB)       -- class 3.5 MiB: borrows the 4 MiB block
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    local live = torch.memoryStats().live_bytes
    b = nil
    collectgarbage(); collectgarbage()
    assert.is_true(torch.memoryStats().live_bytes <= live - 3.5 * MiB)
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)   -- its true size
    local c = torch.ByteStorage(3 * MiB)         -- more than 1/4 smaller: a new block
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)
    c = nil
    settle()
  end)

  it('small blocks are not cached; the cap bounds the cache and 0 turns it off', function()
    settle()
    local small = torch.ByteStorage(100000)
    small = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    local prev = torch.blockCacheLimit(6 * MiB)
    assert.are.equal(1024 * MiB, prev)
    local xs = {}
    for i = 1, 3 do xs[i] = torch.ByteStorage(4 * MiB) end
    xs = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(4 * MiB, torch.memoryStats().cached_bytes)   -- one fits under 6 MiB
    torch.blockCacheLimit(0)
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    local d = torch.ByteStorage(4 * MiB)
    d = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(0, torch.memoryStats().cached_bytes)
    assert.are.equal(0, torch.blockCacheLimit(prev))
    local ok, err = pcall(torch.blockCacheLimit, -1)
    assert.is_false(ok)
    assert.is_truthy(err:find('torch.blockCacheLimit', 1, true) and err:find('non-negative, got -1', 1, true), err)
  end)

  it('a block no request reused is freed after the window of later large requests', function()
    settle()
    local a, b = torch.ByteStorage(512 * 1024), torch.ByteStorage(3 * MiB)
    b = nil
    collectgarbage(); collectgarbage()
    a = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(3 * MiB + 512 * 1024, torch.memoryStats().cached_bytes)
    for i = 1, 600 do                             -- the 512 KiB block, reused each time
      local s = torch.ByteStorage(512 * 1024)
      assert.is_true(s:size() == 512 * 1024)
      s = nil
      collectgarbage()
      if i == 100 then assert.are.equal(3 * MiB + 512 * 1024, torch.memoryStats().cached_bytes) end
    end
    assert.are.equal(512 * 1024, torch.memoryStats().cached_bytes)
    torch.freeBlockCache()
  end)
end)

describe('Concat and DepthConcat leave no view of the gradOutput behind', function()
  -- the windows of gradOutput a backward gives the children are emptied
  -- after it: the gradOutput's storage is referenced by the caller's
  -- tensor alone, so releasing it frees it now, not at Lua's next major
  -- collection (DenseNet-BC b64: 600 MiB of its peak)
  for _, cls in ipairs{'Concat', 'DepthConcat'} do
    it(cls .. ': the gradOutput\'s storage has the references it had before backward; same numbers', function()
      local function build()
        torch.manualSeed(4)
        local c = nn[cls](2)
        c:add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1))
        c:add(nn.Sequential():add(nn.ReLU()):add(nn.SpatialConvolution(3, 2, 1, 1)))
        c:add(nn.Identity())
        return c
      end
      local x = torch.randn(2, 3, 5, 5)
      local net, ref = build(), build():keepGradInputs(true)
      net:zeroGradParameters()
      ref:zeroGradParameters()
      local out = net:forward(x)
      ref:forward(x)
      local go = out:clone():uniform()
      local refs = go:_storageRefs()
      local gi = net:backward(x, go)
      local rgi = ref:backward(x, go:clone())
      collectgarbage('stop')   -- no collection may hide a view left behind
      assert.are.equal(refs, go:_storageRefs())
      collectgarbage('restart')
      assert.is_true(gi:equal(rgi))
      local _, g1 = net:parameters()
      local _, g2 = ref:parameters()
      for k = 1, #g1 do assert.is_true(g1[k]:equal(g2[k])) end
      -- updateGradInput keeps the Identity's window, Torch7's way
      net:updateGradInput(x, go)
      assert.are.equal(2 * 3 * 25, net:get(3).gradInput:nElement())
    end)
  end
end)

describe('nn gradInput release, misuse', function()
  it('accGradParameters after a backward makes the released gradInputs again: Torch7\'s numbers', function()
    -- torch-autograd's tests take the gradients twice this way
    for _, method in ipairs{'accGradParameters', 'accUpdateGradParameters'} do
      local nets = {}
      for _, keep in ipairs{true, false} do
        torch.manualSeed(10)
        local net = nn.Sequential():add(nn.Linear(4, 5)):add(nn.ReLU(true)):add(nn.Linear(5, 6))
          :add(nn.Sequential():add(nn.Tanh()):add(nn.Linear(6, 3)))
        if keep then net:keepGradInputs(true) end
        local x, g = torch.randn(2, 4), torch.randn(2, 3)
        net:zeroGradParameters()
        net:forward(x)
        net:backward(x, g)
        if not keep then assert.are.equal(0, net:get(3).gradInput:nElement()) end
        net[method](net, x, g, 0.1)
        nets[keep] = net
      end
      local p1, g1 = nets[true]:parameters()
      local p2, g2 = nets[false]:parameters()
      for k = 1, #p1 do
        assert.is_true(p1[k]:equal(p2[k]), method .. ' weight ' .. k)
        assert.is_true(g1[k]:equal(g2[k]), method .. ' gradient ' .. k)
      end
    end
  end)

  it('a child whose gradInput is a table (JoinTable\'s) is made again too, or named (found by the fuzzer, seed 30)', function()
    local function build(inplace)
      torch.manualSeed(30)
      return nn.Sequential():add(nn.Linear(6, 3))
        :add(nn.Sequential()
          :add(nn.ConcatTable():add(nn.Sequential():add(nn.Dropout(0.2, nil, inplace)))
                              :add(nn.Sequential():add(nn.Tanh()):add(nn.Linear(3, 4))))
          :add(nn.JoinTable(2)))
    end
    local x, g = torch.randn(2, 6), torch.randn(2, 7)
    local function twice(net)
      net:zeroGradParameters()
      torch.manualSeed(1)
      net:forward(x)
      net:backward(x, g)
      net:accGradParameters(x, g)
      local _, gp = net:parameters()
      return gp
    end
    local got, want = twice(build(false)), twice(build(false):keepGradInputs(true))
    for k = 1, #want do assert.is_true(got[k]:equal(want[k]), 'gradient ' .. k) end
    local ok, err = pcall(twice, build(true))
    assert.is_false(ok)
    assert.truthy(tostring(err):find('nn.Sequential:accGradParameters: the gradInput of module 2 is empty', 1, true), err)
  end)

  it('with an in-place module a second run would repeat, names the released gradInput and the way out', function()
    torch.manualSeed(10)
    local net = nn.Sequential():add(nn.Linear(4, 5)):add(nn.MulConstant(2, true)):add(nn.Linear(5, 3))
    local x, g = torch.randn(2, 4), torch.randn(2, 3)
    net:forward(x)
    net:backward(x, g)
    for _, method in ipairs{'accGradParameters', 'accUpdateGradParameters'} do
      local ok, err = pcall(function() net[method](net, x, g, 0.1) end)
      assert.is_false(ok)
      assert.is_truthy(err:find('nn.Sequential:' .. method .. ': the gradInput of module 3 is empty: backward releases '
        .. "the children's gradInputs once consumed, and an in-place module inside keeps them from being made again; "
        .. 'call updateGradInput before ' .. method, 1, true), err)
    end
    net:updateGradInput(x, g)
    net:accGradParameters(x, g)
  end)
end)

describe('optnet.countUsedMemory of a plain net after a releasing backward', function()
  -- OptNet's own tests compare an optimized net with a plain one as Torch7
  -- holds it: a released gradInput counts the bytes it held, tensors that
  -- viewed one storage (a View's gradInput, an in-place ReLU's) once
  local function build()
    torch.manualSeed(7)
    return nn.Sequential()
      :add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1)):add(nn.ReLU(true))
      :add(nn.View(-1):setNumInputDims(3)):add(nn.Linear(4 * 6 * 6, 5)):add(nn.Tanh())
      :add(nn.ConcatTable():add(nn.Identity()):add(nn.Linear(5, 5))):add(nn.CAddTable())
  end
  it('equals the figure of the same net keeping every gradInput', function()
    local x = torch.randn(2, 3, 6, 6)
    local counts = {}
    for _, keep in ipairs{true, false} do
      local prev = nn.keepGradInputs(keep)
      local net = build()
      net:forward(x)
      net:backward(x, net.output:clone():fill(1))
      counts[keep] = optnet.countUsedMemory(net)
      -- the release did happen: the Linear's gradInput is empty
      assert.are.equal(keep and 2 * 4 * 6 * 6 or 0, net:get(4).gradInput:nElement())
      nn.keepGradInputs(prev)
    end
    assert.are.equal(counts[true].gradInputs, counts[false].gradInputs)
    assert.are.equal(counts[true].total_size, counts[false].total_size)
  end)

  it('stays equal over many passes, storages freed and made again each pass', function()
    -- the key of a released storage is its serial: a freed storage's
    -- address is handed to the next one (malloc, the block cache), and a
    -- key by address made a new storage look like an old one (1 in 4 runs
    -- of the googlenet lifecycle spec counted 1 MiB less)
    local nets = {}
    for _, keep in ipairs{true, false} do
      local prev = nn.keepGradInputs(keep)
      nets[keep] = build()
      nn.keepGradInputs(prev)
    end
    for pass = 1, 12 do
      -- one batch size: a keep-all net's storages keep their largest size
      local x = torch.randn(2, 3, 6, 6)
      local counts = {}
      for _, keep in ipairs{true, false} do
        local prev = nn.keepGradInputs(keep)
        local net = nets[keep]
        net:forward(x)
        net:backward(x, net.output:clone():fill(1))
        collectgarbage()
        counts[keep] = optnet.countUsedMemory(net)
        nn.keepGradInputs(prev)
      end
      assert.are.equal(counts[true].gradInputs, counts[false].gradInputs)
    end
  end)

  it('tells storages apart by a serial no later storage reuses', function()
    local seen = {}
    for _ = 1, 50 do
      local t = torch.FloatTensor(1000)
      local id = t:_storageSerial()
      assert.is_nil(seen[id])
      seen[id] = true
      assert.are.equal(id, t:view(10, 100):_storageSerial())
      t:free()
      collectgarbage()
    end
    assert.is_nil(torch.FloatTensor():_storageSerial())
  end)
end)
