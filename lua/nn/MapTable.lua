-- nn.MapTable([module, shared=true]): applies one module to every entry of
-- its input table: output[i] = module_i(input[i]), where module_1 is
-- 'module' and the others are clones made when a longer table arrives,
-- sharing weight, bias, gradWeight and gradBias with it (shared, the
-- default) or with their own copies. A 'sharedparams' field (a list of
-- field names, as Torch7 keeps) chooses other fields to share; absent, the
-- four above.
-- resize(n) makes or drops clones; clearState drops all clones.

require 'nn.Container'
local torch = torch
local nn = nn
local utils = nn.utils

local MapTable, parent = torch.class('nn.MapTable', 'nn.Container')

function MapTable:__init(module, shared)
  parent.__init(self)
  self.shared = (shared == nil) and true or shared
  self.output = {}
  self.gradInput = {}
  if module ~= nil then self:add(module) end
end

local SHARED = {'weight', 'bias', 'gradWeight', 'gradBias'}

-- modules 1..n exist: module 1 is self.module, the others its clones
function MapTable:_extend(n)
  local names = rawget(self, 'sharedparams') or SHARED
  self.modules[1] = self.module
  for i = 2, n do
    if not self.modules[i] then
      if self.shared then
        self.modules[i] = self.module:clone(table.unpack(names))
      else
        self.modules[i] = self.module:clone()
      end
    end
  end
end

function MapTable:resize(n)
  if type(n) ~= 'number' or n % 1 ~= 0 or n < 1 then
    error(string.format('nn.MapTable:resize: positive integer expected, got %s', tostring(n)), 2)
  end
  self:_extend(n)
  for i = #self.modules, n + 1, -1 do
    self.modules[i]:clearState()
    self.modules[i] = nil
  end
  return self
end

function MapTable:add(module)
  if self.module then error('nn.MapTable:add: a MapTable holds a single module, it has one already', 2) end
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('nn.MapTable:add: nn.Module expected, got %s', torch.type(module)), 2)
  end
  self.module = module
  self.modules[1] = module
  return self
end

local function check(self, x, who, what)
  if not self.module then utils.error(who, 'no module to apply (give one to the constructor or add)') end
  if not utils.istable(x) then utils.error(who, '%s must be a table, got %s', what, torch.type(x)) end
end

-- list without its entries after n
local function collect(list, n)
  for i = #list, n + 1, -1 do list[i] = nil end
  return list
end

function MapTable:updateOutput(input)
  check(self, input, 'nn.MapTable:updateOutput', 'input')
  self:_extend(#input)
  if not utils.istable(self.output) then self.output = {} end
  for i = 1, #input do
    self.output[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input[i])
  end
  return collect(self.output, #input)
end

function MapTable:updateGradInput(input, gradOutput)
  check(self, input, 'nn.MapTable:updateGradInput', 'input')
  check(self, gradOutput, 'nn.MapTable:updateGradInput', 'gradOutput')
  self:_extend(#input)
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  for i = 1, #input do
    self.gradInput[i] = self:rethrowErrors(self.modules[i], i, 'updateGradInput', input[i], gradOutput[i])
  end
  return collect(self.gradInput, #input)
end

function MapTable:accGradParameters(input, gradOutput, scale)
  check(self, input, 'nn.MapTable:accGradParameters', 'input')
  scale = scale or 1
  self:_extend(#input)
  for i = 1, #input do
    self:rethrowErrors(self.modules[i], i, 'accGradParameters', input[i], gradOutput[i], scale)
  end
end

function MapTable:accUpdateGradParameters(input, gradOutput, lr)
  check(self, input, 'nn.MapTable:accUpdateGradParameters', 'input')
  lr = lr or 1
  self:_extend(#input)
  for i = 1, #input do
    self:rethrowErrors(self.modules[i], i, 'accUpdateGradParameters', input[i], gradOutput[i], lr)
  end
end

-- shared clones hold the module's own gradients: zero (update) them once
function MapTable:zeroGradParameters()
  if self.module then
    if self.shared then self.module:zeroGradParameters() else parent.zeroGradParameters(self) end
  end
end

function MapTable:updateParameters(learningRate)
  if self.module then
    if self.shared then self.module:updateParameters(learningRate) else parent.updateParameters(self, learningRate) end
  end
end

function MapTable:clearState()
  for i = #self.modules, 2, -1 do
    self.modules[i]:clearState()
    self.modules[i] = nil
  end
  return parent.clearState(self)
end

function MapTable:__tostring__()
  local str = torch.type(self)
  if not self.module then return str .. ' { }' end
  return str .. ' {\n  ' .. tostring(self.module):gsub('\n', '\n        ') .. '\n}'
end

-- the container hands its children's tensors on and reads none of them
function MapTable:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, false, false
  return tr
end

return MapTable
