-- nn.VolumetricDilatedConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT, dW, dH,
-- padT, padW, padH, dilationT=1, dilationW=1, dilationH=1]): nn.VolumetricConvolution
-- whose kernel taps are dilation apart; output size
-- oT = floor((T + 2*padT - (dilationT*(kT-1) + 1)) / dT) + 1 (likewise oH, oW).
-- Same kernel (vol2col reads the dilated taps), buffers and traits.

local VolumetricDilatedConvolution, parent =
  torch.class('nn.VolumetricDilatedConvolution', 'nn.VolumetricConvolution')

function VolumetricDilatedConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH,
                                             padT, padW, padH, dilationT, dilationW, dilationH)
  parent.__init(self, nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  local cls, count = torch.type(self), nn.VolumetricConvolution._count
  self.dilationT = count(dilationT or 1, 'dilationT', cls)
  self.dilationW = count(dilationW or 1, 'dilationW', cls)
  self.dilationH = count(dilationH or 1, 'dilationH', cls)
end

function VolumetricDilatedConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.kT, self.kW, self.kH)
  if self.dT ~= 1 or self.dW ~= 1 or self.dH ~= 1 or
     self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.dT, self.dW, self.dH)
  end
  -- (files from before padding existed have no pad fields: Torch7's guard)
  if (self.padT or self.padW or self.padH) and (self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
  end
  s = s .. ', ' .. self.dilationT .. ',' .. self.dilationW .. ',' .. self.dilationH
  if self.bias then
    return s .. ')'
  end
  return s .. ') without bias'
end
