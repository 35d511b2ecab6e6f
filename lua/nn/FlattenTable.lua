-- nn.FlattenTable: output = the tensors of a nested table input in
-- depth-first order, as one flat table ({a, {b, {c}}} -> {a, b, c}). The
-- mapping is kept in 'input_map' and rebuilt only when the input's
-- structure changes; gradInput rebuilds the nesting from gradOutput.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local FlattenTable, parent = torch.class('nn.FlattenTable', 'nn.Module')

function FlattenTable:__init()
  parent.__init(self)
  self.output = {}
  self.input_map = {}
  self.gradInput = {}
end

-- appends the leaves of 'input' to 'output'; returns input's map (the
-- same nesting with output indices at the leaves)
local function flatten(output, input)
  if utils.istable(input) then
    local map = {}
    for i = 1, #input do map[#map + 1] = flatten(output, input[i]) end
    return map
  end
  output[#output + 1] = input
  return #output
end

-- whether 'map' still describes how 'input' lies in 'output'
local function checkMapping(output, input, map)
  if map == nil or output == nil or input == nil then return false end
  if utils.istable(input) then
    if type(map) ~= 'table' or #input ~= #map then return false end
    for i = 1, #input do
      if not checkMapping(output, input[i], map[i]) then return false end
    end
    return true
  end
  return type(map) == 'number' and output[map] == input
end

local function inverseFlatten(gradOutput, map)
  if type(map) == 'table' then
    local g = {}
    for i = 1, #map do g[#g + 1] = inverseFlatten(gradOutput, map[i]) end
    return g
  end
  return gradOutput[map]
end

function FlattenTable:updateOutput(input)
  if not utils.istable(input) then
    error(string.format('nn.FlattenTable:updateOutput: input must be a table, got %s', torch.type(input)), 0)
  end
  if not checkMapping(self.output, input, self.input_map) then
    self.output = {}
    self.input_map = flatten(self.output, input)
  end
  return self.output
end

function FlattenTable:updateGradInput(input, gradOutput)
  if not utils.istable(input) then
    error(string.format('nn.FlattenTable:updateGradInput: input must be a table, got %s', torch.type(input)), 0)
  end
  if not utils.istable(gradOutput) or #gradOutput ~= #self.output then
    error(string.format('nn.FlattenTable:updateGradInput: gradOutput must be a table of %d elements, got %s',
                        #self.output, utils.shapeString(gradOutput)), 0)
  end
  if not checkMapping(gradOutput, self.gradInput, self.input_map) then
    self.gradInput = inverseFlatten(gradOutput, self.input_map)
  end
  return self.gradInput
end

-- only references: nothing to convert
function FlattenTable:type(tname, tensorCache)
  if not tname then return parent.type(self) end
  self:clearState()
  self._type = tname
  return self
end

function FlattenTable:clearState()
  self.input_map = {}
  self.output = {}
  self.gradInput = {}
  return self
end

function FlattenTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return FlattenTable
