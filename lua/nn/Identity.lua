-- nn.Identity: output = input, gradInput = gradOutput. For tensors the
-- output and gradInput objects stay the module's own and are :set() to the
-- input's (gradOutput's) memory; tables are passed through as they are.

require 'nn.Module'
local torch = torch
local nn = nn

local Identity, parent = torch.class('nn.Identity', 'nn.Module')

local alias = nn.utils.alias

function Identity:updateOutput(input)
  return alias(self, 'output', input)
end

function Identity:updateGradInput(input, gradOutput)
  return alias(self, 'gradInput', gradOutput)
end

-- output and gradInput share someone else's memory: drop them, never
-- :set() them to nothing (that is the same object only for tensors)
function Identity:clearState()
  for _, f in ipairs{'output', 'gradInput'} do
    local v = self[f]
    if torch.isTensor(v) then v:set() else self[f] = torch.Tensor() end
  end
  return self
end

function Identity:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Identity
