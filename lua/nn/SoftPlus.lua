-- nn.SoftPlus([beta [, threshold]]): y = log(1 + exp(beta x)) / beta, and
-- y = x where beta x > threshold (default 20) to stay exact for large x.
-- Backward reads only the output. Kernel: src/nn/th_nn_activation.c.

local C = torch._C.nn
local SoftPlus, parent = torch.class('nn.SoftPlus', 'nn.Module')

function SoftPlus:__init(beta, threshold)
  parent.__init(self)
  if (beta ~= nil and type(beta) ~= 'number') or (threshold ~= nil and type(threshold) ~= 'number') then
    error(string.format('nn.SoftPlus: beta and threshold must be numbers, got %s and %s',
                        type(beta), type(threshold)), 2)
  end
  self.beta = beta or 1       -- sharpness of the curve
  self.threshold = threshold or 20  -- beyond it, y = x (exp would overflow)
  C.act_check(self, 'SoftPlus', false, self.beta, self.threshold)
end

function SoftPlus:updateOutput(input)
  C.SoftPlus_updateOutput(self, input, self.output, false, self.beta, self.threshold)
  return self.output
end

function SoftPlus:updateGradInput(input, gradOutput)
  C.SoftPlus_updateGradInput(self, nil, gradOutput, self.gradInput, self.output, false,
                             self.beta, self.threshold)
  return self.gradInput
end

function SoftPlus:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = true}
end
