-- nn.Convert([inputShape='b*', outputShape=inputShape]): converts between
-- data layouts named by letters, e.g. nn.Convert('bchw', 'bf') (images to
-- feature vectors) or nn.Convert('chw', 'hwc'). 'b' is the batch
-- dimension, added in front when a shape has none; an input with fewer
-- dimensions than inputShape is one sample (the batch dimension is added
-- for the conversion and removed after). An input of another tensor type
-- is first copied into the module's type, and its gradient back, so
-- nn.Convert() alone converts types. The conversion is a child module
-- built on the first forward ('converter', also modules[1]): a Transpose
-- when outputShape permutes inputShape's letters, else Reshape/Select for
-- 'bf', 'b' and 'bt'.

require 'nn.Container'
local torch = torch
local nn = nn
local utils = nn.utils

local Convert, parent = torch.class('nn.Convert', 'nn.Container')

-- the shapes a conversion to something else than a permutation may target
local TARGETS = {bf = true, b = true, bt = true}

function Convert:__init(inputShape, outputShape)
  if outputShape and not inputShape then
    error('nn.Convert: inputShape (argument 1) expected when outputShape (argument 2) is given', 2)
  end
  for _, s in ipairs{{inputShape, 'inputShape'}, {outputShape, 'outputShape'}} do
    if s[1] ~= nil and (type(s[1]) ~= 'string' or not s[1]:match('^[%a*]+$')) then
      error(string.format("nn.Convert: %s must be a string of axis letters (e.g. 'bchw'), got %s", s[2],
                          tostring(s[1])), 2)
    end
  end
  inputShape = inputShape or 'b*'
  outputShape = outputShape or inputShape
  self.inputShape = inputShape:find('b') and inputShape or ('b' .. inputShape)
  self.outputShape = outputShape:find('b') and outputShape or ('b' .. outputShape)
  self.inputBatchDim = self.inputShape:find('b')
  self.outputBatchDim = self.outputShape:find('b')
  if self.inputShape == 'b*' or self.outputShape == 'b*' then
    if self.inputShape ~= 'b*' or self.outputShape ~= 'b*' then
      error('nn.Convert: both or neither shapes must be b*', 2)
    end
    self.nInputDim = -1
    self.nOutputDim = -1
    self.transposition = true
  else
    -- number of dimensions in batch mode
    self.nInputDim = #self.inputShape
    self.nOutputDim = #self.outputShape
    -- is the outputShape a permutation of the inputShape?
    if self.nInputDim == self.nOutputDim then
      self.transposition = true
      for i = 1, self.nInputDim do
        if not self.outputShape:find(self.inputShape:sub(i, i), 1, true) then
          self.transposition = false
          break
        end
      end
    end
  end
  parent.__init(self)
end

-- makes the converter for this (batch mode) input
function Convert:buildConverter(input)
  if self.transposition then
    self.converter = self:transpose(self.outputShape)
  else
    if not TARGETS[self.outputShape] then
      error(string.format('nn.Convert: cannot convert shape %s to %s', self.inputShape, self.outputShape), 0)
    end
    self.converter = self[self.outputShape](self, input)
  end
  self.converter:type(torch.type(self.output))
  self.modules[1] = self.converter
end

-- whether 'input' must be copied into the module's type
function Convert:_casts(input)
  local c = rawget(self, 'converter')
  local tname = c and c:type() or torch.type(self.output)
  return torch.type(input) ~= tname, tname
end

function Convert:updateOutput(input)
  utils.checkTensor(input, 'nn.Convert:updateOutput')
  local casts, tname = self:_casts(input)
  if casts then
    if torch.type(rawget(self, '_input')) ~= tname then self._input = torch.getmetatable(tname).new() end
    self._input:resize(input:size()):copy(input)
    input = self._input
  end
  self.batchMode = true
  if input:dim() < self.nInputDim then
    -- one sample: a batch of 1 for the conversion
    if self.inputBatchDim > input:dim() + 1 then
      utils.error('nn.Convert:updateOutput', 'input %s does not fit shape %s', utils.shapeString(input), self.inputShape)
    end
    self.__input = utils.addSingletonDimension(rawget(self, '__input') or input.new(), input, self.inputBatchDim)
    input = self.__input
    self.batchMode = false
  end
  if not rawget(self, 'converter') then self:buildConverter(input) end
  local out = self:rethrowErrors(self.converter, 1, 'updateOutput', input)
  if not self.batchMode and out:dim() > 1 then
    local o = rawget(self, '__output')
    if not torch.isTensor(o) or torch.type(o) ~= torch.type(out) then o = out.new() end
    self.__output = o:set(out:select(self.outputBatchDim, 1))
    out = self.__output
  end
  self.output = out
  return self.output
end

-- the converter's input and gradOutput for this call (batch mode)
function Convert:_inner(input, gradOutput)
  local x = self:_casts(input) and self._input or input
  if not self.batchMode then
    x = self.__input
    if gradOutput:dim() < self.converter.output:dim() then
      self.__gradOutput = utils.addSingletonDimension(rawget(self, '__gradOutput') or gradOutput.new(), gradOutput,
                                                      self.outputBatchDim)
      gradOutput = self.__gradOutput
    end
  end
  return x, gradOutput
end

function Convert:updateGradInput(input, gradOutput)
  utils.checkTensor(input, 'nn.Convert:updateGradInput')
  utils.checkTensor(gradOutput, 'nn.Convert:updateGradInput', 'gradOutput')
  if not rawget(self, 'converter') then utils.error('nn.Convert:updateGradInput', 'call forward first') end
  local x, go = self:_inner(input, gradOutput)
  local gi = self:rethrowErrors(self.converter, 1, 'updateGradInput', x, go)
  if not self.batchMode then
    local g = rawget(self, '__gradInput')
    if not torch.isTensor(g) or torch.type(g) ~= torch.type(gi) then g = gi.new() end
    self.__gradInput = g:set(gi:select(self.inputBatchDim, 1))
    gi = self.__gradInput
  end
  if self:_casts(input) then
    if torch.type(rawget(self, '_gradInput')) ~= torch.type(input) then self._gradInput = input.new() end
    self._gradInput:resize(input:size()):copy(gi)
    gi = self._gradInput
  end
  self.gradInput = gi
  return self.gradInput
end

function Convert:accGradParameters(input, gradOutput, scale)
  local x, go = self:_inner(input, gradOutput)
  self:rethrowErrors(self.converter, 1, 'accGradParameters', x, go, scale)
end

function Convert:accUpdateGradParameters(input, gradOutput, lr)
  local x, go = self:_inner(input, gradOutput)
  self:rethrowErrors(self.converter, 1, 'accUpdateGradParameters', x, go, lr)
end

-- position of the letter 'axis' in 'shape' (default inputShape)
function Convert:findAxis(axis, shape, silent)
  shape = shape or self.inputShape
  local pos = shape:find(axis, 1, true)
  if not silent and not pos then
    error(string.format("nn.Convert: shape '%s' has no axis '%s'", shape, axis), 0)
  end
  return pos
end

-- batch x features
function Convert:bf(input)
  local bpos = self:findAxis('b', self.inputShape)
  local dim = #self.inputShape
  if self.inputShape == 'bt' then
    error('nn.Convert: conversion of shape bt to bf is not supported', 0)
  end
  if dim == 1 then return nn.Reshape(1) end
  local modula
  if bpos ~= 1 then modula = nn.Transpose({1, bpos}) end
  if dim > 2 then
    local reshape = nn.Reshape(input:select(bpos, 1):nElement())
    if modula then
      modula = nn.Sequential():add(modula):add(reshape)
    else
      modula = reshape
    end
  end
  return modula or nn.Identity()
end

-- each sample is a scalar; the batch is a vector
function Convert:b(input)
  if self.inputShape == 'bt' or self.inputShape == 'tb' then
    -- the first of the classes
    return nn.Select(self:findAxis('t'), 1)
  elseif self.inputShape == 'bf' or self.inputShape == 'fb' then
    local fpos = self:findAxis('f')
    if input:size(fpos) > 1 then
      error(string.format('nn.Convert: cannot convert shape %s to b when there is more than one feature (%d)',
                          self.inputShape, input:size(fpos)), 0)
    end
    return nn.Select(fpos, 1)
  end
  error(string.format('nn.Convert: cannot convert shape %s to shape b', self.inputShape), 0)
end

-- the data as it is
function Convert:default()
  return nn.Identity()
end

-- batch x targets (multi-class)
function Convert:bt()
  if self.inputShape ~= 'b' then
    error(string.format("nn.Convert: cannot convert shape '%s' to bt", self.inputShape), 0)
  end
  return nn.Reshape(1)
end

-- a Transpose taking inputShape's axes to newShape's order
function Convert:transpose(newShape)
  if newShape == self.inputShape then return nn.Identity() end
  local axes = {}
  for i = 1, #self.inputShape do axes[i] = self.inputShape:sub(i, i) end
  local swaps = {}
  for i = 1, #newShape do
    local want = newShape:sub(i, i)
    local j
    for k = 1, #axes do
      if axes[k] == want then j = k break end
    end
    if j and i ~= j then
      axes[i], axes[j] = axes[j], axes[i]
      swaps[#swaps + 1] = {j, i}
    end
  end
  return nn.Transpose(table.unpack(swaps))
end

function Convert:clearState()
  for _, f in ipairs{'_input', '_gradInput', '__input', '__output', '__gradInput', '__gradOutput'} do
    self[f] = nil
  end
  return parent.clearState(self)
end

function Convert:type(tname, tensorCache)
  if tname then self:clearState() end
  return parent.type(self, tname, tensorCache)
end

-- the type copies are buffers ('_input' is read again in backward); the
-- '__' fields are views of the input, output and gradients with the batch
-- dimension added or removed
function Convert:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.buffers = {_input = 'both', _gradInput = 'backward'}
  tr.state = {__input = true, __output = true, __gradInput = true, __gradOutput = true}
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, true, false
  return tr
end

return Convert
