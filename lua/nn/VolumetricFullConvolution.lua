-- nn.VolumetricFullConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT=1, dW=1, dH=1,
-- padT=0, padW=0, padH=0, adjT=0, adjW=0, adjH=0]): transposed ("full",
-- "deconvolution") 3D convolution over 4D or 5D (batch) input. weight
-- nInputPlane x nOutputPlane x kT x kH x kW, bias nOutputPlane; output
-- oT = (T - 1)*dT - 2*padT + kT + adjT (adjT < dT), likewise oH, oW.
-- Input may also be {input, target}: the adj values are then chosen so the
-- output has the target's last three sizes, and gradInput is
-- {gradInput, zeros shaped like target} (the zeros: one stored element).
-- Kernel: the transpose of nn.VolumetricConvolution's (src/nn/th_nn_volconv.c);
-- 'finput' forward-only and 'fgradInput' backward-only column scratch.

local C = torch._C.nn
local VolumetricFullConvolution, parent = torch.class('nn.VolumetricFullConvolution', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min

function VolumetricFullConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH,
                                          padT, padW, padH, adjT, adjW, adjH)
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
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or 0, 'padH', cls, 0)
  self.adjT = count(adjT or 0, 'adjT', cls, 0)
  self.adjW = count(adjW or 0, 'adjW', cls, 0)
  self.adjH = count(adjH or 0, 'adjH', cls, 0)
  if self.adjT > self.dT - 1 or self.adjW > self.dW - 1 or self.adjH > self.dH - 1 then
    error(string.format('%s: adjT, adjW and adjH must be smaller than dT, dW and dH, got adj %d,%d,%d for stride %d,%d,%d',
                        cls, self.adjT, self.adjW, self.adjH, self.dT, self.dW, self.dH), 2)
  end
  self.weight = torch.Tensor(self.nInputPlane, self.nOutputPlane, self.kT, self.kH, self.kW)
  self.gradWeight = torch.Tensor(self.nInputPlane, self.nOutputPlane, self.kT, self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self.finput = torch.Tensor()
  self.fgradInput = torch.Tensor()
  self:reset()
end

function VolumetricFullConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kT * self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

function VolumetricFullConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

-- files of older Torch7 versions: nOutputPlane x nInputPlane weights (no
-- adj fields), pads named pT/pW/pH
local function backCompatibility(self)
  if not self.adjW then
    self.weight = self.weight:transpose(1, 2):contiguous()
    if self.gradWeight then self.gradWeight = self.gradWeight:transpose(1, 2):contiguous() end
  end
  self.padW = self.padW or self.pW or 0
  self.padH = self.padH or self.pH or 0
  self.padT = self.padT or self.pT or 0
  self.adjW = self.adjW or 0
  self.adjH = self.adjH or 0
  self.adjT = self.adjT or 0
  nn.utils.workspaceField(self, 'finput', self.weight)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
end

-- the input tensor and the adj values: from the fields, or for
-- {input, target} the ones that give the target's sizes
local function unpackInput(self, input, method)
  if torch.type(input) ~= 'table' then return input, self.adjT, self.adjW, self.adjH end
  local x, target = input[1], input[2]
  if not torch.isTensor(x) or not torch.isTensor(target) then
    error(string.format('%s:%s: a table input must be {input, target} (two tensors), got {%s, %s}',
                        torch.type(self), method, torch.type(x), torch.type(target)), 3)
  end
  if target:dim() < 3 then
    error(string.format('%s:%s: the target (input[2]) must have at least 3 dimensions (its last three are the output size), got %dD',
                        torch.type(self), method, target:dim()), 3)
  end
  local n = target:dim()
  local function adj(size, k, pad, d) return (size + 2 * pad - k) % d end
  return x, adj(target:size(n - 2), self.kT, self.padT, self.dT),
         adj(target:size(n), self.kW, self.padW, self.dW),
         adj(target:size(n - 1), self.kH, self.padH, self.dH)
end

function VolumetricFullConvolution:updateOutput(input)
  backCompatibility(self)
  local x, aT, aW, aH = unpackInput(self, input, 'updateOutput')
  C.volfullconv_updateOutput(self, x, self.output, self.weight, self.bias, self.finput, aT, aW, aH)
  return self.output
end

function VolumetricFullConvolution:updateGradInput(input, gradOutput)
  if self.gradInput == nil then return end
  backCompatibility(self)
  local x, aT, aW, aH = unpackInput(self, input, 'updateGradInput')
  -- the tensor part is the same object whichever form the input takes
  local gi = self.gradInput
  if torch.type(gi) == 'table' then gi = gi[1] end
  C.volfullconv_updateGradInput(self, x, gradOutput, gi, self.weight, self.fgradInput, aT, aW, aH)
  if torch.type(input) == 'table' then
    self.zeroScalar = self.zeroScalar or input[2].new(1):zero()
    local ones = {}
    for d = 1, input[2]:dim() do ones[d] = 1 end
    self.gradInput = {gi, self.zeroScalar:view(table.unpack(ones)):expandAs(input[2])}
  else
    self.gradInput = gi
  end
  return self.gradInput
end

function VolumetricFullConvolution:accGradParameters(input, gradOutput, scale)
  backCompatibility(self)
  local x, aT, aW, aH = unpackInput(self, input, 'accGradParameters')
  C.volfullconv_accGradParameters(self, x, gradOutput, self.gradWeight, self.gradBias,
                                  self.fgradInput, scale or 1, aT, aW, aH)
end

function VolumetricFullConvolution:type(type, tensorCache)
  if type == nil then return parent.type(self) end   -- a query, not a conversion
  self.finput = torch.Tensor()
  self.fgradInput = torch.Tensor()
  self.zeroScalar = nil
  return parent.type(self, type, tensorCache)
end

-- zeroScalar: the one stored zero the {input, target} form's gradInput[2]
-- expands; 'ones' is a field of Torch7's files (unused here)
function VolumetricFullConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false, state = {zeroScalar = true, ones = true}}
end

function VolumetricFullConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end

function VolumetricFullConvolution:__tostring__()
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
  if (self.adjT or 0) ~= 0 or (self.adjW or 0) ~= 0 or (self.adjH or 0) ~= 0 then
    s = s .. ', ' .. self.adjT .. ',' .. self.adjW .. ',' .. self.adjH
  end
  return s .. ')'
end
