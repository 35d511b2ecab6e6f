-- The tiny net and data set of spec/mpi_spec.lua and its job
-- (spec/support/mpi_job.lua): both build them the same way.
require 'torch'
require 'nn'
local M = {}

-- a 10-16-16-3 MLP with ReLU and Tanh, initialised from seed
function M.net(tname, seed)
  torch.manualSeed(seed)
  return nn.Sequential()
    :add(nn.Linear(10, 16)):add(nn.ReLU())
    :add(nn.Linear(16, 16)):add(nn.Tanh())
    :add(nn.Linear(16, 3)):add(nn.LogSoftMax())
    :type(tname)
end

-- n samples of 10 features and their classes in 1..3, always the same
function M.data(tname, n)
  torch.manualSeed(7)
  local x = torch.randn(n, 10):type(tname)
  local y = torch.LongTensor(n):random(1, 3):type(tname)
  return x, y
end

return M
