-- The kernels that split their work over th_pool's helper threads
-- (src/tensor/th_pool.c): direct, im2col, Winograd, full and dilated
-- convolutions, batch norm, activations, the fused residual add + ReLU, max
-- and average pooling (spatial, volumetric, window and fractional),
-- up-sampling, padding, unpooling, softmax, criterions, the pointwise maps,
-- lookup, local sums, and the tensor math (element-wise maps, comparisons,
-- reductions, convolutions). Each runs at sizes past its threshold on
-- one thread and on two: where the split is by plane, feature or element
-- block the results must be the same bits; where partial sums are split by
-- thread (gradWeight) they must agree to rounding and repeat exactly from
-- run to run at the same thread count.
require 'torch'
require 'nn'
local C = torch._C.nn

local function threads(n, f)
  local old = torch.getnumthreads()
  torch.setnumthreads(n)
  local ok, a, b, c, d = pcall(f)
  torch.setnumthreads(old)
  if not ok then error(a, 0) end
  return a, b, c, d
end

local function same(a, b, what)
  assert.are.same(a:size():totable(), b:size():totable())
  local d = (a:double() - b:double()):abs():max()
  assert(d == 0, what .. ': one and two threads differ by ' .. d)
end

local function close(a, b, what)
  local d = (a:double() - b:double()):abs():max()
  local s = math.max(b:double():abs():max(), 1e-30)
  assert(d / s < 1e-5, what .. ': relative difference ' .. d / s)
end

-- forward, gradInput and gradWeight of module m on one and two threads
local function passes(m, x, go, n)
  return threads(n, function()
    m:zeroGradParameters()
    local y = m:forward(x):clone()
    local gi = m:updateGradInput(x, go):clone()
    m:accGradParameters(x, go, 0.5)
    return y, gi, m.gradWeight and m.gradWeight:clone(), m.gradBias and m.gradBias:clone()
  end)
end

local function check_module(m, x, what)
  torch.manualSeed(7)
  local go = torch.randn(m:forward(x):size()):typeAs(x)
  local y1, g1, w1, b1 = passes(m, x, go, 1)
  local y2, g2, w2, b2 = passes(m, x, go, 2)
  local y3, g3, w3, b3 = passes(m, x, go, 2)
  same(y1, y2, what .. ' forward')
  same(g1, g2, what .. ' gradInput')
  if w1 then
    close(w2, w1, what .. ' gradWeight')
    same(w2, w3, what .. ' gradWeight, two runs on two threads')
  end
  if b1 then close(b2, b1, what .. ' gradBias'); same(b2, b3, what .. ' gradBias, two runs') end
  same(y2, y3, what .. ' forward, two runs')
  same(g2, g3, what .. ' gradInput, two runs')
end

describe('kernels on th_pool threads', function()
  it('direct convolution (float, 3x3 and 5x5, odd planes, batch 1 and 9)', function()
    torch.manualSeed(1)
    for _, c in ipairs{{9, 16, 24, 31, 3}, {1, 8, 16, 40, 3}, {5, 12, 20, 17, 5}} do
      local b, nin, nout, hw, k = table.unpack(c)
      local m = nn.SpatialConvolution(nin, nout, k, k, 1, 1, (k - 1) / 2, (k - 1) / 2):float()
      local x = torch.randn(b, nin, hw, hw):float()
      check_module(m, x, string.format('direct %dx%d b%d', k, k, b))
    end
  end)

  it('im2col convolution (stride 2, double and float)', function()
    torch.manualSeed(2)
    for _, ty in ipairs{'torch.DoubleTensor', 'torch.FloatTensor'} do
      local m = nn.SpatialConvolution(6, 10, 3, 3, 2, 2, 1, 1):type(ty)
      local x = torch.randn(7, 6, 45, 37):type(ty)
      check_module(m, x, 'im2col ' .. ty)
    end
  end)

  it('Winograd convolution (forced on)', function()
    torch.manualSeed(3)
    local old = C.conv_winograd('on')
    local oldD = C.conv_direct('off')
    local ok, err = pcall(function()
      for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
        local m = nn.SpatialConvolution(24, 20, 3, 3, 1, 1, 1, 1):type(ty)
        check_module(m, torch.randn(6, 24, 29, 30):type(ty), 'Winograd ' .. ty)
      end
    end)
    C.conv_winograd(old)
    C.conv_direct(oldD)
    assert(ok, err)
  end)

  it('batch norm in training and evaluation, with its running statistics', function()
    torch.manualSeed(4)
    for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      local x = torch.randn(16, 24, 20, 20):type(ty):mul(3):add(1)
      local m1 = nn.SpatialBatchNormalization(24):type(ty)
      m1.weight:uniform(0.5, 1.5); m1.bias:uniform(-1, 1)
      m1:zeroGradParameters()
      local m2 = m1:clone()
      local go = torch.randn(x:size()):type(ty)
      local r = {}
      for i, m in ipairs{m1, m2} do
        r[i] = {threads(i, function()
          m:training()
          local y = m:forward(x):clone()
          local gi = m:backward(x, go):clone()
          m:evaluate()
          local ye = m:forward(x):clone()
          return y, gi, ye
        end)}
      end
      for k = 1, 3 do same(r[1][k], r[2][k], 'batch norm ' .. ty .. ' result ' .. k) end
      same(m1.running_mean, m2.running_mean, 'running mean')
      same(m1.running_var, m2.running_var, 'running var')
      same(m1.gradWeight, m2.gradWeight, 'gradWeight')
      same(m1.gradBias, m2.gradBias, 'gradBias')
    end
  end)

  it('activations, forward and backward, past the split threshold', function()
    torch.manualSeed(5)
    local x = torch.randn(600000):float()
    local go = torch.randn(600000):float()
    for _, m in ipairs{nn.ReLU(), nn.LeakyReLU(0.1), nn.ELU(), nn.Tanh(), nn.Sigmoid(),
                       nn.SoftPlus(), nn.Threshold(0.3, -2)} do
      m:float()
      local a = {threads(1, function() return m:forward(x):clone(), m:backward(x, go):clone() end)}
      local b = {threads(2, function() return m:forward(x):clone(), m:backward(x, go):clone() end)}
      same(a[1], b[1], torch.type(m) .. ' forward')
      same(a[2], b[2], torch.type(m) .. ' backward')
    end
    -- in place, and a non-contiguous operand (the strided path)
    local xt = torch.randn(900, 700):t()
    local r1 = threads(1, function() return nn.ReLU():forward(xt):clone() end)
    local r2 = threads(2, function() return nn.ReLU():forward(xt):clone() end)
    same(r1, r2, 'ReLU on a transposed input')
    local y1 = threads(1, function() return nn.ReLU(true):float():forward(x:clone()) end)
    local y2 = threads(2, function() return nn.ReLU(true):float():forward(x:clone()) end)
    same(y1, y2, 'in-place ReLU')
    same(y2, torch.cmax(x, 0), 'in-place ReLU against cmax')
  end)

  it('residual add + ReLU in one pass', function()
    torch.manualSeed(6)
    local a, b = torch.randn(700001):float(), torch.randn(700001):float()
    local r1 = threads(1, function() local t = a:clone(); assert(C.addReLU(t, b)); return t end)
    local r2 = threads(2, function() local t = a:clone(); assert(C.addReLU(t, b)); return t end)
    same(r1, r2, 'addReLU')
    same(r2, torch.cmax(a + b, 0), 'addReLU against add then cmax')
  end)

  it('cross-map LRN, forward and backward, for the exponents with a fast path and another', function()
    torch.manualSeed(10)
    for _, beta in ipairs{0.75, 0.5, 1, 0.6} do
      for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
        local m = nn.SpatialCrossMapLRN(5, 0.001, beta, 1):type(ty)
        check_module(m, torch.randn(8, 24, 31, 29):type(ty), 'LRN beta ' .. beta .. ' ' .. ty)
      end
    end
  end)

  it('max and average pooling, forward and backward', function()
    torch.manualSeed(8)
    local x = torch.randn(8, 32, 41, 39)
    for _, m in ipairs{nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1), nn.SpatialMaxPooling(2, 2),
                       nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1),
                       nn.SpatialAveragePooling(3, 3, 1, 1, 1, 1):setCountExcludePad(),
                       nn.SpatialAveragePooling(1, 1, 2, 2)} do
      for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
        m:type(ty)
        check_module(m, x:type(ty), tostring(m) .. ' ' .. ty)
      end
    end
  end)

  it('an in-place activation refuses an input of another type than its output', function()
    for _, m in ipairs{nn.ReLU(true), nn.LeakyReLU(0.1, true), nn.ELU(1, true),
                       nn.RReLU(1/8, 1/3, true), nn.Threshold(0, 0, true)} do
      local x = torch.randn(10):float()
      local keep = x:clone()
      local ok, err = pcall(m.forward, m, x)
      assert.is_false(ok, torch.type(m))
      assert.matches('DoubleTensor', tostring(err))
      same(x, keep, torch.type(m) .. ' input left alone')
      local y = m:float():forward(x)
      assert.are.equal('torch.FloatTensor', torch.type(y))
      local gok, gerr = pcall(m.updateGradInput, m, x, torch.randn(10))
      assert.is_false(gok, torch.type(m) .. ' backward')
      assert.matches('Tensor', tostring(gerr))
    end
  end)

  it('max pooling backward names bad indices on two threads too', function()
    local m = nn.SpatialMaxPooling(2, 2)
    local x = torch.randn(4, 64, 64, 64)
    threads(2, function()
      m:forward(x)
      m.indices:fill(1e6)
      local ok, err = pcall(m.updateGradInput, m, x, m.output:clone())
      assert.is_false(ok)
      assert.matches('outside', tostring(err))
    end)
  end)

  it('tensor add of large contiguous tensors, and in place', function()
    torch.manualSeed(9)
    for _, c in ipairs{{'torch.FloatTensor', 1500007}, {'torch.DoubleTensor', 1500007},
                       {'torch.FloatTensor', 300001}} do
      local ty, n = c[1], c[2]
      local a, b = torch.randn(n):type(ty), torch.randn(n):type(ty)
      local r1 = threads(1, function() return torch.add(a, b) end)
      local r2 = threads(2, function() return torch.add(a, b) end)
      same(r1, r2, 'add ' .. ty)
      -- the sum of two floats rounded once from double is float addition
      local round = torch.Tensor(1):type(ty)
      for i = 1, n, 10007 do
        round[1] = a[i] + b[i]
        assert.are.equal(round[1], r2[i])
      end
      local c = threads(2, function() return a:clone():add(b) end)
      same(c, r2, 'in-place add ' .. ty)
      local d = threads(2, function() return a:clone():add(2, b) end)
      local e = threads(1, function() return a:clone():add(2, b) end)
      same(d, e, 'add with a factor ' .. ty)
    end
  end)
  -- a module's forward and backward (no parameters) on one and two threads
  local function check_plain(m, x, what)
    torch.manualSeed(11)
    local go = torch.randn(m:forward(x):size()):typeAs(x)
    local function run()
      local y = m:forward(x):clone()
      return y, m:updateGradInput(x, go):clone()
    end
    local y1, g1 = threads(1, run)
    local y2, g2 = threads(2, run)
    same(y1, y2, what .. ' forward')
    same(g1, g2, what .. ' gradInput')
  end

  it('up-sampling, padding, unpooling and volumetric pooling past 2M elements', function()
    torch.manualSeed(12)
    local x = torch.randn(4, 16, 96, 96)
    check_plain(nn.SpatialUpSamplingNearest(2), x, 'UpSamplingNearest')
    check_plain(nn.SpatialUpSamplingBilinear(2), x, 'UpSamplingBilinear')
    check_plain(nn.UpSampling(2, 'linear'), torch.randn(2, 8, 20, 40, 40), 'UpSampling trilinear')
    check_plain(nn.SpatialReflectionPadding(3, 3, 3, 3), torch.randn(8, 32, 96, 96), 'ReflectionPadding')
    check_plain(nn.SpatialReplicationPadding(2, 1, 2, 1), torch.randn(8, 32, 96, 96), 'ReplicationPadding')
    check_plain(nn.VolumetricReplicationPadding(1, 1, 1, 1, 1, 1), torch.randn(4, 8, 32, 48, 48),
                'VolumetricReplicationPadding')
    local v = torch.randn(4, 16, 34, 66, 66)
    check_plain(nn.VolumetricMaxPooling(2, 2, 2), v, 'VolumetricMaxPooling')
    check_plain(nn.VolumetricAveragePooling(2, 2, 2), v, 'VolumetricAveragePooling')
    check_plain(nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.5, 0.5), v,
                'VolumetricFractionalMaxPooling')
    local pool = nn.SpatialMaxPooling(2, 2)
    local un = nn.SpatialMaxUnpooling(pool)
    local px = torch.randn(8, 32, 128, 128)
    pool:forward(px)
    check_plain(un, pool.output:clone(), 'SpatialMaxUnpooling')
    check_plain(nn.SpatialAdaptiveMaxPooling(40, 40), torch.randn(8, 32, 96, 96), 'AdaptiveMaxPooling')
    check_plain(nn.SpatialAdaptiveAveragePooling(40, 40), torch.randn(8, 32, 96, 96),
                'AdaptiveAveragePooling')
    check_plain(nn.FeatureLPPooling(2, 2, 2, true), torch.rand(16, 32, 64, 64):add(0.1), 'FeatureLPPooling')
  end)

  it('softmax, the pointwise maps and lookup past their thresholds', function()
    torch.manualSeed(13)
    for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      check_plain(nn.SoftMax():type(ty), torch.randn(300, 200):type(ty), 'SoftMax ' .. ty)
      check_plain(nn.LogSoftMax():type(ty), torch.randn(300, 200):type(ty), 'LogSoftMax ' .. ty)
      check_plain(nn.SpatialSoftMax():type(ty), torch.randn(4, 10, 40, 40):type(ty), 'SpatialSoftMax ' .. ty)
      local x = torch.rand(3000000):type(ty):add(0.5)
      for _, m in ipairs{nn.Exp(), nn.Sqrt(), nn.Square(), nn.Abs(), nn.HardTanh(), nn.Power(1.5),
                         nn.LogSigmoid(), nn.SoftSign()} do
        check_plain(m:type(ty), x, torch.type(m) .. ' ' .. ty)
      end
    end
    local lt = nn.LookupTable(1000, 64)
    local idx = torch.LongTensor(4000):random(1, 1000)
    local a = threads(1, function() return lt:forward(idx):clone() end)
    local b = threads(2, function() return lt:forward(idx):clone() end)
    same(a, b, 'LookupTable')
  end)

  it('criterions: the same loss and gradient on one and two threads', function()
    torch.manualSeed(14)
    local x, y = torch.rand(200, 1000), torch.rand(200, 1000)
    local s = torch.rand(200, 1000):gt(0.5):double():mul(2):add(-1)
    for _, c in ipairs{{nn.MSECriterion(), y}, {nn.AbsCriterion(), y}, {nn.SmoothL1Criterion(), y},
                       {nn.MarginCriterion(), s}, {nn.DistKLDivCriterion(), y},
                       {nn.BCECriterion(), y:clone():gt(0.5):double()},
                       {nn.BCECriterion(torch.rand(1000)), y}} do
      local m, t = c[1], c[2]
      local function run() return m:forward(x, t), m:backward(x, t):clone() end
      local l1, g1 = threads(1, run)
      local l2, g2 = threads(2, run)
      assert.are.equal(l1, l2, torch.type(m) .. ' loss')
      same(g1, g2, torch.type(m) .. ' gradInput')
      -- the block sums agree with a plain sum to rounding
      local l3 = threads(1, function() return m:forward(x:narrow(1, 1, 10), t:narrow(1, 1, 10)) end)
      assert(l3 == l3, torch.type(m) .. ' small loss')
    end
  end)

  it('full and dilated convolutions', function()
    torch.manualSeed(15)
    for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      check_module(nn.SpatialFullConvolution(12, 10, 3, 3, 2, 2, 1, 1):type(ty),
                   torch.randn(7, 12, 30, 28):type(ty), 'full conv ' .. ty)
      check_module(nn.SpatialFullConvolution(12, 10, 1, 1):type(ty),
                   torch.randn(7, 12, 30, 28):type(ty), 'full conv 1x1 ' .. ty)
      check_module(nn.SpatialDilatedConvolution(12, 10, 3, 3, 1, 1, 2, 2, 2, 2):type(ty),
                   torch.randn(7, 12, 40, 38):type(ty), 'dilated conv ' .. ty)
    end
  end)

  it('tensor math past its split thresholds: maps, comparisons, reductions, convolutions', function()
    torch.manualSeed(16)
    for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor', 'torch.IntTensor'} do
      local a = torch.rand(1100003):mul(100):add(1):type(ty)
      local b = torch.rand(1100003):mul(100):add(1):type(ty)
      local c = torch.rand(1100003):mul(100):add(1):type(ty)
      local function run()
        local r = {torch.cmul(a, b), torch.add(a, 3), torch.mul(a, 0.5), torch.clamp(a, 10, 50),
                   torch.addcmul(a, 2, b, c), torch.cdiv(a, b), torch.gt(a, b), torch.le(a, 40),
                   torch.fmod(a, 7), a:narrow(1, 1, 1100000):view(1100, 1000):sum(1),
                   a:narrow(1, 1, 1100000):view(11, 100000):sum(2),
                   torch.Tensor{a:sum(), a:max(), b:min()}}
        if ty ~= 'torch.IntTensor' then
          r[#r + 1] = torch.exp(a / 100)
          r[#r + 1] = torch.pow(a, 1.5)
          r[#r + 1] = torch.addcdiv(a, 2, b, c)
        end
        return r
      end
      local r1 = threads(1, run)
      local r2 = threads(2, run)
      for i = 1, #r1 do same(r1[i], r2[i], ty .. ' result ' .. i) end
    end
    local m = torch.randn(300, 200, 20)
    local s1 = threads(1, function() return {m:sum(2), m:max(3), m:min(1), m:mean(3), m:std(2)} end)
    local s2 = threads(2, function() return {m:sum(2), m:max(3), m:min(1), m:mean(3), m:std(2)} end)
    for i = 1, #s1 do same(s1[i], s2[i], 'reduction ' .. i) end
    local x, k = torch.randn(40, 60, 60), torch.randn(40, 5, 5)
    same(threads(1, function() return torch.conv2(x, k) end),
         threads(2, function() return torch.conv2(x, k) end), 'conv2')
    same(threads(1, function() return torch.conv2(x, k, 'F') end),
         threads(2, function() return torch.conv2(x, k, 'F') end), 'conv2 full')
    require 'image'
    local img, ker = torch.randn(3, 300, 300), torch.randn(7, 7)
    same(threads(1, function() return image.convolve(img, ker, 'full') end),
         threads(2, function() return image.convolve(img, ker, 'full') end), 'image.convolve')
  end)
end)
