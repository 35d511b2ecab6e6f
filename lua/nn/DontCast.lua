-- nn.DontCast(module [, castin, castout=castin, moduleType]): keeps
-- 'module' in its type when the net around it is converted (:float(),
-- :double(), :type()), converting at its borders instead: with castin, an
-- input of another type is copied into moduleType ('_input') and the
-- gradInput back into the type the net has; with castout, the output is
-- copied into the net's type and gradOutput into moduleType
-- ('_gradOutput'). Without the flags tensors pass as they are. moduleType
-- defaults to the type of the module's output, or else of its parameters.
-- Inputs and outputs may be tables of tensors.

require 'nn.Decorator'
local torch = torch
local nn = nn
local utils = nn.utils

local DontCast, parent = torch.class('nn.DontCast', 'nn.Decorator')

-- dst shaped and valued like src (tables recursively), in type 'tname'
local function recursiveTypeCopy(dst, src, tname)
  if utils.istable(src) then
    dst = utils.istable(dst) and dst or {}
    for k, v in pairs(src) do dst[k] = recursiveTypeCopy(dst[k], v, tname) end
    for k in pairs(dst) do
      if src[k] == nil then dst[k] = nil end
    end
  elseif torch.isTensor(src) then
    dst = torch.type(dst) == tname and dst or torch.getmetatable(tname).new()
    dst:resize(src:size())
    if src:nElement() > 0 then dst:copy(src) end
  end
  return dst
end

-- the type of the first tensor in src (depth first), and whether one was found
local function tableTensorType(src)
  if utils.istable(src) then
    local tname, found
    for _, v in pairs(src) do
      tname, found = tableTensorType(v)
      if found then return tname, true end
    end
    return tname, found
  end
  return torch.type(src), torch.isTensor(src)
end

function DontCast:__init(module, castin, castout, moduleType)
  parent.__init(self, module)
  self.castin = castin
  self.castout = (castout == nil) and castin or castout
  self.moduleType = moduleType
  if moduleType ~= nil and not (type(moduleType) == 'string' and torch._tensortypes[moduleType]) then
    error(string.format("nn.DontCast: moduleType must be a tensor type name, got %s", tostring(moduleType)), 2)
  end
  if (self.castin or self.castout) and not self.moduleType then
    local tname, found = tableTensorType(module.output)
    if not found then tname, found = tableTensorType(module:parameters()) end
    if not found then
      error('nn.DontCast: cannot tell the module\'s type from its output or parameters: give moduleType (argument 4)', 2)
    end
    self.moduleType = tname
  end
end

-- the input as the module gets it (a moduleType copy with castin)
function DontCast:_moduleInput(input, forward)
  if self.castin and tableTensorType(input) ~= self.moduleType then
    if forward or rawget(self, '_input') == nil then
      self._input = recursiveTypeCopy(rawget(self, '_input'), input, self.moduleType)
    end
    return self._input
  end
  return input
end

function DontCast:_moduleGradOutput(gradOutput)
  if self.castout and tableTensorType(gradOutput) ~= self.moduleType then
    self._gradOutput = recursiveTypeCopy(rawget(self, '_gradOutput'), gradOutput, self.moduleType)
    return self._gradOutput
  end
  return gradOutput
end

function DontCast:updateOutput(input)
  local output = self:rethrowErrors(self.modules[1], 1, 'updateOutput', self:_moduleInput(input, true))
  if self.castout then
    self.output = recursiveTypeCopy(self.output, output, tableTensorType(self.output))
  else
    self.output = output
  end
  return self.output
end

function DontCast:updateGradInput(input, gradOutput)
  local gradInput = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', self:_moduleInput(input),
                                       self:_moduleGradOutput(gradOutput))
  if self.castin then
    self.gradInput = recursiveTypeCopy(self.gradInput, gradInput, tableTensorType(self.gradInput))
  else
    self.gradInput = gradInput
  end
  return self.gradInput
end

function DontCast:accGradParameters(input, gradOutput, scale)
  self:rethrowErrors(self.modules[1], 1, 'accGradParameters', self:_moduleInput(input),
                     self:_moduleGradOutput(gradOutput), scale)
end

function DontCast:accUpdateGradParameters(input, gradOutput, lr)
  self:rethrowErrors(self.modules[1], 1, 'accUpdateGradParameters', self:_moduleInput(input),
                     self:_moduleGradOutput(gradOutput), lr)
end

-- don't cast (the essence thereof): only the tensors the net around sees
-- change type, the output (castout) and the gradInput (castin)
function DontCast:type(tname)
  if not tname then return self._type end
  if not torch._tensortypes[tname] then
    error(string.format("nn.DontCast:type: tensor type name expected (e.g. 'torch.FloatTensor'), got %s",
                        tostring(tname)), 2)
  end
  if self.castout and tableTensorType(self.output) ~= tname then
    self.output = recursiveTypeCopy(nil, self.output, tname)
  end
  if self.castin and tableTensorType(self.gradInput) ~= tname then
    self.gradInput = recursiveTypeCopy(nil, self.gradInput, tname)
  end
  self._type = tname
  return utils.own(self)
end

function DontCast:clearState()
  nn.utils.clear(self, '_input', '_gradOutput')
  return parent.clearState(self)
end

-- copies made at the borders are buffers ('_input' is read again in
-- backward); what the flags copy is all the container reads of its child
function DontCast:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.buffers = {_input = 'both', _gradOutput = 'backward'}
  tr.childOutputs = self.castout and true or false
  tr.childGradInputs = self.castin and true or false
  tr.readsGradOutput = self.castout and true or false
  return tr
end

return DontCast
