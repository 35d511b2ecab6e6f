-- nn.TemporalDynamicKMaxPooling(minK [, factor]): per feature, the k
-- largest values of the sequence, kept in their original order
-- (Kalchbrenner et al., "A Convolutional Neural Network for Modelling
-- Sentences"), k = max(minK, ceil(factor * sequence length)).
-- input seqLen x features or batch x seqLen x features; output k x features
-- (batch first when batched). 'indices' (LongTensor, output-shaped) holds
-- the 1-based sequence positions kept.
-- Composition: a descending sort ('_sortValues', '_sortIndices', forward
-- scratch), the first k positions sorted back into sequence order, a
-- gather; backward scatters gradOutput through them. The permutation of
-- that second sort is a per-call temporary, not a field: sort refuses
-- values and indices in one storage, which a planned arena would give.

local cc = require 'nn.convcheck'
local TemporalDynamicKMaxPooling, parent = torch.class('nn.TemporalDynamicKMaxPooling', 'nn.Module')

function TemporalDynamicKMaxPooling:__init(minK, factor)
  parent.__init(self)
  local cls = torch.type(self)
  self.minK = cc.count(minK, 'minK', cls)
  if factor ~= nil and type(factor) ~= 'number' then
    error(string.format('%s: factor must be a number, got %s', cls, type(factor)), 0)
  end
  self.factor = factor or 0
end

function TemporalDynamicKMaxPooling:updateOutput(input)
  local who = cc.who(self, 'updateOutput')
  cc.input(input, who, {2, 3}, '2D (seqLen x features) or 3D (batch)', self.output)
  local seqDim = input:dim() - 1
  local len = input:size(seqDim)
  local k = math.max(self.minK, math.ceil(self.factor * len))
  if len < k then
    nn.utils.error(who, 'input sequence length (%d) too small for k = %d (minK %d, factor %g)',
                   len, k, self.minK, self.factor)
  end
  self._sortValues = self._sortValues or input.new()
  self._sortIndices = self._sortIndices or torch.LongTensor()
  self.indices = self.indices or torch.LongTensor()
  torch.sort(self._sortValues, self._sortIndices, input, seqDim, true)
  torch.sort(self.indices, torch.LongTensor(), self._sortIndices:narrow(seqDim, 1, k), seqDim)
  self.output:gather(input, seqDim, self.indices)
  return self.output
end

function TemporalDynamicKMaxPooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  if not self.indices or self.indices:dim() ~= input:dim() then
    nn.utils.error(who, 'no indices for this input: call updateOutput first')
  end
  local sizes = self.indices:size():totable()
  cc.gradOutput(gradOutput, who, sizes, input)
  -- positions are distinct along the sequence: a scatter adds nothing twice
  self.gradInput:resizeAs(input):zero():scatter(input:dim() - 1, self.indices, gradOutput)
  return self.gradInput
end

function TemporalDynamicKMaxPooling:memoryTraits()
  return {buffers = {indices = 'both', _sortValues = 'forward', _sortIndices = 'forward'},
          needsInput = false, needsOutput = false}
end
