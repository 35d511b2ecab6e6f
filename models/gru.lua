-- One time step of a GRU (Cho et al.; Chung et al. 2014, the layout of
-- char-rnn), as an nngraph gModule:
--   inputs  {x, h[1], ..., h[L]},  outputs {h'[1], ..., h'[L], logProbs}
--   z = sigmoid(Wz x + Uz h), r = sigmoid(Wr x + Ur h),
--   g = tanh(W x + U (r h)),   h' = z g + (1 - z) h
--   require('models.gru'){inputSize=, rnnSize=, layers=1, dropout=0, oneHot=false, nOutput=0}
require 'nn'
require 'nngraph'

local function builder(opts)
  opts = opts or {}
  local I, R, L = opts.inputSize, opts.rnnSize, opts.layers or 1
  local dropout, nOutput = opts.dropout or 0, opts.nOutput or 0
  for k, v in pairs{inputSize = I, rnnSize = R, layers = L} do
    if math.type(v) ~= 'integer' or v < 1 then
      error(string.format('models.gru: %s must be a positive integer, got %s', k, tostring(v)), 2)
    end
  end
  local inputs = {nn.Identity()()}
  for _ = 1, L do inputs[#inputs + 1] = nn.Identity()() end
  local function gateSum(name, l, xSize, x, h)
    return nn.CAddTable()({nn.Linear(xSize, R)(x):annotate{name = name .. '_x_' .. l},
                           nn.Linear(R, R)(h):annotate{name = name .. '_h_' .. l}})
  end
  local outputs = {}
  local x = opts.oneHot and nn.OneHot(I)(inputs[1]) or inputs[1]
  local xSize = I
  for l = 1, L do
    local prevH = inputs[l + 1]
    if l > 1 then
      x = outputs[l - 1]
      if dropout > 0 then x = nn.Dropout(dropout)(x) end
      xSize = R
    end
    local update = nn.Sigmoid()(gateSum('update', l, xSize, x, prevH))
    local reset = nn.Sigmoid()(gateSum('reset', l, xSize, x, prevH))
    local candidate = nn.Tanh()(nn.CAddTable()({
      nn.Linear(xSize, R)(x):annotate{name = 'candidate_x_' .. l},
      nn.Linear(R, R)(nn.CMulTable()({reset, prevH})):annotate{name = 'candidate_h_' .. l}}))
    local keep = nn.AddConstant(1)(nn.MulConstant(-1)(update))   -- 1 - z
    outputs[l] = nn.CAddTable()({nn.CMulTable()({update, candidate}), nn.CMulTable()({keep, prevH})})
  end
  if nOutput > 0 then
    local top = outputs[#outputs]
    if dropout > 0 then top = nn.Dropout(dropout)(top) end
    outputs[#outputs + 1] = nn.LogSoftMax()(nn.Linear(R, nOutput)(top))
  end
  return nn.gModule(inputs, outputs)
end

return builder
