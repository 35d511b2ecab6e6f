-- nn.SpatialDilatedConvolution(nInputPlane, nOutputPlane, kW, kH [, dW, dH,
-- padW, padH, dilationW, dilationH]): a 2D convolution whose kernel taps
-- are dilationW (dilationH) apart: out[o][y][x] = bias[o] + sum_{c,i,j}
-- weight[o][c][i][j] * in[c][(y-1)*dH - padH + (i-1)*dilationH + 1][...].
-- input 3D or 4D (batch); oH = floor((H + 2*padH - (dilationH*(kH-1)+1)) /
-- dH) + 1, likewise oW. weight nOutputPlane x nInputPlane x kH x kW, as
-- nn.SpatialConvolution (its parent class, whose reset and fields it keeps).
-- Kernel: im2col with the taps' spacing + one gemm per tile of output
-- rows, images of a batch in parallel (src/nn/th_nn_dilconv.c); 'finput'
-- is forward-only and 'fgradInput' backward-only per-thread scratch, as
-- nn.SpatialConvolution's.

local C = torch._C.nn
local cc = require 'nn.convcheck'
local SpatialDilatedConvolution, parent =
  torch.class('nn.SpatialDilatedConvolution', 'nn.SpatialConvolution')

function SpatialDilatedConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH,
                                          dilationW, dilationH)
  parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  local cls = torch.type(self)
  self.dilationW = cc.count(dilationW or 1, 'dilationW', cls)
  self.dilationH = cc.count(dilationH or 1, 'dilationH', cls)
end

function SpatialDilatedConvolution:updateOutput(input)
  nn.utils.workspaceField(self, 'finput', self.weight)
  C.dilconv_updateOutput(self, input, self.output, self.weight, self.bias, self.finput, false)
  return self.output
end

function SpatialDilatedConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
  C.dilconv_updateGradInput(self, input, gradOutput, self.gradInput, self.weight, self.fgradInput,
                            false)
  return self.gradInput
end

function SpatialDilatedConvolution:accGradParameters(input, gradOutput, scale)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
  C.dilconv_accGradParameters(self, input, gradOutput, self.gradWeight, self.gradBias,
                              self.fgradInput, scale or 1, false)
end

function SpatialDilatedConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  s = s .. ', ' .. self.dilationW .. ',' .. self.dilationH
  if self.bias then
    return s .. ')'
  else
    return s .. ') without bias'
  end
end
