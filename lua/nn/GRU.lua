-- nn.GRU(inputSize, hiddenSize [, layers=1, dropout=0]): a GRU over a
-- sequence (batch x time x inputSize -> batch x time x hiddenSize, the top
-- layer's h), built on models/gru.lua's step; see nn.Recurrence.
local GRU, parent = torch.class('nn.GRU', 'nn.Recurrence')

function GRU:__init(inputSize, hiddenSize, layers, dropout)
  for k, v in pairs{inputSize = inputSize, hiddenSize = hiddenSize, layers = layers or 1} do
    if math.type(v) ~= 'integer' or v < 1 then
      error(string.format('nn.GRU: %s must be a positive integer, got %s', k, tostring(v)), 2)
    end
  end
  -- the step is an nngraph graph; building it leaves module calls as they were
  local before = {package.loaded.nngraph ~= nil, torch.getmetatable('nn.Module').__call__,
                  torch.getmetatable('nn.Module').__unm__, torch.getmetatable('nn.Module').__sub__,
                  torch.getmetatable('nn.Criterion').__call__}
  require 'nngraph'
  local step = nngraph.build(require('models.gru'), {inputSize = inputSize, rnnSize = hiddenSize,
                                                      layers = layers or 1, dropout = dropout or 0})
  if not before[1] then
    local M, C = torch.getmetatable('nn.Module'), torch.getmetatable('nn.Criterion')
    M.__call__, M.__unm__, M.__sub__, C.__call__ = before[2], before[3], before[4], before[5]
  end
  self.inputSize, self.hiddenSize, self.layers = inputSize, hiddenSize, layers or 1
  parent.__init(self, step, self.layers, hiddenSize)
end

function GRU:__tostring__()
  return string.format('nn.GRU(%d -> %d%s)', self.inputSize, self.hiddenSize,
                       self.layers > 1 and (', ' .. self.layers .. ' layers') or '')
end

return GRU
