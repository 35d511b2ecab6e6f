-- nn.SpatialDilatedConvolution(nInputPlane, nOutputPlane, kW, kH [, dW, dH,
-- padW, padH, dilationW, dilationH]): a 2D convolution whose kernel taps
-- are dilationW (dilationH) apart: out[o][y][x] = bias[o] + sum_{c,i,j}
-- weight[o][c][i][j] * in[c][(y-1)*dH - padH + (i-1)*dilationH + 1][...].
-- input 3D or 4D (batch); oH = floor((H + 2*padH - (dilationH*(kH-1)+1)) /
-- dH) + 1, likewise oW. weight nOutputPlane x nInputPlane x kH x kW, as
-- nn.SpatialConvolution (its parent class, whose reset and fields it keeps).
-- Composition: the dilated kernel is written out as a dense kernel of
-- (dilationH*(kH-1)+1) x (dilationW*(kW-1)+1) taps, zero between the real
-- ones ('_dilatedWeight', rebuilt from 'weight' by each call), and run
-- through SpatialConvolution's im2col + gemm kernel; accGradParameters
-- gathers the real taps' gradients out of the dense one
-- ('_dilatedGradWeight', backward scratch). The zero taps cost
-- dilation-squared times the work of a dedicated dilated im2col.

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

-- the window the dense kernel runs with, as a stand-in for self
local function window(self)
  return cc.window(self, {kW = self.dilationW * (self.kW - 1) + 1,
                          kH = self.dilationH * (self.kH - 1) + 1,
                          dW = self.dW, dH = self.dH, padW = self.padW, padH = self.padH})
end

-- the real taps of a dense nOut x nIn x kHd x kWd kernel (a strided view)
local function taps(self, dense)
  return dense:unfold(3, 1, self.dilationH):unfold(4, 1, self.dilationW)
              :view(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
end

local function dense(self, buf, w, input)
  self[buf] = self[buf] or input.new()
  local win = window(self)
  local t = self[buf]:resize(self.nOutputPlane, self.nInputPlane, win.kH, win.kW):zero()
  if w then taps(self, t):copy(w:view(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)) end
  return t, win
end

local function check(self, input, who)
  cc.input(input, who, {3, 4}, '3D (nInputPlane x H x W) or 4D (batch)')
  local d = input:dim()
  if input:size(d - 2) ~= self.nInputPlane then
    nn.utils.error(who, 'input must have %d planes (nInputPlane) in dimension %d, got %s',
                   self.nInputPlane, d - 2, nn.utils.shapeString(input))
  end
  local kHd, kWd = self.dilationH * (self.kH - 1) + 1, self.dilationW * (self.kW - 1) + 1
  if input:size(d - 1) + 2 * self.padH < kHd or input:size(d) + 2 * self.padW < kWd then
    nn.utils.error(who, 'input %s is smaller than the dilated kernel (%dx%d taps %d,%d apart, %dx%d with padding %d,%d)',
                   nn.utils.shapeString(input), self.kW, self.kH, self.dilationW, self.dilationH,
                   kWd, kHd, self.padW, self.padH)
  end
end

function SpatialDilatedConvolution:updateOutput(input)
  check(self, input, cc.who(self, 'updateOutput'))
  self.finput = self.finput or self.weight.new()
  local w, win = dense(self, '_dilatedWeight', self.weight, input)
  C.conv_updateOutput(win, input, self.output, w, self.bias, self.finput)
  return self.output
end

function SpatialDilatedConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  check(self, input, cc.who(self, 'updateGradInput'))
  self.fgradInput = self.fgradInput or self.weight.new()
  local w, win = dense(self, '_dilatedWeight', self.weight, input)
  C.conv_updateGradInput(win, input, gradOutput, self.gradInput, w, self.fgradInput)
  return self.gradInput
end

function SpatialDilatedConvolution:accGradParameters(input, gradOutput, scale)
  check(self, input, cc.who(self, 'accGradParameters'))
  self.fgradInput = self.fgradInput or self.weight.new()
  local g, win = dense(self, '_dilatedGradWeight', nil, input)
  C.conv_accGradParameters(win, input, gradOutput, g, self.gradBias, self.fgradInput, scale or 1)
  local gw = self.gradWeight:view(self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
  gw:add(taps(self, g))
end

function SpatialDilatedConvolution:type(type, tensorCache)
  self._dilatedWeight = self._dilatedWeight and torch.Tensor()
  self._dilatedGradWeight = self._dilatedGradWeight and torch.Tensor()
  return parent.type(self, type, tensorCache)
end

function SpatialDilatedConvolution:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward', _dilatedWeight = 'both',
                     _dilatedGradWeight = 'backward'},
          needsInput = true, needsOutput = false}
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
