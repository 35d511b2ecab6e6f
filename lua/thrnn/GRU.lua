-- thrnn.GRU(inputSize, hiddenSize [, layers=1, dropout=0]): a GRU over a
-- sequence (batch x time x inputSize -> batch x time x hiddenSize, the top
-- layer's h), built on models/gru.lua's step; see thrnn.Recurrence.
local GRU, parent = torch.class('thrnn.GRU', 'thrnn.Recurrence')

function GRU:__init(inputSize, hiddenSize, layers, dropout)
  for k, v in pairs{inputSize = inputSize, hiddenSize = hiddenSize, layers = layers or 1} do
    if math.type(v) ~= 'integer' or v < 1 then
      error(string.format('thrnn.GRU: %s must be a positive integer, got %s', k, tostring(v)), 2)
    end
  end
  local step = thrnn.Recurrence.buildStep('gru', {inputSize = inputSize, rnnSize = hiddenSize,
                                                  layers = layers or 1, dropout = dropout or 0})
  self.inputSize, self.hiddenSize, self.layers = inputSize, hiddenSize, layers or 1
  parent.__init(self, step, self.layers, hiddenSize)
end

function GRU:__tostring__()
  return string.format('thrnn.GRU(%d -> %d%s)', self.inputSize, self.hiddenSize,
                       self.layers > 1 and (', ' .. self.layers .. ' layers') or '')
end

return GRU
