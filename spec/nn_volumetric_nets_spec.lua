-- small 3D nets built from the volumetric modules (a C3D-like classifier
-- trunk and a 3D encoder-decoder with max unpooling and a full convolution)
-- under optnet: identical outputs in inference; identical outputs,
-- gradInputs and gradients over two training steps; less memory; exact undo.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require('spec.support.helpers')
local clone, same, gradFor = helpers.clone, helpers.identical, helpers.gradFor

local function c3d()
  local net = nn.Sequential()
  net:add(nn.VolumetricConvolution(2, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1))
  net:add(nn.VolumetricBatchNormalization(4)):add(nn.ReLU(true))
  net:add(nn.VolumetricMaxPooling(1, 2, 2))
  net:add(nn.VolumetricDilatedConvolution(4, 4, 3, 3, 3, 1, 1, 1, 2, 2, 2, 2, 2, 2)):add(nn.ReLU(true))
  net:add(nn.VolumetricDropout(0.2))
  net:add(nn.VolumetricAveragePooling(2, 2, 2)):add(nn.View(-1):setNumInputDims(4))
  net:add(nn.Linear(4 * 2 * 2 * 2, 3))
  return net, torch.randn(3, 2, 4, 8, 8)
end

local function encoderDecoder()
  local pool = nn.VolumetricMaxPooling(2, 2, 2)
  local net = nn.Sequential()
  net:add(nn.VolumetricReplicationPadding(1, 1, 1, 1, 0, 0))
  net:add(nn.VolumetricConvolution(1, 3, 1, 3, 3)):add(nn.ReLU())
  net:add(pool)
  net:add(nn.VolumetricConvolution(3, 3, 1, 1, 1)):add(nn.Tanh())
  net:add(nn.VolumetricMaxUnpooling(pool))
  net:add(nn.VolumetricFullConvolution(3, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1))
  net:add(nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 1, 1, 1, 1, 1, 2, 2, 2):ceil())
  return net, torch.randn(2, 1, 4, 6, 6)
end

for name, build in pairs({c3d = c3d, ['encoder-decoder'] = encoderDecoder}) do
  describe('optnet on a volumetric ' .. name .. ' net', function()
    it('inference: identical outputs, less memory, exact undo', function()
      torch.manualSeed(7)
      local net, input = build()
      net:evaluate()
      local ref = clone(net:forward(input))
      local before = optnet.countUsedMemory(net).total_size
      optnet.optimizeMemory(net, input, {mode = 'inference'})
      same(ref, net:forward(input), 'optimized output')
      assert(optnet.countUsedMemory(net).total_size < before)
      optnet.removeOptimization(net)
      same(ref, net:forward(input), 'output after removeOptimization')
    end)

    it('training: identical outputs, gradInputs and gradients over two steps', function()
      torch.manualSeed(11)
      local a, input = build()
      local b = a:clone()
      a:training(); b:training()
      optnet.optimizeMemory(b, input, {mode = 'training'})
      local pa, ga = a:parameters()
      local pb, gb = b:parameters()
      for iter = 1, 2 do
        torch.manualSeed(100 + iter)
        local oa = clone(a:forward(input))
        torch.manualSeed(100 + iter)
        same(oa, b:forward(input), 'iteration ' .. iter .. ' output')
        local g = gradFor(oa, 20 + iter)
        a:zeroGradParameters(); b:zeroGradParameters()
        same(clone(a:backward(input, g)), b:backward(input, g), 'iteration ' .. iter .. ' gradInput')
        for i = 1, #ga do same(ga[i], gb[i], 'iteration ' .. iter .. ' gradParameter ' .. i) end
        a:updateParameters(0.01); b:updateParameters(0.01)
        for i = 1, #pa do same(pa[i], pb[i], 'iteration ' .. iter .. ' parameter ' .. i) end
      end
      optnet.removeOptimization(b)
    end)
  end)
end
