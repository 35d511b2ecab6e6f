-- nn.SelectTable(index): output = input[index] (a tensor or a table);
-- negative indices count from the end (-1 = last). gradInput has the
-- input's structure: zeros everywhere except gradOutput at 'index'.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local SelectTable, parent = torch.class('nn.SelectTable', 'nn.Module')

function SelectTable:__init(index)
  parent.__init(self)
  if type(index) ~= 'number' or index % 1 ~= 0 or index == 0 then
    error(string.format('nn.SelectTable: index must be a non-zero integer, got %s', tostring(index)), 3)
  end
  self.index = index
  self.gradInput = {}
end

function SelectTable:_resolve(input, who)
  if not utils.istable(input) then
    error(string.format('%s: input must be a table, got %s', who, torch.type(input)), 0)
  end
  local index = self.index < 0 and #input + self.index + 1 or self.index
  if input[index] == nil then
    error(string.format('%s: index %d does not exist in an input table of %d elements', who, self.index, #input), 0)
  end
  return index
end

function SelectTable:updateOutput(input)
  local index = self:_resolve(input, 'nn.SelectTable:updateOutput')
  return utils.alias(self, 'output', input[index])
end

-- t1 takes t2's structure, with zeroed tensors of t2's sizes
local function zeroTableCopy(t1, t2)
  for k, v in pairs(t2) do
    if utils.istable(v) then
      t1[k] = zeroTableCopy(utils.istable(t1[k]) and t1[k] or {}, v)
    elseif torch.isTensor(v) then
      if not torch.isTensor(t1[k]) or torch.type(t1[k]) ~= torch.type(v) then t1[k] = v.new() end
      t1[k]:resizeAs(v):zero()
    else
      t1[k] = nil
    end
  end
  for k in pairs(t1) do
    if t2[k] == nil then t1[k] = nil end
  end
  return t1
end

function SelectTable:updateGradInput(input, gradOutput)
  local index = self:_resolve(input, 'nn.SelectTable:updateGradInput')
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  zeroTableCopy(self.gradInput, input)
  local ok, err = pcall(utils.recursiveCopy, self.gradInput[index], gradOutput)
  if not ok then
    error(string.format('nn.SelectTable:updateGradInput: gradOutput does not match input[%d]: %s', index,
                        tostring(err)), 0)
  end
  self.gradInput[index] = err
  return self.gradInput
end

function SelectTable:type(tname, tensorCache)
  if tname then
    self.gradInput = {}
    self.output = {}
  end
  return parent.type(self, tname, tensorCache)
end

-- output aliases an input element: dropped, not emptied
function SelectTable:clearState()
  self.output = {}
  self.gradInput = {}
  return self
end

function SelectTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function SelectTable:__tostring__()
  return torch.type(self) .. '(' .. self.index .. ')'
end

return SelectTable
