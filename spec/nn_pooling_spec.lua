-- nn.SpatialMaxPooling, nn.SpatialAveragePooling, nn.SpatialMaxUnpooling,
-- nn.SpatialZeroPadding: values against direct loops, ceil/floor shapes,
-- padding, count_include_pad, indices, gradients (finite differences, double).
require 'torch'
require 'nn'

local function flat(t) return t:contiguous():view(t:nElement()) end

local function maxdiff(a, b)
  assert.are.equal(a:nElement(), b:nElement())
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

-- gradient check through the project's nn.Jacobian (double)
local inputJacobianError = require('spec.support.helpers').inputJacobianError

local errorOf = require('spec.support.helpers').errorOf

-- direct pooling of one plane (H x W) with Torch7's window rules
local function naivePool(x, kW, kH, dW, dH, padW, padH, oH, oW, op, includePad)
  local iH, iW = x:size(1), x:size(2)
  local out = torch.DoubleTensor(oH, oW)
  local idx = torch.LongTensor(oH, oW)
  for y = 1, oH do for xx = 1, oW do
    local y0, x0 = (y - 1) * dH - padH, (xx - 1) * dW - padW
    local y1, x1 = math.min(y0 + kH, iH + padH), math.min(x0 + kW, iW + padW)
    local poolSize = (y1 - y0) * (x1 - x0)
    y0, x0, y1, x1 = math.max(y0, 0), math.max(x0, 0), math.min(y1, iH), math.min(x1, iW)
    local best, bi, sum = -math.huge, 0, 0
    for i = y0 + 1, y1 do for j = x0 + 1, x1 do
      local v = x[i][j]
      sum = sum + v
      -- the window's first element starts (an all -inf window points at it)
      if bi == 0 or v > best then best, bi = v, (i - 1) * iW + j end
    end end
    if op == 'max' then
      out[y][xx], idx[y][xx] = best, bi
    else
      out[y][xx] = sum / (includePad and poolSize or (y1 - y0) * (x1 - x0))
    end
  end end
  return out, idx
end

local function outSize(i, k, d, pad, ceil)
  local n = i + 2 * pad - k
  local o = (ceil and math.ceil(n / d) or n // d) + 1
  if (o - 1) * d >= i + pad then o = o - 1 end
  return o
end

describe('nn.SpatialMaxPooling', function()
  before_each(function() torch.manualSeed(7) end)

  it('has Torch7 defaults, fields and printing', function()
    local m = nn.SpatialMaxPooling(3, 2)
    assert.are.equal(3, m.dW); assert.are.equal(2, m.dH)
    assert.are.equal(0, m.padW); assert.is_false(m.ceil_mode)
    assert.are.equal('torch.LongTensor', torch.type(m.indices))
    assert.are.equal('nn.SpatialMaxPooling(3x2, 3,2)', tostring(m))
    assert.are.equal('nn.SpatialMaxPooling(3x3, 2,2, 1,1)', tostring(nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1)))
    assert.are.equal(m, m:ceil()); assert.is_true(m.ceil_mode)
    assert.are.equal(m, m:floor()); assert.is_false(m.ceil_mode)
  end)

  it('computes floor and ceil output shapes', function()
    local x = torch.Tensor(2, 3, 7, 6):uniform()
    assert.are.same({2, 3, 3, 2}, nn.SpatialMaxPooling(3, 3, 2, 2):forward(x):size():totable())
    assert.are.same({2, 3, 3, 3}, nn.SpatialMaxPooling(3, 3, 2, 2):ceil():forward(x):size():totable())
    assert.are.same({2, 3, 4, 3}, nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):forward(x):size():totable())
    assert.are.same({2, 3, 4, 4}, nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil():forward(x):size():totable())
    -- ceil mode never starts a window in the right padding: 5 + 2*1 - 3 = 4, ceil(4/3) + 1 = 3 -> 2
    assert.are.same({1, 2, 2}, nn.SpatialMaxPooling(3, 3, 3, 3, 1, 1):ceil():forward(torch.Tensor(1, 5, 5):uniform()):size():totable())
    assert.are.same({3, 3, 3}, nn.SpatialMaxPooling(2, 2):forward(x[1]):size():totable())
  end)

  it('matches direct pooling with indices, padding and ceil mode', function()
    for _, c in ipairs{{2, 2, 2, 2, 0, 0, false}, {3, 3, 2, 2, 1, 1, true}, {3, 2, 1, 2, 1, 0, false},
                       {2, 3, 3, 2, 0, 1, true}, {4, 4, 2, 2, 2, 2, false}} do
      local m = nn.SpatialMaxPooling(c[1], c[2], c[3], c[4], c[5], c[6])
      if c[7] then m:ceil() end
      local x = torch.DoubleTensor(2, 3, 7, 8):uniform(-1, 1)
      local y = m:forward(x)
      local oH, oW = outSize(7, c[2], c[4], c[6], c[7]), outSize(8, c[1], c[3], c[5], c[7])
      assert.are.same({2, 3, oH, oW}, y:size():totable())
      for b = 1, 2 do for p = 1, 3 do
        local ref, idx = naivePool(x[b][p], c[1], c[2], c[3], c[4], c[5], c[6], oH, oW, 'max')
        assert.are.equal(0, maxdiff(ref, y[b][p]))
        assert.are.equal(0, maxdiff(idx, m.indices[b][p]))
      end end
      assert.is_true(inputJacobianError(m, x) < 1e-5, tostring(m))
      assert.is_true(inputJacobianError(m, x[1]:clone()) < 1e-5, tostring(m))
    end
  end)

  it('lets the first maximum win ties and the first NaN win a window, as Torch7', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      local m = nn.SpatialMaxPooling(2, 2, 2, 2):type(T)
      local x = torch.Tensor(1, 4, 4):type(T):fill(1)
      x[1][1][2] = 5; x[1][2][1] = 5            -- a tie in window (1,1): the first (row-major) wins
      x[1][1][3] = 0 / 0; x[1][2][4] = 0 / 0    -- two NaNs in window (1,2): the first wins
      x[1][4][4] = 0 / 0                        -- a NaN after larger values in window (2,2)
      x[1][3][3] = 7
      local y = m:forward(x)
      assert.are.equal(5, y[1][1][1]); assert.are.equal(2, m.indices[1][1][1])
      assert.is_true(y[1][1][2] ~= y[1][1][2]); assert.are.equal(3, m.indices[1][1][2])
      assert.are.equal(1, y[1][2][1]); assert.are.equal(9, m.indices[1][2][1])
      assert.is_true(y[1][2][2] ~= y[1][2][2]); assert.are.equal(16, m.indices[1][2][2])
    end
  end)

  -- strides 1 and 2 with rows of at most 256 outputs take a vectorized
  -- path (generic/pool.c), wider rows and other strides the general one:
  -- both against direct pooling, with many ties (values from {-inf, 0, 1,
  -- 2}: ReLU outputs tie at 0) where only the row-major first may win
  it('matches direct pooling on ties, odd sizes, wide rows and views, float and double', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      for _, c in ipairs{{3, 3, 2, 2, 0, 0, false, 1, 13, 11}, {3, 3, 2, 2, 1, 1, true, 2, 9, 14},
                         {2, 2, 2, 2, 0, 0, false, 1, 7, 9}, {3, 2, 1, 1, 1, 0, true, 2, 5, 8},
                         {2, 2, 1, 2, 1, 1, false, 1, 6, 7}, {3, 3, 1, 1, 1, 1, false, 1, 3, 262},
                         {2, 2, 2, 2, 0, 0, true, 1, 4, 515}, {3, 3, 3, 3, 1, 1, false, 1, 8, 10}} do
        local kW, kH, dW, dH, padW, padH, ceil, B, H, W = table.unpack(c)
        local m = nn.SpatialMaxPooling(kW, kH, dW, dH, padW, padH):type(T)
        if ceil then m:ceil() end
        -- a non-contiguous input: a transposed view
        local x = torch.Tensor(B, 2, W, H):type(T):uniform(0, 3):floor():transpose(3, 4)
        x:select(2, 2):narrow(2, 1, 1):fill(-math.huge)
        local y = m:forward(x)
        local oH, oW = outSize(H, kH, dH, padH, ceil), outSize(W, kW, dW, padW, ceil)
        assert.are.same({B, 2, oH, oW}, y:size():totable())
        for b = 1, B do for p = 1, 2 do
          local ref, idx = naivePool(x[b][p]:double(), kW, kH, dW, dH, padW, padH, oH, oW, 'max')
          assert.is_true(ref:eq(y[b][p]:double()):all(), T .. ' ' .. tostring(m))
          assert.is_true(idx:eq(m.indices[b][p]):all(), T .. ' ' .. tostring(m))
        end end
      end
    end
  end)

  -- the vectorized path (generic/pool.c's maxpool_plane_taps) keeps the
  -- running maxima of a vector of outputs in registers over the window's
  -- taps, from rows copied between margins of -inf: rows of 1 to 17
  -- vectors (partial last ones), windows up to 8 rows (9: the general
  -- loop), left and right padding, ceil mode, all -inf windows, a NaN in
  -- some planes only, a batch of 1
  it('keeps the scan order on vector-wide rows, tall windows and NaN planes, float and double', function()
    torch.manualSeed(37)
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      for _, c in ipairs{{3, 3, 2, 2, 1, 1, false, 1, 12, 33}, {3, 3, 1, 1, 1, 1, true, 2, 5, 17},
                         {2, 2, 2, 2, 0, 0, true, 1, 3, 31}, {5, 8, 2, 1, 2, 4, false, 1, 11, 40},
                         {4, 9, 1, 2, 2, 4, true, 1, 12, 20}, {16, 2, 2, 2, 8, 1, true, 1, 3, 45},
                         {3, 3, 2, 2, 0, 0, false, 1, 9, 513}, {1, 1, 1, 1, 0, 0, false, 1, 2, 256},
                         {3, 3, 1, 1, 0, 0, false, 1, 4, 18}} do
        local kW, kH, dW, dH, padW, padH, ceil, B, H, W = table.unpack(c)
        local m = nn.SpatialMaxPooling(kW, kH, dW, dH, padW, padH):type(T)
        if ceil then m:ceil() end
        local x = torch.Tensor(B, 3, H, W):type(T):uniform(-2, 2):floor()
        x[1][2]:fill(-math.huge)                        -- every window -inf
        x[1][3][math.min(H, 2)][W] = 0 / 0              -- a NaN in the last plane only
        local y = m:forward(x)
        local oH, oW = outSize(H, kH, dH, padH, ceil), outSize(W, kW, dW, padW, ceil)
        assert.are.same({B, 3, oH, oW}, y:size():totable())
        for p = 1, 3 do
          local ref, idx = naivePool(x[1][p]:double(), kW, kH, dW, dH, padW, padH, oH, oW, 'max')
          if p == 3 then
            -- Torch7: the first NaN of a window wins it (the plain scan above
            -- lets NaN lose): windows holding the NaN take its value and index
            local ny, nx = math.min(H, 2), W
            for i = 1, oH do for j = 1, oW do
              local y0, x0 = (i - 1) * dH - padH, (j - 1) * dW - padW
              if ny - 1 >= math.max(y0, 0) and ny - 1 < math.min(y0 + kH, H)
                 and nx - 1 >= math.max(x0, 0) and nx - 1 < math.min(x0 + kW, W) then
                ref[i][j], idx[i][j] = 0 / 0, (ny - 1) * W + nx
              end
            end end
          end
          local got = y[1][p]:double()
          local same = ref:eq(got):add(ref:ne(ref):cmul(got:ne(got)))
          assert.is_true(same:gt(0):all(), T .. ' plane ' .. p .. ' ' .. tostring(m))
          assert.is_true(idx:eq(m.indices[1][p]):all(), T .. ' plane ' .. p .. ' ' .. tostring(m))
        end
      end
    end
  end)

  it('agrees between float and double and keeps its tensors', function()
    local m = nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil()
    local out, gin = m.output, m.gradInput
    local x = torch.DoubleTensor(2, 2, 9, 9):uniform(-1, 1)
    local y = m:forward(x):clone()
    local go = y:clone():uniform()
    local gi = m:backward(x, go):clone()
    local mf = nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil():float()
    assert.is_true(maxdiff(y, mf:forward(x:float()):double()) < 1e-6)
    assert.is_true(maxdiff(gi, mf:backward(x:float(), go:float()):double()) < 1e-6)
    assert.are.equal(out, m.output); assert.are.equal(gin, m.gradInput)
    assert.are.same({indices = 'both'}, m:memoryTraits().buffers)
  end)

  it('gives clear errors', function()
    local m = nn.SpatialMaxPooling(2, 2)
    assert.are.equal('nn.SpatialMaxPooling:updateOutput: input must be 3D or 4D (batch), got 2D 4x4',
                     errorOf(function() m:forward(torch.Tensor(4, 4)) end))
    assert.are.equal('nn.SpatialMaxPooling:updateOutput: input 3x1x5 is smaller than the 2x2 window (with padding 0,0)',
                     errorOf(function() m:forward(torch.Tensor(3, 1, 5)) end))
    assert.are.equal('nn.SpatialMaxPooling:updateOutput: padding must be at most half the kernel size, got padding 2,0 for kernel 3x3',
                     errorOf(function() nn.SpatialMaxPooling(3, 3, 1, 1, 2, 0):forward(torch.Tensor(1, 5, 5)) end))
    local x = torch.Tensor(1, 4, 4):uniform()
    m:forward(x)
    assert.are.equal('nn.SpatialMaxPooling:updateGradInput: gradOutput must be 1x2x2 (the output size), got 1x4x4',
                     errorOf(function() m:backward(x, x) end))
  end)
end)

describe('nn.SpatialAveragePooling', function()
  before_each(function() torch.manualSeed(8) end)

  it('has Torch7 defaults and printing', function()
    local m = nn.SpatialAveragePooling(3, 3)
    assert.are.equal(1, m.dW); assert.are.equal(1, m.dH)   -- unlike max pooling
    assert.is_true(m.count_include_pad); assert.is_false(m.ceil_mode)
    assert.are.equal('nn.SpatialAveragePooling(3x3, 1,1)', tostring(m))
    assert.are.equal(m, m:setCountExcludePad()); assert.is_false(m.count_include_pad)
    assert.are.equal(m, m:setCountIncludePad()); assert.is_true(m.count_include_pad)
    assert.are.equal('nn.SpatialAveragePooling(2x2, 2,2, 1,1)', tostring(nn.SpatialAveragePooling(2, 2, 2, 2, 1, 1)))
  end)

  it('matches direct pooling with count_include_pad on and off, floor and ceil', function()
    for _, c in ipairs{{2, 2, 2, 2, 0, 0, false}, {3, 3, 2, 2, 1, 1, true}, {3, 3, 2, 2, 1, 1, false},
                       {3, 2, 1, 2, 1, 1, true}, {2, 2, 3, 3, 1, 0, true}} do
      for _, include in ipairs{true, false} do
        local m = nn.SpatialAveragePooling(c[1], c[2], c[3], c[4], c[5], c[6])
        if c[7] then m:ceil() end
        if not include then m:setCountExcludePad() end
        local x = torch.DoubleTensor(2, 2, 7, 6):uniform(-1, 1)
        local y = m:forward(x)
        local oH, oW = outSize(7, c[2], c[4], c[6], c[7]), outSize(6, c[1], c[3], c[5], c[7])
        assert.are.same({2, 2, oH, oW}, y:size():totable())
        for b = 1, 2 do for p = 1, 2 do
          local ref = naivePool(x[b][p], c[1], c[2], c[3], c[4], c[5], c[6], oH, oW, 'avg', include)
          assert.is_true(maxdiff(ref, y[b][p]) < 1e-12, tostring(m))
        end end
        assert.is_true(inputJacobianError(m, x) < 1e-5, tostring(m))
        assert.is_true(inputJacobianError(m, x[2]:clone()) < 1e-5, tostring(m))
      end
    end
  end)

  -- a 1x1 window without padding (ResNet's shortcut A) takes a strided
  -- copy: the same numbers as the general loop, -0 made 0 as its sum does
  it('subsamples with a 1x1 window as the general loop, float and double, views', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      for _, c in ipairs{{2, 2, false, 1, 7, 9}, {2, 3, true, 2, 8, 5}, {3, 1, true, 1, 5, 5}} do
        local dW, dH, ceil, B, H, W = table.unpack(c)
        local m = nn.SpatialAveragePooling(1, 1, dW, dH):type(T)
        if ceil then m:ceil() end
        local x = torch.Tensor(B, 3, W, H):type(T):uniform(-1, 1):transpose(3, 4)
        x[1][1][1][1] = -0.0
        x[B][3][H][1] = 0 / 0
        local y = m:forward(x)
        local oH, oW = outSize(H, 1, dH, 0, ceil), outSize(W, 1, dW, 0, ceil)
        assert.are.same({B, 3, oH, oW}, y:size():totable())
        local ref = x:index(3, torch.range(1, (oH - 1) * dH + 1, dH):long())
                     :index(4, torch.range(1, (oW - 1) * dW + 1, dW):long()):clone():add(0)
        local same = ref:eq(y):add(ref:ne(ref):cmul(y:ne(y)))  -- NaN where NaN
        assert.are.equal(ref:nElement(), same:sum(), T)
        assert.are.equal(1 / 0, 1 / y[1][1][1][1], 'the sum of -0 is 0')
        -- backward: each gradient back at its input, 0 elsewhere, -0 made 0
        local go = y:clone():uniform(-1, 1)
        go[1][1][1][1] = -0.0
        go[B][2][oH][oW] = 0 / 0
        local gi = m:backward(x, go)
        local rgi = x:clone():zero()
        for b = 1, B do for p = 1, 3 do for i = 1, oH do for j = 1, oW do
          rgi[b][p][(i - 1) * dH + 1][(j - 1) * dW + 1] = go[b][p][i][j]
        end end end end
        local gsame = rgi:eq(gi):add(rgi:ne(rgi):cmul(gi:ne(gi)))
        assert.are.equal(rgi:nElement(), gsame:sum(), T .. ' backward')
        assert.are.equal(1 / 0, 1 / gi[1][1][1][1], 'a -0 gradient is added to 0')
        if T == 'torch.DoubleTensor' then
          assert.is_true(inputJacobianError(m, x:clone():uniform(-1, 1)) < 1e-6)
        end
      end
    end
  end)

  it('gives clear errors and declares no buffers', function()
    local m = nn.SpatialAveragePooling(2, 2, 2, 2)
    assert.are.equal('nn.SpatialAveragePooling:updateOutput: input must be 3D or 4D (batch), got 1D 4',
                     errorOf(function() m:forward(torch.Tensor(4)) end))
    assert.are.equal('nn.SpatialAveragePooling:updateOutput: input must be a torch.FloatTensor or torch.DoubleTensor, got torch.LongTensor',
                     errorOf(function() m:forward(torch.LongTensor(1, 4, 4)) end))
    assert.are.equal("nn.SpatialAveragePooling:updateOutput: input must be a torch.DoubleTensor (the module's type), got torch.FloatTensor",
                     errorOf(function() m:forward(torch.FloatTensor(1, 4, 4)) end))
    assert.are.same({}, m:memoryTraits().buffers)
    assert.is_false(m:memoryTraits().needsInput)
  end)
end)

describe('nn.SpatialMaxUnpooling', function()
  before_each(function() torch.manualSeed(9) end)

  it('puts values back where the tied pooling module found them', function()
    local pool = nn.SpatialMaxPooling(2, 2)
    local unpool = nn.SpatialMaxUnpooling(pool)
    assert.are.equal('nn.SpatialMaxUnpooling associated to nn.SpatialMaxPooling(2x2, 2,2)', tostring(unpool))
    local x = torch.DoubleTensor(2, 3, 6, 5):uniform(0.5, 1)
    local p = pool:forward(x)
    local u = unpool:forward(p)
    assert.are.same({2, 3, 6, 5}, u:size():totable())
    -- each output is either 0 or the input value at the max position
    local fu, fx, nonzero = flat(u), flat(x), 0
    for i = 1, fu:nElement() do
      if fu[i] ~= 0 then
        nonzero = nonzero + 1
        assert.are.equal(fx[i], fu[i])
      end
    end
    assert.are.equal(p:nElement(), nonzero)
    -- pooling the unpooled (positive) map gives the pooled map back
    assert.are.equal(0, maxdiff(nn.SpatialMaxPooling(2, 2):forward(u), p))
    -- gradient: picks gradOutput at the indices
    assert.is_true(inputJacobianError(unpool, p:clone()) < 1e-5)
    local p1 = pool:forward(x[1])
    assert.are.same({3, 6, 5}, unpool:forward(p1):size():totable())
  end)

  it('checks its pooling module and its input', function()
    assert.are.equal('nn.SpatialMaxUnpooling: argument must be a nn.SpatialMaxPooling module, got nn.SpatialAveragePooling',
                     errorOf(function() nn.SpatialMaxUnpooling(nn.SpatialAveragePooling(2, 2, 2, 2)) end))
    assert.are.equal("nn.SpatialMaxUnpooling: the pooling module's kernel must equal its stride, got kernel 3x3, stride 2,2",
                     errorOf(function() nn.SpatialMaxUnpooling(nn.SpatialMaxPooling(3, 3, 2, 2)) end))
    local pool = nn.SpatialMaxPooling(2, 2)
    local unpool = nn.SpatialMaxUnpooling(pool)
    assert.are.equal('nn.SpatialMaxUnpooling:updateOutput: the pooling module has not run forward yet',
                     errorOf(function() unpool:forward(torch.Tensor(1, 2, 2)) end))
    pool:forward(torch.Tensor(1, 4, 4):uniform())
    assert.are.equal("nn.SpatialMaxUnpooling:updateOutput: input must be 1x2x2 (the size of the pooling module's output), got 1x3x3",
                     errorOf(function() unpool:forward(torch.Tensor(1, 3, 3)) end))
    -- corrupted indices are an error, never a stray write
    pool.indices[1][1][1] = 99
    assert.is_truthy(errorOf(function() unpool:forward(torch.Tensor(1, 2, 2):uniform()) end)
                     :find('indices hold 1 positions outside the 4x4 output planes', 1, true))
  end)
end)

describe('nn.SpatialZeroPadding', function()
  before_each(function() torch.manualSeed(10) end)

  it('pads and crops 3D and 4D inputs', function()
    local m = nn.SpatialZeroPadding(1, 2, -1, 0)
    assert.are.equal('nn.SpatialZeroPadding(l=1, r=2, t=-1, b=0)', tostring(m))
    local x = torch.DoubleTensor(2, 3, 4, 5):uniform(1, 2)
    local y = m:forward(x)
    assert.are.same({2, 3, 3, 8}, y:size():totable())
    for b = 1, 2 do for c = 1, 3 do for i = 1, 3 do for j = 1, 8 do
      local src = (j >= 2 and j <= 6) and x[b][c][i + 1][j - 1] or 0
      assert.are.equal(src, y[b][c][i][j])
    end end end end
    assert.is_true(inputJacobianError(m, x) < 1e-6)
    local m2 = nn.SpatialZeroPadding(2)
    assert.are.same({3, 8, 9}, m2:forward(x[1]):size():totable())
    assert.is_true(inputJacobianError(m2, x[1]:clone()) < 1e-6)
  end)

  it('gives clear errors', function()
    local m = nn.SpatialZeroPadding(-3, 0, 0, 0)
    assert.are.equal('nn.SpatialZeroPadding:updateOutput: input 1x4x3 is too small for cropping -3,0,0,0',
                     errorOf(function() m:forward(torch.Tensor(1, 4, 3)) end))
    assert.are.equal('nn.SpatialZeroPadding:updateOutput: input must be 3D or 4D (batch), got 2D 4x3',
                     errorOf(function() m:forward(torch.Tensor(4, 3)) end))
    local p = nn.SpatialZeroPadding(1)
    local x = torch.Tensor(1, 2, 2):uniform()
    p:forward(x)
    assert.are.equal('nn.SpatialZeroPadding:updateGradInput: gradOutput must be 1x4x4 (the output size), got 1x2x2',
                     errorOf(function() p:backward(x, x) end))
  end)
end)

describe('spatial pooling modules', function()
  it('round-trip through save/load (nn.Jacobian.testIO)', function()
    torch.manualSeed(13)
    local pool = nn.SpatialMaxPooling(2, 2)
    for _, m in ipairs{nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil(),
                       nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil():setCountExcludePad(),
                       nn.Sequential():add(pool):add(nn.SpatialMaxUnpooling(pool)),
                       nn.SpatialZeroPadding(1, -1, 2, 0)} do
      local errf, errb = nn.Jacobian.testIO(m, torch.DoubleTensor(2, 2, 6, 6):uniform())
      assert.are.equal(0, errf); assert.are.equal(0, errb)
    end
  end)
end)

-- above TH_NN_PAR_MIN_POOL (65536 elements read forward) and
-- TH_NN_PAR_MIN_POOL_BWD (262144 outputs backward) planes are spread over
-- the threads; each plane is one thread's, so the numbers are one thread's
describe('spatial pooling on two threads', function()
  it('gives the bits and indices of one thread, max and average, float and double', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      torch.manualSeed(6)
      local x = torch.randn(2, 32, 131, 133):type(T)  -- 64 planes of 65x66 outputs
      for _, mk in ipairs{function() return nn.SpatialMaxPooling(3, 3, 2, 2) end,
                          function() return nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1) end} do
        local res = {}
        for _, nt in ipairs{1, 2} do
          local old = torch.getnumthreads()
          torch.setnumthreads(nt)
          local m = mk():type(T)
          local y = m:forward(x):clone()
          local gi = m:backward(x, y:clone():mul(-0.5)):clone()
          res[nt] = {y, gi, m.indices and m.indices:clone()}
          torch.setnumthreads(old)
        end
        assert.is_true(res[1][1]:eq(res[2][1]):all(), T)
        assert.is_true(res[1][2]:eq(res[2][2]):all(), T)
        if res[1][3] then assert.is_true(res[1][3]:eq(res[2][3]):all(), T) end
      end
    end
  end)
end)
