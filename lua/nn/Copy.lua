-- nn.Copy(intype, outtype [, forceCopy, dontCast]): copies the input into a
-- tensor of type 'outtype' (and gradOutput back into 'intype'). When the
-- types are equal and forceCopy is not set, output and gradInput are views
-- of the input and gradOutput. dontCast: :type() leaves the module alone.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Copy, parent = torch.class('nn.Copy', 'nn.Module')

local function checkType(name, what)
  if not torch._tensortypes[name] then
    error(string.format("nn.Copy: %s must be a tensor type name (e.g. 'torch.FloatTensor'), got %s",
                        what, tostring(name)), 4)
  end
end

function Copy:__init(intype, outtype, forceCopy, dontCast)
  intype = intype or torch.getdefaulttensortype()
  outtype = outtype or torch.getdefaulttensortype()
  checkType(intype, 'intype')
  checkType(outtype, 'outtype')
  parent.__init(self)
  self.intype, self.outtype = intype, outtype
  self.forceCopy = forceCopy and true or false
  self.dontCast = dontCast
  self.gradInput = torch.getmetatable(intype).new()
  self.output = torch.getmetatable(outtype).new()
end

function Copy:_aliases()
  return not self.forceCopy and self.intype == self.outtype
end

function Copy:updateOutput(input)
  utils.checkTensor(input, 'nn.Copy:updateOutput')
  if self:_aliases() and torch.type(input) == torch.type(self.output) then
    self.output:set(input)
  else
    if self.output:storage() == input:storage() then self.output:set() end
    self.output:resize(input:size()):copy(input)
  end
  return self.output
end

function Copy:updateGradInput(input, gradOutput)
  utils.checkTensor(gradOutput, 'nn.Copy:updateGradInput', 'gradOutput')
  if self:_aliases() and torch.type(gradOutput) == torch.type(self.gradInput) then
    self.gradInput:set(gradOutput)
  else
    if self.gradInput:storage() == gradOutput:storage() then self.gradInput:set() end
    self.gradInput:resize(gradOutput:size()):copy(gradOutput)
  end
  return self.gradInput
end

function Copy:type(tname, tensorCache)
  if tname and self.dontCast then return self end
  parent.type(self, tname, tensorCache)
  if tname then self.intype, self.outtype = tname, tname end
  return self
end

function Copy:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Copy
