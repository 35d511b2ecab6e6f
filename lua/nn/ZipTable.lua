-- nn.ZipTable(): input {{a1, a2}, {b1, b2}, {c1, c2}}, output
-- {{a1, b1, c1}, {a2, b2, c2}}; backward zips gradOutput back the same
-- way. Nothing is copied: the output's tensors are the module's own,
-- pointed at the input's memory (tables inside are passed as they are).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local ZipTable, parent = torch.class('nn.ZipTable', 'nn.Module')

function ZipTable:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
end

-- dst[k] becomes x: a tensor of dst's own pointed at x's memory, else x
local function aliasAt(dst, k, x)
  if torch.isTensor(x) then
    local t = dst[k]
    if not torch.isTensor(t) or torch.type(t) ~= torch.type(x) then t = x.new() end
    dst[k] = t:set(x)
  else
    dst[k] = x
  end
end

-- out[j][i] = src[i][j], reusing out's tables and tensors
local function zip(out, src, who, what)
  if not utils.istable(src) then
    utils.error(who, '%s must be a table of tables, got %s', what, torch.type(src))
  end
  local n = 0
  for i, inner in ipairs(src) do
    if not utils.istable(inner) then
      utils.error(who, '%s[%d] must be a table, got %s', what, i, torch.type(inner))
    end
    n = math.max(n, #inner)
  end
  for j = 1, n do
    local o = utils.istable(out[j]) and out[j] or {}
    out[j] = o
    for i = 1, #src do
      if src[i][j] ~= nil then aliasAt(o, i, src[i][j]) else o[i] = nil end
    end
    for i = #o, #src + 1, -1 do o[i] = nil end
  end
  for j = #out, n + 1, -1 do out[j] = nil end
  return out
end

function ZipTable:updateOutput(input)
  if not utils.istable(self.output) then self.output = {} end
  return zip(self.output, input, 'nn.ZipTable:updateOutput', 'input')
end

function ZipTable:updateGradInput(input, gradOutput)
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  return zip(self.gradInput, gradOutput, 'nn.ZipTable:updateGradInput', 'gradOutput')
end

-- output and gradInput view other memory: drop them
function ZipTable:clearState()
  self.output, self.gradInput = {}, {}
  return self
end

function ZipTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return ZipTable
