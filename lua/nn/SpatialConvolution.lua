-- nn.SpatialConvolution(nInputPlane, nOutputPlane, kW, kH [, dW, dH, padW, padH]):
-- 2D convolution over 3D (nInputPlane x H x W) or 4D (batch) input.
-- weight nOutputPlane x nInputPlane x kH x kW, bias nOutputPlane;
-- output nOutputPlane x oH x oW with oH = floor((H + 2*padH - kH) / dH) + 1.
-- Kernel: im2col + BLAS gemm per image, images of a batch in parallel
-- (src/nn/th_nn_conv.c). The columns live in the kernels' shared scratch
-- (src/tensor/th_scratch.c), one block per calling thread: backward
-- re-derives them from the input, so nothing lives between passes.
-- 'finput' and 'fgradInput' stay, empty, for Torch7 code and files.

local C = torch._C.nn
local SpatialConvolution, parent = torch.class('nn.SpatialConvolution', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min (64/2 passes)

function SpatialConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = count(nInputPlane, 'nInputPlane', cls)
  self.nOutputPlane = count(nOutputPlane, 'nOutputPlane', cls)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dW = count(dW or 1, 'dW', cls)
  self.dH = count(dH or 1, 'dH', cls)
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or self.padW, 'padH', cls, 0)
  self.weight = torch.Tensor(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradWeight = torch.Tensor(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self:reset()
end

function SpatialConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

function SpatialConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

-- modules saved by older Torch7 versions: 'padding', 2D (MM) weights, no buffers
local function backCompatibility(self)
  nn.utils.workspaceField(self, 'finput', self.weight)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
  if self.padding then
    self.padW, self.padH, self.padding = self.padding, self.padding, nil
  else
    self.padW = self.padW or 0
    self.padH = self.padH or 0
  end
end

-- the kernels take nOutputPlane x nInputPlane x kH x kW; SpatialConvolutionMM
-- (and old files) keep nOutputPlane x (nInputPlane*kH*kW): a 4D view of the
-- same memory, made per call so the module's own tensor is never replaced
local function as4D(self, w)
  if w == nil or w:dim() ~= 2 then return w end
  return w:view(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
end

function SpatialConvolution:updateOutput(input)
  backCompatibility(self)
  C.conv_updateOutput(self, input, self.output, as4D(self, self.weight), self.bias, self.finput)
  return self.output
end

function SpatialConvolution:updateGradInput(input, gradOutput)
  if self.gradInput then
    backCompatibility(self)
    C.conv_updateGradInput(self, input, gradOutput, self.gradInput, as4D(self, self.weight), self.fgradInput)
    return self.gradInput
  end
end

function SpatialConvolution:accGradParameters(input, gradOutput, scale)
  backCompatibility(self)
  C.conv_accGradParameters(self, input, gradOutput, as4D(self, self.gradWeight), self.gradBias,
                           self.fgradInput, scale or 1)
end

function SpatialConvolution:type(type, tensorCache)
  -- the buffers hold nothing worth converting
  self.finput = self.finput and torch.Tensor()
  self.fgradInput = self.fgradInput and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function SpatialConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false}
end

function SpatialConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  if self.bias then
    return s .. ')'
  else
    return s .. ') without bias'
  end
end

function SpatialConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end
