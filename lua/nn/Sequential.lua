-- nn.Sequential: children applied one after another. Its output and
-- gradInput are the last child's output and the first child's gradInput
-- (aliases, as in Torch7: it owns no tensors).

require 'nn.Container'
local gradrelease = require 'nn.gradrelease'
local torch = torch
local nn = nn

local Sequential, parent = torch.class('nn.Sequential', 'nn.Container')

function Sequential:__init()
  parent.__init(self)
end

function Sequential:add(module)
  parent.add(self, module)
  if #self.modules == 1 then self.gradInput = module.gradInput end
  self.output = module.output
  return self
end

function Sequential:insert(module, index)
  index = index or (#self.modules + 1)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('nn.Sequential:insert: nn.Module expected, got %s', torch.type(module)), 2)
  end
  if type(index) ~= 'number' or index < 1 or index > #self.modules + 1 then
    error(string.format('nn.Sequential:insert: index must be between 1 and %d, got %s',
                        #self.modules + 1, tostring(index)), 2)
  end
  table.insert(self.modules, index, module)
  self.output = self.modules[#self.modules].output
  self.gradInput = self.modules[1].gradInput
  return self
end

function Sequential:remove(index)
  index = index or #self.modules
  if type(index) ~= 'number' or index < 1 or index > #self.modules then
    error(string.format('nn.Sequential:remove: index must be between 1 and %d, got %s',
                        #self.modules, tostring(index)), 2)
  end
  local m = table.remove(self.modules, index)
  if #self.modules > 0 then
    self.output = self.modules[#self.modules].output
    self.gradInput = self.modules[1].gradInput
  else
    self.output = torch.Tensor()
    self.gradInput = torch.Tensor()
  end
  return m
end

-- a plain loop: fusions of a module with the one after it (batch norm or
-- a residual add with an in-place ReLU) are a pass the user or optnet
-- applies, nn.fuse (lua/nn/fuse.lua), not the container's business
function Sequential:updateOutput(input)
  local current = input
  for i = 1, #self.modules do
    current = self:rethrowErrors(self.modules[i], i, 'updateOutput', current)
  end
  self.output = current
  return current
end

function Sequential:updateGradInput(input, gradOutput)
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self:rethrowErrors(self.modules[i], i, 'updateGradInput', self.modules[i - 1].output, current)
  end
  if #self.modules > 0 then
    current = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', input, current)
  end
  self.gradInput = current
  gradrelease.kept(self)
  return current
end

function Sequential:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  gradrelease.ensureKept(self, input, gradOutput, 'accGradParameters')
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    local m = self.modules[i]
    self:rethrowErrors(m, i, 'accGradParameters', self.modules[i - 1].output, current, scale)
    current = m.gradInput
  end
  if #self.modules > 0 then
    self:rethrowErrors(self.modules[1], 1, 'accGradParameters', input, current, scale)
  end
end

-- child i's gradInput is consumed once child i-1's backward returned: it
-- is released then (nn/gradrelease.lua has the rule), unless reachable
-- from the gradOutput, the input or what child i-1 returned; the first
-- child's gradInput is the container's result and stays
function Sequential:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  scale = scale or 1
  local release = gradrelease.active(self)
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self:rethrowErrors(self.modules[i], i, 'backward', self.modules[i - 1].output, current, scale)
    if release and i < #self.modules then
      gradrelease.release(self.modules[i + 1], gradrelease.protect(gradOutput, input, current))
    end
  end
  if #self.modules > 0 then
    current = self:rethrowErrors(self.modules[1], 1, 'backward', input, current, scale)
    if release and #self.modules > 1 then
      gradrelease.release(self.modules[2], gradrelease.protect(gradOutput, input, current))
    end
  end
  if not release then gradrelease.kept(self) end
  self.gradInput = current
  return current
end

function Sequential:accUpdateGradParameters(input, gradOutput, lr)
  gradrelease.ensureKept(self, input, gradOutput, 'accUpdateGradParameters')
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    local m = self.modules[i]
    self:rethrowErrors(m, i, 'accUpdateGradParameters', self.modules[i - 1].output, current, lr)
    current = m.gradInput
  end
  if #self.modules > 0 then
    self:rethrowErrors(self.modules[1], 1, 'accUpdateGradParameters', input, current, lr)
  end
end

function Sequential:__tostring__()
  local tab, line, nextm = '  ', '\n', ' -> '
  local str = 'nn.Sequential' .. ' {' .. line .. tab .. '[input'
  for i = 1, #self.modules do str = str .. nextm .. '(' .. i .. ')' end
  str = str .. nextm .. 'output]'
  for i = 1, #self.modules do
    str = str .. line .. tab .. '(' .. i .. '): ' .. tostring(self.modules[i]):gsub(line, line .. tab)
  end
  return str .. line .. '}'
end

-- a router: its output and gradInput are its children's; at its own steps
-- it reads none of their results and no number of its gradOutput (the
-- children got it)
function Sequential:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, false, false
  return tr
end

return Sequential
