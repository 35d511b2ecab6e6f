-- thrnn: the project's recurrent layers over sequences, a package of its
-- own (Torch7's nn never had them, and the names nn.LSTM, nn.GRU and
-- nn.Recurrence belong to the packages that define them: torch-rnn,
-- Element-Research/rnn). A script asks for them: require 'thrnn'.
--   thrnn.Recurrence(step, nState, stateSize)   a one-step module run over time
--   thrnn.LSTM(inputSize, hiddenSize [, layers, dropout])
--   thrnn.GRU(inputSize, hiddenSize [, layers, dropout])
-- Files saved with the classes' old names (nn.LSTM, ...) still load: see
-- nn/legacy.lua and docs/thrnn.md.
require 'torch'
require 'nn'
thrnn = thrnn or {}   -- the global, as nn's

require 'thrnn.Recurrence'
require 'thrnn.LSTM'
require 'thrnn.GRU'

return thrnn
