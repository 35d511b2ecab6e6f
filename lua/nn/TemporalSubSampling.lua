-- nn.TemporalSubSampling(inputFrameSize, kW [, dW]): per feature, the sum
-- over each window of kW frames times a trainable weight, plus a bias:
-- out[t][f] = bias[f] + weight[f] * sum_k in[(t-1)*dW+k][f].
-- input nInputFrame x inputFrameSize (Torch7's form) or, beyond Torch7,
-- batch x nInputFrame x inputFrameSize; nOutputFrame = floor((nInputFrame
-- - kW) / dW) + 1. weight and bias inputFrameSize, initialised uniform(-s,
-- s), s = 1/sqrt(kW), as Torch7.
-- Composition: sums over the windows' strided view; backward adds the
-- scaled gradient ('_gradScaled') back offset by offset (kW adds);
-- accGradParameters recomputes the window sums into '_sums'. Both are
-- backward-only scratch.

local cc = require 'nn.convcheck'
local TemporalSubSampling, parent = torch.class('nn.TemporalSubSampling', 'nn.Module')

function TemporalSubSampling:__init(inputFrameSize, kW, dW)
  parent.__init(self)
  local cls = torch.type(self)
  self.inputFrameSize = cc.count(inputFrameSize, 'inputFrameSize', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.weight = torch.Tensor(self.inputFrameSize)
  self.bias = torch.Tensor(self.inputFrameSize)
  self.gradWeight = torch.Tensor(self.inputFrameSize)
  self.gradBias = torch.Tensor(self.inputFrameSize)
  self:reset()
end

function TemporalSubSampling:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW)
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

-- checks the input; returns the output sizes
local function outSizes(self, input, who)
  cc.input(input, who, {2, 3}, '2D (nInputFrame x inputFrameSize) or 3D (batch)', self.weight)
  local d = input:dim()
  if input:size(d) ~= self.inputFrameSize then
    nn.utils.error(who, 'input must have %d features per frame (inputFrameSize), got %s',
                   self.inputFrameSize, nn.utils.shapeString(input))
  end
  if input:size(d - 1) < self.kW then
    nn.utils.error(who, 'input has %d frames, fewer than kW = %d', input:size(d - 1), self.kW)
  end
  local s = {(input:size(d - 1) - self.kW) // self.dW + 1, self.inputFrameSize}
  if d == 3 then table.insert(s, 1, input:size(1)) end
  return s
end

-- window sums of input into t, shaped 'sizes'
local function windowSums(self, input, t, sizes)
  local d = input:dim()
  torch.sum(t, input:unfold(d - 1, self.kW, self.dW), d + 1)
  return t:resize(table.unpack(sizes))
end

local function perFeature(v, t)
  return v:view(1, v:size(1)):expand(t:nElement() // v:size(1), v:size(1))
end

function TemporalSubSampling:updateOutput(input)
  local sizes = outSizes(self, input, cc.who(self, 'updateOutput'))
  windowSums(self, input, self.output, sizes)
  local o2 = self.output:view(-1, self.inputFrameSize)
  o2:cmul(perFeature(self.weight, o2)):add(perFeature(self.bias, o2))
  return self.output
end

function TemporalSubSampling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  cc.gradOutput(gradOutput, who, outSizes(self, input, who), input)
  self._gradScaled = self._gradScaled or input.new()
  local g = self._gradScaled:resizeAs(gradOutput):copy(gradOutput)
  local g2 = g:view(-1, self.inputFrameSize)
  g2:cmul(perFeature(self.weight, g2))
  local d = input:dim()
  self.gradInput:resizeAs(input):zero()
  local dst = self.gradInput:unfold(d - 1, self.kW, self.dW)  -- [B x] nOut x F x kW
  for k = 1, self.kW do dst:select(d + 1, k):add(g) end
  return self.gradInput
end

function TemporalSubSampling:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  local sizes = outSizes(self, input, who)
  cc.gradOutput(gradOutput, who, sizes, input)
  scale = scale or 1
  self._sums = self._sums or input.new()
  local s = windowSums(self, input, self._sums, sizes):cmul(gradOutput)
  self.gradWeight:add(scale, s:view(-1, self.inputFrameSize):sum(1):view(-1))
  self.gradBias:add(scale, gradOutput:contiguous():view(-1, self.inputFrameSize):sum(1):view(-1))
end

function TemporalSubSampling:memoryTraits()
  return {buffers = {_sums = 'backward', _gradScaled = 'backward'},
          needsInput = true, needsOutput = false}
end
