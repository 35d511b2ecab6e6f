-- nn.VolumetricMaxPooling(kT, kW, kH [, dT=kT, dW=kW, dH=kH, padT=0, padW=0, padH=0]):
-- max over kT x kH x kW windows of each plane of a 4D (C x T x H x W) or 5D
-- (batch) input; padding at most half the kernel. :ceil() / :floor() choose
-- how oT = (T + 2*padT - kT) / dT + 1 (likewise oH, oW) is rounded (floor by
-- default); in ceil mode a last window that would start in the padding is
-- dropped. 'indices' (a LongTensor shaped like the output) records the
-- 1-based position (t*H + y)*W + x + 1 of each maximum in its plane;
-- backward and nn.VolumetricMaxUnpooling use it. Kernel:
-- src/nn/th_nn_volpool.c. nn.VolumetricDilatedMaxPooling adds dilation.

local C = torch._C.nn
local VolumetricMaxPooling, parent = torch.class('nn.VolumetricMaxPooling', 'nn.Module')

-- version 1 files have no ceil_mode: the kernel binding reads nil as floor
VolumetricMaxPooling.__version = 2

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min
VolumetricMaxPooling._count = count

function VolumetricMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH)
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
  self.indices = torch.LongTensor()
end

function VolumetricMaxPooling:ceil()
  self.ceil_mode = true
  return self
end

function VolumetricMaxPooling:floor()
  self.ceil_mode = false
  return self
end

function VolumetricMaxPooling:updateOutput(input)
  -- indices stay a LongTensor whatever type the module was converted to
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  C.volmaxpool_updateOutput(self, input, self.output, self.indices)
  -- the input size, for nn.VolumetricMaxUnpooling
  local dims = input:dim()
  self.itime = input:size(dims - 2)
  self.iheight = input:size(dims - 1)
  self.iwidth = input:size(dims)
  return self.output
end

function VolumetricMaxPooling:updateGradInput(input, gradOutput)
  C.volmaxpool_updateGradInput(self, input, gradOutput, self.gradInput, self.indices)
  return self.gradInput
end

-- backward reads only the input's sizes, never its values
function VolumetricMaxPooling:memoryTraits()
  return {buffers = {indices = 'both'}, needsInput = false, needsOutput = false}
end

function VolumetricMaxPooling:empty()
  self:clearState()
end

function VolumetricMaxPooling:clearState()
  if self.indices then self.indices:set() end
  return parent.clearState(self)
end

function VolumetricMaxPooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self),
                          self.kT, self.kW, self.kH, self.dT, self.dW, self.dH)
  -- (files from before padding existed have no pad fields: Torch7's guard)
  if (self.padT or self.padW or self.padH) and (self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
  end
  return s .. ')'
end
