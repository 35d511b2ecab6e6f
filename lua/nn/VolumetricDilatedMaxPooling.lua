-- nn.VolumetricDilatedMaxPooling(kT, kW, kH [, dT, dW, dH, padT, padW, padH,
-- dilationT=1, dilationW=1, dilationH=1]): nn.VolumetricMaxPooling whose window
-- taps are dilation apart; output oT = floor or ceil((T + 2*padT -
-- (dilationT*(kT-1) + 1)) / dT) + 1 (likewise oH, oW). Same kernel and indices.

local VolumetricDilatedMaxPooling, parent =
  torch.class('nn.VolumetricDilatedMaxPooling', 'nn.VolumetricMaxPooling')

function VolumetricDilatedMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH,
                                            dilationT, dilationW, dilationH)
  parent.__init(self, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  local cls, count = torch.type(self), nn.VolumetricMaxPooling._count
  self.dilationT = count(dilationT or 1, 'dilationT', cls)
  self.dilationW = count(dilationW or 1, 'dilationW', cls)
  self.dilationH = count(dilationH or 1, 'dilationH', cls)
end

function VolumetricDilatedMaxPooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self),
                          self.kT, self.kW, self.kH, self.dT, self.dW, self.dH)
  -- (files from before padding existed have no pad fields: Torch7's guard)
  if (self.padT or self.padW or self.padH) and (self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
  end
  s = s .. ', ' .. self.dilationT .. ',' .. self.dilationW .. ',' .. self.dilationH
  return s .. ')'
end
