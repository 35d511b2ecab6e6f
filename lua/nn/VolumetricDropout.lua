-- nn.VolumetricDropout([p=0.5, stochasticInference]): in training, zeroes
-- whole feature maps of a 4D (C x T x H x W) or 5D (batch) input, each with
-- probability p (the features of a map are correlated, so dropping single
-- cells would do little). As Torch7, the kept maps are NOT rescaled during
-- training, and evaluation multiplies by (1 - p); with stochasticInference
-- evaluation drops maps too. The mask (batch x C x 1 x 1 x 1, or C x 1 x 1
-- x 1) is kept in 'noise', written by forward and read by backward.
-- Composed of tensor ops.

local VolumetricDropout, parent = torch.class('nn.VolumetricDropout', 'nn.Module')

function VolumetricDropout:__init(p, stochasticInference)
  parent.__init(self)
  -- p = 1 is allowed: no rescaling, so it only zeroes everything (as Torch7)
  if p ~= nil and (type(p) ~= 'number' or not (p >= 0 and p <= 1)) then
    error(string.format('nn.VolumetricDropout: p must be a number with 0 <= p <= 1, got %s', tostring(p)), 2)
  end
  self.p = p or 0.5
  self.train = true
  self.stochastic_inference = stochasticInference or false
  self.noise = torch.Tensor()
end

local function sizestr(t)
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

function VolumetricDropout:updateOutput(input)
  if not torch.isTensor(input) or (input:dim() ~= 4 and input:dim() ~= 5) then
    error(string.format('%s:updateOutput: input must be 5D (nbatch, nfeat, t, h, w) or 4D (nfeat, t, h, w), got %s',
                        torch.type(self), torch.isTensor(input)
                          and string.format('%dD %s', input:dim(), sizestr(input)) or torch.type(input)), 2)
  end
  self.output:resizeAs(input):copy(input)
  if self.train or self.stochastic_inference then
    if input:dim() == 5 then
      self.noise:resize(input:size(1), input:size(2), 1, 1, 1)
    else
      self.noise:resize(input:size(1), 1, 1, 1)
    end
    self.noise:bernoulli(1 - self.p)
    self.output:cmul(self.noise:expandAs(input))
  else
    self.output:mul(1 - self.p)
  end
  return self.output
end

function VolumetricDropout:updateGradInput(input, gradOutput)
  if not self.train then
    error(string.format('%s:updateGradInput: backprop only defined while training', torch.type(self)), 2)
  end
  if self.noise:dim() == 0 then
    error(string.format('%s:updateGradInput: call forward first (no mask yet)', torch.type(self)), 2)
  end
  if not torch.isTensor(gradOutput) or self.noise:dim() ~= gradOutput:dim() or
     self.noise:size(1) ~= gradOutput:size(1) or
     (gradOutput:dim() == 5 and self.noise:size(2) ~= gradOutput:size(2)) then
    error(string.format('%s:updateGradInput: gradOutput must match the last forward input (mask %s), got %s',
                        torch.type(self), sizestr(self.noise),
                        torch.isTensor(gradOutput) and sizestr(gradOutput) or torch.type(gradOutput)), 2)
  end
  -- the mask, spread over each feature map
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  self.gradInput:cmul(self.noise:expandAs(gradOutput))
  return self.gradInput
end

function VolumetricDropout:setp(p)
  self.p = p
end

-- backward reads the mask and gradOutput, not the input or output
function VolumetricDropout:memoryTraits()
  return {buffers = {noise = 'both'}, needsInput = false, needsOutput = false}
end

function VolumetricDropout:clearState()
  if self.noise then self.noise:set() end
  return parent.clearState(self)
end

function VolumetricDropout:__tostring__()
  return string.format('%s(%f)', torch.type(self), self.p)
end
