-- nn.Parallel(inputDimension, outputDimension): child i is applied to
-- input:select(inputDimension, i); the outputs are concatenated along
-- outputDimension. There must be exactly one child per input slice.

require 'nn.Container'
local torch = torch
local nn = nn
local gradrelease = require 'nn.gradrelease'
local utils = nn.utils

local Parallel, parent = torch.class('nn.Parallel', 'nn.Container')

function Parallel:__init(inputDimension, outputDimension)
  parent.__init(self)
  for i, v in ipairs{inputDimension, outputDimension} do
    if type(v) ~= 'number' or v < 1 or v % 1 ~= 0 then
      error(string.format('nn.Parallel: %s (positive integer) expected, got %s',
                          i == 1 and 'inputDimension' or 'outputDimension', tostring(v)), 3)
    end
  end
  self.modules = {}
  self.inputDimension = inputDimension
  self.outputDimension = outputDimension
end

local function checkInput(self, input, who)
  if not torch.isTensor(input) or input:dim() < self.inputDimension then
    error(string.format('%s: input must be a tensor with at least %d dimensions, got %s', who,
                        self.inputDimension, utils.shapeString(input)), 0)
  end
  -- as Torch7: slice i goes to module i; modules past the last slice do not run
  local n = input:size(self.inputDimension)
  if n > #self.modules then
    error(string.format('%s: input has %d slices in dimension %d but the container has only %d modules', who,
                        n, self.inputDimension, #self.modules), 0)
  end
  return n
end

-- the run order of the first n children
local function order(self, n)
  local list = {}
  for _, i in ipairs(self:_runOrder()) do
    if i <= n then list[#list + 1] = i end
  end
  return list
end

-- children run in self:_runOrder() (module order unless optnet reorder
-- planned another); their outputs are checked and placed in module order
function Parallel:updateOutput(input)
  local who = 'nn.Parallel:updateOutput'
  local n = checkInput(self, input, who)
  local d = self.outputDimension
  local outs, size = {}, nil
  for _, i in ipairs(order(self, n)) do
    outs[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input:select(self.inputDimension, i))
  end
  for i = 1, n do
    local o = outs[i]
    if not torch.isTensor(o) or o:dim() < d then
      error(string.format('%s: output of module %d must have at least %d dimensions, got %s', who, i, d,
                          utils.shapeString(o)), 0)
    end
    if i == 1 then
      size = {}
      for k = 1, o:dim() do size[k] = o:size(k) end
    else
      local ok = o:dim() == #size
      for k = 1, o:dim() do
        if ok and k ~= d and o:size(k) ~= size[k] then ok = false end
      end
      if not ok then
        error(string.format('%s: output of module %d (%s) does not match output of module 1 (%s) outside dimension %d',
                            who, i, utils.shapeString(o), utils.shapeString(outs[1]), d), 0)
      end
      size[d] = size[d] + o:size(d)
    end
  end
  self.totalOutputSize = torch.LongStorage(size)
  -- (a module read without one, e.g. saved with output = nil, gets it here)
  self.output = self.output or outs[1].new()
  self.output:resize(self.totalOutputSize)
  local offset = 1
  for i = 1, #outs do
    self.output:narrow(d, offset, outs[i]:size(d)):copy(outs[i])
    offset = offset + outs[i]:size(d)
  end
  return self.output
end

local function backward(self, method, input, gradOutput, scale)
  local who = 'nn.Parallel:' .. method
  local n = checkInput(self, input, who)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error(string.format('%s: gradOutput must have the size of the output (%s), got %s', who,
                        utils.shapeString(self.output), utils.shapeString(gradOutput)), 0)
  end
  local d = self.outputDimension
  if method ~= 'accGradParameters' and method ~= 'accUpdateGradParameters' then
    self.gradInput = self.gradInput or input.new()
    self.gradInput:resizeAs(input)
  end
  -- all children run first, then their gradInputs are copied (the
  -- container reads its children's results at its own step)
  local at, offset = {}, 1
  for i = 1, n do
    at[i] = offset
    offset = offset + self.modules[i].output:size(d)
  end
  local gis = {}
  for _, i in ipairs(order(self, n)) do
    local module = self.modules[i]
    gis[i] = self:rethrowErrors(module, i, method, input:select(self.inputDimension, i),
                                gradOutput:narrow(d, at[i], module.output:size(d)), scale)
  end
  if method ~= 'accGradParameters' and method ~= 'accUpdateGradParameters' then
    for i = 1, n do
      -- a child whose gradInput is nil (it computes none) adds nothing
      local slice = self.gradInput:select(self.inputDimension, i)
      if gis[i] then slice:copy(gis[i]) else slice:zero() end
    end
  end
  -- consumed: the children's gradInputs (nn/gradrelease.lua)
  if method == 'backward' then gradrelease.releaseChildren(self, input, gradOutput) else gradrelease.kept(self) end
  return self.gradInput
end

function Parallel:updateGradInput(input, gradOutput)
  return backward(self, 'updateGradInput', input, gradOutput)
end

function Parallel:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  return backward(self, 'backward', input, gradOutput, scale or 1)
end

function Parallel:accGradParameters(input, gradOutput, scale)
  backward(self, 'accGradParameters', input, gradOutput, scale or 1)
end

function Parallel:accUpdateGradParameters(input, gradOutput, lr)
  backward(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

function Parallel:clearState()
  nn.utils.clear(self, 'output', 'gradInput')
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

function Parallel:__tostring__()
  return self:_branchString()
end

-- it copies its children's outputs into its output and their gradInputs
-- into its gradInput at its own steps; it reads no number of its
-- gradOutput there (each child got its window of it)
function Parallel:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = true, true, false
  return tr
end

return Parallel
