-- nn.CAddTensorTable(): input {v, {a1, a2, ...}} (each ai with v's element
-- count), output {v + a1, v + a2, ...}. gradInput is {sum_i gradOutput[i],
-- {gradOutput[1], gradOutput[2], ...}} (copies). The output tensors are
-- kept from call to call (Torch7 made new ones each forward).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local CAddTensorTable, parent = torch.class('nn.CAddTensorTable', 'nn.Module')

function CAddTensorTable:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
end

-- list[i] for i <= n are tensors of like's type; later entries go
local function tensorList(list, n, like)
  for i = 1, n do
    if not torch.isTensor(list[i]) or torch.type(list[i]) ~= torch.type(like) then list[i] = like.new() end
  end
  for i = #list, n + 1, -1 do list[i] = nil end
  return list
end

local function check(input, who)
  if not utils.istable(input) or not torch.isTensor(input[1]) or not utils.istable(input[2]) then
    utils.error(who, 'input must be {tensor, {tensors}}, got %s', utils.shapeString(input))
  end
  local n = input[1]:nElement()
  for i, a in ipairs(input[2]) do
    if not torch.isTensor(a) then
      utils.error(who, 'input[2][%d] must be a tensor, got %s', i, torch.type(a))
    end
    if a:nElement() ~= n then
      utils.error(who, 'input[2][%d] (%s) must have the %d elements of input[1] (%s)', i, utils.sizeString(a), n,
                  utils.sizeString(input[1]))
    end
  end
end

function CAddTensorTable:updateOutput(input)
  check(input, 'nn.CAddTensorTable:updateOutput')
  local v, list = input[1], input[2]
  if not utils.istable(self.output) then self.output = {} end
  local out = tensorList(self.output, #list, v)
  for i = 1, #list do
    out[i]:resizeAs(v):copy(list[i]):add(v)
  end
  return out
end

function CAddTensorTable:updateGradInput(input, gradOutput)
  local who = 'nn.CAddTensorTable:updateGradInput'
  check(input, who)
  local v, list = input[1], input[2]
  if not utils.istable(gradOutput) or #gradOutput ~= #list then
    utils.error(who, 'gradOutput must be a table of %d tensors, got %s', #list, utils.shapeString(gradOutput))
  end
  for i = 1, #list do
    if not torch.isTensor(gradOutput[i]) or gradOutput[i]:nElement() ~= v:nElement() then
      utils.error(who, 'gradOutput[%d] must be a tensor of %d elements, got %s', i, v:nElement(),
                  utils.shapeString(gradOutput[i]))
    end
  end
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local gi = self.gradInput
  if not torch.isTensor(gi[1]) or torch.type(gi[1]) ~= torch.type(v) then gi[1] = v.new() end
  gi[1]:resizeAs(v):zero()
  if not utils.istable(gi[2]) then gi[2] = {} end
  local g2 = tensorList(gi[2], #list, v)
  for i = 1, #list do
    gi[1]:add(gradOutput[i])
    g2[i]:resizeAs(v):copy(gradOutput[i])
  end
  for i = #gi, 3, -1 do gi[i] = nil end
  return gi
end

-- backward reads only the input's shapes
function CAddTensorTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return CAddTensorTable
