-- thrnn.LSTM(inputSize, hiddenSize [, layers=1, dropout=0]): an LSTM over a
-- sequence (batch x time x inputSize -> batch x time x hiddenSize, the top
-- layer's h), built on models/lstm.lua's step (char-rnn's gate layout);
-- see thrnn.Recurrence for how time steps share the parameters.
local LSTM, parent = torch.class('thrnn.LSTM', 'thrnn.Recurrence')

function LSTM:__init(inputSize, hiddenSize, layers, dropout)
  for k, v in pairs{inputSize = inputSize, hiddenSize = hiddenSize, layers = layers or 1} do
    if math.type(v) ~= 'integer' or v < 1 then
      error(string.format('thrnn.LSTM: %s must be a positive integer, got %s', k, tostring(v)), 2)
    end
  end
  local step = thrnn.Recurrence.buildStep('lstm', {inputSize = inputSize, rnnSize = hiddenSize,
                                                  layers = layers or 1, dropout = dropout or 0})
  self.inputSize, self.hiddenSize, self.layers = inputSize, hiddenSize, layers or 1
  -- the states are c1, h1, ..., cL, hL: the last one is the top h
  parent.__init(self, step, 2 * self.layers, hiddenSize)
end

function LSTM:__tostring__()
  return string.format('thrnn.LSTM(%d -> %d%s)', self.inputSize, self.hiddenSize,
                       self.layers > 1 and (', ' .. self.layers .. ' layers') or '')
end

return LSTM
