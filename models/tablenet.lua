-- Small net: the table modules together. ConcatTable fans out three
-- branches; SelectTable and NarrowTable pick from the table; CAddTable and
-- CMulTable combine. Input batch x 12; output batch x 4.
require 'nn'
local util = require 'models.util'

return function(opts)
  local o = util.options('tablenet', opts, {})
  local fan = nn.ConcatTable()
    :add(nn.Linear(12, 6))
    :add(nn.Sequential():add(nn.Linear(12, 6)):add(nn.Tanh()))
    :add(nn.Sequential():add(nn.Linear(12, 6)):add(nn.Sigmoid()))
  local combine = nn.ConcatTable()
    :add(nn.Sequential():add(nn.NarrowTable(1, 2)):add(nn.CAddTable()))
    :add(nn.Sequential():add(nn.NarrowTable(2, 2)):add(nn.CMulTable()))
    :add(nn.SelectTable(-1))
  local net = nn.Sequential()
    :add(fan)
    :add(combine)
    :add(nn.CAddTable(true))
    :add(nn.Linear(6, 4))
  return util.finish(net, o, 12)
end
