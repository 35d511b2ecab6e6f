-- nn.SpatialConvolutionLocal(nInputPlane, nOutputPlane, iW, iH, kW, kH [,
-- dW, dH, padW, padH]): a locally connected layer: a convolution whose
-- kernel (and bias) differ at every output position:
-- out[o][y][x] = bias[o][y][x] + sum_{c,i,j} weight[y][x][o][c][i][j] *
-- in[c][(y-1)*dH - padH + i][(x-1)*dW - padW + j].
-- input nInputPlane x iH x iW or batch x ... (the sizes given at
-- construction); oH = floor((iH + 2*padH - kH) / dH) + 1, likewise oW.
-- weight oH x oW x nOutputPlane x nInputPlane x kH x kW, bias nOutputPlane
-- x oH x oW, initialised uniform(-s, s), s = 1/sqrt(kW*kH*nInputPlane).
-- Composition: the windows (of the zero-padded input, '_padded') are
-- copied as per-position column matrices, positions x (nInputPlane*kH*kW)
-- x batch ('finput'), and one batched gemm with the per-position kernels
-- gives positions x nOutputPlane x batch ('_outCols'), laid out into the
-- output. Backward: the transposed batched gemm gives column gradients
-- ('fgradInput') added back window offset by window offset (kH*kW adds)
-- into '_gradPadded'; accGradParameters recomputes the columns into
-- 'fgradInput' for one batched gemm into gradWeight ('_goCols' holds
-- gradOutput position-major).

local cc = require 'nn.convcheck'
local SpatialConvolutionLocal, parent = torch.class('nn.SpatialConvolutionLocal', 'nn.Module')

function SpatialConvolutionLocal:__init(nInputPlane, nOutputPlane, iW, iH, kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  local cls = torch.type(self)
  self.nInputPlane = cc.count(nInputPlane, 'nInputPlane', cls)
  self.nOutputPlane = cc.count(nOutputPlane, 'nOutputPlane', cls)
  self.iW = cc.count(iW, 'iW', cls)
  self.iH = cc.count(iH, 'iH', cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.kH = cc.count(kH, 'kH', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.dH = cc.count(dH or 1, 'dH', cls)
  self.padW = cc.count(padW or 0, 'padW', cls, 0)
  self.padH = cc.count(padH or self.padW, 'padH', cls, 0)
  self.oW = (self.padW * 2 + self.iW - self.kW) // self.dW + 1
  self.oH = (self.padH * 2 + self.iH - self.kH) // self.dH + 1
  if self.oW < 1 or self.oH < 1 then
    error(string.format('%s: illegal configuration: output width or height less than 1 (%dx%d input, %dx%d kernel, padding %d,%d)',
                        cls, self.iW, self.iH, self.kW, self.kH, self.padW, self.padH), 0)
  end
  self.weight = torch.Tensor(self.oH, self.oW, self.nOutputPlane, self.nInputPlane, self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane, self.oH, self.oW)
  self.gradWeight = torch.Tensor():resizeAs(self.weight)
  self.gradBias = torch.Tensor():resizeAs(self.bias)
  self:reset()
end

function SpatialConvolutionLocal:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

-- checks the input; returns it as a batch (a 4D view)
local function batched(self, input, who)
  cc.input(input, who, {3, 4}, '3D (nInputPlane x iH x iW) or 4D (batch)', self.weight)
  local d = input:dim()
  if input:size(d - 2) ~= self.nInputPlane or input:size(d - 1) ~= self.iH or input:size(d) ~= self.iW then
    nn.utils.error(who, 'input must be %dx%dx%d (nInputPlane x iH x iW)%s, got %s', self.nInputPlane,
                   self.iH, self.iW, d == 4 and ' per sample' or '', nn.utils.shapeString(input))
  end
  if d == 3 then return input:unsqueeze(1) end
  return input
end

local function outSizes(self, input)
  if input:dim() == 4 then return {input:size(1), self.nOutputPlane, self.oH, self.oW} end
  return {self.nOutputPlane, self.oH, self.oW}
end

-- the zero-padded batch (x itself without padding)
local function padded(self, x)
  if self.padW == 0 and self.padH == 0 then return x end
  self._padded = self._padded or x.new()
  local p = self._padded:resize(x:size(1), self.nInputPlane, self.iH + 2 * self.padH,
                                self.iW + 2 * self.padW):zero()
  p:narrow(3, self.padH + 1, self.iH):narrow(4, self.padW + 1, self.iW):copy(x)
  return p
end

-- the windows of x (B x nIn x Hp x Wp) as B x nIn x oH x oW x kH x kW (a view)
local function windows(self, x)
  return x:unfold(3, self.kH, self.dH):unfold(4, self.kW, self.dW)
end

-- columns: positions x (nIn*kH*kW) x B, in buf
local function columns(self, x, buf)
  local w = windows(self, padded(self, x)):permute(3, 4, 2, 5, 6, 1)  -- oH x oW x nIn x kH x kW x B
  buf:resize(w:size()):copy(w)
  return buf:view(self.oH * self.oW, self.nInputPlane * self.kH * self.kW, x:size(1))
end

local function kernels(self, w)
  return w:view(self.oH * self.oW, self.nOutputPlane, self.nInputPlane * self.kH * self.kW)
end

-- gradOutput position-major: positions x nOut x B, in '_goCols'
local function goCols(self, gradOutput, B)
  local g = gradOutput:view(B, self.nOutputPlane, self.oH * self.oW):permute(3, 2, 1)
  self._goCols = self._goCols or gradOutput.new()
  return self._goCols:resize(g:size()):copy(g)
end

function SpatialConvolutionLocal:updateOutput(input)
  local x = batched(self, input, cc.who(self, 'updateOutput'))
  local B = x:size(1)
  self.finput = self.finput or input.new()
  self._outCols = self._outCols or input.new()
  local cols = columns(self, x, self.finput)
  local L = self.oH * self.oW
  self._outCols:resize(L, self.nOutputPlane, B)
  torch.bmm(self._outCols, kernels(self, self.weight), cols)
  self.output:resize(table.unpack(outSizes(self, input)))
  local o = self.output:view(B, self.nOutputPlane, L)
  o:copy(self._outCols:permute(3, 2, 1))
  o:add(self.bias:view(1, self.nOutputPlane, L):expandAs(o))
  return self.output
end

function SpatialConvolutionLocal:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = cc.who(self, 'updateGradInput')
  local x = batched(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input), input)
  local B = x:size(1)
  local go = goCols(self, gradOutput:contiguous(), B)
  self.fgradInput = self.fgradInput or input.new()
  local K = self.nInputPlane * self.kH * self.kW
  local gcols = self.fgradInput:resize(self.oH * self.oW, K, B)
  torch.bmm(gcols, kernels(self, self.weight):transpose(2, 3), go)
  -- oH x oW x nIn x kH x kW x B, seen as B x nIn x oH x oW per kernel tap
  gcols = gcols:view(self.oH, self.oW, self.nInputPlane, self.kH, self.kW, B)
  local gp
  self.gradInput:resizeAs(input)
  if self.padW == 0 and self.padH == 0 then
    gp = input:dim() == 3 and self.gradInput:view(1, self.nInputPlane, self.iH, self.iW) or self.gradInput
  else
    self._gradPadded = self._gradPadded or input.new()
    gp = self._gradPadded:resize(B, self.nInputPlane, self.iH + 2 * self.padH, self.iW + 2 * self.padW)
  end
  gp:zero()
  local win = windows(self, gp)
  for i = 1, self.kH do
    for j = 1, self.kW do
      win:select(6, j):select(5, i):add(gcols:select(5, j):select(4, i):permute(4, 3, 1, 2))
    end
  end
  if gp ~= self._gradPadded then return self.gradInput end
  local inner = gp:narrow(3, self.padH + 1, self.iH):narrow(4, self.padW + 1, self.iW)
  if input:dim() == 3 then inner = inner:select(1, 1) end
  self.gradInput:copy(inner)
  return self.gradInput
end

function SpatialConvolutionLocal:accGradParameters(input, gradOutput, scale)
  local who = cc.who(self, 'accGradParameters')
  local x = batched(self, input, who)
  cc.gradOutput(gradOutput, who, outSizes(self, input), input)
  scale = scale or 1
  local B = x:size(1)
  self.fgradInput = self.fgradInput or input.new()
  local cols = columns(self, x, self.fgradInput)
  local go = goCols(self, gradOutput:contiguous(), B)
  local gw = kernels(self, self.gradWeight)
  gw:baddbmm(1, gw, scale, go, cols:transpose(2, 3))
  local L = self.oH * self.oW
  self.gradBias:view(self.nOutputPlane, L):add(scale, go:sum(3):view(L, self.nOutputPlane):t())
end

function SpatialConvolutionLocal:type(type, tensorCache)
  for _, k in ipairs({'finput', 'fgradInput', '_padded', '_gradPadded', '_outCols', '_goCols'}) do
    self[k] = self[k] and torch.Tensor()
  end
  return parent.type(self, type, tensorCache)
end

function SpatialConvolutionLocal:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward', _padded = 'both',
                     _gradPadded = 'backward', _outCols = 'forward', _goCols = 'backward'},
          needsInput = true, needsOutput = false}
end

function SpatialConvolutionLocal:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d, %dx%d', torch.type(self),
                          self.nInputPlane, self.nOutputPlane, self.iW, self.iH, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
    s = s .. ', ' .. self.padW .. ',' .. self.padH
  end
  return s .. ')'
end

function SpatialConvolutionLocal:clearState()
  nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
  return parent.clearState(self)
end
