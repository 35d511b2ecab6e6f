-- nn.SpatialDilatedMaxPooling(kW, kH [, dW, dH, padW, padH, dilationW,
-- dilationH]): max pooling whose kW x kH window samples every
-- dilationW-th column and dilationH-th row (dilation 1: plain
-- nn.SpatialMaxPooling, whose fields, :ceil()/:floor() and 'indices' it
-- inherits). Output size floor (or ceil) of
-- (H + 2 padH - dilationH (kH - 1) - 1) / dH + 1, as Torch7.
-- Kernel: src/nn/th_nn_winpool.c.

local C = torch._C.nn
local SpatialDilatedMaxPooling, parent = torch.class('nn.SpatialDilatedMaxPooling', 'nn.SpatialMaxPooling')

function SpatialDilatedMaxPooling:__init(kW, kH, dW, dH, padW, padH, dilationW, dilationH)
  parent.__init(self, kW, kH, dW, dH, padW, padH)
  for what, v in pairs{dilationW = dilationW or 1, dilationH = dilationH or 1} do
    if (type(v) ~= 'number' or math.tointeger(v) == nil) or v < 1 then
      error(string.format('nn.SpatialDilatedMaxPooling: %s must be an integer >= 1, got %s', what,
                          tostring(v)), 2)
    end
  end
  self.dilationW = dilationW or 1
  self.dilationH = dilationH or 1
end

function SpatialDilatedMaxPooling:updateOutput(input)
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  C.dilmaxpool_updateOutput(self, input, self.output, self.indices)
  local dims = input:dim()
  self.iheight = input:size(dims - 1)
  self.iwidth = input:size(dims)
  return self.output
end

function SpatialDilatedMaxPooling:updateGradInput(input, gradOutput)
  C.indexmax_updateGradInput(self, input, gradOutput, self.gradInput, self.indices)
  return self.gradInput
end

function SpatialDilatedMaxPooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  return s .. ', ' .. self.dilationW .. ',' .. self.dilationH .. ')'
end
