-- nn.SpatialMaxPooling(kW, kH [, dW, dH, padW, padH]): max over kW x kH
-- windows of each plane of a 3D or 4D (batch) input; dW, dH default to
-- kW, kH; padding at most half the kernel. :ceil() / :floor() choose how
-- the output size oH = (H + 2*padH - kH) / dH + 1 is rounded (floor by
-- default); in ceil mode a last window that would start in the padding is
-- dropped. 'indices' (a LongTensor shaped like the output) records the
-- 1-based position y*W + x + 1 of each maximum in its plane; backward and
-- nn.SpatialMaxUnpooling use it. Kernel: src/nn/th_nn_pool.c.

local C = torch._C.nn
local SpatialMaxPooling, parent = torch.class('nn.SpatialMaxPooling', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min

function SpatialMaxPooling:__init(kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dW = count(dW or self.kW, 'dW', cls)
  self.dH = count(dH or self.kH, 'dH', cls)
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or 0, 'padH', cls, 0)
  self.ceil_mode = false
  self.indices = torch.LongTensor()
end

function SpatialMaxPooling:ceil()
  self.ceil_mode = true
  return self
end

function SpatialMaxPooling:floor()
  self.ceil_mode = false
  return self
end

function SpatialMaxPooling:updateOutput(input)
  -- indices stay a LongTensor whatever type the module was converted to
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  C.maxpool_updateOutput(self, input, self.output, self.indices)
  -- the input size, for nn.SpatialMaxUnpooling
  local dims = input:dim()
  self.iheight = input:size(dims - 1)
  self.iwidth = input:size(dims)
  return self.output
end

function SpatialMaxPooling:updateGradInput(input, gradOutput)
  C.maxpool_updateGradInput(self, input, gradOutput, self.gradInput, self.indices)
  return self.gradInput
end

-- backward reads only the input's sizes, never its values
function SpatialMaxPooling:memoryTraits()
  return {buffers = {indices = 'both'}, needsInput = false, needsOutput = false}
end

function SpatialMaxPooling:empty()
  self:clearState()
end

function SpatialMaxPooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  return s .. ')'
end

function SpatialMaxPooling:clearState()
  if self.indices then self.indices:set() end
  return parent.clearState(self)
end
