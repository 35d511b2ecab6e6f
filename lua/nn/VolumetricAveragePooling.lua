-- nn.VolumetricAveragePooling(kT, kW, kH [, dT=kT, dW=kW, dH=kH, padT=0, padW=0, padH=0]):
-- mean over kT x kH x kW windows of each plane of a 4D (C x T x H x W) or 5D
-- (batch) input; output oT = floor((T + 2*padT - kT) / dT) + 1 (likewise oH,
-- oW). Torch7's later options: padding (at most half the kernel), :ceil() /
-- :floor() rounding, :setCountIncludePad() (default: the divisor counts the
-- padding) / :setCountExcludePad(). Kernel: src/nn/th_nn_volpool.c.

local C = torch._C.nn
local VolumetricAveragePooling, parent = torch.class('nn.VolumetricAveragePooling', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min

function VolumetricAveragePooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.kT = count(kT, 'kT', cls)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dT = count(dT or self.kT, 'dT', cls)
  self.dW = count(dW or self.kW, 'dW', cls)
  self.dH = count(dH or self.kH, 'dH', cls)
  self.padT = count(padT or 0, 'padT', cls, 0)
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or 0, 'padH', cls, 0)
  self.ceil_mode = false
  self.count_include_pad = true
end

function VolumetricAveragePooling:ceil()
  self.ceil_mode = true
  return self
end

function VolumetricAveragePooling:floor()
  self.ceil_mode = false
  return self
end

function VolumetricAveragePooling:setCountIncludePad()
  self.count_include_pad = true
  return self
end

function VolumetricAveragePooling:setCountExcludePad()
  self.count_include_pad = false
  return self
end

function VolumetricAveragePooling:updateOutput(input)
  C.volavgpool_updateOutput(self, input, self.output)
  return self.output
end

function VolumetricAveragePooling:updateGradInput(input, gradOutput)
  C.volavgpool_updateGradInput(self, input, gradOutput, self.gradInput)
  return self.gradInput
end

-- backward reads only the input's sizes
function VolumetricAveragePooling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function VolumetricAveragePooling:empty()
  return parent.clearState(self)
end

function VolumetricAveragePooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self),
                          self.kT, self.kW, self.kH, self.dT, self.dW, self.dH)
  if (self.padT or 0) ~= 0 or (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then
    s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
  end
  return s .. ')'
end
