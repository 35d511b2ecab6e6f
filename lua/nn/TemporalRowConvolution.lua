-- nn.TemporalRowConvolution(inputFrameSize, kW [, dW, featFirst]): a 1D
-- convolution of each feature row with its own kernel (a depthwise
-- temporal convolution): out[t][f] = bias[f] + sum_k weight[f][1][k] *
-- in[(t-1)*dW + k][f].
-- input nInputFrame x inputFrameSize or batch x ... (featFirst: the two
-- last dimensions swapped, inputFrameSize x nInputFrame); output laid out
-- the same way with nOutputFrame = floor((nInputFrame - kW) / dW) + 1
-- (contiguous; Torch7 returns a transposed view when not featFirst).
-- weight inputFrameSize x 1 x kW, bias inputFrameSize, initialised
-- uniform(-s, s), s = 1/sqrt(kW*inputFrameSize), as Torch7.
-- Composition: the windows are copied feature-major, inputFrameSize x
-- (batch*nOutputFrame) x kW ('finput'), and a batched gemm per feature
-- with its kernel gives '_outCols'; backward's batched gemm gives window
-- gradients ('fgradInput') added back offset by offset (kW adds);
-- '_goCols' holds gradOutput feature-major.

local cc = require 'nn.convcheck'
local TemporalRowConvolution, parent = torch.class('nn.TemporalRowConvolution', 'nn.Module')

function TemporalRowConvolution:__init(inputFrameSize, kW, dW, featFirst)
  parent.__init(self)
  local cls = torch.type(self)
  self.inputFrameSize = cc.count(inputFrameSize, 'inputFrameSize', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.weight = torch.Tensor(self.inputFrameSize, 1, self.kW)
  self.bias = torch.Tensor(self.inputFrameSize)
  self.gradWeight = torch.Tensor(self.inputFrameSize, 1, self.kW)
  self.gradBias = torch.Tensor(self.inputFrameSize)
  self.featFirst = featFirst and true or false
  self:reset()
end

function TemporalRowConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

function TemporalRowConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.inputFrameSize)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

-- checks t (input, or gradInput / output of its shape); returns it as
-- batch x inputFrameSize x frames (a view), and the number of output frames
local function featureMajor(self, t, who)
  cc.input(t, who, {2, 3}, self.featFirst and '2D (inputFrameSize x nInputFrame) or 3D (batch)'
                                          or '2D (nInputFrame x inputFrameSize) or 3D (batch)', self.weight)
  local d = t:dim()
  local fdim, tdim = d, d - 1
  if self.featFirst then fdim, tdim = d - 1, d end
  if t:size(fdim) ~= self.inputFrameSize then
    nn.utils.error(who, 'input must have %d features (inputFrameSize) in dimension %d, got %s',
                   self.inputFrameSize, fdim, nn.utils.shapeString(t))
  end
  if t:size(tdim) < self.kW then
    nn.utils.error(who, 'input has %d frames, fewer than kW = %d', t:size(tdim), self.kW)
  end
  local v = d == 2 and t:unsqueeze(1) or t
  if not self.featFirst then v = v:transpose(2, 3) end
  return v, (t:size(tdim) - self.kW) // self.dW + 1
end

local function outSizes(self, input, nOut)
  local s = self.featFirst and {self.inputFrameSize, nOut} or {nOut, self.inputFrameSize}
  if input:dim() == 3 then table.insert(s, 1, input:size(1)) end
  return s
end

-- the output (or gradOutput) t as batch x inputFrameSize x frames
local function outFeatureMajor(self, t, B)
  local v = t:dim() == 2 and t:view(1, t:size(1), t:size(2)) or t
  if not self.featFirst then v = v:transpose(2, 3) end
  return v
end

-- windows of x (B x F x T) feature-major: F x (B*nOut) x kW, in buf
local function columns(self, x, nOut, buf)
  local w = x:unfold(3, self.kW, self.dW):transpose(1, 2)  -- F x B x nOut x kW
  buf:resize(w:size()):copy(w)
  return buf:view(self.inputFrameSize, x:size(1) * nOut, self.kW)
end

-- gradOutput feature-major: F x B x nOut, in '_goCols'
local function goCols(self, gradOutput, B)
  local g = outFeatureMajor(self, gradOutput, B):transpose(1, 2)
  self._goCols = self._goCols or gradOutput.new()
  return self._goCols:resize(g:size()):copy(g)
end

function TemporalRowConvolution:updateOutput(input)
  local x, nOut = featureMajor(self, input, cc.who(self, 'updateOutput'))
  local B, F = x:size(1), self.inputFrameSize
  self.finput = self.finput or input.new()
  self._outCols = self._outCols or input.new()
  local cols = columns(self, x, nOut, self.finput)
  local res = self._outCols:resize(F, B * nOut, 1)
  torch.bmm(res, cols, self.weight:transpose(2, 3))
  self.output:resize(table.unpack(outSizes(self, input, nOut)))
  local o = outFeatureMajor(self, self.output, B)  -- B x F x nOut
  o:copy(res:view(F, B, nOut):transpose(1, 2))
  if self.bias then o:add(self.bias:view(1, F, 1):expandAs(o)) end
  return self.output
end

function TemporalRowConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  local x, nOut = featureMajor(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input, nOut), input)
  local B, F = x:size(1), self.inputFrameSize
  local go = goCols(self, gradOutput, B):view(F, B * nOut, 1)
  self.fgradInput = self.fgradInput or input.new()
  local gcols = self.fgradInput:resize(F, B * nOut, self.kW)
  torch.bmm(gcols, go, self.weight)
  gcols = gcols:view(F, B, nOut, self.kW)
  self.gradInput:resizeAs(input):zero()
  local gi = featureMajor(self, self.gradInput, who)  -- B x F x T
  local win = gi:unfold(3, self.kW, self.dW)          -- B x F x nOut x kW
  for k = 1, self.kW do
    win:select(4, k):add(gcols:select(4, k):transpose(1, 2))
  end
  return self.gradInput
end

function TemporalRowConvolution:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  local x, nOut = featureMajor(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input, nOut), input)
  scale = scale or 1
  local B, F = x:size(1), self.inputFrameSize
  self.fgradInput = self.fgradInput or input.new()
  local cols = columns(self, x, nOut, self.fgradInput)
  local go = goCols(self, gradOutput, B):view(F, 1, B * nOut)
  self.gradWeight:baddbmm(1, self.gradWeight, scale, go, cols)
  if self.gradBias then self.gradBias:add(scale, go:sum(3):view(F)) end
end

function TemporalRowConvolution:type(type, tensorCache)
  for _, k in ipairs({'finput', 'fgradInput', '_outCols', '_goCols'}) do
    self[k] = self[k] and torch.Tensor()
  end
  return parent.type(self, type, tensorCache)
end

function TemporalRowConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward', _outCols = 'forward',
                     _goCols = 'backward'},
          needsInput = true, needsOutput = false}
end

function TemporalRowConvolution:__tostring__()
  local s = string.format('%s(%d, %d', torch.type(self), self.inputFrameSize, self.kW)
  if self.dW ~= 1 then s = s .. string.format(', %d', self.dW) end
  if self.padW and self.padW ~= 0 then s = s .. ', ' .. self.padW end
  if self.bias then
    return s .. ')'
  else
    return s .. ') without bias'
  end
end

function TemporalRowConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end
