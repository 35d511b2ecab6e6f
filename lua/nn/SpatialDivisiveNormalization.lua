-- nn.SpatialDivisiveNormalization([nInputPlane [, kernel [, threshold [,
-- thresval]]]]): divides every plane of a 3D (nInputPlane x h x w) or 4D
-- (batch) input by the local weighted standard deviation over all planes:
--   std = sqrt(S(x^2)) / S(1),  y_c = x_c / (std > threshold ? std : thresval)
-- with S as in nn.SpatialSubtractiveNormalization (zero-padded "same"
-- correlation with the kernel, summed over planes). kernel: odd 2D or 1D
-- (separable), default 9x9 ones, normalized in place as Torch7 does (2D:
-- divided by sum * nInputPlane, 1D: by sum * sqrt(nInputPlane));
-- threshold defaults to 1e-4, thresval to threshold. Torch7's composition
-- of modules becomes src/nn/th_nn_localsum.c plus tensor ops; the fields
-- nInputPlane, kernel, threshold, thresval, coef keep Torch7's names.

local C = torch._C.nn
local Sub = nn.SpatialSubtractiveNormalization
local SpatialDivisiveNormalization, parent = torch.class('nn.SpatialDivisiveNormalization', 'nn.Module')

function SpatialDivisiveNormalization:__init(nInputPlane, kernel, threshold, thresval)
  parent.__init(self)
  local cls = 'nn.SpatialDivisiveNormalization'
  self.nInputPlane = nInputPlane or 1
  if (type(self.nInputPlane) ~= 'number' or math.tointeger(self.nInputPlane) == nil) or self.nInputPlane < 1 then
    error(string.format('%s: nInputPlane must be an integer >= 1, got %s', cls, tostring(nInputPlane)), 2)
  end
  self.kernel = kernel or torch.Tensor(9, 9):fill(1)
  self.threshold = threshold or 1e-4
  self.thresval = thresval or threshold or 1e-4
  if type(self.threshold) ~= 'number' or type(self.thresval) ~= 'number' then
    error(string.format('%s: threshold and thresval must be numbers, got %s and %s', cls,
                        torch.type(self.threshold), torch.type(self.thresval)), 2)
  end
  local k = self.kernel
  if not torch.isTensor(k) or (k:dim() ~= 1 and k:dim() ~= 2) then
    error(string.format('%s: averaging kernel must be 2D or 1D, got %s', cls,
                        torch.isTensor(k) and (k:dim() .. 'D') or torch.type(k)), 2)
  end
  if k:size(1) % 2 == 0 or (k:dim() == 2 and k:size(2) % 2 == 0) then
    error(string.format('%s: averaging kernel must have ODD dimensions, got %s', cls,
                        table.concat(k:size():totable(), 'x')), 2)
  end
  if k:dim() == 2 then
    k:div(k:sum() * self.nInputPlane)
  else
    k:div(k:sum() * math.sqrt(self.nInputPlane))
  end
  self.coef = torch.Tensor()
end

local function shape(t)
  return torch.isTensor(t) and string.format('%dD %s', t:dim(), table.concat(t:size():totable(), 'x'))
         or torch.type(t)
end

function SpatialDivisiveNormalization:updateOutput(input)
  local x4, B, H, W = Sub._as4D(self, input, 'updateOutput')
  local k = Sub._coef(self, H, W, 'updateOutput')
  local P = self.nInputPlane
  self._sq = self._sq or input.new()
  self._sq:resize(B, P, H, W):copy(x4):cmul(x4)
  self.localstds = Sub._own(self.localstds or input.new())
  C.localsum(self, 'updateOutput', Sub._planeSum(self, self._sq, B, H, W), k, self.localstds, false)
  self.localstds:sqrt()
  self.adjustedstds = self.adjustedstds or input.new()
  self.adjustedstds:resizeAs(self.localstds):copy(self.localstds)
  self.adjustedstds:cdiv(self.coef:expandAs(self.adjustedstds))
  self.thresholdedstds = self.thresholdedstds or input.new()
  self.thresholdedstds:resizeAs(self.adjustedstds):copy(self.adjustedstds)
  self.thresholdedstds:maskedFill(self.adjustedstds:le(self.threshold), self.thresval)
  self.output:resizeAs(input):copy(input)
  local o4 = self.output:view(B, P, H, W)
  o4:cdiv(self.thresholdedstds:view(B, 1, H, W):expandAs(o4))
  return self.output
end

function SpatialDivisiveNormalization:updateGradInput(input, gradOutput)
  local x4, B, H, W = Sub._as4D(self, input, 'updateGradInput')
  local P = self.nInputPlane
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error(string.format('%s:updateGradInput: gradOutput must be the input size %s, got %s',
                        torch.type(self), shape(input), shape(gradOutput)), 2)
  end
  local thr = self.thresholdedstds
  if not thr or thr:dim() ~= 3 or thr:size(1) ~= B or thr:size(2) ~= H or thr:size(3) ~= W then
    error(string.format('%s:updateGradInput: run forward on this input first', torch.type(self)), 2)
  end
  local g4 = gradOutput:contiguous():view(B, P, H, W)
  -- through the division by the thresholded std: -sum_c go_c x_c / thr^2
  self._sq:resize(B, P, H, W):copy(g4):cmul(x4)
  local g = Sub._planeSum(self, self._sq, B, H, W)
  g:cdiv(thr):cdiv(thr):mul(-1)
  g:maskedFill(self.adjustedstds:le(self.threshold), 0)   -- the threshold
  g:cdiv(self.coef:expandAs(g))                            -- the border correction
  g:cdiv(self.localstds):mul(0.5)                          -- the square root (0 where std is 0)
  g:maskedFill(self.localstds:eq(0), 0)
  self._gsum = self._gsum or input.new()
  C.localsum(self, 'updateGradInput', g, self._kernel2d, self._gsum, true)
  -- gradInput = go / thr + 2 x * S'(g)
  self.gradInput:resizeAs(input)
  local gi4 = self.gradInput:view(B, P, H, W)
  gi4:copy(g4):cdiv(thr:view(B, 1, H, W):expandAs(gi4))
  gi4:addcmul(2, x4, self._gsum:view(B, 1, H, W):expandAs(x4))
  return self.gradInput
end

function SpatialDivisiveNormalization:memoryTraits()
  return {buffers = {coef = 'both', _kernel2d = 'both', _ones = 'forward', _sum = 'both',
                     _sq = 'both', localstds = 'both', adjustedstds = 'both',
                     thresholdedstds = 'both', _gsum = 'backward'},
          needsInput = true, needsOutput = false, state = {kernel = true}}
end
