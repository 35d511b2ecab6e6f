-- nn.SpatialSubSampling(nInputPlane, kW, kH [, dW, dH]): per plane, the sum
-- over each kW x kH window times a trainable weight, plus a bias:
-- out[c][y][x] = bias[c] + weight[c] * sum_{i,j} in[c][(y-1)*dH+i][(x-1)*dW+j].
-- input nInputPlane x H x W or batch x nInputPlane x H x W; output
-- oH = floor((H - kH) / dH) + 1, likewise oW. weight and bias nInputPlane,
-- initialised uniform(-s, s), s = 1/sqrt(kW*kH), as Torch7.
-- Composition: the window sums are kW*kH times an average pooling (the
-- SpatialAveragePooling kernel, no padding); backward is that pooling's
-- backward of gradOutput scaled per plane. accGradParameters recomputes the
-- window sums into '_sums' and updateGradInput scales gradOutput into
-- '_gradScaled' (both backward-only scratch): nothing is kept from forward.

local C = torch._C.nn
local cc = require 'nn.convcheck'
local SpatialSubSampling, parent = torch.class('nn.SpatialSubSampling', 'nn.Module')

function SpatialSubSampling:__init(nInputPlane, kW, kH, dW, dH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = cc.count(nInputPlane, 'nInputPlane', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.kH = cc.count(kH, 'kH', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.dH = cc.count(dH or 1, 'dH', cls)
  self.weight = torch.Tensor(self.nInputPlane)
  self.bias = torch.Tensor(self.nInputPlane)
  self.gradWeight = torch.Tensor(self.nInputPlane)
  self.gradBias = torch.Tensor(self.nInputPlane)
  self:reset()
end

function SpatialSubSampling:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.kH)
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

-- checks the input; returns the output sizes
local function outSizes(self, input, who)
  cc.input(input, who, {3, 4}, '3D (nInputPlane x H x W) or 4D (batch)', self.weight)
  local d = input:dim()
  if input:size(d - 2) ~= self.nInputPlane then
    nn.utils.error(who, 'input must have %d planes (nInputPlane) in dimension %d, got %s',
                   self.nInputPlane, d - 2, nn.utils.shapeString(input))
  end
  local H, W = input:size(d - 1), input:size(d)
  if H < self.kH or W < self.kW then
    nn.utils.error(who, 'input %s is smaller than the %dx%d window', nn.utils.shapeString(input),
                   self.kW, self.kH)
  end
  local s = {self.nInputPlane, (H - self.kH) // self.dH + 1, (W - self.kW) // self.dW + 1}
  if d == 4 then table.insert(s, 1, input:size(1)) end
  return s
end

-- a per-plane vector v viewed to broadcast over t (3D or 4D)
local function perPlane(v, t)
  if t:dim() == 4 then return v:view(1, v:size(1), 1, 1):expandAs(t) end
  return v:view(v:size(1), 1, 1):expandAs(t)
end

-- per-plane sums of t (3D or 4D) as a vector
local function planeSums(t)
  local s = t:sum(t:dim()):sum(t:dim() - 1)
  if t:dim() == 4 then s = s:sum(1) end
  return s:view(-1)
end

function SpatialSubSampling:updateOutput(input)
  outSizes(self, input, cc.who(self, 'updateOutput'))
  C.avgpool_updateOutput(self, input, self.output)
  self.output:cmul(perPlane(self.weight, self.output)):mul(self.kW * self.kH)
  self.output:add(perPlane(self.bias, self.output))
  return self.output
end

function SpatialSubSampling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  cc.gradOutput(gradOutput, who, outSizes(self, input, who), input)
  self._gradScaled = self._gradScaled or input.new()
  local g = self._gradScaled:resizeAs(gradOutput):copy(gradOutput)
  g:cmul(perPlane(self.weight, g)):mul(self.kW * self.kH)
  C.avgpool_updateGradInput(self, input, g, self.gradInput)
  return self.gradInput
end

function SpatialSubSampling:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  cc.gradOutput(gradOutput, who, outSizes(self, input, who), input)
  scale = scale or 1
  self._sums = self._sums or input.new()
  C.avgpool_updateOutput(self, input, self._sums)
  self._sums:cmul(gradOutput)
  self.gradWeight:add(scale * self.kW * self.kH, planeSums(self._sums))
  self.gradBias:add(scale, planeSums(gradOutput))
end

function SpatialSubSampling:memoryTraits()
  return {buffers = {_sums = 'backward', _gradScaled = 'backward'},
          needsInput = true, needsOutput = false}
end
