-- nn.SpatialFullConvolution(nInputPlane, nOutputPlane, kW, kH [, dW, dH, padW, padH, adjW, adjH]):
-- transposed ("full", "deconvolution") 2D convolution over 3D or 4D (batch)
-- input. weight nInputPlane x nOutputPlane x kH x kW, bias nOutputPlane;
-- output size oH = (H - 1) * dH - 2*padH + kH + adjH (adjH < dH), likewise oW.
-- Kernel: gemm + col2im per image (src/nn/th_nn_fullconv.c); 'finput' is
-- forward-only scratch, 'fgradInput' backward-only scratch.
-- Table input {input, target} (Torch7): the output takes the target's last
-- two sizes, adj being computed per call as (target + 2*pad - k) % d
-- (the fields adjW, adjH stay as they are); gradInput is then {gradient,
-- zeros expanded to the target's size} (a view of 'zeroScalar'), its first
-- element the same tensor object gradInput is in tensor mode.

local C = torch._C.nn
local cc = require 'nn.convcheck'
local SpatialFullConvolution, parent = torch.class('nn.SpatialFullConvolution', 'nn.Module')

local count = nn.utils.count   -- (v, what, cls, min): an integer >= min

function SpatialFullConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, adjW, adjH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = count(nInputPlane, 'nInputPlane', cls)
  self.nOutputPlane = count(nOutputPlane, 'nOutputPlane', cls)
  self.kW = count(kW, 'kW', cls)
  self.kH = count(kH, 'kH', cls)
  self.dW = count(dW or 1, 'dW', cls)
  self.dH = count(dH or 1, 'dH', cls)
  self.padW = count(padW or 0, 'padW', cls, 0)
  self.padH = count(padH or 0, 'padH', cls, 0)
  self.adjW = count(adjW or 0, 'adjW', cls, 0)
  self.adjH = count(adjH or 0, 'adjH', cls, 0)
  if self.adjW > self.dW - 1 or self.adjH > self.dH - 1 then
    error(string.format('%s: adjW and adjH must be smaller than dW and dH, got adj %d,%d for stride %d,%d',
                        cls, self.adjW, self.adjH, self.dW, self.dH), 2)
  end
  self.weight = torch.Tensor(self.nInputPlane, self.nOutputPlane, self.kH, self.kW)
  self.gradWeight = torch.Tensor(self.nInputPlane, self.nOutputPlane, self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self:reset()
end

function SpatialFullConvolution:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

function SpatialFullConvolution:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

local function buffers(self)
  self.adjW = self.adjW or 0
  self.adjH = self.adjH or 0
  nn.utils.workspaceField(self, 'finput', self.weight)
  nn.utils.workspaceField(self, 'fgradInput', self.weight)
end

-- the input tensor and the module, or for a table input {input, target}
-- a stand-in for it whose adj gives the target's output size
local function split(self, input, who)
  if torch.type(input) ~= 'table' then return input, self end
  local x, target = input[1], input[2]
  if not torch.isTensor(x) or not torch.isTensor(target) or target:dim() < 2 then
    nn.utils.error(who, 'table input must be {input, target} with a target of at least 2D, got {%s, %s}',
                   nn.utils.shapeString(x), nn.utils.shapeString(target))
  end
  local tH, tW = target:size(target:dim() - 1), target:size(target:dim())
  return x, cc.window(self, {kW = self.kW, kH = self.kH, dW = self.dW, dH = self.dH,
                             padW = self.padW, padH = self.padH,
                             adjW = (tW + 2 * self.padW - self.kW) % self.dW,
                             adjH = (tH + 2 * self.padH - self.kH) % self.dH})
end

function SpatialFullConvolution:updateOutput(input)
  buffers(self)
  local x, win = split(self, input, cc.who(self, 'updateOutput'))
  C.fullconv_updateOutput(win, x, self.output, self.weight, self.bias, self.finput)
  return self.output
end

function SpatialFullConvolution:updateGradInput(input, gradOutput)
  if self.gradInput then
    buffers(self)
    local x, win = split(self, input, cc.who(self, 'updateGradInput'))
    -- the gradient tensor object stays the same in both forms
    if torch.type(self.gradInput) == 'table' then self.gradInput = self.gradInput[1] or x.new() end
    C.fullconv_updateGradInput(win, x, gradOutput, self.gradInput, self.weight, self.fgradInput)
    if torch.type(input) == 'table' then
      local target = input[2]
      if not self.zeroScalar or torch.type(self.zeroScalar) ~= torch.type(target) then
        self.zeroScalar = target.new(1):zero()
      end
      local ones = {}
      for i = 1, target:dim() do ones[i] = 1 end
      self.gradInput = {self.gradInput, self.zeroScalar:view(table.unpack(ones)):expandAs(target)}
    end
    return self.gradInput
  end
end

function SpatialFullConvolution:accGradParameters(input, gradOutput, scale)
  buffers(self)
  local x, win = split(self, input, cc.who(self, 'accGradParameters'))
  C.fullconv_accGradParameters(win, x, gradOutput, self.gradWeight, self.gradBias,
                               self.fgradInput, scale or 1)
end

function SpatialFullConvolution:type(type, tensorCache)
  self.finput = self.finput and torch.Tensor()
  self.fgradInput = self.fgradInput and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function SpatialFullConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward'},
          needsInput = true, needsOutput = false, state = {zeroScalar = true, ones = true}}
end

function SpatialFullConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  if (self.adjW or self.adjH) and (self.adjW ~= 0 or self.adjH ~= 0) then
    s = s .. ', ' .. self.adjW .. ',' .. self.adjH
  end
  if self.bias then
    return s .. ')'
  else
    return s .. ') without bias'
  end
end

function SpatialFullConvolution:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end
