-- The fresh process of spec/optnet_lifecycle_spec.lua, run by bin/th:
--   bin/th spec/support/lifecycle_child.lua run <net> <mode> <net file> <records file>
--     loads the saved (optimized) net, runs life.steps on it and saves what
--     each step gave (life.runSteps) for the spec to compare with its reference
--   bin/th spec/support/lifecycle_child.lua save <net> <mode> <net file>
--     builds the net as life.prepare does, optimizes it and saves it
local life = require 'spec.support.lifecycle'

local action, name, mode, netFile, recordsFile = ...
local spec = assert(life.NETS[name], 'unknown net ' .. tostring(name))

if action == 'run' then
  local net = torch.load(netFile)
  torch.save(recordsFile, life.runSteps(net, life.steps(spec, mode)))
elseif action == 'save' then
  local net = life.prepare(spec, mode)
  torch.save(netFile, net)
else
  error('unknown action ' .. tostring(action))
end
