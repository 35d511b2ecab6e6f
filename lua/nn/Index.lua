-- nn.Index(dimension): input {t, index} with 'index' a LongTensor of
-- positions (1-based) along 'dimension' of t; output = t:index(dimension,
-- index). gradInput = {gradient of t (gradOutput added back at the indexed
-- positions, repeats summed), zeros for the index}.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Index, parent = torch.class('nn.Index', 'nn.Module')

function Index:__init(dimension)
  parent.__init(self)
  if type(dimension) ~= 'number' or dimension % 1 ~= 0 then
    error(string.format('nn.Index: dimension must be an integer, got %s', tostring(dimension)), 2)
  end
  self.dimension = dimension
  self.gradInput = {self.gradInput, self.gradInput.new()}
end

local function check(self, input, who)
  if not utils.istable(input) or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then
    utils.error(who, 'input must be {tensor, LongTensor of indices}, got %s', utils.shapeString(input))
  end
  local t, index = input[1], input[2]
  if torch.type(index) ~= 'torch.LongTensor' then
    utils.error(who, 'input[2] must be a torch.LongTensor of indices, got %s', torch.type(index))
  end
  if index:dim() > 1 then
    utils.error(who, 'input[2] must be 1D, got %s', utils.shapeString(index))
  end
  if self.dimension < 1 or self.dimension > t:dim() then
    utils.error(who, 'dimension %d is out of range for input[1] %s', self.dimension, utils.shapeString(t))
  end
  return t, index
end

-- runs f(...), giving its error 'who' in front (without a source position)
local function rethrow(who, f, ...)
  local ok, err = pcall(f, ...)
  if not ok then utils.error(who, '%s', (tostring(err):gsub('^[^:]*:%d+: ', ''))) end
  return err
end

function Index:updateOutput(input)
  local who = 'nn.Index:updateOutput'
  local t, index = check(self, input, who)
  if torch.type(self.output) ~= torch.type(t) then self.output = t.new() end
  rethrow(who, self.output.index, self.output, t, self.dimension, index)
  return self.output
end

function Index:updateGradInput(input, gradOutput)
  local who = 'nn.Index:updateGradInput'
  local t, index = check(self, input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local gi = self.gradInput
  for k = 1, 2 do
    if not torch.isTensor(gi[k]) or torch.type(gi[k]) ~= torch.type(t) then gi[k] = t.new() end
  end
  gi[2]:resize(index:size()):zero()
  gi[1]:resizeAs(t):zero()
  rethrow(who, gi[1].indexAdd, gi[1], self.dimension, index, gradOutput)
  return gi
end

function Index:clearState()
  self.gradInput[1]:set()
  self.gradInput[2]:set()
  self.output:set()
  return self
end

-- backward reads the indices (and input[1]'s shape)
function Index:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

return Index
