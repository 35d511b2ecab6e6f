-- nn.VolumetricConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT=1, dW=1, dH=1,
-- padT=0, padW=padT, padH=padW]): 3D convolution over 4D (nInputPlane x T x H x W)
-- or 5D (batch) input. weight nOutputPlane x nInputPlane x kT x kH x kW, bias
-- nOutputPlane; output nOutputPlane x oT x oH x oW with
-- oT = floor((T + 2*padT - kT) / dT) + 1 (likewise oH, oW).
-- Kernel: vol2col + BLAS gemm per image (src/nn/th_nn_volconv.c). 'finput'
-- is column scratch used only by forward and 'fgradInput' one used only by
-- backward (which re-derives the columns from the input), a few output
-- time-planes at a time: no batch-sized buffer lives between passes.
-- nn.VolumetricDilatedConvolution is this class with dilation fields.

local C = torch._C.nn
local VolumetricConvolution, parent = torch.class('nn.VolumetricConvolution', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min (64/2 passes)
VolumetricConvolution._count = count

function VolumetricConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = count(nInputPlane, 'nInputPlane', cls)
  self.nOutputPlane = count(nOutputPlane, 'nOutputPlane', cls)
  self.kT = count(kT, 'kT', cls)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dT = count(dT or 1, 'dT', cls)
  self.dW = count(dW or 1, 'dW', cls)
  self.dH = count(dH or 1, 'dH', cls)
  self.padT = count(padT or 0, 'padT', cls, 0)
  self.padW = count(padW or self.padT, 'padW', cls, 0)
  self.padH = count(padH or self.padW, 'padH', cls, 0)
  self.weight = torch.Tensor(self.nOutputPlane, self.nInputPlane, self.kT, self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradWeight = torch.Tensor(self.nOutputPlane, self.nInputPlane, self.kT, self.kH, self.kW)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self:reset()
end

function VolumetricConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kT * self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

function VolumetricConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

local function buffers(self)
  nn.utils.workspaceField(self, 'finput', self.weight)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
end

function VolumetricConvolution:updateOutput(input)
  buffers(self)
  C.volconv_updateOutput(self, input, self.output, self.weight, self.bias, self.finput)
  return self.output
end

function VolumetricConvolution:updateGradInput(input, gradOutput)
  if self.gradInput then
    buffers(self)
    C.volconv_updateGradInput(self, input, gradOutput, self.gradInput, self.weight, self.fgradInput)
    return self.gradInput
  end
end

function VolumetricConvolution:accGradParameters(input, gradOutput, scale)
  buffers(self)
  C.volconv_accGradParameters(self, input, gradOutput, self.gradWeight, self.gradBias,
                              self.fgradInput, scale or 1)
end

function VolumetricConvolution:type(type, tensorCache)
  if type == nil then return parent.type(self) end   -- a query, not a conversion
  -- the buffers hold nothing worth converting
  self.finput = self.finput and torch.Tensor()
  self.fgradInput = self.fgradInput and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function VolumetricConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false}
end

function VolumetricConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end

-- Torch7's text: stride shown when stride or padding differ from the default
function VolumetricConvolution:__tostring__()
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
  return s .. ')'
end
