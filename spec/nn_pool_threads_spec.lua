-- The kernels that split their work over th_pool's helper threads
-- (src/tensor/th_pool.c): direct, im2col and Winograd convolutions, batch
-- norm, activations, the fused residual add + ReLU, max and average
-- pooling, and the tensor add. Each runs at sizes past its threshold on
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
end)
