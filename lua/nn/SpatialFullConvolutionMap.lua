-- nn.SpatialFullConvolutionMap(connTable, kW, kH [, dW, dH]): the full
-- (transposed) 2D convolution restricted to a connection table, as
-- nn.SpatialConvolutionMap restricts a convolution: each row {from, to}
-- adds in[from] spread through weight[k] into out[to]:
-- out[to][(y-1)*dH+i][(x-1)*dW+j] += in[from][y][x] * weight[k][i][j], plus
-- bias[to]. output oH = (H - 1) * dH + kH, likewise oW. input 3D (Torch7's
-- form) or, beyond Torch7, 4D (batch); it may have more planes than the
-- table uses. weight nConnections x kH x kW, bias nOutputPlane, initialised
-- per output plane with s = 1/sqrt(kW*kH*fan-in), as Torch7.
-- Composition: the connections are scattered into a dense nInputPlane x
-- nOutputPlane x kH x kW kernel ('_denseWeight', rebuilt by each call) run
-- through SpatialFullConvolution's gemm + col2im kernel; accGradParameters
-- gathers each row's gradient from the dense one ('_denseGradWeight').

local C = torch._C.nn
local cc = require 'nn.convcheck'
local Map = nn.SpatialConvolutionMap
local SpatialFullConvolutionMap, parent = torch.class('nn.SpatialFullConvolutionMap', 'nn.Module')

function SpatialFullConvolutionMap:__init(conMatrix, kW, kH, dW, dH)
  parent.__init(self)
  local cls = torch.type(self)
  if not torch.isTensor(conMatrix) or conMatrix:dim() ~= 2 or conMatrix:size(2) ~= 2 then
    error(string.format('%s: connTable must be a nConnections x 2 tensor, got %s', cls,
                        nn.utils.shapeString(conMatrix)), 0)
  end
  if conMatrix:min() < 1 then
    error(string.format('%s: connTable must hold plane numbers (integers >= 1)', cls), 0)
  end
  self.kW = cc.count(kW, 'kW', cls)
  self.kH = cc.count(kH, 'kH', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.dH = cc.count(dH or 1, 'dH', cls)
  self.connTable = conMatrix
  self.nInputPlane = math.tointeger(self.connTable:select(2, 1):max())
  self.nOutputPlane = math.tointeger(self.connTable:select(2, 2):max())
  self.weight = torch.Tensor(self.connTable:size(1), self.kH, self.kW)
  self.gradWeight = torch.Tensor(self.connTable:size(1), self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self:reset()
end

SpatialFullConvolutionMap.reset = Map.reset

local function planes(self, input, who)
  cc.input(input, who, {3, 4}, '3D (nInputPlane x H x W) or 4D (batch)', self.weight)
  local d = input:dim()
  if input:size(d - 2) < self.nInputPlane then
    nn.utils.error(who, 'input must have at least %d planes (nInputPlane) in dimension %d, got %s',
                   self.nInputPlane, d - 2, nn.utils.shapeString(input))
  end
  if input:size(d - 2) == self.nInputPlane then return input end
  return input:narrow(d - 2, 1, self.nInputPlane)
end

function SpatialFullConvolutionMap:updateOutput(input)
  local x = planes(self, input, cc.who(self, 'updateOutput'))
  self.finput = self.finput or input.new()
  C.fullconv_updateOutput(self, x, self.output, Map._dense(self, '_denseWeight', self.weight, true, input),
                          self.bias, self.finput)
  return self.output
end

function SpatialFullConvolutionMap:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x = planes(self, input, cc.who(self, 'updateGradInput'))
  self.fgradInput = self.fgradInput or input.new()
  local w = Map._dense(self, '_denseWeight', self.weight, true, input)
  if x == input then
    C.fullconv_updateGradInput(self, x, gradOutput, self.gradInput, w, self.fgradInput)
  else
    self._gradPlanes = self._gradPlanes or input.new()
    C.fullconv_updateGradInput(self, x, gradOutput, self._gradPlanes, w, self.fgradInput)
    self.gradInput:resizeAs(input):zero()
    self.gradInput:narrow(input:dim() - 2, 1, self.nInputPlane):copy(self._gradPlanes)
  end
  return self.gradInput
end

function SpatialFullConvolutionMap:accGradParameters(input, gradOutput, scale)
  local x = planes(self, input, cc.who(self, 'accGradParameters'))
  self.fgradInput = self.fgradInput or input.new()
  local g = Map._dense(self, '_denseGradWeight', nil, true, input)
  C.fullconv_accGradParameters(self, x, gradOutput, g, self.gradBias, self.fgradInput, scale or 1)
  Map._gather(self, g, true)
end

SpatialFullConvolutionMap.type = Map.type
SpatialFullConvolutionMap.memoryTraits = Map.memoryTraits
