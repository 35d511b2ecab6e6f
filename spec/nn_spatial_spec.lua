-- Torch7's wider spatial family: pooling (dilated, adaptive, fractional,
-- LP, feature LP), sampling (up-sampling, PixelShuffle), padding,
-- spatial (log-)softmax and dropout, local normalization. Every module
-- and code path through the harness of spec/support/modcheck.lua, then
-- values against numbers worked out by hand or from Torch7's formulas, and
-- error messages for bad input.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'
local H = require 'spec.support.helpers'
local errorOf = H.errorOf

local function T(t) return torch.DoubleTensor(t) end
local function close(a, b, eps)
  assert.are.same(a:size():totable(), b:size():totable())
  local d = (a:double() - b:double()):abs():max()
  assert(d <= (eps or 1e-12), 'max difference ' .. d)
end

describe('nn spatial family: module checks', function()
  -- pooling
  mc.module(it, {name = 'SpatialDilatedMaxPooling batch',
                 make = function() return nn.SpatialDilatedMaxPooling(3, 2, 1, 2, 1, 1, 2, 1) end,
                 input = function() return torch.randn(2, 3, 7, 8) end,
                 input2 = function() return torch.randn(3, 3, 7, 8) end,
                 tostring = 'nn.SpatialDilatedMaxPooling(3x2, 1,2, 1,1, 2,1)'})
  mc.module(it, {name = 'SpatialDilatedMaxPooling single ceil',
                 make = function() return nn.SpatialDilatedMaxPooling(2, 2, 2, 2, 0, 0, 2, 2):ceil() end,
                 input = function() return torch.randn(3, 8, 9) end,
                 tostring = 'nn.SpatialDilatedMaxPooling(2x2, 2,2, 2,2)'})
  mc.module(it, {name = 'SpatialAdaptiveMaxPooling batch',
                 make = function() return nn.SpatialAdaptiveMaxPooling(3, 2) end,
                 input = function() return torch.randn(2, 3, 7, 5) end,
                 input2 = function() return torch.randn(4, 3, 7, 5) end,
                 tostring = 'nn.SpatialAdaptiveMaxPooling'})
  mc.module(it, {name = 'SpatialAdaptiveMaxPooling single, output larger than input',
                 make = function() return nn.SpatialAdaptiveMaxPooling(4, 5) end,
                 input = function() return torch.randn(2, 3, 3) end})
  mc.module(it, {name = 'SpatialAdaptiveAveragePooling batch',
                 make = function() return nn.SpatialAdaptiveAveragePooling(3, 2) end,
                 input = function() return torch.randn(2, 3, 7, 5) end,
                 input2 = function() return torch.randn(1, 3, 7, 5) end,
                 tostring = 'nn.SpatialAdaptiveAveragePooling'})
  mc.module(it, {name = 'SpatialAdaptiveAveragePooling single',
                 make = function() return nn.SpatialAdaptiveAveragePooling(4, 4) end,
                 input = function() return torch.randn(2, 6, 5) end})
  mc.module(it, {name = 'SpatialFractionalMaxPooling size, fixed regions',
                 make = function()
                   local m = nn.SpatialFractionalMaxPooling(2, 3, 4, 3):fixPoolingRegions()
                   m.randomSamples = torch.Tensor{{{0.1, 0.7}, {0.5, 0.25}, {0.9, 0.05}},
                                                  {{0.3, 0.3}, {0.0, 0.99}, {0.6, 0.4}}}
                   return m
                 end,
                 input = function() return torch.randn(2, 3, 8, 9) end,
                 tostring = 'nn.SpatialFractionalMaxPooling(4x3, 2,3)'})
  mc.module(it, {name = 'SpatialFractionalMaxPooling ratio, fresh regions', stochastic = true,
                 make = function() return nn.SpatialFractionalMaxPooling(2, 2, 0.5, 0.6) end,
                 input = function() return torch.randn(2, 9, 8) end,
                 jacobian = false, why = 'fresh random regions at every forward',
                 tostring = 'nn.SpatialFractionalMaxPooling(0.5x0.6, 2,2)'})
  mc.module(it, {name = 'SpatialLPPooling p=2',
                 make = function() return nn.SpatialLPPooling(3, 2, 2, 2) end,
                 input = function() return torch.rand(3, 6, 4):add(0.5) end,
                 input2 = function() return torch.rand(2, 3, 6, 4):add(0.5) end,
                 minval = 0.5, maxval = 2,
                 tostring = 'nn.Sequential {\n  [input -> (1) -> (2) -> (3) -> (4) -> output]\n' ..
                            '  (1): nn.Square\n  (2): nn.SpatialAveragePooling(2x2, 2,2)\n' ..
                            '  (3): nn.MulConstant\n  (4): nn.Sqrt\n}'})
  mc.module(it, {name = 'SpatialLPPooling p=3 strided',
                 make = function() return nn.SpatialLPPooling(2, 3, 3, 2, 1, 2) end,
                 input = function() return torch.rand(2, 2, 6, 5):add(0.5) end,
                 minval = 0.5, maxval = 2})
  mc.module(it, {name = 'FeatureLPPooling batch 4D',
                 make = function() return nn.FeatureLPPooling(3, 2, 2, true) end,
                 input = function() return torch.randn(2, 9, 3, 2) end,
                 input2 = function() return torch.randn(3, 9, 3, 2) end,
                 tostring = 'nn.FeatureLPPooling(w3 s2 power 2 batch 1)'})
  mc.module(it, {name = 'FeatureLPPooling 1D p=3',
                 make = function() return nn.FeatureLPPooling(2, 1, 3, false) end,
                 input = function() return torch.rand(7):add(0.5) end, minval = 0.5, maxval = 2})
  -- sampling
  mc.module(it, {name = 'SpatialUpSamplingNearest batch',
                 make = function() return nn.SpatialUpSamplingNearest(2) end,
                 input = function() return torch.randn(2, 3, 4, 5) end,
                 input2 = function() return torch.randn(1, 3, 4, 5) end,
                 tostring = 'nn.SpatialUpSamplingNearest'})
  mc.module(it, {name = 'SpatialUpSamplingNearest single',
                 make = function() return nn.SpatialUpSamplingNearest(3) end,
                 input = function() return torch.randn(2, 3, 2) end})
  mc.module(it, {name = 'SpatialUpSamplingBilinear scale',
                 make = function() return nn.SpatialUpSamplingBilinear(2) end,
                 input = function() return torch.randn(2, 2, 3, 4) end,
                 input2 = function() return torch.randn(3, 2, 3, 4) end,
                 tostring = 'nn.SpatialUpSamplingBilinear(2)'})
  mc.module(it, {name = 'SpatialUpSamplingBilinear size, single',
                 make = function() return nn.SpatialUpSamplingBilinear({oheight = 5, owidth = 7}) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 tostring = 'nn.SpatialUpSamplingBilinear(5, 7)'})
  mc.module(it, {name = 'UpSampling nearest 5D',
                 make = function() return nn.UpSampling(2) end,
                 input = function() return torch.randn(2, 2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(2x, nearest)'})
  mc.module(it, {name = 'UpSampling linear 4D',
                 make = function() return nn.UpSampling(3, 'bilinear') end,
                 input = function() return torch.randn(2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(3x, linear)'})
  mc.module(it, {name = 'UpSampling linear 5D to a size',
                 make = function() return nn.UpSampling({odepth = 3, oheight = 4, owidth = 5}, 'trilinear') end,
                 input = function() return torch.randn(2, 2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 2, 3, 2) end,
                 tostring = 'nn.UpSampling(3x4x5, linear)'})
  mc.module(it, {name = 'PixelShuffle batch',
                 make = function() return nn.PixelShuffle(2) end,
                 input = function() return torch.randn(2, 8, 3, 2) end,
                 input2 = function() return torch.randn(3, 8, 3, 2) end,
                 tostring = 'nn.PixelShuffle'})
  mc.module(it, {name = 'PixelShuffle single',
                 make = function() return nn.PixelShuffle(3) end,
                 input = function() return torch.randn(9, 2, 2) end})
  -- padding
  mc.module(it, {name = 'SpatialReflectionPadding batch',
                 make = function() return nn.SpatialReflectionPadding(2, 1, 0, 3) end,
                 input = function() return torch.randn(2, 2, 5, 4) end,
                 input2 = function() return torch.randn(3, 2, 5, 4) end,
                 tostring = 'nn.SpatialReflectionPadding(l=2, r=1, t=0, b=3)'})
  mc.module(it, {name = 'SpatialReflectionPadding single, cropping',
                 make = function() return nn.SpatialReflectionPadding(-1, 2, 1, -2) end,
                 input = function() return torch.randn(2, 5, 4) end})
  mc.module(it, {name = 'SpatialReplicationPadding batch',
                 make = function() return nn.SpatialReplicationPadding(3) end,
                 input = function() return torch.randn(2, 2, 3, 2) end,
                 input2 = function() return torch.randn(1, 2, 3, 2) end,
                 tostring = 'nn.SpatialReplicationPadding(l=3, r=3, t=3, b=3)'})
  mc.module(it, {name = 'SpatialReplicationPadding single, cropping',
                 make = function() return nn.SpatialReplicationPadding(1, -1, -2, 4) end,
                 input = function() return torch.randn(2, 4, 3) end})
  -- softmax, dropout
  mc.module(it, {name = 'SpatialSoftMax batch',
                 make = function() return nn.SpatialSoftMax() end,
                 input = function() return torch.randn(2, 4, 3, 3) end,
                 input2 = function() return torch.randn(3, 4, 3, 3) end,
                 tostring = 'nn.SpatialSoftMax'})
  mc.module(it, {name = 'SpatialSoftMax single',
                 make = function() return nn.SpatialSoftMax() end,
                 input = function() return torch.randn(4, 2, 3) end})
  mc.module(it, {name = 'SpatialLogSoftMax batch',
                 make = function() return nn.SpatialLogSoftMax() end,
                 input = function() return torch.randn(2, 4, 3, 3) end,
                 input2 = function() return torch.randn(1, 4, 3, 3) end,
                 tostring = 'nn.SpatialLogSoftMax'})
  mc.module(it, {name = 'SpatialLogSoftMax single',
                 make = function() return nn.SpatialLogSoftMax() end,
                 input = function() return torch.randn(4, 2, 3) end})
  mc.module(it, {name = 'SpatialDropout batch', stochastic = true,
                 make = function() return nn.SpatialDropout(0.4) end,
                 input = function() return torch.randn(2, 6, 3, 3) end,
                 input2 = function() return torch.randn(3, 6, 3, 3) end,
                 jacobian = false, why = 'a fresh mask per forward',
                 tostring = 'nn.SpatialDropout(0.400000)'})
  mc.module(it, {name = 'SpatialDropout single', stochastic = true,
                 make = function() return nn.SpatialDropout() end,
                 input = function() return torch.randn(6, 3, 2) end,
                 jacobian = false, why = 'a fresh mask per forward'})
  -- normalization
  mc.module(it, {name = 'SpatialSubtractiveNormalization 2D kernel batch',
                 make = function() return nn.SpatialSubtractiveNormalization(3, torch.ones(3, 5)) end,
                 input = function() return torch.rand(2, 3, 6, 7) end,
                 input2 = function() return torch.rand(3, 3, 6, 7) end,
                 tostring = 'nn.SpatialSubtractiveNormalization'})
  mc.module(it, {name = 'SpatialSubtractiveNormalization 1D kernel single',
                 make = function() return nn.SpatialSubtractiveNormalization(2, torch.Tensor{1, 2, 1}) end,
                 input = function() return torch.rand(2, 5, 4) end})
  mc.module(it, {name = 'SpatialDivisiveNormalization 2D kernel batch',
                 make = function() return nn.SpatialDivisiveNormalization(3, torch.ones(3, 3)) end,
                 input = function() return torch.rand(2, 3, 5, 6) end,
                 input2 = function() return torch.rand(1, 3, 5, 6) end,
                 tostring = 'nn.SpatialDivisiveNormalization'})
  mc.module(it, {name = 'SpatialDivisiveNormalization 1D kernel single, thresholds',
                 make = function() return nn.SpatialDivisiveNormalization(2, torch.ones(3), 0.3, 0.5) end,
                 input = function() return torch.rand(2, 5, 4) end})
  mc.module(it, {name = 'SpatialContrastiveNormalization batch',
                 make = function() return nn.SpatialContrastiveNormalization(2, torch.ones(3, 3)) end,
                 input = function() return torch.rand(2, 2, 5, 6) end,
                 input2 = function() return torch.rand(3, 2, 5, 6) end,
                 tostring = 'nn.SpatialContrastiveNormalization'})
  mc.module(it, {name = 'SpatialContrastiveNormalization 1D kernel single',
                 make = function() return nn.SpatialContrastiveNormalization(3, torch.ones(5)) end,
                 input = function() return torch.rand(3, 6, 6) end})
end)

describe('nn spatial family: values', function()
  it('SpatialDilatedMaxPooling samples every dilation-th pixel', function()
    local x = torch.range(1, 25):view(1, 5, 5)
    local m = nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 2, 2)
    local y = m:forward(x)
    -- window (i, j) reads (i, j), (i, j+2), (i+2, j), (i+2, j+2): the max is (i+2, j+2)
    local want = torch.Tensor(1, 3, 3)
    for i = 0, 2 do for j = 0, 2 do want[1][i + 1][j + 1] = (i + 2) * 5 + j + 3 end end
    close(y, want)
    close(m.indices:double(), want)
    local gi = m:backward(x, torch.ones(1, 3, 3))
    assert.are.equal(9, gi:sum())
    assert.are.equal(1, gi[1][5][5])
    assert.are.equal(0, gi[1][1][1])
    -- Torch7's sizes: floor/ceil((i + 2 pad - dil (k - 1) - 1) / d) + 1
    local p = nn.SpatialDilatedMaxPooling(3, 3, 2, 2, 1, 1, 2, 2)
    assert.are.same({2, 4, 4}, p:forward(torch.randn(2, 9, 9)):size():totable())
    assert.are.same({2, 5, 5}, p:ceil():forward(torch.randn(2, 10, 10)):size():totable())
    assert.are.same({2, 4, 4}, p:floor():forward(torch.randn(2, 10, 10)):size():totable())
  end)

  it('SpatialDilatedMaxPooling with dilation 1 is SpatialMaxPooling', function()
    local x = torch.randn(2, 3, 9, 8)
    local a = nn.SpatialDilatedMaxPooling(3, 2, 2, 1, 1, 1):ceil()
    local b = nn.SpatialMaxPooling(3, 2, 2, 1, 1, 1):ceil()
    close(a:forward(x), b:forward(x), 0)
    local go = torch.randn(a.output:size())
    close(a:backward(x, go), b:backward(x, go), 0)
  end)

  it('SpatialAdaptiveMaxPooling and AveragePooling use Torch7 windows', function()
    -- 5 rows to 3: max windows [0,2) [1,4) [3,5); average windows the same here
    local x = torch.Tensor{1, 5, 2, 4, 3}:view(1, 5, 1)
    close(nn.SpatialAdaptiveMaxPooling(1, 3):forward(x), T{5, 5, 4}:view(1, 3, 1))
    close(nn.SpatialAdaptiveAveragePooling(1, 3):forward(x), T{3, 11 / 3, 3.5}:view(1, 3, 1), 1e-15)
    -- 2 -> 2 per axis is plain 2x2 pooling
    local z = torch.randn(2, 3, 4, 6)
    close(nn.SpatialAdaptiveMaxPooling(3, 2):forward(z), nn.SpatialMaxPooling(2, 2):forward(z), 0)
    close(nn.SpatialAdaptiveAveragePooling(3, 2):forward(z), nn.SpatialAveragePooling(2, 2, 2, 2):forward(z), 1e-15)
    -- the average's backward spreads gradOutput / window size
    local a = nn.SpatialAdaptiveAveragePooling(1, 3)
    a:forward(x)
    close(a:backward(x, torch.ones(1, 3, 1)), T{0.5, 0.5 + 1 / 3, 1 / 3, 1 / 3 + 0.5, 0.5}:view(1, 5, 1), 1e-15)
  end)

  it('SpatialFractionalMaxPooling places windows by Torch7 sequence', function()
    -- 10 columns to 4, pool 2, u = 0.5: alpha = 8/3, starts 0, 3, 5 and 8
    local x = torch.range(1, 10):view(1, 1, 10):expand(1, 3, 10):contiguous()
    local m = nn.SpatialFractionalMaxPooling(2, 2, 4, 1):fixPoolingRegions()
    m.randomSamples = torch.Tensor{{{0.5, 0.3}}}
    close(m:forward(x), T{2, 5, 7, 10}:view(1, 1, 4))
    close(m.randomSamples, torch.Tensor{{{0.5, 0.3}}})   -- fixed: not redrawn
    -- ratio mode: floor(10 * 0.5) = 5 columns, floor(8 * 0.5) = 4 rows
    local r = nn.SpatialFractionalMaxPooling(2, 2, 0.5, 0.5)
    local z = torch.randn(2, 3, 8, 10)
    assert.are.same({2, 3, 4, 5}, r:forward(z):size():totable())
    assert.are.same({2, 3, 2}, r.randomSamples:size():totable())
    -- every output is one of its window's inputs, backward routes to it
    local gi = r:backward(z, torch.ones(r.output:size()))
    assert.are.equal(2 * 3 * 4 * 5, gi:sum())
  end)

  it('SpatialLPPooling and FeatureLPPooling give p-norms', function()
    local x = torch.Tensor{{3, 4}, {0, 0}}:view(1, 2, 2)
    close(nn.SpatialLPPooling(1, 2, 2, 2):forward(x), T{5}:view(1, 1, 1))
    local y = torch.Tensor{{1, 2}, {2, 0}}:view(1, 2, 2)
    close(nn.SpatialLPPooling(1, 3, 2, 2):forward(y), T{17 ^ (1 / 3)}:view(1, 1, 1), 1e-14)
    local f = nn.FeatureLPPooling(2, 1, 2, false)
    close(f:forward(T{1, 2, 3, 4}), T{math.sqrt(5), math.sqrt(13), 5}, 1e-15)
    -- d/dx_i of the 2-norm is x_i / y
    close(f:backward(T{1, 2, 3, 4}, T{1, 0, 0}), T{1 / math.sqrt(5), 2 / math.sqrt(5), 0, 0}, 1e-15)
    local g = nn.FeatureLPPooling(2, 2, 1, true)
    close(g:forward(T{{1, 2, 3, 4, 5}}), T{{3, 7}})
    assert.are.same({2, 3, 4}, nn.FeatureLPPooling(4, 2, 2, true):forward(torch.rand(2, 8, 4)):size():totable())
  end)

  it('up-sampling: nearest copies, bilinear aligns corners', function()
    local x = torch.Tensor{{1, 2}, {3, 4}}:view(1, 2, 2)
    local m = nn.SpatialUpSamplingNearest(2)
    close(m:forward(x), T{{1, 1, 2, 2}, {1, 1, 2, 2}, {3, 3, 4, 4}, {3, 3, 4, 4}}:view(1, 4, 4))
    close(m:backward(x, torch.ones(1, 4, 4)), torch.Tensor(1, 2, 2):fill(4))
    local b = nn.SpatialUpSamplingBilinear({oheight = 1, owidth = 4})
    close(b:forward(T{0, 3}:view(1, 1, 2)), T{0, 1, 2, 3}:view(1, 1, 4), 1e-6)
    local s = nn.SpatialUpSamplingBilinear(2)
    local z = torch.randn(2, 3, 3, 4)
    local o = s:forward(z)
    assert.are.same({2, 3, 6, 8}, o:size():totable())
    close(o:select(3, 1):select(3, 1), z:select(3, 1):select(3, 1), 0)   -- corners
    close(o:select(3, 6):select(3, 8), z:select(3, 3):select(3, 4), 1e-6)
    -- UpSampling's 4D modes are these modules
    close(nn.UpSampling(2):forward(z), nn.SpatialUpSamplingNearest(2):forward(z), 0)
    close(nn.UpSampling(2, 'linear'):forward(z), s:forward(z), 0)
    -- trilinear on a volume constant along depth is bilinear per slice
    local v = z:view(2, 3, 1, 3, 4):expand(2, 3, 2, 3, 4):contiguous()
    local t = nn.UpSampling({odepth = 3, oheight = 6, owidth = 8}, 'linear'):forward(v)
    for d = 1, 3 do close(t:select(3, d), s.output, 1e-12) end
  end)

  it('PixelShuffle moves channels to sub-pixels', function()
    local x = T{1, 2, 3, 4}:view(4, 1, 1)
    local p = nn.PixelShuffle(2)
    close(p:forward(x), T{{1, 2}, {3, 4}}:view(1, 2, 2))
    local z = torch.randn(2, 8, 3, 2)
    local y = p:forward(z)
    assert.are.equal(z[2][4 + 3][2][1], y[2][2][2 * 2 - 1 + 1][2 * 1 - 1])   -- c=2, i=1, j=0
    close(p:backward(z, y), z, 0)   -- the inverse
  end)

  it('reflection and replication padding map rows and columns as Torch7', function()
    local x = T{1, 2, 3}:view(1, 1, 3)
    close(nn.SpatialReflectionPadding(2, 1, 0, 0):forward(x), T{3, 2, 1, 2, 3, 2}:view(1, 1, 6))
    close(nn.SpatialReplicationPadding(2, 1, 0, 0):forward(x), T{1, 1, 1, 2, 3, 3}:view(1, 1, 6))
    close(nn.SpatialReflectionPadding(-1, 0, 0, 0):forward(x), T{2, 3}:view(1, 1, 2))
    local r = nn.SpatialReplicationPadding(2, 1, 0, 0)
    r:forward(x)
    close(r:backward(x, torch.ones(1, 1, 6)), T{3, 1, 2}:view(1, 1, 3))
    local f = nn.SpatialReflectionPadding(0, 0, 1, 1)
    local y = torch.Tensor{{1}, {2}}:view(1, 2, 1)
    close(f:forward(y), T{2, 1, 2, 1}:view(1, 4, 1))
  end)

  it('SpatialSoftMax and SpatialLogSoftMax normalize each pixel', function()
    local x = torch.zeros(2, 1, 1)
    x[2][1][1] = math.log(3)
    close(nn.SpatialSoftMax():forward(x), T{0.25, 0.75}:view(2, 1, 1), 1e-15)
    close(nn.SpatialLogSoftMax():forward(x), T{math.log(0.25), math.log(0.75)}:view(2, 1, 1), 1e-15)
    local z = torch.randn(3, 4, 2, 5)
    close(nn.SpatialSoftMax():forward(z):sum(2), torch.ones(3, 1, 2, 5), 1e-14)
  end)

  it('SpatialDropout drops whole maps; evaluation scales by 1 - p', function()
    torch.manualSeed(7)
    local m = nn.SpatialDropout(0.5)
    local y = m:forward(torch.ones(2, 200, 3, 3))
    local maps = y:view(400, 9)
    for i = 1, 400 do
      assert(maps[i]:min() == maps[i]:max(), 'map ' .. i .. ' partly dropped')
    end
    local kept = maps:select(2, 1):sum()
    assert(kept > 150 and kept < 250, 'kept ' .. kept .. ' of 400 maps')
    close(m:backward(torch.ones(2, 200, 3, 3), torch.ones(2, 200, 3, 3)), y, 0)
    m:evaluate()
    close(m:forward(torch.ones(1, 2, 2)), torch.ones(1, 2, 2):mul(0.5), 0)
  end)

  it('local normalization: Torch7 means and standard deviations', function()
    -- one plane, kernel 1x3 of ones (normalized to 1/3): coef = S(1) = 2/3, 1, 2/3
    local x = T{1, 2, 6}:view(1, 1, 3)
    local sub = nn.SpatialSubtractiveNormalization(1, torch.ones(1, 3))
    close(sub.kernel, torch.ones(1, 3):div(3), 1e-16)   -- normalized in place
    -- means (1+2)/3/(2/3), 9/3, (8/3)/(2/3)
    close(sub:forward(x), T{1 - 1.5, 2 - 3, 6 - 4}:view(1, 1, 3), 1e-14)
    local div = nn.SpatialDivisiveNormalization(1, torch.ones(1, 3))
    local coef = {2 / 3, 1, 2 / 3}
    local sq = {(1 + 4) / 3, (1 + 4 + 36) / 3, (4 + 36) / 3}
    local want = torch.Tensor(1, 1, 3)
    for i = 1, 3 do want[1][1][i] = x[1][1][i] / (math.sqrt(sq[i]) / coef[i]) end
    close(div:forward(x), want, 1e-14)
    -- a std below the threshold divides by thresval instead
    local flat = nn.SpatialDivisiveNormalization(1, torch.ones(1, 3), 10, 2)
    close(flat:forward(x), x / 2, 0)
    -- contrastive is subtractive then divisive
    local k = torch.ones(3, 3)
    local c = nn.SpatialContrastiveNormalization(2, k:clone())
    local z = torch.rand(2, 2, 5, 6)
    local s2 = nn.SpatialSubtractiveNormalization(2, k:clone())
    local d2 = nn.SpatialDivisiveNormalization(2, s2.kernel:clone())
    close(c:forward(z), d2:forward(s2:forward(z)), 1e-14)
    -- separable 1D kernel equals the 2D outer product
    local k1 = T{1, 2, 1}
    local a1 = nn.SpatialSubtractiveNormalization(2, k1:clone())
    local a2 = nn.SpatialSubtractiveNormalization(2, torch.ger(k1, k1))
    close(a1:forward(z), a2:forward(z), 1e-14)
  end)
end)

describe('nn spatial family: errors', function()
  local function fails(f, text)
    local msg = errorOf(f)
    assert(msg:find(text, 1, true), 'message: ' .. msg)
  end

  it('names the class, the method, what was expected and what came', function()
    fails(function() nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 2, 2):forward(torch.randn(3, 4)) end,
          'nn.SpatialDilatedMaxPooling:updateOutput: input must be 3D or 4D (batch), got 2D 3x4')
    fails(function() nn.SpatialDilatedMaxPooling(3, 3, 1, 1, 0, 0, 3, 3):forward(torch.randn(1, 5, 5)) end,
          'nn.SpatialDilatedMaxPooling:updateOutput: input 1x5x5 is smaller than the 3x3 window')
    fails(function() nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 0, 1) end,
          'nn.SpatialDilatedMaxPooling: dilationW must be an integer >= 1, got 0')
    fails(function()
      local m = nn.SpatialAdaptiveMaxPooling(2, 2)
      m:forward(torch.randn(1, 4, 4))
      m:backward(torch.randn(1, 4, 4), torch.randn(1, 3, 2))
    end, 'nn.SpatialAdaptiveMaxPooling:updateGradInput: gradOutput must be 1x2x2 (the size of the last output; run forward first), got 1x3x2')
    fails(function()
      nn.SpatialAdaptiveAveragePooling(2, 2):backward(torch.randn(2, 4, 4), torch.randn(3, 2, 2))
    end, 'nn.SpatialAdaptiveAveragePooling:updateGradInput: gradOutput must be 3D with leading sizes of the input 2x4x4, got 3x2x2')
    fails(function() nn.SpatialAdaptiveAveragePooling(0, 2) end,
          'nn.SpatialAdaptiveAveragePooling: W must be an integer >= 1, got 0')
    fails(function() nn.SpatialFractionalMaxPooling(3, 3, 4, 4):forward(torch.randn(1, 6, 6)) end,
          'nn.SpatialFractionalMaxPooling:updateOutput: pool size 3x3 and output size 4x4 too large for the input 1x6x6')
    fails(function() nn.SpatialFractionalMaxPooling(2, 2, 0.5, 1.5) end,
          'nn.SpatialFractionalMaxPooling: ratios must lie in (0, 1), got 0.5, 1.5')
    fails(function()
      local m = nn.SpatialFractionalMaxPooling(2, 2, 2, 2):fixPoolingRegions()
      m.randomSamples = torch.Tensor{{{1.5, 0}}}
      m:forward(torch.randn(1, 6, 6))
    end, 'nn.SpatialFractionalMaxPooling:updateOutput: randomSamples must lie in [0, 1), got 1.5, 0 for plane 1')
    fails(function() nn.SpatialReflectionPadding(3, 0, 0, 0):forward(torch.randn(1, 4, 3)) end,
          'nn.SpatialReflectionPadding:updateOutput: reflection padding must be smaller than the input size, got l=3, r=0, t=0, b=0 for input 1x4x3')
    fails(function() nn.SpatialReplicationPadding(-2):forward(torch.randn(1, 3, 3)) end,
          'nn.SpatialReplicationPadding:updateOutput: input 1x3x3 is too small for padding l=-2, r=-2, t=-2, b=-2')
    fails(function()
      nn.SpatialReplicationPadding(1):backward(torch.randn(1, 3, 3), torch.randn(1, 4, 5))
    end, 'nn.SpatialReplicationPadding:updateGradInput: gradOutput must be 1x5x5 (the output size), got 1x4x5')
    fails(function() nn.SpatialUpSamplingNearest(2):forward(torch.randn(4, 4)) end,
          'nn.SpatialUpSamplingNearest:updateOutput: input must be 3D or 4D (batch), got 2D 4x4')
    fails(function() nn.SpatialUpSamplingNearest(1.5) end,
          'nn.SpatialUpSamplingNearest: scale_factor must be an integer >= 1, got 1.5')
    fails(function() nn.SpatialUpSamplingBilinear(2):forward(torch.randn(2, 3, 4, 5, 6)) end,
          'nn.SpatialUpSamplingBilinear:updateOutput: input must be 3D or 4D (batch), got 5D 2x3x4x5x6')
    fails(function() nn.UpSampling(2):forward(torch.randn(3, 4, 5)) end,
          'nn.UpSampling:updateOutput: input must be 4D (batch x channels x h x w) or 5D (volumes), got 3D 3x4x5')
    fails(function() nn.UpSampling({oheight = 2, owidth = 2}) end,
          'nn.UpSampling: nearest neighbour upsampling requires a scale_factor')
    fails(function() nn.UpSampling({oheight = 4, owidth = 4}, 'linear'):forward(torch.randn(1, 1, 2, 2, 2)) end,
          'nn.UpSampling:updateOutput: no output depth (odepth) was given for volumetric upsampling')
    fails(function() nn.PixelShuffle(2):forward(torch.randn(6, 2, 2)) end,
          'nn.PixelShuffle:updateOutput: input must be 3D or 4D (batch) with channels a multiple of 4, got 3D 6x2x2')
    fails(function() nn.FeatureLPPooling(1, 1, 2, false) end,
          'nn.FeatureLPPooling: width must be an integer within 2 to 16, got 1')
    fails(function() nn.FeatureLPPooling(4, 1, 2, false):forward(torch.randn(3, 2)) end,
          "nn.FeatureLPPooling:updateOutput: input's feature dimension (3) must be >= width (4), got 3x2")
    fails(function() nn.FeatureLPPooling(2, 1, 2, true):forward(torch.randn(3)) end,
          'nn.FeatureLPPooling:updateOutput: input must be 2D to 4D in batch mode, got 1D 3')
    fails(function() nn.SpatialLPPooling(1, 2, 3, 3):forward(torch.rand(1, 2, 2)) end,
          'nn.SpatialLPPooling:updateOutput: input 1x2x2 is smaller than the 3x3 window')
    fails(function() nn.SpatialDropout(0.5):forward(torch.randn(3, 4)) end,
          'nn.SpatialDropout:updateOutput: input must be 3D (features x h x w) or 4D (batch), got 2D 3x4')
    fails(function()
      local m = nn.SpatialDropout(0.5)
      m:evaluate()
      m:forward(torch.randn(2, 2, 2))
      m:backward(torch.randn(2, 2, 2), torch.randn(2, 2, 2))
    end, 'nn.SpatialDropout:updateGradInput: backprop only defined while training')
    fails(function() nn.SpatialSubtractiveNormalization(3, torch.ones(3, 3)):forward(torch.rand(2, 5, 5)) end,
          'nn.SpatialSubtractiveNormalization:updateOutput: input must be 3D (3 x h x w) or 4D (batch x 3 x h x w), got 3D 2x5x5')
    fails(function() nn.SpatialDivisiveNormalization(1, torch.ones(4)) end,
          'nn.SpatialDivisiveNormalization: averaging kernel must have ODD dimensions, got 4')
    fails(function() nn.SpatialContrastiveNormalization(1, torch.ones(3, 3, 3)) end,
          'nn.SpatialContrastiveNormalization: averaging kernel must be 2D or 1D, got 3D')
  end)

  it('bad inputs, sizes, indices and samples give errors, never a crash', function()
    local inputs = {
      torch.randn(0), torch.randn(1, 1, 1), torch.randn(2, 1, 1, 1), torch.randn(3, 5, 4),
      torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4):transpose(3, 4), torch.LongTensor(2, 3, 4):fill(1),
      torch.randn(1, 2, 2, 3, 3), torch.FloatTensor(2, 4, 4):fill(0/0), torch.randn(4),
    }
    local mods = {
      function() return nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 1, 1, 3, 3):ceil() end,
      function() return nn.SpatialDilatedMaxPooling(3, 3, 2, 2, 1, 1, 2, 2) end,
      function() return nn.SpatialAdaptiveMaxPooling(7, 3) end,
      function() return nn.SpatialAdaptiveAveragePooling(1, 9) end,
      function() return nn.SpatialFractionalMaxPooling(2, 2, 2, 2) end,
      function() return nn.SpatialFractionalMaxPooling(2, 2, 0.7, 0.7) end,
      function() return nn.SpatialLPPooling(1, 2, 2, 2) end,
      function() return nn.FeatureLPPooling(2, 2, 2, true) end,
      function() return nn.FeatureLPPooling(3, 1, 1, false) end,
      function() return nn.SpatialUpSamplingNearest(3) end,
      function() return nn.SpatialUpSamplingBilinear({oheight = 1, owidth = 1}) end,
      function() return nn.SpatialUpSamplingBilinear(3) end,
      function() return nn.UpSampling(2, 'linear') end,
      function() return nn.UpSampling({odepth = 1, oheight = 7, owidth = 2}, 'linear') end,
      function() return nn.PixelShuffle(1) end,
      function() return nn.SpatialReflectionPadding(3, -2, 2, -1) end,
      function() return nn.SpatialReplicationPadding(-3, 5, 0, 2) end,
      function() return nn.SpatialSoftMax() end,
      function() return nn.SpatialDropout(0.3) end,
      function() return nn.SpatialSubtractiveNormalization(3, torch.ones(5, 5)) end,
      function() return nn.SpatialDivisiveNormalization(3, torch.ones(3)) end,
      function() return nn.SpatialContrastiveNormalization(1, torch.ones(3)) end,
    }
    for _, mk in ipairs(mods) do
      for _, x in ipairs(inputs) do
        local m = mk()
        local ok, out = pcall(m.forward, m, x)
        if ok then
          pcall(m.backward, m, x, out:clone():fill(1))
          pcall(m.backward, m, x, torch.randn(3, 3))
          local y = x:clone()
          pcall(m.backward, m, y:resize(1, 1, 1), out:clone())
        end
        pcall(m.backward, mk(), x, x)
      end
    end
    -- bad indices, samples, sizes
    local m = nn.SpatialAdaptiveMaxPooling(2, 2)
    local x = torch.randn(1, 4, 4)
    m:forward(x)
    m.indices:fill(1000)
    assert.is_false(pcall(m.backward, m, x, torch.ones(1, 2, 2)))
    m.indices:fill(-5)
    assert.is_false(pcall(m.backward, m, x, torch.ones(1, 2, 2)))
    local f = nn.SpatialFractionalMaxPooling(2, 2, 2, 2):fixPoolingRegions()
    f.randomSamples = torch.Tensor(1, 1, 2):fill(0/0)
    assert.is_false(pcall(f.forward, f, x))
    local u = nn.SpatialUpSamplingNearest(2^40)
    assert.is_false(pcall(u.forward, u, x))
    local p = nn.SpatialReplicationPadding(2^50)
    assert.is_false(pcall(p.forward, p, x))
    local a = nn.SpatialAdaptiveAveragePooling(2^40, 2)
    assert.is_false(pcall(a.forward, a, x))
  end)

  it('runs modules laid out as Torch7 files hold them', function()
    -- Torch7's normalization keeps expanded views in coef and localsums
    local x = torch.rand(2, 3, 5, 6)
    local a = nn.SpatialSubtractiveNormalization(3, torch.ones(3, 3))
    local want = a:forward(x):clone()
    local b = nn.SpatialSubtractiveNormalization(3, torch.ones(3, 3))
    b.coef = torch.Tensor(1, 5, 6):zero():expand(2, 5, 6)
    b.localsums = torch.Tensor(1, 1, 6):zero():expand(2, 5, 6)
    close(b:forward(x), want, 0)
    -- Torch7's SpatialLPPooling gives p through its first child
    local p3 = nn.SpatialLPPooling(3, 3, 2, 2)
    local t7 = nn.SpatialLPPooling(3, 3, 2, 2)
    t7.pnorm, t7.modules = nil, {{pow = 3}}
    local z = torch.rand(3, 4, 4)
    close(t7:forward(z), p3:forward(z), 0)
  end)
end)
