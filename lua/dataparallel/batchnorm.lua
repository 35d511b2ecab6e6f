-- dataparallel.batchnorm: batch-normalisation running statistics across
-- ranks (the syncBatchNorm option of dataparallel, docs/mpi.md)
require 'torch'
local mpi = require 'mpi'

local M = {}

-- the batch-normalisation modules of a net (their running statistics)
function M.list(net)
  local list = {}
  for _, m in ipairs(net:listModules()) do
    if torch.isTensor(rawget(m, 'running_mean')) and torch.isTensor(rawget(m, 'running_var')) then
      list[#list + 1] = m
    end
  end
  return list
end

-- the running statistics averaged across ranks, in place
function M.sync(list)
  local R = mpi.size()
  for _, m in ipairs(list) do
    for _, f in ipairs{'running_mean', 'running_var'} do
      local t = m[f]
      if t:nElement() > 0 then mpi.allreduce(t):div(R) end
    end
  end
end

return M
