-- bad input to the volumetric modules: constructor arguments, input rank,
-- planes, sizes and types, mismatched gradOutput, backward before forward.
-- Every message names the module and method, what was expected and what
-- came; the probe at the end throws a pool of bad values at every module
-- and demands a named error, never a crash or a Lua-level slip.
require 'torch'
require 'nn'

local T, F, L = torch.DoubleTensor, torch.FloatTensor, torch.LongTensor
local fails = require('spec.support.helpers').fails

local function fwd(m, x) return m:forward(x) end
local function bwd(m, x, g) return m:backward(x, g) end
local function new(name, ...) local args = {...}; return function() return nn[name](table.unpack(args)) end end

describe('volumetric modules: bad input', function()
  it('VolumetricConvolution', function()
    local m = nn.VolumetricConvolution(2, 3, 3, 3, 3)
    fails('nn.VolumetricConvolution:updateOutput: input must be 4D or 5D (batch) with 2 input planes, got 3D 2x3x4',
          fwd, m, T(2, 3, 4))
    fails('input must be 4D or 5D (batch) with 2 input planes, got 4D 3x4x4x4', fwd, m, T(3, 4, 4, 4))
    fails('nn.VolumetricConvolution:updateOutput: input 2x2x2x2 is smaller than the 3x3x3 kernel', fwd, m, T(2, 2, 2, 2))
    fails('input must be a torch.DoubleTensor (the module\'s type), got torch.FloatTensor', fwd, m, F(2, 4, 4, 4))
    fails('input must be a torch.DoubleTensor (the module\'s type), got torch.LongTensor', fwd, m, L(2, 4, 4, 4))
    fails('nn.VolumetricConvolution:updateOutput: input must be a tensor, got string', fwd, m, 'x')
    m:forward(T(2, 4, 4, 4))
    fails('nn.VolumetricConvolution:updateGradInput: gradOutput must be 3x2x2x2 (the output size), got 3x2x2x3',
          bwd, m, T(2, 4, 4, 4), T(3, 2, 2, 3))
    fails('nn.VolumetricConvolution: kT must be an integer >= 1, got 0', new('VolumetricConvolution', 2, 3, 0, 3, 3))
    fails('nn.VolumetricConvolution: padT must be an integer >= 0, got -1',
          new('VolumetricConvolution', 2, 3, 1, 1, 1, 1, 1, 1, -1))
    fails('nn.VolumetricDilatedConvolution: dilationT must be an integer >= 1, got 0',
          new('VolumetricDilatedConvolution', 2, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0))
    fails('nn.VolumetricDilatedConvolution:updateOutput: input 1x4x4x4 is smaller than the 2x2x2 kernel (TxHxW, dilation 4,1,1',
          fwd, nn.VolumetricDilatedConvolution(1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0, 4), T(1, 4, 4, 4))
  end)

  it('VolumetricFullConvolution', function()
    fails('nn.VolumetricFullConvolution:updateOutput: input 2x1x1x1 gives an empty output (-1x-1x-1): the padding 2,2,2 is too large',
          fwd, nn.VolumetricFullConvolution(2, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2), T(2, 1, 1, 1))
    fails('nn.VolumetricFullConvolution: adjT, adjW and adjH must be smaller than dT, dW and dH, got adj 2,0,0 for stride 2,2,2',
          new('VolumetricFullConvolution', 2, 3, 3, 3, 3, 2, 2, 2, 0, 0, 0, 2))
    local m = nn.VolumetricFullConvolution(2, 3, 3, 3, 3)
    fails('nn.VolumetricFullConvolution:updateOutput: a table input must be {input, target} (two tensors), got {torch.DoubleTensor, nil}',
          fwd, m, {T(2, 2, 2, 2)})
    fails('nn.VolumetricFullConvolution:updateOutput: the target (input[2]) must have at least 3 dimensions', fwd, m,
          {T(2, 2, 2, 2), T(3)})
    fails('nn.VolumetricFullConvolution:updateOutput: input must be 4D or 5D (batch) with 2 input planes, got 4D 3x2x2x2',
          fwd, m, T(3, 2, 2, 2))
    m:forward(T(2, 2, 2, 2))
    fails('nn.VolumetricFullConvolution:updateGradInput: gradOutput must be 3x4x4x4 (the output size), got 3x4x4x5',
          bwd, m, T(2, 2, 2, 2), T(3, 4, 4, 5))
  end)

  it('VolumetricMaxPooling, VolumetricDilatedMaxPooling, VolumetricAveragePooling', function()
    fails('nn.VolumetricMaxPooling:updateOutput: padding must be at most half the kernel size, got padding 2,0,0 for kernel 2x2x2',
          fwd, nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2, 2, 0, 0), T(2, 4, 4, 4))
    fails('nn.VolumetricMaxPooling:updateOutput: input 2x2x4x4 is smaller than the 3x3x3 window', fwd,
          nn.VolumetricMaxPooling(3, 3, 3), T(2, 2, 4, 4))
    fails('nn.VolumetricMaxPooling:updateOutput: input must be 4D or 5D (batch), got 3D 2x4x4', fwd,
          nn.VolumetricMaxPooling(2, 2, 2), T(2, 4, 4))
    fails('nn.VolumetricMaxPooling:updateGradInput: indices must be 2x2x2x2 (the output size; run forward first), got empty',
          bwd, nn.VolumetricMaxPooling(2, 2, 2), T(2, 4, 4, 4), T(2, 2, 2, 2))
    local m = nn.VolumetricMaxPooling(2, 2, 2)
    m:forward(T(2, 4, 4, 4))
    fails('nn.VolumetricMaxPooling:updateGradInput: gradOutput must be 2x2x2x2 (the output size), got 2x2x2x3',
          bwd, m, T(2, 4, 4, 4), T(2, 2, 2, 3))
    fails('nn.VolumetricDilatedMaxPooling:updateOutput: input 1x4x4x4 is smaller than the 2x2x2 window (TxWxH, with padding and dilation)',
          fwd, nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 1, 1, 0, 0, 0, 4, 1, 1), T(1, 4, 4, 4))
    fails('nn.VolumetricAveragePooling:updateOutput: input 2x2x4x4 is smaller than the 3x3x3 window', fwd,
          nn.VolumetricAveragePooling(3, 3, 3), T(2, 2, 4, 4))
    fails('nn.VolumetricAveragePooling: kW must be an integer >= 1, got 2.5', new('VolumetricAveragePooling', 2, 2.5, 2))
  end)

  it('VolumetricMaxUnpooling', function()
    fails('nn.VolumetricMaxUnpooling: argument must be a nn.VolumetricMaxPooling module, got nn.SpatialMaxPooling',
          function() return nn.VolumetricMaxUnpooling(nn.SpatialMaxPooling(2, 2)) end)
    fails("nn.VolumetricMaxUnpooling: the pooling module's kernel must equal its stride, got kernel 2x2x2, stride 1,1,1",
          function() return nn.VolumetricMaxUnpooling(nn.VolumetricMaxPooling(2, 2, 2, 1, 1, 1)) end)
    local m = nn.VolumetricMaxUnpooling(nn.VolumetricMaxPooling(2, 2, 2))
    fails('nn.VolumetricMaxUnpooling:updateOutput: the pooling module has not run forward yet', fwd, m, T(2, 2, 2, 2))
    m.pooling:forward(T(2, 4, 4, 4))
    fails("nn.VolumetricMaxUnpooling:updateOutput: input must be 2x2x2x2 (the size of the pooling module's output), got 2x2x2x3",
          fwd, m, T(2, 2, 2, 3))
    fails('nn.VolumetricMaxUnpooling:updateOutput: input must be 4D or 5D (batch), got 3D 2x2x2', fwd, m, T(2, 2, 2))
    fails('nn.VolumetricMaxUnpooling:updateGradInput: gradOutput must be 2x4x4x4 (the output size), got 2x4x4x5',
          bwd, m, T(2, 2, 2, 2), T(2, 4, 4, 5))
    -- indices that do not fit the plane are refused, never written through
    m.pooling.indices:fill(1000)
    fails('nn.VolumetricMaxUnpooling:updateOutput: indices hold 16 positions outside', fwd, m, T(2, 2, 2, 2))
  end)

  it('VolumetricFractionalMaxPooling', function()
    fails('nn.VolumetricFractionalMaxPooling: poolSizeT must be an integer >= 2, got 1',
          new('VolumetricFractionalMaxPooling', 1, 2, 2, 2, 2, 2))
    fails('nn.VolumetricFractionalMaxPooling: give three output sizes (>= 1) or three ratios (in (0, 1)), got 0.5, 2, 2',
          new('VolumetricFractionalMaxPooling', 2, 2, 2, 0.5, 2, 2))
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: input 2x5x5x5 (planes x H x W x T) is too small for output 4x4x4 with pool 2x2x2',
          fwd, nn.VolumetricFractionalMaxPooling(2, 2, 2, 4, 4, 4), T(2, 5, 5, 5))
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: the reduction ratios 0.1,0.1,0.1 (TxWxH) give an empty output for input 2x5x5x5',
          fwd, nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.1, 0.1, 0.1), T(2, 5, 5, 5))
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: input must be 4D or 5D (batch), planes x H x W x T, got 3D 5x5x5',
          fwd, nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 2, 2), T(5, 5, 5))
    fails('nn.VolumetricFractionalMaxPooling:updateGradInput: call updateOutput/forward first', bwd,
          nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 2, 2), T(2, 5, 5, 5), T(2, 2, 2, 2))
    local m = nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 2, 2):fixPoolingRegions()
    m:forward(T(2, 5, 5, 5))
    m.randomSamples:fill(2)
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: randomSamples must lie in [0, 1]', fwd, m, T(2, 5, 5, 5))
  end)

  it('VolumetricBatchNormalization, VolumetricDropout, VolumetricReplicationPadding', function()
    local bn = nn.VolumetricBatchNormalization(3)
    fails('nn.VolumetricBatchNormalization:updateOutput: input must be 5D (batch x 3 features x time x height x width) in training mode, got 4D 3x2x2x2',
          fwd, bn, T(3, 2, 2, 2))
    fails('nn.VolumetricBatchNormalization:updateOutput: input must have 3 features (dimension 2), got 5D 2x4x2x2x2',
          fwd, bn, T(2, 4, 2, 2, 2))
    fails('nn.VolumetricDropout:updateOutput: input must be 5D (nbatch, nfeat, t, h, w) or 4D (nfeat, t, h, w), got 3D 2x3x4',
          fwd, nn.VolumetricDropout(), T(2, 3, 4))
    fails('nn.VolumetricDropout: p must be a number with 0 <= p <= 1, got 1.5', new('VolumetricDropout', 1.5))
    local d = nn.VolumetricDropout()
    d:forward(T(2, 3, 4, 4))
    fails('nn.VolumetricDropout:updateGradInput: gradOutput must match the last forward input (mask 2x1x1x1), got 3x3x4x4',
          bwd, d, T(2, 3, 4, 4), T(3, 3, 4, 4))
    d:evaluate()
    fails('nn.VolumetricDropout:updateGradInput: backprop only defined while training', bwd, d, T(2, 3, 4, 4), T(2, 3, 4, 4))
    fails('nn.VolumetricReplicationPadding:updateOutput: input 2x3x4x4 padded by left -2, right -2, top -2, bottom -2, front -2, back -2 gives an empty output (-1x0x0)',
          fwd, nn.VolumetricReplicationPadding(-2), T(2, 3, 4, 4))
    fails('nn.VolumetricReplicationPadding:updateOutput: input must be 4D or 5D (batch), got 2D 2x3', fwd,
          nn.VolumetricReplicationPadding(1), T(2, 3))
    local r = nn.VolumetricReplicationPadding(1)
    r:forward(T(2, 2, 2, 2))
    fails('nn.VolumetricReplicationPadding:updateGradInput: gradOutput must be 2x4x4x4 (the output size), got 2x4x4x3',
          bwd, r, T(2, 2, 2, 2), T(2, 4, 4, 3))
    fails('nn.VolumetricReplicationPadding: pleft must be an integer, got a', new('VolumetricReplicationPadding', 'a'))
  end)
end)

describe('volumetric modules: fields too large for the size arithmetic', function()
  it('are refused before any size is computed', function()
    local m = nn.VolumetricFullConvolution(1, 1, 1, 1, 1)
    m.dT = 2 ^ 40
    fails('nn.VolumetricFullConvolution:updateOutput: kernel 1x1x1 (TxWxH), its stride, padding or dilation is too large',
          fwd, m, torch.randn(1, 3, 3, 3))
    local c = nn.VolumetricConvolution(1, 1, 1, 1, 1)
    c.kT, c.kW, c.kH = 2 ^ 31 - 1, 2 ^ 31 - 1, 2 ^ 31 - 1
    fails('its stride, padding or dilation is too large', fwd, c, torch.randn(1, 3, 3, 3))
    local r = nn.VolumetricReplicationPadding(1)
    r.pleft = 2 ^ 61
    fails('nn.VolumetricReplicationPadding:updateOutput: pads must be within +-2147483647, got 2305843009213693952',
          fwd, r, torch.randn(1, 3, 3, 3))
    local f = nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 2, 2)
    f.outT, f.poolSizeT = 2 ^ 61, 2 ^ 61
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: input 1x5x5x5 (planes x H x W x T) is too small', fwd, f,
          torch.randn(1, 5, 5, 5))
    f.outT = 2 ^ 63
    fails('nn.VolumetricFractionalMaxPooling:updateOutput: outT must be below 2^62 in magnitude, got 9223372036854775808', fwd, f,
          torch.randn(1, 5, 5, 5))
    local p = nn.VolumetricMaxPooling(2, 2, 2)
    p.dT = 2 ^ 50
    fails('nn.VolumetricMaxPooling:updateOutput: kernel 2x2x2 (TxWxH), its stride, padding or dilation is too large',
          fwd, p, torch.randn(1, 5, 5, 5))
  end)
end)

describe('volumetric modules: the probe', function()
  local modules = {
    {'VolumetricConvolution', 4, 2, 2, 2, 2}, {'VolumetricDilatedConvolution', 4, 2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2},
    {'VolumetricFullConvolution', 4, 2, 2, 2, 2}, {'VolumetricMaxPooling', 2, 2, 2},
    {'VolumetricDilatedMaxPooling', 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2}, {'VolumetricAveragePooling', 2, 2, 2},
    {'VolumetricFractionalMaxPooling', 2, 2, 2, 0.5, 0.5, 0.5}, {'VolumetricBatchNormalization', 4},
    {'VolumetricDropout'}, {'VolumetricReplicationPadding', 1, -1, 0, 2, 1, 0},
  }
  local function pool()
    return {'x', {}, 3, F(), F(0), F(4), F(2, 4):uniform(), F(4, 5, 5):uniform(), F(2, 4, 5, 5, 5):uniform(),
            F(4, 5, 5, 5):uniform(), F(4, 1, 1, 1):uniform(), F(1, 4, 3, 3, 3):uniform(),
            F(4, 5, 5, 5):uniform():transpose(2, 4), F(2, 4, 5, 5, 5):fill(0 / 0), T(4, 5, 5, 5):uniform(),
            L(4, 3, 3, 3):fill(1), torch.ByteTensor(4, 3, 3, 3), {F(4, 3, 3, 3), F(3)}, {F(4, 3, 3, 3), 'x'}, false}
  end

  it('errors come from the module, never from Lua itself', function()
    local unclear = {}
    local function check(what, ok, err)
      if not ok and tostring(err):find('attempt to', 1, true) then unclear[#unclear + 1] = what .. ': ' .. tostring(err) end
      if not ok and not tostring(err):find('nn.Volumetric', 1, true) then
        unclear[#unclear + 1] = what .. ' (no module name): ' .. tostring(err)
      end
    end
    for _, spec in ipairs(modules) do
      local name = spec[1]
      local function make() return nn[name](table.unpack(spec, 2)):float() end
      for i, x in ipairs(pool()) do
        local m = make()
        local ok, err = pcall(m.forward, m, x)
        check(name .. ' forward #' .. i, ok, err)
        if ok then
          for j, g in ipairs(pool()) do
            check(name .. ' backward #' .. i .. '/' .. j, pcall(m.backward, m, x, g))
          end
        end
        check(name .. ' backward on a fresh module #' .. i, pcall(function() local f = make(); return f:backward(x, x) end))
      end
    end
    assert(#unclear == 0, table.concat(unclear, '\n'))
  end)
end)
