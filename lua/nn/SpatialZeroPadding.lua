-- nn.SpatialZeroPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two
-- dimensions of a 3D or 4D (batch) input with zeros: pad_l columns on the
-- left, pad_r on the right, pad_t rows on top, pad_b at the bottom (the
-- others default to pad_l). A negative pad crops instead.
-- Implemented with views and one copy (no kernel of its own); constructor
-- and traits: nn/padding.lua.

local SpatialZeroPadding = torch.class('nn.SpatialZeroPadding', 'nn.Module')
local padding = require 'nn.padding'

SpatialZeroPadding.__init = padding.init

local function checkInput(self, input, method)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) then
    local got = torch.isTensor(input)
      and string.format('%dD %s', input:dim(), table.concat(input:size():totable(), 'x'))
      or torch.type(input)
    error(string.format('%s:%s: input must be 3D or 4D (batch), got %s', torch.type(self), method, got), 3)
  end
  local dh, dw = input:dim() - 1, input:dim()
  local h = input:size(dh) + self.pad_t + self.pad_b
  local w = input:size(dw) + self.pad_l + self.pad_r
  if w < 1 or h < 1 then
    error(string.format('%s:%s: input %s is too small for cropping %d,%d,%d,%d', torch.type(self), method,
                        table.concat(input:size():totable(), 'x'), self.pad_l, self.pad_r, self.pad_t,
                        self.pad_b), 3)
  end
  return dh, dw, h, w
end

-- the part of the padded tensor 'big' and of the unpadded 'small' that correspond
local function cores(self, big, small, dh, dw)
  if self.pad_t < 0 then small = small:narrow(dh, 1 - self.pad_t, small:size(dh) + self.pad_t) end
  if self.pad_b < 0 then small = small:narrow(dh, 1, small:size(dh) + self.pad_b) end
  if self.pad_l < 0 then small = small:narrow(dw, 1 - self.pad_l, small:size(dw) + self.pad_l) end
  if self.pad_r < 0 then small = small:narrow(dw, 1, small:size(dw) + self.pad_r) end
  if self.pad_t > 0 then big = big:narrow(dh, 1 + self.pad_t, big:size(dh) - self.pad_t) end
  if self.pad_b > 0 then big = big:narrow(dh, 1, big:size(dh) - self.pad_b) end
  if self.pad_l > 0 then big = big:narrow(dw, 1 + self.pad_l, big:size(dw) - self.pad_l) end
  if self.pad_r > 0 then big = big:narrow(dw, 1, big:size(dw) - self.pad_r) end
  return big, small
end

function SpatialZeroPadding:updateOutput(input)
  local dh, dw, h, w = checkInput(self, input, 'updateOutput')
  local size = input:size()
  size[dh], size[dw] = h, w
  self.output:resize(size):zero()
  local out, inp = cores(self, self.output, input, dh, dw)
  if out:nElement() > 0 then out:copy(inp) end
  return self.output
end

function SpatialZeroPadding:updateGradInput(input, gradOutput)
  local dh, dw, h, w = checkInput(self, input, 'updateGradInput')
  local size = input:size()
  size[dh], size[dw] = h, w
  local same = torch.isTensor(gradOutput) and gradOutput:dim() == #size
  for d = 1, #size do same = same and gradOutput:size(d) == size[d] end
  if not same then
    error(string.format('%s:updateGradInput: gradOutput must be %s (the output size), got %s', torch.type(self),
                        table.concat(size:totable(), 'x'),
                        torch.isTensor(gradOutput) and table.concat(gradOutput:size():totable(), 'x')
                        or torch.type(gradOutput)), 2)
  end
  self.gradInput:resizeAs(input):zero()
  local go, gi = cores(self, gradOutput, self.gradInput, dh, dw)
  if gi:nElement() > 0 then gi:copy(go) end
  return self.gradInput
end

-- only the input's sizes are read by backward
SpatialZeroPadding.memoryTraits = padding.memoryTraits
SpatialZeroPadding.__tostring__ = padding.tostring
