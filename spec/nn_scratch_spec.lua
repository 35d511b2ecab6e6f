-- The kernels' shared workspace (src/tensor/th_scratch.c): the conv family
-- and LRN take their columns, tiles and packed operands from one block per
-- calling thread instead of the module's finput / fgradInput / paddedRatio,
-- which stay empty tensors.
require 'torch'
require 'nn'

local function scratch() return torch.memoryStats().categories.scratch end

-- forward and backward of a fresh module (seeded): the results, cloned
local function pass(make, size, ty)
  torch.manualSeed(11)
  local m = make():type(ty or 'torch.FloatTensor')
  local x = torch.Tensor():type(ty or 'torch.FloatTensor'):resize(table.unpack(size)):uniform(-1, 1)
  m:zeroGradParameters()
  local y = m:forward(x):clone()
  local go = y:clone():uniform(-1, 1)
  local gi = m:backward(x, go):clone()
  return {y, gi, m.gradWeight and m.gradWeight:clone(), m.gradBias and m.gradBias:clone()}, m
end

local function same(a, b)
  for i = 1, 4 do
    if a[i] or b[i] then
      assert.are.same(a[i]:size():totable(), b[i]:size():totable())
      assert.are.equal(0, (a[i]:double() - b[i]:double()):abs():max())
    end
  end
end

-- every module of the family, with an input that takes each path of
-- SpatialConvolution (im2col in tiles of rows, grouped small images, 1x1
-- without columns, Winograd and the direct kernel where chosen)
local FAMILY = {
  {'conv 3x3 rows', function() return nn.SpatialConvolution(8, 16, 3, 3, 1, 1, 1, 1) end, {4, 8, 40, 40}},
  {'conv 3x3 grouped', function() return nn.SpatialConvolution(32, 32, 3, 3, 1, 1, 1, 1) end, {16, 32, 8, 8}},
  {'conv 1x1', function() return nn.SpatialConvolution(16, 24, 1, 1) end, {4, 16, 14, 14}},
  {'conv 5x5 stride 2', function() return nn.SpatialConvolution(3, 8, 5, 5, 2, 2, 2, 2) end, {2, 3, 30, 30}},
  {'conv single image', function() return nn.SpatialConvolution(4, 6, 3, 3) end, {4, 12, 12}},
  {'dilated', function() return nn.SpatialDilatedConvolution(4, 8, 3, 3, 1, 1, 2, 2, 2, 2) end, {3, 4, 16, 16}},
  {'depthwise', function() return nn.SpatialDepthWiseConvolution(4, 2, 3, 3, 1, 1, 1, 1) end, {3, 4, 16, 16}},
  {'full', function() return nn.SpatialFullConvolution(6, 4, 3, 3, 2, 2, 1, 1, 1, 1) end, {3, 6, 8, 8}},
  {'map', function() return nn.SpatialConvolutionMap(nn.tables.random(6, 8, 3), 3, 3) end, {3, 6, 12, 12}},
  {'volumetric', function() return nn.VolumetricConvolution(3, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1) end, {2, 3, 6, 8, 8}},
  {'volumetric full', function() return nn.VolumetricFullConvolution(3, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1) end,
   {2, 3, 4, 5, 5}},
  {'LRN', function() return nn.SpatialCrossMapLRN(5, 1e-4, 0.75, 1) end, {3, 12, 10, 10}},
}

local FIELDS = {'finput', 'fgradInput', 'paddedRatio'}

describe('nn scratch', function()
  it('leaves finput, fgradInput and paddedRatio empty after forward and backward', function()
    for _, c in ipairs(FAMILY) do
      local _, m = pass(c[2], c[3])
      for _, f in ipairs(FIELDS) do
        local t = rawget(m, f)
        if t ~= nil then
          assert.is_true(torch.isTensor(t), c[1] .. ' ' .. f)
          assert.are.equal(0, t:nElement(), c[1] .. ' ' .. f)
          assert.is_true(t:storage() == nil or t:storage():size() == 0, c[1] .. ' ' .. f)
        end
      end
    end
  end)

  it('grows to the largest need, keeps it, and does not grow for a smaller one', function()
    torch.releaseScratch()
    assert.are.equal(0, scratch().live_bytes)
    local small = nn.SpatialConvolution(4, 4, 3, 3):float()
    local big = nn.SpatialConvolution(32, 32, 5, 5):float()
    small:forward(torch.FloatTensor(2, 4, 10, 10):uniform())
    local s1 = scratch().live_bytes
    assert.is_true(s1 > 0)
    assert.are.equal(0, s1 % 65536)  -- grown in 64 KiB steps
    big:forward(torch.FloatTensor(2, 32, 40, 40):uniform())
    local s2 = scratch().live_bytes
    assert.is_true(s2 > s1)
    small:forward(torch.FloatTensor(2, 4, 10, 10):uniform())
    small:backward(torch.FloatTensor(2, 4, 10, 10):uniform(), small.output:clone():fill(1))
    assert.are.equal(s2, scratch().live_bytes)
    assert.are.equal(1, scratch().blocks)
  end)

  it('is shared by the modules of a net: the block is the largest need, not the sum', function()
    local net = nn.Sequential()
      :add(nn.SpatialConvolution(3, 16, 3, 3, 1, 1, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialConvolution(16, 16, 3, 3, 1, 1, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialConvolution(16, 8, 5, 5, 1, 1, 2, 2)):float()
    local x = torch.FloatTensor(4, 3, 24, 24):uniform()
    local need = 0
    for _, i in ipairs{1, 3, 5} do
      local m = net.modules[i]
      local xi = i == 1 and x or net.modules[i - 1].output
      net:forward(x)
      torch.releaseScratch()
      m:forward(xi)
      m:backward(xi, m.output:clone():fill(1))
      need = math.max(need, scratch().live_bytes)
    end
    torch.releaseScratch()
    net:forward(x)
    net:backward(x, net.output:clone():fill(1))
    assert.are.equal(need, scratch().live_bytes)
  end)

  it('gives the same results whatever another module left in it', function()
    for _, c in ipairs(FAMILY) do
      torch.releaseScratch()
      local fresh = pass(c[2], c[3])
      -- dirty the block with another layer's columns, then run again
      local other = nn.SpatialConvolution(32, 32, 5, 5):float()
      other:forward(torch.FloatTensor(2, 32, 40, 40):uniform(-1e3, 1e3))
      local ox = torch.FloatTensor(2, 32, 40, 40):uniform(-1e3, 1e3)
      other:forward(ox)
      other:backward(ox, other.output:clone():fill(1e3))
      same(fresh, pass(c[2], c[3]))
      -- and in double
      torch.releaseScratch()
      local d1 = pass(c[2], c[3], 'torch.DoubleTensor')
      other:forward(torch.FloatTensor(2, 32, 40, 40):uniform(-1e3, 1e3))
      same(d1, pass(c[2], c[3], 'torch.DoubleTensor'))
    end
  end)

  it('keeps the gradients right (double precision finite differences)', function()
    for _, c in ipairs(FAMILY) do
      torch.manualSeed(3)
      local m = c[2]():double()
      local size = {}
      local planes = #c[3] > 3 and 2 or 1  -- batch (shrunk to 2), planes (kept), then space
      for i, s in ipairs(c[3]) do size[i] = (i == planes and s) or (i < planes and 2) or math.min(s, 7) end
      local x = torch.DoubleTensor(table.unpack(size)):uniform(-1, 1)
      -- (one forward per input element and per weight: the cases small enough)
      if x:nElement() <= 2000 then
        assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-5, c[1] .. ' gradInput')
      end
      if m.weight and m.weight:nElement() <= 1200 then
        assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-5,
                       c[1] .. ' gradWeight')
      end
    end
  end)

  it('counts its bytes: live, peak, reset with the peaks, released by torch.releaseScratch', function()
    torch.releaseScratch()
    local m = nn.SpatialConvolution(16, 16, 3, 3):float()
    m:forward(torch.FloatTensor(4, 16, 30, 30):uniform())
    local live = scratch().live_bytes
    assert.is_true(live > 0 and scratch().peak_bytes >= live)
    assert.are.equal(live, torch.releaseScratch())
    assert.are.equal(0, scratch().live_bytes)
    assert.are.equal(0, scratch().blocks)
    assert.is_true(scratch().peak_bytes >= live)
    torch.resetPeakMemory()
    assert.are.equal(0, scratch().peak_bytes)
    assert.are.equal(0, torch.releaseScratch())  -- nothing left to free
    m:forward(torch.FloatTensor(4, 16, 30, 30):uniform())
    assert.are.equal(live, scratch().live_bytes)
    assert.are.equal(live, scratch().peak_bytes)
    -- storages are counted apart: the block is in no storage category
    local st = torch.memoryStats()
    torch.releaseScratch()
    assert.are.equal(st.live_bytes, torch.memoryStats().live_bytes)
  end)

  it('fails with a clear error when its memory cannot be had, and works again after', function()
    local m = nn.SpatialConvolution(16, 16, 3, 3):float()
    local x = torch.FloatTensor(4, 16, 30, 30):uniform()
    local want = m:forward(x):clone()
    torch.releaseScratch()
    local old = torch._C.allocLimit(4096)
    local ok, err = pcall(function() return m:forward(x) end)
    torch._C.allocLimit(old)
    assert.is_false(ok)
    assert.matches('SpatialConvolution', err)
    assert.matches('scratch: a kernel\'s workspace of %d+ bytes exceeds the allocation limit of 4096 bytes', err)
    assert.are.equal(0, (m:forward(x) - want):abs():max())
  end)

  it('is per thread: two threads running convolutions at once get the main thread\'s results', function()
    local threads = require 'threads'
    local jobs = {
      {'conv', {4, 8, 40, 40}}, {'conv', {16, 8, 12, 12}}, {'full', {4, 8, 10, 10}},
      {'conv', {8, 8, 20, 20}}, {'full', {2, 8, 16, 16}}, {'conv', {2, 8, 64, 64}},
    }
    local function run(kind, size)
      torch.manualSeed(5)
      local m = kind == 'conv' and nn.SpatialConvolution(8, 12, 3, 3, 1, 1, 1, 1):float()
                or nn.SpatialFullConvolution(8, 6, 3, 3, 2, 2, 1, 1, 1, 1):float()
      local x = torch.FloatTensor(table.unpack(size)):uniform(-1, 1)
      local r = {}
      for rep = 1, 3 do
        m:zeroGradParameters()
        local y = m:forward(x)
        local gi = m:backward(x, y:clone():fill(0.5))
        r = {y:clone(), gi:clone(), m.gradWeight:clone()}
      end
      return r
    end
    local want = {}
    for i, j in ipairs(jobs) do want[i] = run(j[1], j[2]) end
    local pool = threads.Threads(2, function() require 'nn' end)
    local got, blocks = {}, 0
    local ok, err = pcall(function()
      for rep = 1, 2 do
        for i, j in ipairs(jobs) do
          pool:addjob(function(kind, size)
            return run(kind, size), torch.memoryStats().categories.scratch.blocks
          end, function(r, b) got[i] = r; blocks = math.max(blocks, b) end, j[1], j[2])
        end
        -- the main thread runs alongside
        for i, j in ipairs(jobs) do same(want[i], run(j[1], j[2])) end
        pool:synchronize()
      end
    end)
    pool:terminate()
    if not ok then error(err, 0) end
    for i = 1, #jobs do
      assert.are.equal(0, (got[i][1] - want[i][1]):abs():max())
      assert.are.equal(0, (got[i][2] - want[i][2]):abs():max())
      assert.is_true((got[i][3] - want[i][3]):abs():max() <= 1e-5 * math.max(1, want[i][3]:abs():max()))
    end
    assert.is_true(blocks >= 2)  -- the main thread's and at least one worker's
  end)
end)

describe('nn scratch and Torch7 fields', function()
  local function net()
    torch.manualSeed(4)
    return nn.Sequential():add(nn.Identity())
      :add(nn.SpatialConvolution(3, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialCrossMapLRN(3)):add(nn.SpatialDilatedConvolution(8, 4, 3, 3, 1, 1, 2, 2, 2, 2))
      :add(nn.SpatialFullConvolution(4, 2, 3, 3)):float()
  end
  local x = torch.FloatTensor(2, 3, 12, 12)
  local function step(n)
    n:zeroGradParameters()
    local y = n:forward(x):clone()
    local gi = n:backward(x, y:clone():fill(0.25)):clone()
    local _, g = n:getParameters()
    return {y, gi, g:clone()}
  end

  it('round-trips a trained net through torch.save / torch.load with the fields empty', function()
    torch.manualSeed(9)
    x:uniform(-1, 1)
    local a = net()
    local ra = step(a)
    local f = os.tmpname()
    torch.save(f, a)
    local b = torch.load(f)
    os.remove(f)
    for _, m in ipairs(b:listModules()) do
      for _, name in ipairs(FIELDS) do
        if rawget(m, name) ~= nil then
          assert.is_true(torch.isTensor(m[name]))
          assert.are.equal(0, m[name]:nElement())
        end
      end
    end
    local rb = step(b)
    for i = 1, 3 do assert.are.equal(0, (ra[i] - rb[i]):abs():max()) end
  end)

  it('runs a Torch7 checkpoint whose buffers hold columns, and gives their memory back', function()
    torch.manualSeed(9)
    x:uniform(-1, 1)
    local a = net()
    local ra = step(a)
    local old = net()
    -- as Torch7 left them between passes: columns in finput / fgradInput
    for _, i in ipairs{2, 5, 6} do
      old:get(i).finput = torch.FloatTensor(50, 20):fill(7)
      old:get(i).fgradInput = torch.FloatTensor(30, 20):fill(7)
    end
    old:get(4).paddedRatio = torch.FloatTensor(100):fill(7)
    local f = os.tmpname()
    torch.save(f, old)
    local b = torch.load(f)
    os.remove(f)
    assert.are.equal(1000, b:get(2).finput:nElement())
    local rb = step(b)
    for i = 1, 3 do assert.are.equal(0, (ra[i] - rb[i]):abs():max()) end
    for _, m in ipairs(b:listModules()) do
      for _, name in ipairs(FIELDS) do
        if rawget(m, name) ~= nil then assert.are.equal(0, m[name]:nElement(), name) end
      end
    end
  end)

  it('keeps type() and clearState() working', function()
    torch.manualSeed(9)
    x:uniform(-1, 1)
    local a = net()
    step(a)
    a:double()
    local xd = x:double()
    a:forward(xd)
    a:backward(xd, a.output:clone():fill(1))
    assert.are.equal('torch.DoubleTensor', torch.type(a:get(2).finput))
    assert.are.equal(0, a:get(2).finput:nElement())
    a:clearState()
    assert.are.equal(0, a:get(2).finput:nElement())
    a:float()
    assert.are.equal(0, (step(a)[1] - step(net())[1]):abs():max())
  end)
end)
