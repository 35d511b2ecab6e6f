-- nn.Linear(inputSize, outputSize [, bias]): y = W x + b.
-- input: inputSize or batch x inputSize; output: outputSize or batch x
-- outputSize. weight outputSize x inputSize, bias outputSize (absent after
-- :noBias() or with bias = false). Initialised as Torch7's reset:
-- uniform(-1/sqrt(inputSize), 1/sqrt(inputSize)).
-- Kernel: BLAS gemm/gemv (src/nn/th_nn_linear.c). In batch mode
-- 'addBuffer' (Torch7's vector of ones) is kept at the batch size, refilled
-- by each call that uses it, as Torch7 code may expect it.

local C = torch._C.nn
local Linear, parent = torch.class('nn.Linear', 'nn.Module')

function Linear:__init(inputSize, outputSize, bias)
  parent.__init(self)
  inputSize = nn.utils.positive(inputSize, 'inputSize', 'nn.Linear')
  outputSize = nn.utils.positive(outputSize, 'outputSize', 'nn.Linear')
  if bias == nil then bias = true end
  self.weight = torch.Tensor(outputSize, inputSize)
  -- gradients start at zero (Torch7 left them as allocated: whatever the
  -- memory held, NaN included, until zeroGradParameters)
  self.gradWeight = torch.Tensor(outputSize, inputSize):zero()
  if bias then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize):zero()
  end
  self:reset()
end

function Linear:noBias()
  self.bias = nil
  self.gradBias = nil
  return self
end

function Linear:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(2))
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

function Linear:updateOutput(input)
  self.addBuffer = self.addBuffer or self.weight.new()
  C.linear_updateOutput(self, input, self.output, self.weight, self.bias, self.addBuffer)
  return self.output
end

function Linear:updateGradInput(input, gradOutput)
  if self.gradInput then
    C.linear_updateGradInput(self, input, gradOutput, self.gradInput, self.weight)
    return self.gradInput
  end
end

function Linear:accGradParameters(input, gradOutput, scale)
  self.addBuffer = self.addBuffer or self.weight.new()
  C.linear_accGradParameters(self, input, gradOutput, self.gradWeight, self.gradBias,
                             self.addBuffer, scale or 1)
end

-- shared weights need no detour through gradWeight: accGradParameters only
-- adds into it, so the direct update is right (as Torch7's Linear)
function Linear:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function Linear:memoryTraits()
  return {buffers = {addBuffer = 'both'}, needsInput = true, needsOutput = false}
end

function Linear:__tostring__()
  return torch.type(self) .. string.format('(%d -> %d)', self.weight:size(2), self.weight:size(1)) ..
         (self.bias == nil and ' without bias' or '')
end
