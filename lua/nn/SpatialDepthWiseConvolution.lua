-- nn.SpatialDepthWiseConvolution(nInputPlane, nOutputPlane, kW, kH [, dW,
-- dH, padW, padH]): each input plane i convolved on its own with
-- nOutputPlane kernels (nOutputPlane is the depth multiplier): output plane
-- (i-1)*nOutputPlane + o = bias[o][i] + correlate(in[i], weight[o][i]).
-- input nInputPlane x H x W or batch x ...; output nInputPlane*nOutputPlane
-- x oH x oW, oH = floor((H + 2*padH - kH) / dH) + 1. weight nOutputPlane x
-- (nInputPlane*kH*kW) (Torch7's shape; a 4D nOutputPlane x nInputPlane x kH
-- x kW weight is read the same), bias nOutputPlane x nInputPlane,
-- initialised uniform(-s, s), s = 1/sqrt(kW*kH*nInputPlane), as Torch7.
-- Composition: per input plane, SpatialConvolution's im2col + gemm kernel
-- with that plane's nOutputPlane kernels; the planes' results go through
-- '_planeOutput' (forward scratch) and '_planeGradInput' (backward
-- scratch) into their place in the output and gradInput. Gradients of the
-- weight and bias are accumulated by the kernel straight into their views.
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

-- plane i's kernels (nOutputPlane x 1 x kH x kW views of w)
local function planeKernels(self, w, i)
  return w:view(self.nOutputPlane, self.nInputPlane, self.kH, self.kW):narrow(2, i, 1)
end

-- checks the input; returns its plane dimension
local function check(self, input, who)
  if self.padding then  -- files of older Torch7 versions
    self.padW, self.padH, self.padding = self.padding, self.padding, nil
  end
  cc.input(input, who, {3, 4}, '3D (nInputPlane x H x W) or 4D (batch)')
  local d = input:dim()
  if input:size(d - 2) ~= self.nInputPlane then
    nn.utils.error(who, 'input must have %d planes (nInputPlane) in dimension %d, got %s',
                   self.nInputPlane, d - 2, nn.utils.shapeString(input))
  end
  if input:size(d - 1) + 2 * self.padH < self.kH or input:size(d) + 2 * self.padW < self.kW then
    nn.utils.error(who, 'input %s is smaller than the %dx%d kernel (with padding %d,%d)',
                   nn.utils.shapeString(input), self.kW, self.kH, self.padW, self.padH)
  end
  return d - 2
end

function SpatialDepthWiseConvolution:updateOutput(input)
  local p = check(self, input, cc.who(self, 'updateOutput'))
  self.finput = self.finput or input.new()
  self._planeOutput = self._planeOutput or input.new()
  local tmp = self._planeOutput
  local nOut = self.nOutputPlane
  for i = 1, self.nInputPlane do
    C.conv_updateOutput(self, input:narrow(p, i, 1), tmp, planeKernels(self, self.weight, i),
                        self.bias and self.bias:select(2, i), self.finput)
    if i == 1 then
      local size = tmp:size():totable()
      size[p] = self.nInputPlane * nOut
      self.output:resize(table.unpack(size))
    end
    self.output:narrow(p, (i - 1) * nOut + 1, nOut):copy(tmp)
  end
  return self.output
end

local function checkGradOutput(self, input, gradOutput, who)
  local p = input:dim() - 2
  local oH = (input:size(p + 1) + 2 * self.padH - self.kH) // self.dH + 1
  local oW = (input:size(p + 2) + 2 * self.padW - self.kW) // self.dW + 1
  local s = {self.nInputPlane * self.nOutputPlane, oH, oW}
  if p == 2 then table.insert(s, 1, input:size(1)) end
  cc.gradOutput(gradOutput, who, s)
end

function SpatialDepthWiseConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  local p = check(self, input, who)
  checkGradOutput(self, input, gradOutput, who)
  self.fgradInput = self.fgradInput or input.new()
  self._planeGradInput = self._planeGradInput or input.new()
  local tmp, nOut = self._planeGradInput, self.nOutputPlane
  self.gradInput:resizeAs(input)
  for i = 1, self.nInputPlane do
    C.conv_updateGradInput(self, input:narrow(p, i, 1), gradOutput:narrow(p, (i - 1) * nOut + 1, nOut),
                           tmp, planeKernels(self, self.weight, i), self.fgradInput)
    self.gradInput:narrow(p, i, 1):copy(tmp)
  end
  return self.gradInput
end

function SpatialDepthWiseConvolution:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  local p = check(self, input, who)
  checkGradOutput(self, input, gradOutput, who)
  self.fgradInput = self.fgradInput or input.new()
  local nOut = self.nOutputPlane
  for i = 1, self.nInputPlane do
    C.conv_accGradParameters(self, input:narrow(p, i, 1), gradOutput:narrow(p, (i - 1) * nOut + 1, nOut),
                             planeKernels(self, self.gradWeight, i),
                             self.gradBias and self.gradBias:select(2, i), self.fgradInput, scale or 1)
  end
end

function SpatialDepthWiseConvolution:type(type, tensorCache)
  for _, k in ipairs({'finput', 'fgradInput', '_planeOutput', '_planeGradInput'}) do
    self[k] = self[k] and torch.Tensor()
  end
  return parent.type(self, type, tensorCache)
end

function SpatialDepthWiseConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward', _planeOutput = 'forward',
                     _planeGradInput = 'backward'},
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
