-- nn.SpatialDepthWiseConvolution(nInputPlane, nOutputPlane, kW, kH [, dW,
-- dH, padW, padH]): each input plane i convolved on its own with
-- nOutputPlane kernels (nOutputPlane is the depth multiplier): output plane
-- (i-1)*nOutputPlane + o = bias[o][i] + correlate(in[i], weight[o][i]).
-- input nInputPlane x H x W or batch x ...; output nInputPlane*nOutputPlane
-- x oH x oW, oH = floor((H + 2*padH - kH) / dH) + 1. weight nOutputPlane x
-- (nInputPlane*kH*kW) (Torch7's shape; a 4D nOutputPlane x nInputPlane x kH
-- x kW weight is read the same), bias nOutputPlane x nInputPlane,
-- initialised uniform(-s, s), s = 1/sqrt(kW*kH*nInputPlane), as Torch7.
-- Kernel: src/nn/th_nn_dilconv.c in its depthwise mode: per image and
-- input plane, that plane's im2col (th_nn_im2col) and one gemm with its
-- nOutputPlane kernels, written in place into the output; images of a
-- batch in parallel. 'finput' is forward-only and 'fgradInput'
-- backward-only per-thread scratch, as nn.SpatialConvolution's.
-- Torch7 reads the input's width as its height here (its kernel swaps
-- them); this module uses each where it belongs (the same numbers on
-- square inputs).

local C = torch._C.nn
local cc = require 'nn.convcheck'
local SpatialDepthWiseConvolution, parent = torch.class('nn.SpatialDepthWiseConvolution', 'nn.Module')

function SpatialDepthWiseConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = cc.count(nInputPlane, 'nInputPlane', cls)
  self.nOutputPlane = cc.count(nOutputPlane, 'nOutputPlane', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.kH = cc.count(kH, 'kH', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.dH = cc.count(dH or 1, 'dH', cls)
  self.padW = cc.count(padW or 0, 'padW', cls, 0)
  self.padH = cc.count(padH or self.padW, 'padH', cls, 0)
  local K = self.nInputPlane * self.kH * self.kW
  self.weight = torch.Tensor(self.nOutputPlane, K)
  self.bias = torch.Tensor(self.nOutputPlane, self.nInputPlane)
  self.gradWeight = torch.Tensor(self.nOutputPlane, K)
  self.gradBias = torch.Tensor(self.nOutputPlane, self.nInputPlane)
  self:reset()
end

function SpatialDepthWiseConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

function SpatialDepthWiseConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

local function backCompatibility(self)
  if self.padding then  -- files of older Torch7 versions
    self.padW, self.padH, self.padding = self.padding, self.padding, nil
  end
end

function SpatialDepthWiseConvolution:updateOutput(input)
  backCompatibility(self)
  nn.utils.workspaceField(self, 'finput', self.weight)
  C.dilconv_updateOutput(self, input, self.output, self.weight, self.bias, self.finput, true)
  return self.output
end

function SpatialDepthWiseConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  backCompatibility(self)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
  C.dilconv_updateGradInput(self, input, gradOutput, self.gradInput, self.weight, self.fgradInput,
                            true)
  return self.gradInput
end

function SpatialDepthWiseConvolution:accGradParameters(input, gradOutput, scale)
  backCompatibility(self)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
  C.dilconv_accGradParameters(self, input, gradOutput, self.gradWeight, self.gradBias,
                              self.fgradInput, scale or 1, true)
end

function SpatialDepthWiseConvolution:type(type, tensorCache)
  self.finput = self.finput and torch.Tensor()
  self.fgradInput = self.fgradInput and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function SpatialDepthWiseConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false}
end

function SpatialDepthWiseConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  if self.bias then
    return s .. ')'
  else
    return s .. ') without bias'
  end
end

function SpatialDepthWiseConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end
