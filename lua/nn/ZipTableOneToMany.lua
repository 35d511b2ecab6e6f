-- nn.ZipTableOneToMany(): input {v, {a, b, c}}, output {{v, a}, {v, b},
-- {v, c}} (views, nothing copied). Backward: gradInput = {sum of the
-- gradients of every v, {the gradients of a, b, c}}.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local ZipTableOneToMany, parent = torch.class('nn.ZipTableOneToMany', 'nn.Module')

function ZipTableOneToMany:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
end

local function aliasAt(dst, k, x)
  if torch.isTensor(x) then
    local t = dst[k]
    if not torch.isTensor(t) or torch.type(t) ~= torch.type(x) then t = x.new() end
    dst[k] = t:set(x)
  else
    dst[k] = x
  end
end

local function check(input, who)
  if not utils.istable(input) or #input ~= 2 or not torch.isTensor(input[1]) or not utils.istable(input[2]) then
    utils.error(who, 'input must be {tensor, {elements}}, got %s', utils.shapeString(input))
  end
end

function ZipTableOneToMany:updateOutput(input)
  check(input, 'nn.ZipTableOneToMany:updateOutput')
  local v, list = input[1], input[2]
  if not utils.istable(self.output) then self.output = {} end
  local out = self.output
  for i = 1, #list do
    local o = utils.istable(out[i]) and out[i] or {}
    out[i] = o
    aliasAt(o, 1, v)
    aliasAt(o, 2, list[i])
  end
  for i = #out, #list + 1, -1 do out[i] = nil end
  return out
end

function ZipTableOneToMany:updateGradInput(input, gradOutput)
  local who = 'nn.ZipTableOneToMany:updateGradInput'
  check(input, who)
  local v, list = input[1], input[2]
  if not utils.istable(gradOutput) or #gradOutput ~= #list then
    utils.error(who, 'gradOutput must be a table of %d pairs, got %s', #list, utils.shapeString(gradOutput))
  end
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local gi = self.gradInput
  if not torch.isTensor(gi[1]) or torch.type(gi[1]) ~= torch.type(v) then gi[1] = v.new() end
  local gv = gi[1]:resizeAs(v):zero()
  if not utils.istable(gi[2]) then gi[2] = {} end
  local gl = gi[2]
  for i, pair in ipairs(gradOutput) do
    if not utils.istable(pair) or not torch.isTensor(pair[1]) or pair[1]:nElement() ~= v:nElement() then
      utils.error(who, 'gradOutput[%d] must be {tensor of %d elements, gradient}, got %s', i, v:nElement(),
                  utils.shapeString(pair))
    end
    gv:add(pair[1])
    aliasAt(gl, i, pair[2])
  end
  for i = #gl, #list + 1, -1 do gl[i] = nil end
  return gi
end

-- backward reads only the shape of input[1]
function ZipTableOneToMany:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return ZipTableOneToMany
