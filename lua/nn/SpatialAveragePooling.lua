-- nn.SpatialAveragePooling(kW, kH [, dW, dH, padW, padH]): mean over kW x kH
-- windows of each plane of a 3D or 4D (batch) input; dW, dH default to 1
-- (as Torch7). :ceil()/:floor() as nn.SpatialMaxPooling. With
-- count_include_pad (the default, :setCountIncludePad()) the divisor counts
-- padded positions (but not the overhang of a ceil-mode window past the
-- padding); :setCountExcludePad() divides by the in-image positions only.
-- Kernel: src/nn/th_nn_pool.c.

local C = torch._C.nn
local SpatialAveragePooling, parent = torch.class('nn.SpatialAveragePooling', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min

function SpatialAveragePooling:__init(kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dW = count(dW or 1, 'dW', cls)
  self.dH = count(dH or 1, 'dH', cls)
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or 0, 'padH', cls, 0)
  self.ceil_mode = false
  self.count_include_pad = true
  self.divide = true
end

function SpatialAveragePooling:ceil()
  self.ceil_mode = true
  return self
end

function SpatialAveragePooling:floor()
  self.ceil_mode = false
  return self
end

function SpatialAveragePooling:setCountIncludePad()
  self.count_include_pad = true
  return self
end

function SpatialAveragePooling:setCountExcludePad()
  self.count_include_pad = false
  return self
end

-- modules saved before padding and ceil mode existed
local function backwardCompatible(self)
  if self.ceil_mode == nil then
    self.ceil_mode = false
    self.count_include_pad = true
    self.padH = 0
    self.padW = 0
  end
end

function SpatialAveragePooling:updateOutput(input)
  backwardCompatible(self)
  C.avgpool_updateOutput(self, input, self.output)
  -- very old saved models summed instead of averaging
  if self.divide == false then self.output:mul(self.kW * self.kH) end
  return self.output
end

function SpatialAveragePooling:updateGradInput(input, gradOutput)
  if self.gradInput then
    backwardCompatible(self)
    C.avgpool_updateGradInput(self, input, gradOutput, self.gradInput)
    if self.divide == false then self.gradInput:mul(self.kW * self.kH) end
    return self.gradInput
  end
end

-- backward reads only the input's sizes
function SpatialAveragePooling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function SpatialAveragePooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  return s .. ')'
end
