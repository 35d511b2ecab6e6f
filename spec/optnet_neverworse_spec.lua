-- optnet never makes a net bigger: after optimizeMemory, countUsedMemory's
-- total_size is at most what it was before (the net having run the same
-- pass on the same input), in inference and in training mode, with the
-- numbers unchanged. The small nets are the kind OptNet's own tests use,
-- where tensors of a few bytes padded to 64-byte slots cost more than
-- sharing saves (plan.solve then plans the pool with element alignment);
-- then every zoo model at a small batch; then plan.solve's fallbacks on
-- hand-made intervals.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local plan = require 'optnet.plan'
local models = require 'models'
local helpers = require 'spec.support.helpers'
local clone = helpers.clone

-- the small nets: {name, builder() -> net, input}
local SMALL, byName = {}, {}
local function small(name, build)
  SMALL[#SMALL + 1] = {name, build}
  byName[name] = build
end

local function conv1() return nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 1, 1) end

small('ParallelTable of Linears', function()
  local second = nn.Sequential():add(nn.Linear(2, 1)):add(nn.Sigmoid()):add(nn.Linear(1, 1))
  local net = nn.Sequential()
    :add(nn.ParallelTable():add(nn.Linear(2, 2)):add(second))
    :add(nn.JoinTable(2))
    :add(nn.Linear(3, 2))
    :add(nn.ReLU(true))
  return net, {torch.rand(2, 2), torch.rand(2, 2)}
end)

small('one convolution and a Linear', function()
  local net = nn.Sequential():add(conv1())
    :add(nn.View(12 * 12):setNumInputDims(3))
    :add(nn.Linear(12 * 12, 10))
  return net, torch.rand(1, 1, 12, 12)
end)

small('deep 1-channel convolutions', function()
  local net = nn.Sequential()
  for _ = 1, 4 do net:add(conv1()):add(nn.ReLU(true)) end
  net:add(nn.View(12 * 12):setNumInputDims(3))
    :add(nn.Linear(12 * 12, 10)):add(nn.ReLU(true))
    :add(nn.Linear(10, 4))
  return net, torch.rand(1, 1, 12, 12)
end)

small('max pooling and unpooling', function()
  local p1, p2 = nn.SpatialMaxPooling(2, 2, 2, 2), nn.SpatialMaxPooling(2, 2, 2, 2)
  local net = nn.Sequential()
    :add(conv1()):add(nn.ReLU(true)):add(p1)
    :add(conv1()):add(nn.ReLU(true)):add(p2)
    :add(conv1()):add(nn.ReLU(true)):add(nn.SpatialMaxUnpooling(p2))
    :add(conv1()):add(nn.ReLU(true)):add(nn.SpatialMaxUnpooling(p1))
    :add(conv1())
  return net, torch.rand(1, 1, 12, 12)
end)

small('siamese with tied weights', function()
  local left = nn.Sequential()
  for _ = 1, 4 do left:add(conv1()):add(nn.ReLU()) end
  left:add(nn.View(-1):setNumInputDims(3))
  local right = left:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local net = nn.Sequential()
    :add(nn.ParallelTable():add(left):add(right))
    :add(nn.PairwiseDistance(2))
  return net, {torch.rand(1, 1, 12, 12), torch.rand(1, 1, 12, 12)}
end)

small('ConcatTable of three branches', function()
  local fan = nn.ConcatTable()
    :add(nn.Sequential():add(nn.Linear(2, 1)):add(nn.ReLU(true)):add(nn.Linear(1, 1)))
    :add(nn.Sequential():add(nn.Linear(2, 2)):add(nn.ReLU()))
    :add(nn.Sequential():add(nn.Linear(2, 3)):add(nn.ReLU(true)):add(nn.Linear(3, 2)))
  local regroup = nn.ConcatTable():add(nn.SelectTable(1)):add(nn.NarrowTable(2, 2))
  local combine = nn.ParallelTable():add(nn.Linear(1, 2)):add(nn.CAddTable())
  local net = nn.Sequential():add(fan):add(regroup):add(combine):add(nn.CMulTable())
  return net, torch.rand(2, 2)
end)

small('3-output ConcatTable', function()
  local net = nn.Sequential()
  for _ = 1, 3 do net:add(nn.Linear(2, 2)):add(nn.ReLU()) end
  net:add(nn.ConcatTable():add(nn.Linear(2, 2)):add(nn.Linear(2, 2)):add(nn.Linear(2, 2)))
  return net, torch.rand(2, 2)
end)

local same, gradFor = helpers.identical, helpers.gradFor

-- a pass of net in mode at a fixed seed: output, and in training gradInput
-- and the parameter gradients (from zero), all cloned
local function pass(net, input, mode, gradOutput)
  torch.manualSeed(100)
  local r = {output = clone(net:forward(input))}
  if mode == 'training' then
    net:zeroGradParameters()
    r.gradInput = clone(net:backward(input, gradOutput))
    local _, g = net:parameters()
    r.gradParams = clone(g or {})
  end
  return r
end

local function arenaBytes(st)
  local n = 0
  for _, v in pairs(st.result.arena) do n = n + v end
  return n
end

-- OptNet's check on one net: run it, count, optimize (opts), run it again,
-- count; the total must not grow, the numbers must not change. Returns
-- before, after (countUsedMemory) and the optimization state.
local function check(build, mode, opts)
  torch.manualSeed(1)
  local net, input = build()
  if mode == 'training' then net:training() else net:evaluate() end
  local gradOutput
  if mode == 'training' then
    torch.manualSeed(2)
    gradOutput = gradFor(net:forward(input))
  end
  local want = pass(net, input, mode, gradOutput)
  local before = optnet.countUsedMemory(net)
  local o = {mode = mode}
  for k, v in pairs(opts or {}) do o[k] = v end
  optnet.optimizeMemory(net, input, o)
  local got = pass(net, input, mode, gradOutput)
  local after = optnet.countUsedMemory(net)
  same(want.output, got.output, 'output')
  if mode == 'training' then
    same(want.gradInput, got.gradInput, 'gradInput')
    assert.are.equal(#want.gradParams, #got.gradParams)
    same(want.gradParams, got.gradParams, 'gradParameters')
  end
  assert(after.total_size <= before.total_size,
    string.format('total grew: %d -> %d bytes', before.total_size, after.total_size))
  -- every pool within the storages it replaces; with recompute shadows
  -- (storages optnet adds) all pools together
  local st = optnet._state(net)
  local shadowed = {}
  for _, e in ipairs(st.plan.entries) do if e.shadow then shadowed[e.pool] = true end end
  for pool, bytes in pairs(st.result.arena) do
    assert(shadowed[pool] or bytes <= st.result.held[pool],
      string.format('pool %d: arena %d bytes > %d the storages held', pool, bytes, st.result.held[pool]))
  end
  assert.is_false(plan.grows(st.result))
  return before, after, st
end

describe('optnet never worse than before: small nets', function()
  for _, net in ipairs(SMALL) do
    for _, mode in ipairs{'inference', 'training'} do
      it(net[1] .. ', ' .. mode, function()
        local before, after = check(net[2], mode)
        -- every storage is planned or a parameter: the total drops
        assert(after.total_size < before.total_size,
          string.format('no saving: %d -> %d bytes', before.total_size, after.total_size))
      end)
    end
  end

  it('element alignment where 64-byte slots cost more than sharing saves', function()
    -- the ConcatTable of three branches in training: 32 storages of 8 to
    -- 48 bytes take 1216 bytes in 64-byte slots, but hold 848
    local _, _, st = check(byName['ConcatTable of three branches'], 'training')
    assert.are.equal(8, st.result.alignment[1])
    assert.are.equal('element', st.result.fallback[1])
    for _, e in ipairs(st.plan.entries) do assert.are.equal(0, e.offset % 8) end
  end)

  for _, opts in ipairs{{reuse = false}, {inplace = false}, {removeGradParams = false},
                        {planner = 'sets'}, {reorder = true}} do
    local key, val = next(opts)
    for _, mode in ipairs{'inference', 'training'} do
      it(string.format('with %s = %s, %s', key, tostring(val), mode), function()
        for _, net in ipairs(SMALL) do check(net[2], mode, opts) end
      end)
    end
  end

  for _, how in ipairs{'cheap', 'sqrt'} do
    it('with recompute = ' .. how .. ' (its shadows are storages the net did not have)', function()
      for _, net in ipairs(SMALL) do check(net[2], 'training', {recompute = how}) end
    end)
  end

  it('recompute is dropped when its shadows would add more than it saves', function()
    local function planned(grows)
      torch.manualSeed(1)
      local net, input = byName['deep 1-channel convolutions']()
      net:training()
      local real = plan.grows
      plan.grows = grows or real
      local ok, err = pcall(optnet.optimizeMemory, net, input, {mode = 'training', recompute = 'sqrt'})
      plan.grows = real
      assert(ok, err)
      local st = optnet._state(net)
      local shadows = 0
      for _, e in ipairs(st.plan.entries) do if e.shadow then shadows = shadows + 1 end end
      return st.result.recompute, shadows
    end
    local how, shadows = planned()
    assert.are.equal('sqrt', how)
    assert(shadows > 0, 'sqrt made no shadow')
    how, shadows = planned(function() return true end)
    assert.are.equal('none', how)
    assert.are.equal(0, shadows)
  end)

  it('reuse = false plans each storage in a slot of exactly its size', function()
    local _, _, st = check(byName['ParallelTable of Linears'], 'training', {reuse = false})
    for pool, bytes in pairs(st.result.arena) do assert.are.equal(st.result.held[pool], bytes) end
  end)
end)

describe('optnet never worse than before: zoo models', function()
  for _, entry in ipairs(models.list()) do
    for _, mode in ipairs{'inference', 'training'} do
      it(entry.name .. ', ' .. mode, function()
        local _, _, st = check(function() return models.build(entry.name, entry.small) end, mode)
        -- big activations keep cache-line slots: nothing falls back
        for pool, a in pairs(st.result.alignment) do
          assert.are.equal(64, a, 'pool ' .. pool .. ' fell back to ' .. tostring(st.result.fallback[pool]))
        end
      end)
    end
  end

  it('mlp traced at small batches and scaled (smallTrace)', function()
    local _, _, st = check(function() return models.build('mlp', {batch = 40, hidden = {16, 16}}) end, 'training')
    assert.is_true(st.result.scaled)
  end)
end)

describe('optnet.plan.solve fallbacks', function()
  local function entries(list)
    local r = {}
    for i, e in ipairs(list) do
      r[i] = {id = i, first = e[1], last = e[2], bytes = e[3], pool = 1, dtype = 'torch.DoubleTensor',
              shadow = e[4] or nil}
    end
    return {entries = r, pools = {['torch.DoubleTensor'] = 1}}
  end

  -- no two entries alive at a common step share a byte; offsets aligned
  local function valid(p, alignment)
    for i, a in ipairs(p.entries) do
      assert.are.equal(0, a.offset % alignment)
      for j = i + 1, #p.entries do
        local b = p.entries[j]
        if a.first <= b.last and b.first <= a.last then
          assert(a.offset + a.bytes <= b.offset or b.offset + b.bytes <= a.offset,
            string.format('entries %d and %d overlap', i, j))
        end
      end
    end
  end

  it('keeps 64-byte slots when they share well', function()
    local p = entries{{1, 2, 4096}, {3, 4, 4096}, {2, 3, 1000}}
    local r = plan.solve(p, {})
    valid(p, 64)
    assert.are.same({[1] = 64}, r.alignment)
    assert.are.same({}, r.fallback)
    assert.are.equal(4096 + 1024, r.arena[1])
    assert.are.equal(4096 * 2 + 1000, r.held[1])
  end)

  it('plans with element alignment when 64-byte slots are not smaller than the storages', function()
    -- three storages of 8 bytes, two alive at a time: 128 bytes in 64-byte
    -- slots against 24 held; 16 with 8-byte slots
    local p = entries{{1, 2, 8}, {2, 3, 8}, {3, 4, 8}}
    local r = plan.solve(p, {})
    valid(p, 8)
    assert.are.equal(24, r.held[1])
    assert.are.equal(16, r.arena[1])
    assert.are.equal(8, r.alignment[1])
    assert.are.equal('element', r.fallback[1])
  end)

  it('with nothing to share, the arena is exactly the storages', function()
    local p = entries{{1, 4, 8}, {1, 4, 24}, {2, 3, 16}}
    for _, opts in ipairs{{}, {reuse = false}, {planner = 'sets'}} do
      local r = plan.solve(p, opts)
      valid(p, 8)
      assert.are.equal(48, r.arena[1])
      assert.are.equal(48, r.held[1])
    end
  end)

  it('a recompute shadow is not counted as held, and goes where its home was', function()
    -- OptNet's storage sets put the shadow (alive with the small storage
    -- b) in a set of its own: 1600 bytes; the storages held 808, and the
    -- shadow fits where a, its home, was
    local p = entries{{1, 2, 800}, {3, 4, 8}, {3, 4, 800, true}}
    local r = plan.solve(p, {planner = 'sets'})
    valid(p, 8)
    assert.are.equal(808, r.held[1])
    assert.are.equal(808, r.arena[1])
    assert.are.equal('unshared', r.fallback[1])
    assert.are.equal(p.entries[1].offset, p.entries[3].offset)
  end)
end)
