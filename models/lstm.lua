-- One time step of an LSTM (Hochreiter and Schmidhuber; the gate layout of
-- char-rnn), as an nngraph gModule:
--   inputs  {x, c[1], h[1], ..., c[L], h[L]}
--   outputs {c'[1], h'[1], ..., c'[L], h'[L], logProbs}   (logProbs when nOutput > 0)
-- with, per layer, one Linear from the input and one from h giving the four
-- gate sums, in the order input gate, forget gate, output gate, candidate:
--   i, f, o = sigmoid(.), g = tanh(.), c' = f c + i g, h' = o tanh(c').
-- x is a batch of class numbers when oneHot (a LongTensor: char-rnn's
-- characters) or of feature vectors. Unroll it by cloning with shared
-- parameters: step:clone('weight', 'bias', 'gradWeight', 'gradBias').
--   require('models.lstm'){inputSize=, rnnSize=, layers=1, dropout=0, oneHot=false, nOutput=0}
require 'nn'
require 'nngraph'

local function options(opts)
  opts = opts or {}
  local o = {inputSize = opts.inputSize, rnnSize = opts.rnnSize, layers = opts.layers or 1,
             dropout = opts.dropout or 0, oneHot = opts.oneHot or false, nOutput = opts.nOutput or 0}
  for _, k in ipairs{'inputSize', 'rnnSize', 'layers'} do
    if math.type(o[k]) ~= 'integer' or o[k] < 1 then
      error(string.format('models.lstm: %s must be a positive integer, got %s', k, tostring(o[k])), 3)
    end
  end
  if type(o.dropout) ~= 'number' or o.dropout < 0 or o.dropout >= 1 then
    error('models.lstm: dropout must be in [0, 1), got ' .. tostring(o.dropout), 3)
  end
  return o
end

local function builder(opts)
  local o = options(opts)
  local R = o.rnnSize
  local inputs = {nn.Identity()()}
  for _ = 1, o.layers do
    inputs[#inputs + 1] = nn.Identity()()   -- c
    inputs[#inputs + 1] = nn.Identity()()   -- h
  end
  local outputs = {}
  local x = o.oneHot and nn.OneHot(o.inputSize)(inputs[1]) or inputs[1]
  local xSize = o.inputSize
  for l = 1, o.layers do
    local prevC, prevH = inputs[2 * l], inputs[2 * l + 1]
    if l > 1 then
      x = outputs[2 * (l - 1)]
      if o.dropout > 0 then x = nn.Dropout(o.dropout)(x) end
      xSize = R
    end
    local sums = nn.CAddTable()({
      nn.Linear(xSize, 4 * R)(x):annotate{name = 'i2h_' .. l},
      nn.Linear(R, 4 * R)(prevH):annotate{name = 'h2h_' .. l}})
    local gi, gf, go, gg = nn.SplitTable(2)(nn.Reshape(4, R)(sums)):split(4)
    local inGate, forgetGate, outGate = nn.Sigmoid()(gi), nn.Sigmoid()(gf), nn.Sigmoid()(go)
    local candidate = nn.Tanh()(gg)
    local nextC = nn.CAddTable()({nn.CMulTable()({forgetGate, prevC}), nn.CMulTable()({inGate, candidate})})
    local nextH = nn.CMulTable()({outGate, nn.Tanh()(nextC)})
    outputs[#outputs + 1] = nextC
    outputs[#outputs + 1] = nextH
  end
  if o.nOutput > 0 then
    local top = outputs[#outputs]
    if o.dropout > 0 then top = nn.Dropout(o.dropout)(top) end
    outputs[#outputs + 1] = nn.LogSoftMax()(nn.Linear(R, o.nOutput)(top):annotate{name = 'decoder'})
  end
  return nn.gModule(inputs, outputs)
end

return builder
