-- nn.CAddTable([inplace]): output = input[1] + input[2] + ... (tensors of
-- equal element counts). In place, the output is (a view of) input[1],
-- which is overwritten, and every gradInput[i] is a view of gradOutput.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils
local fusion = require 'nn.fuse'

local CAddTable, parent = torch.class('nn.CAddTable', 'nn.Module')

function CAddTable:__init(ip)
  parent.__init(self)
  self.inplace = ip and true or false
  self.gradInput = {}
end

-- nn.fuse: in place, marked (fuseReLU) when an in-place nn.ReLU follows,
-- the forward writes max(input[1] + input[2], 0) in one pass when the
-- operands suit it (two contiguous tensors of one type and size)
function CAddTable:fusesReLU()
  return self.inplace
end

local addReLU = torch._C.nn.addReLU
local function addThenReLU(self, input)
  return self.inplace and fusion.active(self) and #input == 2 and torch.isTensor(input[1])
    and torch.type(input[1]) == torch.type(input[2]) and addReLU(input[1], input[2])
end

function CAddTable:updateOutput(input)
  utils.checkTensorTable(self, input, 'nn.CAddTable:updateOutput')
  if torch.type(self.output) ~= torch.type(input[1]) then self.output = input[1].new() end
  if rawget(self, 'fuseReLU') ~= nil then
    local fused = addThenReLU(self, input)
    fusion.mark(self.output, fused)
    if fused then return self.output:set(input[1]) end
  end
  local first = 2
  if self.inplace then
    self.output:set(input[1])
  elseif #input >= 2 then
    -- input[1] + input[2] in one pass, not a copy then an add
    self.output:resizeAs(input[1]):add(input[1], input[2])
    first = 3
  else
    self.output:resizeAs(input[1]):copy(input[1])
  end
  for i = first, #input do self.output:add(input[i]) end
  return self.output
end

function CAddTable:updateGradInput(input, gradOutput)
  utils.checkTensorTable(self, input, 'nn.CAddTable:updateGradInput')
  utils.checkTensor(gradOutput, 'nn.CAddTable:updateGradInput', 'gradOutput')
  local g = utils.gradTable(self, #input, input[1])
  for i = 1, #input do
    if self.inplace then
      g[i]:set(gradOutput)
    else
      g[i]:resizeAs(input[i]):copy(gradOutput)
    end
  end
  return g
end

-- in place, backward hands the gradOutput storage on as every gradInput,
-- unwritten
function CAddTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false, inplace = 'inplace',
          writesGradOutput = false}
end

function CAddTable:inplaceAllowed()
  return true
end

return CAddTable
