-- nn.Sequential: children applied one after another. Its output and
-- gradInput are the last child's output and the first child's gradInput
-- (aliases, as in Torch7: it owns no tensors).

require 'nn.Container'
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

-- A batch norm, or an in-place CAddTable of two tensors (a residual add),
-- followed by an in-place nn.ReLU (ResNets, DenseNets) runs as one pass: the
-- batch norm writes max(y, 0), the add max(a + b, 0), and the ReLU's forward,
-- which would only threshold that tensor in place, is left out; its output
-- is set to the tensor as its own forward sets it. The numbers are the same
-- bit for bit. Only the classes' own methods fuse: an instance that overrides
-- updateOutput (optnet's tracing, a user's hook) runs as it is.
local bnClass, sbnClass, reluClass, caddClass
local BN, ADD = 1, 2
local function fusesReLU(m, nxt)
  if not reluClass then
    bnClass = torch.getmetatable('nn.BatchNormalization')
    sbnClass = torch.getmetatable('nn.SpatialBatchNormalization')
    caddClass = torch.getmetatable('nn.CAddTable')
    reluClass = torch.getmetatable('nn.ReLU')
    if not (bnClass and sbnClass and caddClass and reluClass) then
      reluClass = nil
      return false
    end
  end
  if getmetatable(nxt) ~= reluClass or nxt.inplace ~= true or nxt.threshold ~= 0 or nxt.val ~= 0
      or rawget(nxt, 'updateOutput') ~= nil or rawget(m, 'updateOutput') ~= nil then
    return false
  end
  local mt = getmetatable(m)
  if (mt == sbnClass or mt == bnClass) and torch.type(nxt.output) == torch.type(m.output) then
    return BN
  end
  return mt == caddClass and m.inplace == true and ADD
end

-- the in-place CAddTable's forward and the ReLU's in one pass, when the
-- operands suit it (two contiguous tensors of one type and size): true if done
local addReLU = torch._C.nn.addReLU
local function addThenReLU(m, nxt, input)
  if type(input) ~= 'table' or #input ~= 2 or not torch.isTensor(input[1])
      or torch.type(input[1]) ~= torch.type(input[2]) or torch.type(nxt.output) ~= torch.type(input[1])
      or not addReLU(input[1], input[2]) then
    return false
  end
  if torch.type(m.output) ~= torch.type(input[1]) then m.output = input[1].new() end
  m.output:set(input[1])
  nxt.output:set(m.output)
  return true
end

function Sequential:updateOutput(input)
  local current = input
  local mods = self.modules
  local n = #mods
  local i = 1
  while i <= n do
    local m, nxt = mods[i], mods[i + 1]
    local fuse = nxt ~= nil and fusesReLU(m, nxt)
    if fuse == BN then
      current = self:rethrowErrors(m, i, 'updateOutput', current, m._fuseReLU)
      nxt.output:set(current)
      current = nxt.output
      i = i + 2
    elseif fuse == ADD and addThenReLU(m, nxt, current) then
      current = nxt.output
      i = i + 2
    else
      current = self:rethrowErrors(m, i, 'updateOutput', current)
      i = i + 1
    end
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
  return current
end

function Sequential:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
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

function Sequential:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  scale = scale or 1
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self:rethrowErrors(self.modules[i], i, 'backward', self.modules[i - 1].output, current, scale)
  end
  if #self.modules > 0 then
    current = self:rethrowErrors(self.modules[1], 1, 'backward', input, current, scale)
  end
  self.gradInput = current
  return current
end

function Sequential:accUpdateGradParameters(input, gradOutput, lr)
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
