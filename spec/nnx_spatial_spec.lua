-- nnx's image modules: resampling (SpatialReSampling, SpatialReSamplingEx,
-- SpatialUpSampling, SpatialDownSampling), SpatialPadding, SpatialLinear,
-- SpatialClassifier, SpatialNormalization, SpatialGraph, SpatialMatching,
-- SpatialPyramid, SpatialFovea, SpatialColorTransform: values by hand and
-- gradients against finite differences (nn.Jacobian, double).
require 'torch'
require 'nn'
require 'nnx'

local helpers = require('spec.support.helpers')
local same, fails = helpers.same, helpers.fails
local T = torch.DoubleTensor

local function jacobianOK(m, input, tol)
  local err = nn.Jacobian.testJacobian(m, input)
  assert.is_true(err < (tol or 1e-6), 'Jacobian error ' .. err)
end

local function paramsOK(m, input, w, gw)
  local err = nn.Jacobian.testJacobianParameters(m, input, w, gw)
  assert.is_true(err < 1e-6, 'parameter Jacobian error ' .. err)
end

torch.manualSeed(11)

describe('nn.SpatialReSampling', function()
  it('interpolates bilinearly with the corners aligned', function()
    local m = nn.SpatialReSampling{owidth = 3, oheight = 3}
    local out = m:forward(T{{{1, 2}, {3, 4}}})
    assert.is_true(same(out, T{{{1, 1.5, 2}, {2, 2.5, 3}, {3, 3.5, 4}}}, 1e-12))
    -- backward spreads each gradient over the same neighbours
    local g = m:backward(T{{{1, 2}, {3, 4}}}, torch.ones(1, 3, 3))
    assert.is_true(same(g, T{{{2.25, 2.25}, {2.25, 2.25}}}, 1e-12))
  end)

  it('takes ratios (floor of ratio * size) and 4D batches row by row', function()
    local m = nn.SpatialReSampling{rwidth = 0.5, rheight = 0.5}
    assert.same({3, 4, 5}, m:forward(torch.randn(3, 8, 10)):size():totable())
    assert.same({2, 3, 4, 5}, m:forward(torch.randn(2, 3, 8, 10)):size():totable())
    local r = nn.SpatialReSampling{owidth = 7, oheight = 5}
    local x = torch.randn(3, 2, 4, 6)
    local batch = r:forward(x):clone()
    assert.is_true(same(batch[2], r:forward(x[2]), 1e-12))
  end)

  it('has the gradient of its forward, down and up', function()
    jacobianOK(nn.SpatialReSampling{owidth = 3, oheight = 4}, torch.rand(2, 5, 6))
    jacobianOK(nn.SpatialReSampling{owidth = 9, oheight = 7}, torch.rand(2, 3, 4))
    jacobianOK(nn.SpatialReSampling{owidth = 5, oheight = 6}, torch.rand(2, 2, 3, 4))
  end)

  it('sizes backward from gradOutput, as Torch7 did (dpnn SpatialGlimpse runs it without forward)', function()
    torch.manualSeed(4)
    local x, g = torch.rand(1, 2, 8, 8), torch.rand(1, 2, 4, 4)
    local ref = nn.SpatialReSampling{oheight = 4, owidth = 4}
    ref:forward(x)
    local want = ref:updateGradInput(x, g):clone()
    local other = nn.SpatialReSampling{oheight = 8, owidth = 8}
    local got = other:updateGradInput(x, g)
    assert.are.same({1, 2, 8, 8}, got:size():totable())
    assert.are.equal(0, (got - want):abs():max())
  end)

  it('names what is wrong', function()
    fails('owidth or rwidth', function() nn.SpatialReSampling{oheight = 2} end)
    fails('3D (C x H x W) or 4D', function() nn.SpatialReSampling{owidth = 2, oheight = 2}:forward(torch.rand(4)) end)
  end)
end)

describe('nn.SpatialReSamplingEx', function()
  local x = T{{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}}

  it('downsamples by picking, by averaging, and upsamples by nearest', function()
    local pick = nn.SpatialReSamplingEx{owidth = 2, oheight = 2, mode = 'simple'}
    assert.is_true(same(pick:forward(x), T{{{1, 3}, {9, 11}}}))
    local avg = nn.SpatialReSamplingEx{owidth = 2, oheight = 2, mode = 'average'}
    assert.is_true(same(avg:forward(x), T{{{3.5, 5.5}, {11.5, 13.5}}}))
    local up = nn.SpatialReSamplingEx{rwidth = 2, rheight = 1.5, mode = 'simple'}
    local out = up:forward(T{{{1, 2}, {3, 4}}})
    assert.same({1, 3, 4}, out:size():totable())
    assert.is_true(same(out, T{{{1, 1, 2, 2}, {1, 1, 2, 2}, {3, 3, 4, 4}}}))
  end)

  it('resamples any pair of adjacent dimensions, with the gradient of each mode', function()
    for _, mode in ipairs{'simple', 'average', 'bilinear'} do
      jacobianOK(nn.SpatialReSamplingEx{owidth = 3, oheight = 2, mode = mode}, torch.rand(2, 5, 7))
      jacobianOK(nn.SpatialReSamplingEx{owidth = 8, oheight = 6, mode = mode}, torch.rand(2, 3, 4))
    end
    local m = nn.SpatialReSamplingEx{owidth = 2, oheight = 3, yDim = 1, xDim = 2, mode = 'bilinear'}
    local y = torch.rand(4, 5, 3)
    local out = m:forward(y)
    assert.same({3, 2, 3}, out:size():totable())
    local ref = nn.SpatialReSampling{owidth = 2, oheight = 3}:forward(y:permute(3, 1, 2):contiguous())
    assert.is_true(same(out:permute(3, 1, 2), ref, 1e-12))
    jacobianOK(m, y)
  end)

  it('refuses mixed up/down sampling and unknown modes', function()
    fails('cannot upsample one dimension while downsampling the other',
          function() nn.SpatialReSamplingEx{owidth = 8, oheight = 2}:forward(torch.rand(1, 4, 4)) end)
    fails("mode must be simple | average | bilinear, got 'cubic'",
          function() nn.SpatialReSamplingEx{owidth = 2, oheight = 2, mode = 'cubic'} end)
  end)
end)

describe('nn.SpatialUpSampling and nn.SpatialDownSampling', function()
  it('repeat pixels and average blocks', function()
    local up = nn.SpatialUpSampling(3, 2)
    local out = up:forward(T{{{1, 2}}})
    assert.is_true(same(out, T{{{1, 1, 1, 2, 2, 2}, {1, 1, 1, 2, 2, 2}}}))
    assert.is_true(same(up:backward(T{{{1, 2}}}, torch.ones(1, 2, 6)), T{{{6, 6}}}))
    local down = nn.SpatialDownSampling(2, 2)
    local x = T{{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {11, 12, 13, 14, 15}}}
    assert.is_true(same(down:forward(x), T{{{4, 6}}}))
    -- the dropped last row and column get no gradient
    assert.is_true(same(down:backward(x, T{{{4, 8}}}), T{{{1, 1, 2, 2, 0}, {1, 1, 2, 2, 0}, {0, 0, 0, 0, 0}}}))
  end)

  it('have the gradient of their forward', function()
    jacobianOK(nn.SpatialUpSampling(2, 3), torch.rand(2, 3, 2))
    jacobianOK(nn.SpatialDownSampling(2, 3), torch.rand(2, 7, 5))
    jacobianOK(nn.SpatialUpSampling{dW = 2, dH = 2, yDim = 3, xDim = 4}, torch.rand(2, 1, 2, 3))
  end)

  it('check their arguments', function()
    fails('dW must be an integer >= 1, got 1.5', function() nn.SpatialUpSampling(1.5, 2) end)
    fails('input too small in dimension 3', function() nn.SpatialDownSampling(4, 1):forward(torch.rand(1, 4, 3)) end)
  end)
end)

describe('nn.SpatialPadding', function()
  it('pads with a value and crops with negative pads', function()
    local m = nn.SpatialPadding(1, 0, 0, 1, nil, nil, 9)
    assert.is_true(same(m:forward(T{{{1, 2}, {3, 4}}}), T{{{9, 1, 2}, {9, 3, 4}, {9, 9, 9}}}))
    local crop = nn.SpatialPadding(-1, 1, -1, 0)
    local x = T{{{1, 2, 3}, {4, 5, 6}}}
    assert.is_true(same(crop:forward(x), T{{{5, 6, 0}}}))
    assert.is_true(same(crop:backward(x, T{{{7, 8, 9}}}), T{{{0, 0, 0}, {0, 7, 8}}}))
  end)

  it('has the gradient of its forward, in any dimensions', function()
    jacobianOK(nn.SpatialPadding(2, -1, 1, 3), torch.rand(2, 4, 5))
    jacobianOK(nn.SpatialPadding(1, 1, 1, 1, 3, 4), torch.rand(2, 2, 3, 3))
  end)
end)

describe('nn.SpatialLinear and nn.SpatialClassifier', function()
  it('apply a Linear at every pixel', function()
    local m = nn.SpatialLinear(3, 2)
    local lin = nn.Linear(3, 2)
    lin.weight:copy(m.weight)
    lin.bias:copy(m.bias)
    local x = torch.randn(3, 2, 4)
    local out = m:forward(x)
    assert.is_true(same(out[{{}, 2, 3}], lin:forward(x[{{}, 2, 3}]), 1e-12))
    local c = nn.SpatialClassifier(lin)
    assert.is_true(same(c:forward(x), out, 1e-12))
    c.spatialOutput = false
    assert.same({8, 2}, c:forward(x):size():totable())
  end)

  it('have the gradients of their forward', function()
    local m = nn.SpatialLinear(3, 2)
    local x = torch.rand(3, 2, 4)
    jacobianOK(m, x)
    paramsOK(m, x, m.weight, m.gradWeight)
    paramsOK(m, x, m.bias, m.gradBias)
    local c = nn.SpatialClassifier():add(nn.Linear(3, 2)):add(nn.LogSoftMax())
    jacobianOK(c, x)
    paramsOK(c, x, c.classifier.modules[1].weight, c.classifier.modules[1].gradWeight)
  end)
end)

describe('nn.SpatialNormalization', function()
  -- the formula, pixel by pixel, for one plane and a 3x3 box kernel
  local function reference(x, t)
    local H, W = x:size(2), x:size(3)
    local function window(f)
      local out = torch.zeros(H, W)
      for y = 1, H do
        for xx = 1, W do
          local s, n = 0, 0
          for dy = -1, 1 do
            for dx = -1, 1 do
              local yy, xw = y + dy, xx + dx
              if yy >= 1 and yy <= H and xw >= 1 and xw <= W then s, n = s + f(yy, xw), n + 1 end
            end
          end
          out[y][xx] = s / 9
          if f == nil then out[y][xx] = n / 9 end
        end
      end
      return out
    end
    local coef = window(function() return 1 end)
    local mean = torch.cdiv(window(function(a, b) return x[1][a][b] end), coef)
    local centred = x[1] - mean
    local std = torch.cdiv(window(function(a, b) return centred[a][b] ^ 2 end):sqrt(), coef)
    std[std:le(t)] = t
    return torch.cdiv(centred, std)
  end

  it('centres and divides by the local standard deviation', function()
    local x = torch.rand(1, 3, 4)
    local m = nn.SpatialNormalization(1, torch.ones(3, 3), 0.05)
    assert.is_true(same(m:forward(x)[1], reference(x, 0.05), 1e-12))
    assert.is_true(same(m:forward(torch.Tensor(1, 3, 4):fill(2)), torch.zeros(1, 3, 4), 1e-12))
  end)

  it('has the gradient of its forward (2D and 1D kernels)', function()
    jacobianOK(nn.SpatialNormalization(2, torch.rand(3, 3):add(0.5), 0.1), torch.rand(2, 5, 6), 1e-5)
    local k = torch.rand(3, 1):add(0.5)
    jacobianOK(nn.SpatialNormalization(2, {k, k:t()}, 0.1), torch.rand(2, 6, 5), 1e-5)
  end)
end)

describe('nn.SpatialGraph', function()
  it('measures the edges to the right and below', function()
    local x = T{{{0, 3}, {4, 0}}, {{0, 4}, {3, 0}}}   -- 2 features, 2x2 pixels
    local e = nn.SpatialGraph{normalize = false}:forward(x)
    assert.is_true(same(e, T{{{5, 0}, {5, 0}}, {{5, 5}, {0, 0}}}, 1e-12))
    local n = nn.SpatialGraph{normalize = true}:forward(x)
    assert.is_true(same(n, e / math.sqrt(2), 1e-12))
    local c = nn.SpatialGraph{dist = 'cosine', normalize = false}:forward(x)
    assert.is_true(math.abs(c[1][1][1] - 2) < 1e-9 and math.abs(c[2][1][2] - 2) < 1e-9)
  end)

  it('has the gradient of its forward', function()
    jacobianOK(nn.SpatialGraph{normalize = true}, torch.rand(3, 4, 5):add(0.1))
    jacobianOK(nn.SpatialGraph{dist = 'cosine', normalize = false}, torch.rand(3, 4, 5))
    fails('normalized cosine is not supported', function() nn.SpatialGraph{dist = 'cosine'} end)
  end)
end)

describe('nn.SpatialMatching', function()
  it('gives the squared distances to a window of the second image', function()
    local a, b = T{{{1}}}, T{{{1, 2}, {4, 0}}}
    local out = nn.SpatialMatching(2, 2):forward{a, b}
    assert.is_true(same(out, T{{{{0, 1}, {9, 1}}}}))
    local full = nn.SpatialMatching(3, 3, true):forward{T{{{1, 2}}}, T{{{1, 2}}}}
    assert.are.equal(1e30, full[1][1][1][1])
    assert.are.equal(0, full[1][1][2][2])
    assert.are.equal(1, full[1][1][2][3])
  end)

  it('has the gradient of its forward', function()
    local net = nn.Sequential():add(nn.SplitTable(1))
      :add(nn.ParallelTable():add(nn.Sequential():add(nn.Narrow(2, 2, 3)):add(nn.Narrow(3, 2, 4)))
                             :add(nn.Identity()))
      :add(nn.SpatialMatching(3, 3, false))
    jacobianOK(net, torch.rand(2, 2, 5, 6))
    local full = nn.Sequential():add(nn.SplitTable(1)):add(nn.SpatialMatching(3, 2, true))
    jacobianOK(full, torch.rand(2, 2, 4, 4))
  end)
end)

describe('nn.SpatialPyramid and nn.SpatialFovea', function()
  it('process every scale and bring them back to one size', function()
    local pyr = nn.SpatialPyramid({1, 2}, {nn.SpatialConvolution(2, 3, 3, 3), nn.SpatialConvolution(2, 3, 3, 3)},
                                  3, 3, 1, 1)
    local out = pyr:forward(torch.rand(2, 8, 8))
    assert.same({3, 8, 8}, out[1]:size():totable())
    assert.same({3, 8, 8}, out[2]:size():totable())
    jacobianOK(nn.Sequential():add(pyr):add(nn.JoinTable(1)), torch.rand(2, 8, 8), 1e-5)
    pyr:focus(4, 3, 2, 2)
    assert.same({3, 2, 2}, pyr:forward(torch.rand(2, 8, 8))[1]:size():totable())
    jacobianOK(nn.Sequential():add(pyr):add(nn.JoinTable(1)), torch.rand(2, 8, 8), 1e-5)
  end)

  it('SpatialFovea stacks the scales, focused or not', function()
    for _, bilinear in ipairs{false, true} do
      local f = nn.SpatialFovea{nInputPlane = 2, ratios = {1, 2}, fov = 3, sub = 1, bilinear = bilinear,
                                processors = {nn.SpatialConvolution(2, 4, 3, 3), nn.SpatialConvolution(2, 4, 3, 3)}}
      local x = torch.rand(2, 8, 8)
      assert.same({8, 8, 8}, f:forward(x):size():totable())
      jacobianOK(f, x, 1e-5)
      f:focus(3, 5, 3)
      assert.same({8, 1, 1}, f:forward(x):size():totable())
      jacobianOK(f, x, 1e-5)
      f:focus()
    end
  end)
end)

describe('nn.SpatialColorTransform', function()
  it('converts rgb to yuv and y linearly, with a gradient', function()
    local rgb = T{{{1}}, {{0.5}}, {{0.25}}}
    local yuv = nn.SpatialColorTransform('rgb2yuv'):forward(rgb)
    assert.is_true(math.abs(yuv[1][1][1] - (0.299 + 0.587 * 0.5 + 0.114 * 0.25)) < 1e-12)
    assert.is_true(math.abs(yuv[3][1][1] - (0.615 - 0.51499 * 0.5 - 0.10001 * 0.25)) < 1e-12)
    assert.same({1, 1, 1}, nn.SpatialColorTransform('rgb2y'):forward(rgb):size():totable())
    jacobianOK(nn.SpatialColorTransform('yuv2rgb'), torch.rand(3, 2, 2))
    fails('transform = yuv2rgb', function() nn.SpatialColorTransform('rgb2xyz') end)
  end)
end)

describe('nnx modules and the nn contract', function()
  it('survive torch.save/torch.load and :float() (totem.nn checks)', function()
    require 'totem'
    torch.manualSeed(2)
    local tester, fails, passed = totem.Tester(), {}, 0
    tester._success = function() passed = passed + 1; return true end
    tester._failure = function(_, m) fails[#fails + 1] = m; return false end
    local cases = {
      {function() return nn.SpatialReSampling{owidth = 5, oheight = 4} end, {2, 3, 3}},
      {function() return nn.SpatialReSamplingEx{owidth = 2, oheight = 2, mode = 'average'} end, {2, 4, 4}},
      {function() return nn.SpatialUpSampling(2, 2) end, {2, 3, 3}},
      {function() return nn.SpatialDownSampling(2, 2) end, {2, 4, 4}},
      {function() return nn.SpatialPadding(1, 2, 0, 1) end, {2, 3, 3}},
      {function() return nn.SpatialLinear(2, 3) end, {2, 3, 3}},
      {function() return nn.SpatialClassifier(nn.Linear(2, 3)) end, {2, 3, 3}},
      {function() return nn.SpatialNormalization(2, torch.ones(3, 3), 0.1) end, {2, 4, 4}},
      {function() return nn.SpatialGraph() end, {2, 4, 4}},
      {function() return nn.MultiSoftMax() end, {2, 3, 4}},
    }
    for _, c in ipairs(cases) do
      totem.nn.checkSerializable(tester, c[1](), torch.rand(table.unpack(c[2])))
      totem.nn.checkTypeCastable(tester, c[1](), torch.rand(table.unpack(c[2])), 'torch.FloatTensor', 1e-5)
    end
    assert.same({}, fails)
    assert.are.equal(10 * 12, passed)   -- 4 assertions per save/load check, 8 per cast check
  end)
end)
