-- nn.BatchNormalization(nOutput [, eps, momentum, affine]): y = (x - mean) /
-- sqrt(var + eps) * weight + bias per feature, for N x nOutput input
-- (Ioffe & Szegedy). Training mode normalizes with the batch statistics,
-- keeps them in save_mean / save_std (save_std is the INVERSE standard
-- deviation, as Torch7) for backward, and updates running_mean and
-- running_var (unbiased) with 'momentum' (default 0.1); evaluate mode
-- normalizes with the running estimates and also accepts one sample
-- (a 1D input); so does training mode for a batch of one sample, as
-- Torch7. eps defaults to 1e-5; affine (default true) adds the learnable
-- weight and bias. Kernel: src/nn/th_nn_batchnorm.c.
-- nn.SpatialBatchNormalization is this class with nDim = 4.

local C = torch._C.nn
local BN, parent = torch.class('nn.BatchNormalization', 'nn.Module')

BN.__version = 2
BN.nDim = 2   -- expected input dimension (batch mode)

local STATS_NONE, STATS_STORE, STATS_REUSE = 0, 1, 2
local FUSED = {}   -- token: updateGradInput called from backward (see BN:backward)
local fusion = require 'nn.fuse'

-- nn.fuse: marked (fuseReLU) when an in-place nn.ReLU follows, the forward
-- writes max(y, 0), what that ReLU would leave in its output, in the same pass
function BN:fusesReLU()
  return true
end

function BN:__init(nOutput, eps, momentum, affine)
  parent.__init(self)
  local cls = torch.type(self)
  local n = math.tointeger(nOutput)
  if n == nil or n < 1 then
    error(string.format('%s: nOutput (the number of features) must be a positive integer, got %s', cls,
                        tostring(nOutput)), 2)
  end
  if affine ~= nil and type(affine) ~= 'boolean' then
    error(string.format('%s: affine must be true or false, got %s', cls, tostring(affine)), 2)
  end
  self.affine = affine ~= false
  self.eps = eps or 1e-5
  self.train = true
  self.momentum = momentum or 0.1
  self.running_mean = torch.Tensor(n):zero()
  self.running_var = torch.Tensor(n):fill(1)
  if self.affine then
    self.weight = torch.Tensor(n)
    self.bias = torch.Tensor(n)
    self.gradWeight = torch.Tensor(n)
    self.gradBias = torch.Tensor(n)
    self:reset()
  end
end

function BN:reset()
  if self.weight then self.weight:uniform() end
  if self.bias then self.bias:zero() end
  self.running_mean:zero()
  self.running_var:fill(1)
  return self
end

local function sizestr(t)
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

function BN:checkInputDim(input, method, what)
  what = what or 'input'
  local name = torch.type(self) .. ':' .. method
  if not torch.isTensor(input) then
    error(string.format('%s: %s must be a tensor, got %s', name, what, torch.type(input)), 3)
  end
  local nF, iDim = self.running_mean:nElement(), input:dim()
  local shape = self.nDim == 2 and string.format('batch x %d features', nF)
    or string.format('batch x %d features x height x width', nF)
  if not (iDim == self.nDim or (iDim == self.nDim - 1 and self.train == false)) then
    error(string.format('%s: %s must be %dD (%s)%s, got %dD %s', name, what, self.nDim, shape,
                        self.train == false and string.format(' or %dD (one sample)', self.nDim - 1)
                        or ' in training mode', iDim, sizestr(input)), 3)
  end
  local featDim = (iDim == self.nDim - 1) and 1 or 2
  if input:size(featDim) ~= nF then
    error(string.format('%s: %s must have %d features (dimension %d), got %dD %s', name, what, nF,
                        featDim, iDim, sizestr(input)), 3)
  end
end

-- one sample (evaluate mode only) is normalized as a batch of one
local function makeBatch(self, input)
  if input:dim() == self.nDim - 1 then return input:unsqueeze(1) end
  return input
end

-- whether the batch statistics are used: as Torch7, a batch of one sample
-- is normalized with the running estimates (and leaves them alone) also in
-- training mode, forward and backward, since one value per feature has no
-- variance to speak of
local function batchStats(self, input)
  return self.train ~= false and input:size(1) > 1
end

-- files written by Torch7 before version 2 kept running_std = 1/sqrt(var + eps)
local function backCompatibility(self)
  if self.running_var == nil and self.running_std ~= nil then
    local v = self.running_std.new(self.running_std:nElement())
    for i = 1, v:nElement() do
      local s = self.running_std[i]
      v[i] = 1 / (s * s) - self.eps
    end
    self.running_var, self.running_std = v, nil
  end
end

-- optnet's recompute re-runs batch norm in backward from the affine
-- coefficients (y = x * k + m per feature) its training forward kept: one
-- pass instead of two, the running statistics and save_mean / save_std
-- untouched, the same bits. Kept per module outside its fields (nothing to
-- save, clone or plan: 2 numbers a feature): {t = coefficients, shape =
-- the input's sizes when they are this forward's, nil otherwise}.
local coefOf = setmetatable({}, {__mode = 'k'})
local reapplyNext = setmetatable({}, {__mode = 'k'})

-- on: keep the coefficients of every training forward from now on; off: stop
function BN:_keepCoefficients(on)
  coefOf[self] = on and (coefOf[self] or {}) or nil
end

-- whether the coefficients of the last forward are kept for an input of
-- these sizes and type (after :type() the next forward computes them again)
function BN:_canReapply(input)
  local cf = coefOf[self]
  return cf ~= nil and cf.shape ~= nil and torch.isTensor(input) and input:isSize(cf.shape)
    and torch.type(cf.t) == torch.type(input) and torch.type(cf.t) == torch.type(self.output)
end

-- the next updateOutput re-makes the output from the kept coefficients
-- (clipped at 0 with relu: the in-place nn.ReLU after it, see nn.Threshold's
-- _inputClipped); false if there are none for this input
function BN:_reapplyNext(input, relu)
  if not self:_canReapply(input) then return false end
  reapplyNext[self] = relu and true or false
  return true
end

function BN:updateOutput(input)
  local cf, relu = coefOf[self], reapplyNext[self]
  reapplyNext[self] = nil
  local marked = rawget(self, 'fuseReLU') ~= nil
  local fuse = marked and fusion.active(self)
  backCompatibility(self)
  self:checkInputDim(input, 'updateOutput')
  self.save_mean = self.save_mean or self.running_mean.new()
  self.save_std = self.save_std or self.running_mean.new()
  local batch = makeBatch(self, input)
  if relu ~= nil and cf and cf.shape and input:isSize(cf.shape) then
    C.batchnorm_apply(self, batch, self.output, cf.t, relu or fuse)
    if marked then fusion.mark(self.output, fuse) end
    return self.output
  end
  local train = batchStats(self, batch)
  if cf then
    cf.shape = nil
    if not (cf.t and cf.t:type() == self.running_mean:type()) then cf.t = self.running_mean.new() end
  end
  C.batchnorm_updateOutput(self, batch, self.output, self.weight, self.bias,
                           self.running_mean, self.running_var, self.save_mean, self.save_std,
                           train, self.momentum, self.eps, cf and train and cf.t or nil,
                           fuse)
  if cf and train then cf.shape = input:size() end
  if input:dim() == self.nDim - 1 then self.output:resize(input:size()) end
  if marked then fusion.mark(self.output, fuse) end
  return self.output
end

-- the batch statistics backward reads in training mode: before any forward
-- there are none, and an empty tensor makes the kernel say so (running_mean
-- in their place would give a gradient computed from the wrong numbers)
local function saved(self, train)
  if train then
    return self.save_mean or self.running_mean.new(), self.save_std or self.running_mean.new()
  end
  return self.save_mean or self.running_mean, self.save_std or self.running_mean
end

function BN:updateGradInput(input, gradOutput, fused)
  self:checkInputDim(input, 'updateGradInput')
  self:checkInputDim(gradOutput, 'updateGradInput', 'gradOutput')
  self._statsReady = false
  -- from backward(): keep the per-feature sums for accGradParameters
  local keep = fused == FUSED and (self.gradWeight ~= nil or self.gradBias ~= nil)
  if keep then self._gradStats = self._gradStats or self.running_mean.new() end
  local batch = makeBatch(self, input)
  local train = batchStats(self, batch)
  local saveMean, saveStd = saved(self, train)
  C.batchnorm_backward(self, 'updateGradInput', batch, makeBatch(self, gradOutput),
                       self.gradInput, nil, nil, self.weight, self.running_mean, self.running_var,
                       saveMean, saveStd,
                       keep and self._gradStats or nil, keep and STATS_STORE or STATS_NONE,
                       train, 1, self.eps)
  if input:dim() == self.nDim - 1 then self.gradInput:resize(input:size()) end
  self._statsReady = keep
  return self.gradInput
end

function BN:accGradParameters(input, gradOutput, scale)
  local reuse = self._statsReady
  self._statsReady = false
  if self.gradWeight == nil and self.gradBias == nil then return end
  self:checkInputDim(input, 'accGradParameters')
  self:checkInputDim(gradOutput, 'accGradParameters', 'gradOutput')
  local batch = makeBatch(self, input)
  local train = batchStats(self, batch)
  local saveMean, saveStd = saved(self, train)
  C.batchnorm_backward(self, 'accGradParameters', batch, makeBatch(self, gradOutput),
                       nil, self.gradWeight, self.gradBias, self.weight, self.running_mean,
                       self.running_var, saveMean, saveStd, reuse and self._gradStats or nil,
                       reuse and STATS_REUSE or STATS_NONE, train, scale or 1, self.eps)
end

-- Module's backward, with one pass over the data serving both calls: the
-- sums updateGradInput computes are handed to accGradParameters right after
function BN:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  self:updateGradInput(input, gradOutput, FUSED)
  self:accGradParameters(input, gradOutput, scale)
  return self.gradInput
end

function BN:memoryTraits()
  return {buffers = {save_mean = 'both', save_std = 'both', _gradStats = 'backward'},
          needsInput = true, needsOutput = false}
end

function BN:clearState()
  -- the first five are Torch7 buffers of older versions, cleared for old files
  nn.utils.clear(self, {'buffer', 'buffer2', 'centered', 'std', 'normalized', '_input',
                        '_gradOutput', 'save_mean', 'save_std', '_gradStats'})
  return parent.clearState(self)
end

function BN:__tostring__()
  return string.format('%s (%dD) (%d)', torch.type(self), self.nDim, self.running_mean:nElement())
end
