-- nn.VolumetricBatchNormalization(nFeature [, eps=1e-5, momentum=0.1, affine=true]):
-- batch normalization of batch x nFeature x T x H x W input, statistics per
-- feature over the batch and all positions; a single 4D volume is accepted
-- in evaluate mode. Everything else (fields, kernel, traits) as
-- nn.BatchNormalization, whose kernel handles any number of dimensions.

local BN, parent = torch.class('nn.VolumetricBatchNormalization', 'nn.BatchNormalization')

BN.nDim = 5

local function sizestr(t)
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

-- BatchNormalization's check, with the 5D shape in its message
function BN:checkInputDim(input, method, what)
  what = what or 'input'
  local name = torch.type(self) .. ':' .. method
  if not torch.isTensor(input) then
    error(string.format('%s: %s must be a tensor, got %s', name, what, torch.type(input)), 3)
  end
  local nF, iDim = self.running_mean:nElement(), input:dim()
  if not (iDim == 5 or (iDim == 4 and self.train == false)) then
    error(string.format('%s: %s must be 5D (batch x %d features x time x height x width)%s, got %dD %s',
                        name, what, nF, self.train == false and ' or 4D (one sample)' or ' in training mode',
                        iDim, sizestr(input)), 3)
  end
  local featDim = iDim == 4 and 1 or 2
  if input:size(featDim) ~= nF then
    error(string.format('%s: %s must have %d features (dimension %d), got %dD %s', name, what, nF,
                        featDim, iDim, sizestr(input)), 3)
  end
end

-- BatchNormalization's traits, naming the running estimates as state
-- (kept across calls; optnet leaves them alone)
function BN:memoryTraits()
  local t = parent.memoryTraits(self)
  t.state = t.state or {}
  t.state.running_mean, t.state.running_var = true, true
  return t
end
