-- nn.WhiteNoise([mean [, std]]): additive Gaussian noise. Training: y = x +
-- n, n ~ N(mean, std) drawn afresh each forward (into 'noise'); dx =
-- gradOutput. Evaluation: y = x + mean, and backward is an error (as
-- Torch7). Defaults mean 0, std 0.1.

local WhiteNoise, parent = torch.class('nn.WhiteNoise', 'nn.Module')

function WhiteNoise:__init(mean, std)
  parent.__init(self)
  if (mean ~= nil and type(mean) ~= 'number') or (std ~= nil and type(std) ~= 'number') then
    error(string.format('nn.WhiteNoise: mean and std must be numbers, got %s and %s',
                        torch.type(mean), torch.type(std)), 2)
  end
  self.mean = mean or 0
  self.std = std or 0.1
  self.noise = torch.Tensor()
end

function WhiteNoise:updateOutput(input)
  if not torch.isTensor(input) then
    error(string.format('nn.WhiteNoise:updateOutput: input must be a tensor, got %s', torch.type(input)), 2)
  end
  self.output:resizeAs(input):copy(input)
  if self.train ~= false then
    self.noise:resizeAs(input)
    self.noise:normal(self.mean, self.std)
    self.output:add(self.noise)
  elseif self.mean ~= 0 then
    self.output:add(self.mean)
  end
  return self.output
end

function WhiteNoise:updateGradInput(input, gradOutput)
  if self.train == false then
    error('nn.WhiteNoise:updateGradInput: backprop only defined while training (call :training())', 2)
  end
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  return self.gradInput
end

-- the noise is scratch of one forward: backward does not read it
function WhiteNoise:memoryTraits()
  return {buffers = {noise = 'forward'}, needsInput = false, needsOutput = false}
end

function WhiteNoise:__tostring__()
  return string.format('%s mean: %f, std: %f', torch.type(self), self.mean, self.std)
end
