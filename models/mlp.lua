-- Multi-layer perceptron: 784-1024-1024-1024-10 by default (the peer
-- benchmark's), in-place ReLUs, LogSoftMax output.
--   require('models.mlp'){inputSize=784, hidden={1024,1024,1024}, nClasses=10, batch=, type=}
require 'nn'
local util = require 'models.util'

local function builder(opts)
  local o = util.options('mlp', opts, {inputSize = 784, hidden = {1024, 1024, 1024}, nClasses = 10})
  local net = nn.Sequential()
  local nIn = o.inputSize
  for _, h in ipairs(o.hidden) do
    net:add(nn.Linear(nIn, h)):add(nn.ReLU(true))
    nIn = h
  end
  net:add(nn.Linear(nIn, o.nClasses)):add(nn.LogSoftMax())
  return util.finish(net, o, o.inputSize)
end

return builder
