-- nn.SpatialConvolutionMap(connTable, kW, kH [, dW, dH]): a 2D convolution
-- where output plane 'to' sees only the input planes 'from' that a row
-- {from, to} of the connection table names, each row with its own kH x kW
-- kernel: out[to] = bias[to] + sum over rows k with connTable[k][2] == to of
-- correlate(in[connTable[k][1]], weight[k]).
-- connTable: nConnections x 2 (1-based plane numbers; nn.tables.full,
-- oneToOne and random build them, as Torch7). nInputPlane and nOutputPlane
-- are the largest numbers in its columns; the input may have more planes
-- (the rest are ignored, their gradient zero). input 3D or 4D (batch), no
-- padding; weight nConnections x kH x kW, bias nOutputPlane, initialised
-- per output plane with s = 1/sqrt(kW*kH*fan-in), as Torch7.
-- Composition: the connections are scattered into a dense nOutputPlane x
-- nInputPlane x kH x kW kernel, zero where the table has no row
-- ('_denseWeight', rebuilt by each call), run through SpatialConvolution's
-- im2col + gemm kernel; accGradParameters gathers each row's gradient
-- from the dense one ('_denseGradWeight', backward scratch).

local C = torch._C.nn
local cc = require 'nn.convcheck'
local SpatialConvolutionMap, parent = torch.class('nn.SpatialConvolutionMap', 'nn.Module')

nn.tables = nn.tables or {}

-- every input plane to every output plane, output-major (Torch7's order)
function nn.tables.full(nin, nout)
  local t = torch.Tensor(nin * nout, 2)
  for j = 1, nout do
    for i = 1, nin do
      t[(j - 1) * nin + i][1] = i
      t[(j - 1) * nin + i][2] = j
    end
  end
  return t
end

-- plane i to plane i
function nn.tables.oneToOne(nfeat)
  local t = torch.Tensor(nfeat, 2)
  for i = 1, nfeat do t[i][1], t[i][2] = i, i end
  return t
end

-- each output plane gets nto distinct input planes: successive chunks of a
-- random permutation of the inputs, a fresh permutation once its whole
-- chunks are used (Torch7's draws, so a seed gives Torch7's table)
function nn.tables.random(nin, nout, nto)
  local t = torch.Tensor(nout * nto, 2)
  local chunks = nin // nto
  local perm, c = torch.randperm(nin), 0
  for j = 1, nout do
    for k = 1, nto do
      t[(j - 1) * nto + k][1] = perm[c * nto + k]
      t[(j - 1) * nto + k][2] = j
    end
    c = c + 1
    if c == chunks then perm, c = torch.randperm(nin), 0 end
  end
  return t
end

-- connTable checked: a 2D nConnections x 2 tensor of positive integers
local function checkTable(conn, cls)
  if not torch.isTensor(conn) or conn:dim() ~= 2 or conn:size(2) ~= 2 or conn:size(1) < 1 then
    error(string.format('%s: connTable must be a nConnections x 2 tensor, got %s', cls,
                        nn.utils.shapeString(conn)), 0)
  end
  local c = conn:double()
  if c:min() < 1 or (c - c:clone():floor()):abs():max() ~= 0 then
    error(string.format('%s: connTable must hold plane numbers (integers >= 1)', cls), 0)
  end
end

function SpatialConvolutionMap:__init(conMatrix, kW, kH, dW, dH)
  parent.__init(self)
  local cls = torch.type(self)
  checkTable(conMatrix, cls)
  self.kW = cc.count(kW, 'kW', cls)
  self.kH = cc.count(kH, 'kH', cls)
  self.dW = cc.count(dW or 1, 'dW', cls)
  self.dH = cc.count(dH or 1, 'dH', cls)
  self.connTable = conMatrix
  self.nInputPlane = math.tointeger(self.connTable:select(2, 1):max())
  self.nOutputPlane = math.tointeger(self.connTable:select(2, 2):max())
  self.weight = torch.Tensor(self.connTable:size(1), self.kH, self.kW)
  self.bias = torch.Tensor(self.nOutputPlane)
  self.gradWeight = torch.Tensor(self.connTable:size(1), self.kH, self.kW)
  self.gradBias = torch.Tensor(self.nOutputPlane)
  self:reset()
end

function SpatialConvolutionMap:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
    self.weight:uniform(-stdv, stdv)
    self.bias:uniform(-stdv, stdv)
    return self
  end
  local fanin = torch.zeros(self.nOutputPlane)
  local n = self.connTable:size(1)
  for k = 1, n do
    local to = math.tointeger(self.connTable[k][2])
    fanin[to] = fanin[to] + 1
  end
  for k = 1, n do
    local s = 1 / math.sqrt(self.kW * self.kH * fanin[math.tointeger(self.connTable[k][2])])
    self.weight:select(1, k):uniform(-s, s)
  end
  for o = 1, self.nOutputPlane do
    local s = 1 / math.sqrt(self.kW * self.kH * fanin[o])
    self.bias[o] = torch.uniform(-s, s)
  end
  return self
end

-- the rows of the dense kernel (viewed nA*nB x kH*kW) each connection uses:
-- planes (to, from) for a convolution, (from, to) for a full convolution
local function denseRows(self, transposed)
  local from = self.connTable:select(2, 1):long()
  local to = self.connTable:select(2, 2):long()
  if transposed then return (from - 1) * self.nOutputPlane + to end
  return (to - 1) * self.nInputPlane + from
end

-- the dense kernel with the connections' weights (or zeros), in self[buf]
local function dense(self, buf, w, transposed, like)
  local a, b = self.nOutputPlane, self.nInputPlane
  if transposed then a, b = b, a end
  self[buf] = self[buf] or like.new()
  local d = self[buf]:resize(a, b, self.kH, self.kW):zero()
  if w then
    d:view(a * b, self.kH * self.kW):indexAdd(1, denseRows(self, transposed),
                                              w:contiguous():view(-1, self.kH * self.kW))
  end
  return d
end

-- the connections' share of a dense kernel gradient, added into gradWeight
local function gather(self, g, transposed)
  local rows = g:view(-1, self.kH * self.kW):index(1, denseRows(self, transposed))
  self.gradWeight:view(-1, self.kH * self.kW):add(rows)
end

-- for nn.SpatialFullConvolutionMap
SpatialConvolutionMap._dense = dense
SpatialConvolutionMap._gather = gather

-- checks the input; returns the planes the kernel reads (a narrowed view
-- when the input has more planes than the table uses)
local function planes(self, input, who)
  cc.input(input, who, {3, 4}, '3D (nInputPlane x H x W) or 4D (batch)', self.weight)
  local d = input:dim()
  if input:size(d - 2) < self.nInputPlane then
    nn.utils.error(who, 'input must have at least %d planes (nInputPlane) in dimension %d, got %s',
                   self.nInputPlane, d - 2, nn.utils.shapeString(input))
  end
  if input:size(d - 1) < self.kH or input:size(d) < self.kW then
    nn.utils.error(who, 'input %s is smaller than the %dx%d kernel', nn.utils.shapeString(input),
                   self.kW, self.kH)
  end
  if input:size(d - 2) == self.nInputPlane then return input end
  return input:narrow(d - 2, 1, self.nInputPlane)
end

function SpatialConvolutionMap:updateOutput(input)
  local x = planes(self, input, cc.who(self, 'updateOutput'))
  nn.utils.workspaceField(self, 'finput', input)
  C.conv_updateOutput(self, x, self.output, dense(self, '_denseWeight', self.weight, false, input),
                      self.bias, self.finput)
  return self.output
end

function SpatialConvolutionMap:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x = planes(self, input, cc.who(self, 'updateGradInput'))
  nn.utils.workspaceField(self, 'fgradInput', input)
  local w = dense(self, '_denseWeight', self.weight, false, input)
  if x == input then
    C.conv_updateGradInput(self, x, gradOutput, self.gradInput, w, self.fgradInput)
  else
    self._gradPlanes = self._gradPlanes or input.new()
    C.conv_updateGradInput(self, x, gradOutput, self._gradPlanes, w, self.fgradInput)
    self.gradInput:resizeAs(input):zero()
    self.gradInput:narrow(input:dim() - 2, 1, self.nInputPlane):copy(self._gradPlanes)
  end
  return self.gradInput
end

function SpatialConvolutionMap:accGradParameters(input, gradOutput, scale)
  local x = planes(self, input, cc.who(self, 'accGradParameters'))
  nn.utils.workspaceField(self, 'fgradInput', input)
  local g = dense(self, '_denseGradWeight', nil, false, input)
  C.conv_accGradParameters(self, x, gradOutput, g, self.gradBias, self.fgradInput, scale or 1)
  gather(self, g, false)
end

function SpatialConvolutionMap:decayParameters(decay)
  self.weight:add(-decay, self.weight)
  self.bias:add(-decay, self.bias)
end

function SpatialConvolutionMap:type(type, tensorCache)
  -- the buffers hold nothing worth converting; connTable keeps its values
  for _, k in ipairs({'finput', 'fgradInput', '_denseWeight', '_denseGradWeight', '_gradPlanes'}) do
    self[k] = self[k] and torch.Tensor()
  end
  return parent.type(self, type, tensorCache)
end

function SpatialConvolutionMap:memoryTraits()
  return {buffers = {finput = 'forward', fgradInput = 'backward', _denseWeight = 'both',
                     _denseGradWeight = 'backward', _gradPlanes = 'backward'},
          needsInput = true, needsOutput = false, state = {connTable = true}}
end
