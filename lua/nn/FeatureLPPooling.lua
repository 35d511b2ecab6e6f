-- nn.FeatureLPPooling(width, stride, power, batch_mode): LP pooling
-- across features: y = (sum of x^power over 'width' consecutive features,
-- windows 'stride' apart)^(1/power); F features give (F - width)/stride + 1.
-- Input: features [x a [x b]], or with batch_mode batch x features
-- [x a [x b]]. width in 2..16, stride in 1..4, as Torch7. Backward reads
-- input and output (no gradient where the output is 0).
-- Kernel: src/nn/th_nn_featlp.c.

local C = torch._C.nn
local FeatureLPPooling, parent = torch.class('nn.FeatureLPPooling', 'nn.Module')

function FeatureLPPooling:__init(width, stride, power, batch_mode)
  parent.__init(self)
  local cls = 'nn.FeatureLPPooling'
  if (type(width) ~= 'number' or math.tointeger(width) == nil) or width < 2 or width > 16 then
    error(string.format('%s: width must be an integer within 2 to 16, got %s', cls, tostring(width)), 2)
  end
  if (type(stride) ~= 'number' or math.tointeger(stride) == nil) or stride < 1 or stride > 4 then
    error(string.format('%s: stride must be an integer within 1 to 4, got %s', cls, tostring(stride)), 2)
  end
  if type(power) ~= 'number' or power <= 0 then
    error(string.format('%s: power must be a positive number, got %s', cls, tostring(power)), 2)
  end
  self.width = width
  self.stride = stride
  self.power = power
  self.batch_mode = batch_mode and true or false
end

function FeatureLPPooling:updateOutput(input)
  C.featlp_updateOutput(self, input, self.output)
  return self.output
end

function FeatureLPPooling:updateGradInput(input, gradOutput)
  C.featlp_updateGradInput(self, input, gradOutput, self.gradInput, self.output)
  return self.gradInput
end

function FeatureLPPooling:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = true}
end

-- Torch7's text (its format printed the flag with %d and lacked the ')')
function FeatureLPPooling:__tostring__()
  return string.format('%s(w%d s%d power %g batch %d)', torch.type(self), self.width, self.stride,
                       self.power, self.batch_mode and 1 or 0)
end
