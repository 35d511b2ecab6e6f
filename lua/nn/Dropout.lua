-- nn.Dropout([p [, v1 [, inplace [, stochasticInference]]]]): in training,
-- zeroes each element with probability p (default 0.5). Version 2 (the
-- default) scales the kept elements by 1/(1-p) during training and passes
-- the input through unchanged in evaluation; v1 = true keeps Torch7's old
-- behaviour (no scaling in training, output * (1-p) in evaluation). With
-- stochasticInference, evaluation drops elements too. The mask (already
-- scaled) is kept in 'noise', written by forward and read by backward.

local Dropout, parent = torch.class('nn.Dropout', 'nn.Module')

function Dropout:__init(p, v1, inplace, stochasticInference)
  parent.__init(self)
  if p ~= nil and type(p) ~= 'number' then
    error(string.format('nn.Dropout: p must be a number, got %s', torch.type(p)), 2)
  end
  self.p = p or 0.5
  self.train = true
  self.inplace = inplace or false
  self.stochastic_inference = stochasticInference or false
  self.v2 = not v1
  if self.p >= 1 or self.p < 0 then
    error(string.format('nn.Dropout: illegal percentage, must be 0 <= p < 1, got %g', self.p), 2)
  end
  self.noise = torch.Tensor()
end

function Dropout:updateOutput(input)
  if not torch.isTensor(input) then
    error(string.format('%s:updateOutput: input must be a tensor, got %s', torch.type(self),
                        torch.type(input)), 2)
  end
  if self.inplace then
    self.output:set(input)
  else
    self.output:resizeAs(input):copy(input)
  end
  if self.p > 0 then
    if self.train or self.stochastic_inference then
      self.noise:resizeAs(input)
      self.noise:bernoulli(1 - self.p)
      if self.v2 then self.noise:div(1 - self.p) end
      self.output:cmul(self.noise)
    elseif not self.v2 then
      self.output:mul(1 - self.p)
    end
  end
  return self.output
end

function Dropout:updateGradInput(input, gradOutput)
  if self.train and self.p > 0 then
    local mask = nn.utils.needForward(self, self.noise, 'dropout mask')
    if torch.isTensor(gradOutput) and gradOutput:nElement() ~= mask:nElement() then
      error(string.format('%s:updateGradInput: gradOutput of size %s does not match the mask of the last forward (%s)',
                          torch.type(self), nn.utils.sizeString(gradOutput), nn.utils.sizeString(mask)), 0)
    end
  end
  if self.inplace then
    self.gradInput:set(gradOutput)
  else
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  end
  if self.train then
    if self.p > 0 then self.gradInput:cmul(self.noise) end  -- the same mask
  elseif not self.v2 and self.p > 0 then
    self.gradInput:mul(1 - self.p)
  end
  return self.gradInput
end

function Dropout:setp(p)
  self.p = p
end

function Dropout:memoryTraits()
  return {buffers = {noise = 'both'}, needsInput = false, needsOutput = false,
          inplace = 'inplace'}
end

-- backward reads only the mask
function Dropout:inplaceAllowed()
  return true
end

function Dropout:__tostring__()
  return string.format('%s(%f)', torch.type(self), self.p)
end
