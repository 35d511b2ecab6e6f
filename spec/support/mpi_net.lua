-- The tiny net and data set of spec/mpi_spec.lua and its job
-- (spec/support/mpi_job.lua): both build them the same way.
require 'torch'
require 'nn'
require 'thrnn'
local M = {}

-- a 10-16-16-3 MLP with ReLU and Tanh, initialised from seed; kind 'lstm':
-- an LSTM over sequences of 4 steps of 10 features, its last state to 3
-- classes (its time-step clones are made during forward)
function M.net(tname, seed, kind)
  torch.manualSeed(seed)
  if kind == 'lstm' then
    return nn.Sequential():add(thrnn.LSTM(10, 8)):add(nn.Select(2, -1)):add(nn.Linear(8, 3)):add(nn.LogSoftMax())
      :type(tname)
  end
  return nn.Sequential()
    :add(nn.Linear(10, 16)):add(nn.ReLU())
    :add(nn.Linear(16, 16)):add(nn.Tanh())
    :add(nn.Linear(16, 3)):add(nn.LogSoftMax())
    :type(tname)
end

-- n samples of 10 features (kind 'lstm': 4 x 10) and their classes in
-- 1..3, always the same
function M.data(tname, n, kind)
  torch.manualSeed(7)
  local x = (kind == 'lstm' and torch.randn(n, 4, 10) or torch.randn(n, 10)):type(tname)
  local y = torch.LongTensor(n):random(1, 3):type(tname)
  return x, y
end

return M
