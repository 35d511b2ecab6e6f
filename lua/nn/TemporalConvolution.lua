-- nn.TemporalConvolution(inputFrameSize, outputFrameSize, kW [, dW]): 1D
-- convolution over a sequence of frames.
-- input nInputFrame x inputFrameSize, or batch x nInputFrame x inputFrameSize;
-- output nOutputFrame x outputFrameSize (batch first when batched) with
-- nOutputFrame = floor((nInputFrame - kW) / dW) + 1.
-- weight outputFrameSize x (kW*inputFrameSize): a row holds kW frames one
-- after the other; bias outputFrameSize. Initialised uniform(-s, s) with
-- s = 1/sqrt(kW*inputFrameSize), as Torch7.
-- Composition of tensor ops: the windows, a strided view of the input,
-- are copied as rows of a (positions) x (kW*inputFrameSize) matrix
-- ('finput' in forward, 'fgradInput' in accGradParameters: 1D im2col) and
-- one gemm with the weight gives the output; backward adds the window
-- gradients back into the frames, one window offset at a time (kW adds).

local cc = require 'nn.convcheck'
local TemporalConvolution, parent = torch.class('nn.TemporalConvolution', 'nn.Module')

function TemporalConvolution:__init(inputFrameSize, outputFrameSize, kW, dW)
  parent.__init(self)
  local cls = torch.type(self)
  self.inputFrameSize = cc.count(inputFrameSize, 'inputFrameSize', cls)
  self.outputFrameSize = cc.count(outputFrameSize, 'outputFrameSize', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.weight = torch.Tensor(self.outputFrameSize, self.inputFrameSize * self.kW)
  self.bias = torch.Tensor(self.outputFrameSize)
  self.gradWeight = torch.Tensor(self.outputFrameSize, self.inputFrameSize * self.kW)
  self.gradBias = torch.Tensor(self.outputFrameSize)
  self:reset()
end

function TemporalConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.inputFrameSize)
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

-- checks the input; returns the number of output frames
local function frames(self, input, who)
  cc.input(input, who, {2, 3}, '2D (nInputFrame x inputFrameSize) or 3D (batch)', self.weight)
  local d = input:dim()
  if input:size(d) ~= self.inputFrameSize then
    nn.utils.error(who, 'input must have %d features per frame (inputFrameSize), got %s',
                   self.inputFrameSize, nn.utils.shapeString(input))
  end
  if input:size(d - 1) < self.kW then
    nn.utils.error(who, 'input has %d frames, fewer than kW = %d', input:size(d - 1), self.kW)
  end
  return (input:size(d - 1) - self.kW) // self.dW + 1
end

local function outSizes(self, input, nOut)
  if input:dim() == 3 then return {input:size(1), nOut, self.outputFrameSize} end
  return {nOut, self.outputFrameSize}
end

-- the windows of 'input' as rows of a matrix (positions x kW*inputFrameSize), in buf
local function windows(self, input, buf)
  local d = input:dim()
  local w = input:unfold(d - 1, self.kW, self.dW):transpose(d, d + 1)  -- [B x] nOut x kW x F
  buf:resizeAs(w):copy(w)
  return buf:view(-1, self.kW * self.inputFrameSize)
end

function TemporalConvolution:updateOutput(input)
  local nOut = frames(self, input, cc.who(self, 'updateOutput'))
  self.finput = self.finput or input.new()
  local cols = windows(self, input, self.finput)
  self.output:resize(table.unpack(outSizes(self, input, nOut)))
  local out2 = self.output:view(-1, self.outputFrameSize)
  out2:copy(self.bias:view(1, self.outputFrameSize):expandAs(out2))
  out2:addmm(1, out2, 1, cols, self.weight:t())
  return self.output
end

function TemporalConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  local nOut = frames(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input, nOut), input)
  self.fgradInput = self.fgradInput or input.new()
  local go2 = gradOutput:contiguous():view(-1, self.outputFrameSize)
  local gcols = self.fgradInput:resize(go2:size(1), self.kW * self.inputFrameSize)
  gcols:mm(go2, self.weight)
  local d = input:dim()
  local sizes = outSizes(self, input, nOut)
  sizes[#sizes] = self.inputFrameSize
  table.insert(sizes, #sizes, self.kW)
  gcols = gcols:view(table.unpack(sizes))                     -- [B x] nOut x kW x F
  self.gradInput:resizeAs(input):zero()
  local dst = self.gradInput:unfold(d - 1, self.kW, self.dW)  -- [B x] nOut x F x kW
  for k = 1, self.kW do
    dst:select(d + 1, k):add(gcols:select(d, k))
  end
  return self.gradInput
end

function TemporalConvolution:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  local nOut = frames(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input, nOut), input)
  scale = scale or 1
  self.fgradInput = self.fgradInput or input.new()
  local cols = windows(self, input, self.fgradInput)
  local go2 = gradOutput:contiguous():view(-1, self.outputFrameSize)
  self.gradWeight:addmm(1, self.gradWeight, scale, go2:t(), cols)
  self.gradBias:add(scale, go2:sum(1):view(self.outputFrameSize))
end

-- shared weights need no accumulation through the gradients (Torch7)
function TemporalConvolution:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function TemporalConvolution:type(type, tensorCache)
  self.finput = self.finput and torch.Tensor()
  self.fgradInput = self.fgradInput and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function TemporalConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false}
end

function TemporalConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput')
  return parent.clearState(self)
end
