-- nn.Concat(dimension): every child gets the same input; their outputs are
-- concatenated along 'dimension' (absolute: count the batch dimension).
-- All other dimensions must agree. gradInput is the sum of the children's.

require 'nn.Container'
local torch = torch
local nn = nn
local gradrelease = require 'nn.gradrelease'
local utils = nn.utils

local Concat, parent = torch.class('nn.Concat', 'nn.Container')

function Concat:__init(dimension)
  parent.__init(self)
  if type(dimension) ~= 'number' or dimension < 1 or dimension % 1 ~= 0 then
    error(string.format('%s: dimension (positive integer) expected, got %s', torch.type(self),
                        tostring(dimension)), 3)
  end
  self.outputSize = torch.LongStorage()
  self.dimension = dimension
end

-- sizes of the concatenated output (Concat: all other dimensions equal)
function Concat:_outputSize(outs, who)
  local d = self.dimension
  local first = outs[1]
  if not torch.isTensor(first) or first:dim() < d then
    error(string.format('%s: output of module 1 must have at least %d dimensions, got %s', who, d,
                        utils.shapeString(first)), 0)
  end
  local size = {}
  for k = 1, first:dim() do size[k] = first:size(k) end
  for i = 2, #outs do
    local o = outs[i]
    local ok = torch.isTensor(o) and o:dim() == first:dim()
    if ok then
      for k = 1, first:dim() do
        if k ~= d and o:size(k) ~= size[k] then ok = false end
      end
    end
    if not ok then
      error(string.format('%s: output of module %d (%s) does not match output of module 1 (%s) outside dimension %d',
                          who, i, utils.shapeString(o), utils.shapeString(first), d), 0)
    end
    size[d] = size[d] + o:size(d)
  end
  return size
end

-- whether children's windows leave parts of the output uncovered
function Concat:_padded()
  return false
end

-- the part of 'whole' (output or gradOutput) that belongs to child output 'o'
function Concat:_window(whole, o, offset)
  return whole:narrow(self.dimension, offset, o:size(self.dimension))
end

function Concat:updateOutput(input)
  local who = torch.type(self) .. ':updateOutput'
  if #self.modules == 0 then error(who .. ': container has no modules', 0) end
  local outs = {}
  for _, i in ipairs(self:_runOrder()) do
    outs[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input)
  end
  local size = self:_outputSize(outs, who)
  self.outputSize = torch.LongStorage(size)
  -- (a module read without one, e.g. saved with output = nil, gets it here)
  self.output = self.output or outs[1].new()
  self.output:resize(self.outputSize)
  if self:_padded() then self.output:zero() end
  local offset = 1
  for i = 1, #outs do
    self:_window(self.output, outs[i], offset):copy(outs[i])
    offset = offset + outs[i]:size(self.dimension)
  end
  return self.output
end

function Concat:_checkGradOutput(gradOutput, who)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error(string.format('%s: gradOutput must have the size of the output (%s), got %s', who,
                        utils.shapeString(self.output), utils.shapeString(gradOutput)), 0)
  end
end

-- where each child's part starts along 'dimension'
local function offsets(self)
  local at, offset = {}, 1
  for i, module in ipairs(self.modules) do
    at[i] = offset
    offset = offset + module.output:size(self.dimension)
  end
  return at
end

-- runs 'method' on every child with its part of gradOutput, in run order;
-- returns the children's results by module index
local function eachChild(self, method, input, gradOutput, arg, windows)
  local at, res = offsets(self), {}
  for _, i in ipairs(self:_runOrder()) do
    local module = self.modules[i]
    local w = self:_window(gradOutput, module.output, at[i])
    if windows then windows[i] = w end
    res[i] = self:rethrowErrors(module, i, method, input, w, arg)
  end
  return res
end

-- All children run before their gradInputs are summed: the container
-- reads its children's results at its own step, after theirs (the memory
-- optimizer's trace relies on this order).
local function backward(self, method, input, gradOutput, scale)
  local who = torch.type(self) .. ':' .. method
  self:_checkGradOutput(gradOutput, who)
  local release = method == 'backward' and gradrelease.active(self)
  local windows = release and {} or nil
  local gis = eachChild(self, method, input, gradOutput, scale, windows)
  local first = true
  for i = 1, #self.modules do
    local gi = gis[i]
    if gi then  -- a module may produce no gradInput (e.g. a first layer)
      if first then
        self.gradInput = self.gradInput or gi.new()
        self.gradInput:resizeAs(gi):copy(gi)
        first = false
      else
        self.gradInput:add(gi)
      end
    end
  end
  -- consumed: the children's gradInputs (nn/gradrelease.lua)
  if method == 'backward' then gradrelease.releaseChildren(self, input, gradOutput) else gradrelease.kept(self) end
  -- and the windows of gradOutput the children were given: each is a view
  -- of the gradOutput's storage, which the caller may release next (a
  -- Sequential releases the gradInput it came from); a dead window kept
  -- that storage alive until Lua's collector found it, up to a step later
  -- in generational mode (DenseNet-BC b64: 600 MiB of its peak,
  -- docs/dev/densenet.md). A window that is a child's gradInput (an
  -- nn.Identity's) is the release's to decide
  if windows then
    for i, w in pairs(windows) do
      if not rawequal(rawget(self.modules[i], 'gradInput'), w) then w:set() end
    end
  end
  return self.gradInput
end

function Concat:updateGradInput(input, gradOutput)
  return backward(self, 'updateGradInput', input, gradOutput)
end

function Concat:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  return backward(self, 'backward', input, gradOutput, scale or 1)
end

function Concat:accGradParameters(input, gradOutput, scale)
  eachChild(self, 'accGradParameters', input, gradOutput, scale or 1)
end

function Concat:accUpdateGradParameters(input, gradOutput, lr)
  eachChild(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

function Concat:clearState()
  nn.utils.clear(self, 'output', 'gradInput')
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

function Concat:__tostring__()
  return self:_branchString()
end

-- it copies its children's outputs into its output and sums their
-- gradInputs at its own steps; it reads no number of its gradOutput there
-- (each child got its window of it). DepthConcat inherits this.
function Concat:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = true, true, false
  return tr
end

return Concat
