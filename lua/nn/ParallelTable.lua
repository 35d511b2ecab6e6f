-- nn.ParallelTable: child i is applied to input[i]; output[i] and
-- gradInput[i] are child i's output and gradInput.

require 'nn.Container'
local torch = torch
local nn = nn
local utils = nn.utils

local ParallelTable, parent = torch.class('nn.ParallelTable', 'nn.Container')

function ParallelTable:__init()
  parent.__init(self)
  self.modules = {}
  self.output = {}
  self.gradInput = {}
end

local function checkTable(self, x, what, who)
  if not utils.istable(x) or #x < #self.modules then
    error(string.format('%s: %s must be a table of %d elements (one per module), got %s', who, what,
                        #self.modules, utils.shapeString(x)), 0)
  end
end

local function trim(t, n)
  for i = #t, n + 1, -1 do t[i] = nil end
end

-- children run in self:_runOrder() (module order unless optnet reorder
-- planned another); each result stays at its module index
function ParallelTable:updateOutput(input)
  checkTable(self, input, 'input', 'nn.ParallelTable:updateOutput')
  if not utils.istable(self.output) then self.output = {} end   -- (read without one)
  for _, i in ipairs(self:_runOrder()) do
    self.output[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input[i])
  end
  trim(self.output, #self.modules)
  return self.output
end

local function backward(self, method, input, gradOutput, scale)
  local who = 'nn.ParallelTable:' .. method
  checkTable(self, input, 'input', who)
  checkTable(self, gradOutput, 'gradOutput', who)
  if not utils.istable(self.gradInput) then self.gradInput = {} end   -- (read without one)
  for _, i in ipairs(self:_runOrder()) do
    self.gradInput[i] = self:rethrowErrors(self.modules[i], i, method, input[i], gradOutput[i], scale)
  end
  trim(self.gradInput, #self.modules)
  return self.gradInput
end

function ParallelTable:updateGradInput(input, gradOutput)
  return backward(self, 'updateGradInput', input, gradOutput)
end

function ParallelTable:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  return backward(self, 'backward', input, gradOutput, scale or 1)
end

function ParallelTable:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  for _, i in ipairs(self:_runOrder()) do
    self:rethrowErrors(self.modules[i], i, 'accGradParameters', input[i], gradOutput[i], scale)
  end
end

function ParallelTable:accUpdateGradParameters(input, gradOutput, lr)
  for _, i in ipairs(self:_runOrder()) do
    self:rethrowErrors(self.modules[i], i, 'accUpdateGradParameters', input[i], gradOutput[i], lr)
  end
end

function ParallelTable:clearState()
  self.output, self.gradInput = {}, {}
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

function ParallelTable:__tostring__()
  return self:_branchString()
end

-- a router: its output and gradInput are tables of its children's; at its
-- own steps it reads none of their results and no number of its gradOutput
function ParallelTable:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, false, false
  return tr
end

return ParallelTable
