-- nn.TemporalMaxPooling(kW [, dW]): the maximum over each window of kW
-- frames, feature by feature (dW defaults to kW).
-- input nInputFrame x frameSize or batch x nInputFrame x frameSize; output
-- nOutputFrame x frameSize (batch first when batched) with nOutputFrame =
-- floor((nInputFrame - kW) / dW) + 1. 'indices' (a LongTensor shaped like
-- the output) holds, as Torch7, the 0-based offset of the maximum inside
-- its window; the first of equal maxima wins.
-- Composition: max over the last dimension of the windows' strided view;
-- backward scatters gradOutput through 'indices' into that view (windows
-- that do not overlap; '_index', backward scratch, the 1-based indices) or
-- adds it offset by offset under a mask ('_mask', backward scratch) when
-- they do.

local cc = require 'nn.convcheck'
local TemporalMaxPooling, parent = torch.class('nn.TemporalMaxPooling', 'nn.Module')

function TemporalMaxPooling:__init(kW, dW)
  parent.__init(self)
  local cls = torch.type(self)
  self.kW = cc.count(kW, 'kW', cls)
  self.dW = cc.count(dW or kW, 'dW', cls)
end

-- checks the input; returns the output sizes
local function outSizes(self, input, who)
  cc.input(input, who, {2, 3}, '2D (nInputFrame x frameSize) or 3D (batch)', self.output)
  local d = input:dim()
  if input:size(d - 1) < self.kW then
    nn.utils.error(who, 'input has %d frames, fewer than kW = %d', input:size(d - 1), self.kW)
  end
  local s = {(input:size(d - 1) - self.kW) // self.dW + 1, input:size(d)}
  if d == 3 then table.insert(s, 1, input:size(1)) end
  return s
end

function TemporalMaxPooling:updateOutput(input)
  local sizes = outSizes(self, input, cc.who(self, 'updateOutput'))
  local d = input:dim()
  self.indices = self.indices or torch.LongTensor()
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = self.indices:long() end
  local win = input:unfold(d - 1, self.kW, self.dW)  -- [B x] nOut x F x kW
  -- max keeps the reduced dimension (size 1, last): dropped by resizing in place
  torch.max(self.output, self.indices, win, d + 1)
  self.output:resize(table.unpack(sizes))
  self.indices:resize(table.unpack(sizes)):add(-1)
  return self.output
end

function TemporalMaxPooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  local sizes = outSizes(self, input, who)
  cc.gradOutput(gradOutput, who, sizes, input)
  if not self.indices or not self.indices:isSameSizeAs(gradOutput) then
    nn.utils.error(who, 'no indices for this input: call updateOutput first')
  end
  local d = input:dim()
  self.gradInput:resizeAs(input):zero()
  local dst = self.gradInput:unfold(d - 1, self.kW, self.dW)  -- [B x] nOut x F x kW
  if self.dW >= self.kW then
    -- windows do not overlap: each input element gets at most one gradient
    sizes[#sizes + 1] = 1
    self._index = self._index or torch.LongTensor()
    self._index:resize(table.unpack(sizes)):copy(self.indices):add(1)
    dst:scatter(d + 1, self._index, gradOutput:contiguous():view(table.unpack(sizes)))
  else
    self._mask = self._mask or input.new()
    if torch.type(self._mask) ~= torch.type(input) then self._mask = input.new() end
    for k = 1, self.kW do
      self._mask:resize(table.unpack(sizes)):copy(self.indices:eq(k - 1))
      dst:select(d + 1, k):addcmul(1, gradOutput, self._mask)
    end
  end
  return self.gradInput
end

function TemporalMaxPooling:memoryTraits()
  return {buffers = {indices = 'both', _index = 'backward', _mask = 'backward'}, needsInput = false, needsOutput = false}
end

function TemporalMaxPooling:empty()
  self:clearState()
end
