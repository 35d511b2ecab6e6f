-- nn.PrintSize([prefix='PrintSize']): passes its input on unchanged and
-- prints its size (in forward) and the size of gradOutput (in backward):
--   PrintSize:input
--   	<the size>
-- A table is printed as the table. Tensors pass as views (the module's own
-- output tensor points at the input's memory, as nn.Identity).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local PrintSize, parent = torch.class('nn.PrintSize', 'nn.Module')

function PrintSize:__init(prefix)
  parent.__init(self)
  self.prefix = prefix or 'PrintSize'
end

local function sizeOf(x)
  if type(x) == 'table' and not torch.typename(x) then return x end
  if x == nil then return 'missing size' end
  if torch.isTensor(x) then return x:size() end
  return x
end

function PrintSize:updateOutput(input)
  print(self.prefix .. ':input\n', sizeOf(input))
  return utils.alias(self, 'output', input)
end

function PrintSize:updateGradInput(input, gradOutput)
  print(self.prefix .. ':gradOutput\n', sizeOf(gradOutput))
  return utils.alias(self, 'gradInput', gradOutput)
end

-- output and gradInput view someone else's memory: drop them
function PrintSize:clearState()
  return nn.Identity.clearState(self)
end

function PrintSize:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return PrintSize
