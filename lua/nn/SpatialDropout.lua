-- nn.SpatialDropout([p [, stochasticInference]]): in training, zeroes
-- whole feature maps of a 3D (features x h x w) or 4D (batch x features x
-- h x w) input, each with probability p (default 0.5), since neighbouring
-- pixels of a map are correlated. As Torch7, kept maps are not rescaled in
-- training; evaluation multiplies by 1 - p (unless stochasticInference,
-- which drops maps in evaluation too). The mask (one value per map) is
-- kept in 'noise', written by forward and read by backward. Lua over
-- tensor ops.

local SpatialDropout, parent = torch.class('nn.SpatialDropout', 'nn.Module')

function SpatialDropout:__init(p, stochasticInference)
  parent.__init(self)
  if p ~= nil and (type(p) ~= 'number' or p < 0 or p >= 1) then
    error(string.format('nn.SpatialDropout: p must be a number in [0, 1), got %s', tostring(p)), 2)
  end
  self.p = p or 0.5
  self.train = true
  self.stochastic_inference = stochasticInference or false
  self.noise = torch.Tensor()
end

local function shape(t)
  return torch.isTensor(t) and string.format('%dD %s', t:dim(), table.concat(t:size():totable(), 'x'))
         or torch.type(t)
end

function SpatialDropout:updateOutput(input)
  if not torch.isTensor(input) then
    error(string.format('%s:updateOutput: input must be a tensor, got %s', torch.type(self), shape(input)), 2)
  end
  self.output:resizeAs(input):copy(input)
  if self.train or self.stochastic_inference then
    if input:dim() == 4 then
      self.noise:resize(input:size(1), input:size(2), 1, 1)
    elseif input:dim() == 3 then
      self.noise:resize(input:size(1), 1, 1)
    else
      error(string.format('%s:updateOutput: input must be 3D (features x h x w) or 4D (batch), got %s',
                          torch.type(self), shape(input)), 2)
    end
    self.noise:bernoulli(1 - self.p)
    self.output:cmul(self.noise:expandAs(input))
  else
    self.output:mul(1 - self.p)
  end
  return self.output
end

function SpatialDropout:updateGradInput(input, gradOutput)
  if not self.train then
    error(string.format('%s:updateGradInput: backprop only defined while training', torch.type(self)), 2)
  end
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error(string.format('%s:updateGradInput: gradOutput must be the input size %s, got %s',
                        torch.type(self), shape(input), shape(gradOutput)), 2)
  end
  local expected = input:dim() == 4 and {input:size(1), input:size(2), 1, 1} or {input:size(1), 1, 1}
  if self.noise:dim() ~= #expected or not self.noise:isSize(torch.LongStorage(expected)) then
    error(string.format('%s:updateGradInput: no mask for this input %s (run forward first)',
                        torch.type(self), shape(input)), 2)
  end
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  self.gradInput:cmul(self.noise:expandAs(input))
  return self.gradInput
end

function SpatialDropout:setp(p)
  self.p = p
end

function SpatialDropout:memoryTraits()
  return {buffers = {noise = 'both'}, needsInput = false, needsOutput = false}
end

function SpatialDropout:__tostring__()
  return string.format('%s(%f)', torch.type(self), self.p)
end
