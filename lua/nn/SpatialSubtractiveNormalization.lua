-- nn.SpatialSubtractiveNormalization([nInputPlane [, kernel]]): subtracts
-- from every plane of a 3D (nInputPlane x h x w) or 4D (batch) input the
-- local weighted mean over a neighbourhood of all planes:
--   mean = S(x) / S(1),  S(x) = sum over planes of x correlated with k
-- (zero padding, "same" size; S(1) corrects the borders), y_c = x_c - mean.
-- kernel: odd-sized 2D (kH x kW) or 1D (separable: k applied along rows
-- and columns), default 9x9 ones; as Torch7 it is normalized in place
-- (divided by its sum times nInputPlane: the caller's tensor changes).
-- Torch7 composes padding, convolution and table modules for this; here
-- the sums run in src/nn/th_nn_localsum.c and the rest is tensor ops, with
-- the same numbers (up to rounding) and the same fields nInputPlane, kernel,
-- coef (S(1), recomputed by every forward).

local C = torch._C.nn
local SpatialSubtractiveNormalization, parent = torch.class('nn.SpatialSubtractiveNormalization', 'nn.Module')
local M = SpatialSubtractiveNormalization

local function checkKernel(cls, kernel)
  if not torch.isTensor(kernel) or (kernel:dim() ~= 1 and kernel:dim() ~= 2) then
    error(string.format('%s: averaging kernel must be 2D or 1D, got %s', cls,
                        torch.isTensor(kernel) and (kernel:dim() .. 'D') or torch.type(kernel)), 3)
  end
  if kernel:size(1) % 2 == 0 or (kernel:dim() == 2 and kernel:size(2) % 2 == 0) then
    error(string.format('%s: averaging kernel must have ODD dimensions, got %s', cls,
                        table.concat(kernel:size():totable(), 'x')), 3)
  end
end

function SpatialSubtractiveNormalization:__init(nInputPlane, kernel)
  parent.__init(self)
  local cls = 'nn.SpatialSubtractiveNormalization'
  self.nInputPlane = nInputPlane or 1
  if (type(self.nInputPlane) ~= 'number' or math.tointeger(self.nInputPlane) == nil) or self.nInputPlane < 1 then
    error(string.format('%s: nInputPlane must be an integer >= 1, got %s', cls, tostring(nInputPlane)), 2)
  end
  self.kernel = kernel or torch.Tensor(9, 9):fill(1)
  checkKernel(cls, self.kernel)
  self.kernel:div(self.kernel:sum() * self.nInputPlane)
  self.coef = torch.Tensor()
end

local function shape(t)
  return torch.isTensor(t) and string.format('%dD %s', t:dim(), table.concat(t:size():totable(), 'x'))
         or torch.type(t)
end

-- the input as batch x planes x h x w, and its sizes
local function as4D(self, input, method)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4)
     or input:size(input:dim() - 2) ~= self.nInputPlane then
    error(string.format('%s:%s: input must be 3D (%d x h x w) or 4D (batch x %d x h x w), got %s',
                        torch.type(self), method, self.nInputPlane, self.nInputPlane, shape(input)), 3)
  end
  local d = input:dim()
  local B, H, W = d == 4 and input:size(1) or 1, input:size(d - 1), input:size(d)
  return input:contiguous():view(B, self.nInputPlane, H, W), B, H, W
end
-- the helpers below are plain functions of the module (called with an
-- explicit self), shared with nn.SpatialDivisiveNormalization
SpatialSubtractiveNormalization._as4D = as4D

-- a buffer the local sums write: a Torch7 file holds expanded views in
-- 'coef' and 'localsums', which get memory of their own
local function own(t)
  if not t:isContiguous() then t:set() end
  return t
end
SpatialSubtractiveNormalization._own = own

-- the 2D kernel the sums use (a 1D kernel k: k[i] * k[j])
function SpatialSubtractiveNormalization:_kernel2D()
  self._kernel2d = self._kernel2d or self.kernel.new()
  if self.kernel:dim() == 2 then
    self._kernel2d:resizeAs(self.kernel):copy(self.kernel)
  else
    self._kernel2d:resize(self.kernel:size(1), self.kernel:size(1)):ger(self.kernel, self.kernel)
  end
  return self._kernel2d
end

-- coef = S(1) over nInputPlane planes of ones, 1 x h x w
function SpatialSubtractiveNormalization:_coef(H, W, method)
  local k = M._kernel2D(self)
  self._ones = self._ones or self.coef.new()
  self._ones:resize(1, H, W):fill(self.nInputPlane)
  C.localsum(self, method, self._ones, k, own(self.coef), false)
  return k
end

-- the plane sums of x (batch x planes x h x w) as batch x h x w, in _sum
function SpatialSubtractiveNormalization:_planeSum(x4, B, H, W)
  self._sum = self._sum or x4.new()
  self._sum:sum(x4, 2)
  return self._sum:view(B, H, W)
end

function SpatialSubtractiveNormalization:updateOutput(input)
  local x4, B, H, W = as4D(self, input, 'updateOutput')
  local k = M._coef(self, H, W, 'updateOutput')
  self.localsums = own(self.localsums or input.new())
  C.localsum(self, 'updateOutput', M._planeSum(self, x4, B, H, W), k, self.localsums, false)
  self.localsums:cdiv(self.coef:expandAs(self.localsums))   -- the local means
  self.output:resizeAs(input):copy(input)
  local o4 = self.output:view(B, self.nInputPlane, H, W)
  o4:add(-1, self.localsums:view(B, 1, H, W):expandAs(o4))
  return self.output
end

function SpatialSubtractiveNormalization:updateGradInput(input, gradOutput)
  local x4, B, H, W = as4D(self, input, 'updateGradInput')
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error(string.format('%s:updateGradInput: gradOutput must be the input size %s, got %s',
                        torch.type(self), shape(input), shape(gradOutput)), 2)
  end
  if self.coef:dim() ~= 3 or self.coef:size(2) ~= H or self.coef:size(3) ~= W then
    error(string.format('%s:updateGradInput: run forward on this input first', torch.type(self)), 2)
  end
  -- every plane's mean reads all planes: its gradient is the adjoint
  -- sum of (sum over planes of gradOutput) / coef
  local g4 = gradOutput:contiguous():view(B, self.nInputPlane, H, W)
  local gs = M._planeSum(self, g4, B, H, W)
  gs:cdiv(self.coef:expandAs(gs))
  self._gsum = self._gsum or input.new()
  C.localsum(self, 'updateGradInput', gs, self._kernel2d, self._gsum, true)
  self.gradInput:resizeAs(input):copy(gradOutput)
  local gi4 = self.gradInput:view(B, self.nInputPlane, H, W)
  gi4:add(-1, self._gsum:view(B, 1, H, W):expandAs(gi4))
  return self.gradInput
end

-- backward reads only the input's sizes and coef
function SpatialSubtractiveNormalization:memoryTraits()
  return {buffers = {coef = 'both', _kernel2d = 'both', _ones = 'forward', _sum = 'both',
                     localsums = 'forward', _gsum = 'backward'},
          needsInput = false, needsOutput = false, state = {kernel = true}}
end

