-- nn.LayerNormalization(nOutput [, bias [, eps [, affine]]]): layer
-- normalisation (Ba et al. 2016, section 3) of each sample of nOutput
-- features (input nOutput or batch x nOutput): subtract the sample mean,
-- divide by the L2 norm (Normalize(2, eps), eps = 1e-10 by default) and
-- multiply by sqrt(nOutput) (so: divide by the standard deviation), then,
-- when affine (default true), a learnable gain (CMul, initialised to 1) and
-- bias (Add, initialised to 'bias', default 0). A Sequential, as in Torch7,
-- of existing modules. Unlike Torch7's, a batch is normalised per sample
-- (see below).

local LayerNormalization, parent = torch.class('nn.LayerNormalization', 'nn.Sequential')

function LayerNormalization:__init(nOutput, bias, eps, affine)
  parent.__init(self)
  if math.type(nOutput) == nil or nOutput < 1 or nOutput ~= math.floor(nOutput) then
    error(string.format('nn.LayerNormalization: nOutput must be a positive integer, got %s',
                        tostring(nOutput)), 2)
  end
  eps = eps or 1e-10
  if affine == nil then affine = true end
  bias = bias or 0
  -- the mean keeps its dimension (batch x 1), so that Replicate spreads
  -- each sample's mean over that sample's features; Torch7's squeezed mean
  -- is replicated across the batch instead, which is right for one sample
  -- only (the same numbers there)
  local mean = nn.Mean(1, 1)
  mean.squeeze = false
  self:add(nn.ConcatTable()
             :add(nn.Identity())
             :add(nn.Sequential()
                    :add(mean)
                    :add(nn.Replicate(nOutput, 1, 1))))
    :add(nn.CSubTable())
    :add(nn.Normalize(2, eps))
    :add(nn.MulConstant(math.sqrt(nOutput)))
  if affine then
    local biasTransform = nn.Add(nOutput, false)
    biasTransform.bias:fill(bias)
    local gainTransform = nn.CMul(nOutput)
    gainTransform.weight:fill(1)
    self:add(gainTransform)
    self:add(biasTransform)
  end
end
