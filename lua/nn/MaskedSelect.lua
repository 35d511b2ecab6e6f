-- nn.MaskedSelect(): input {t, mask} with mask a ByteTensor of t's element
-- count; output = the elements of t where mask is 1, as a vector (in
-- t's element order). gradInput = {gradOutput put back at those positions,
-- zeros elsewhere; a ByteTensor of zeros for the mask}.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local MaskedSelect, parent = torch.class('nn.MaskedSelect', 'nn.Module')

function MaskedSelect:__init()
  parent.__init(self)
  self.gradInput = {torch.Tensor(), torch.ByteTensor()}
end

local function check(input, who)
  if not utils.istable(input) or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then
    utils.error(who, 'input must be {tensor, ByteTensor mask}, got %s', utils.shapeString(input))
  end
  local t, mask = input[1], input[2]
  if torch.type(mask) ~= 'torch.ByteTensor' then
    utils.error(who, 'the mask (input[2]) must be a torch.ByteTensor, got %s', torch.type(mask))
  end
  if mask:nElement() ~= t:nElement() then
    utils.error(who, 'the mask (%s) must have the %d elements of input[1] (%s)', utils.sizeString(mask),
                t:nElement(), utils.sizeString(t))
  end
  return t, mask
end

function MaskedSelect:updateOutput(input)
  local t, mask = check(input, 'nn.MaskedSelect:updateOutput')
  if torch.type(self.output) ~= torch.type(t) then self.output = t.new() end
  self.output:maskedSelect(t, mask)
  return self.output
end

function MaskedSelect:updateGradInput(input, gradOutput)
  local who = 'nn.MaskedSelect:updateGradInput'
  local t, mask = check(input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  local n = mask:sum()
  if gradOutput:nElement() ~= n then
    utils.error(who, 'gradOutput must have %d elements (the mask selects %d), got %s', n, n,
                utils.shapeString(gradOutput))
  end
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local gi = self.gradInput
  if not torch.isTensor(gi[1]) or torch.type(gi[1]) ~= torch.type(t) then gi[1] = t.new() end
  if torch.type(gi[2]) ~= 'torch.ByteTensor' then gi[2] = torch.ByteTensor() end
  gi[1]:resizeAs(t):zero():maskedCopy(mask, gradOutput)
  gi[2]:resizeAs(mask):zero()
  return gi
end

-- backward reads the mask
function MaskedSelect:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

return MaskedSelect
