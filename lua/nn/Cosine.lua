-- nn.Cosine(inputSize, outputSize): y_j = w_j.x / (||w_j|| ||x||), the
-- cosine similarity of the input with each row of the weight
-- (outputSize x inputSize); 1e-12 is added to each norm, as Torch7.
-- input: inputSize or batch x inputSize; output: outputSize or batch x
-- outputSize. Initialised uniform(-1/sqrt(outputSize), 1/sqrt(outputSize))
-- (Torch7's choice). Derivatives:
--   dy_j/dx   = w_j/(||w_j|| ||x||) - y_j x/||x||^2
--   dy_j/dw_j = x/(||w_j|| ||x||)   - y_j w_j/||w_j||^2
-- Lua over BLAS gemm; a vector input is a batch of one. '_weightNorm'
-- (outputSize x 1) and '_inputNorm' (batch x 1) are kept from forward for
-- backward.

local Cosine, parent = torch.class('nn.Cosine', 'nn.Module')

function Cosine:__init(inputSize, outputSize)
  parent.__init(self)
  inputSize = nn.utils.positive(inputSize, 'inputSize', 'nn.Cosine')
  outputSize = nn.utils.positive(outputSize, 'outputSize', 'nn.Cosine')
  self.weight = torch.Tensor(outputSize, inputSize)
  self.gradWeight = torch.Tensor(outputSize, inputSize)
  self:reset()
end

function Cosine:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(1))
  end
  self.weight:uniform(-stdv, stdv)
  return self
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

-- the input as a batch x inputSize matrix
local function matrix(self, input, who)
  nn.utils.checkTensor(input, who)
  local n = self.weight:size(2)
  if (input:dim() ~= 1 and input:dim() ~= 2) or input:size(input:dim()) ~= n then
    error(string.format('%s: input must be 1D or 2D with %d columns, got %s', who, n, nn.utils.shapeString(input)), 0)
  end
  if input:dim() == 1 then return input:view(1, n) end
  return input
end

local function checkGradOutput(self, input, gradOutput, who)
  local want = self.output
  local b = input:dim() == 1 and 1 or input:size(1)
  if not torch.isTensor(self._inputNorm) or self._inputNorm:nElement() ~= b or want:nElement() ~= b * self.weight:size(1) then
    error(string.format('%s: forward the same %d samples first', who, b), 0)
  end
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= want:nElement() then
    error(string.format('%s: gradOutput must be %s (the output), got %s', who, nn.utils.sizeString(want),
                        nn.utils.shapeString(gradOutput)), 0)
  end
  return gradOutput:contiguous():view(-1, self.weight:size(1))
end

function Cosine:updateOutput(input)
  local x = matrix(self, input, 'nn.Cosine:updateOutput')
  local w = self.weight
  local b, outSize = x:size(1), w:size(1)
  local wn = buf(self, '_weightNorm', w):norm(w, 2, 2):add(1e-12)      -- outSize x 1
  local xn = buf(self, '_inputNorm', w):norm(x, 2, 2):add(1e-12)       -- b x 1
  local out = self.output:resize(b, outSize)
  out:mm(x, w:t())
  out:cdiv(wn:view(1, outSize):expand(b, outSize)):cdiv(xn:expand(b, outSize))
  if input:dim() == 1 then out:resize(outSize) end
  return self.output
end

function Cosine:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x = matrix(self, input, 'nn.Cosine:updateGradInput')
  local go = checkGradOutput(self, input, gradOutput, 'nn.Cosine:updateGradInput')
  local w = self.weight
  local b, inSize, outSize = x:size(1), w:size(2), w:size(1)
  local y = self.output:view(b, outSize)
  local xn = self._inputNorm:expand(b, inSize)
  -- s_b = sum_j g_bj y_bj
  local gy = buf(self, '_gradOutput', w):resizeAs(go):cmul(go, y)
  local s = buf(self, '_sum', w):sum(gy, 2)
  local gi = self.gradInput:resize(b, inSize)
  gi:cdiv(x, xn):cmul(s:expand(b, inSize))
  gy:cdiv(go, self._weightNorm:view(1, outSize):expand(b, outSize))
  gi:addmm(-1, gi, 1, gy, w)
  gi:cdiv(xn)
  gi:resizeAs(input)
  return self.gradInput
end

function Cosine:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local x = matrix(self, input, 'nn.Cosine:accGradParameters')
  local go = checkGradOutput(self, input, gradOutput, 'nn.Cosine:accGradParameters')
  local w = self.weight
  local b, inSize, outSize = x:size(1), w:size(2), w:size(1)
  local y = self.output:view(b, outSize)
  -- t_j = sum_b g_bj y_bj / ||w_j||
  local gy = buf(self, '_gradOutput', w):resizeAs(go):cmul(go, y)
  local t = buf(self, '_sum', w):sum(gy, 1):view(outSize, 1):cdiv(self._weightNorm)
  local gw = buf(self, '_weight', w):resizeAs(w):cmul(w, t:expand(outSize, inSize))
  local xs = buf(self, '_input', w):resizeAs(x):cdiv(x, self._inputNorm:expand(b, inSize))
  gw:addmm(-1, gw, 1, go:t(), xs)
  gw:cdiv(self._weightNorm:expand(outSize, inSize))
  self.gradWeight:add(scale, gw)
end

-- shared weights need no detour through gradWeight (accGradParameters
-- only adds into it)
function Cosine:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function Cosine:memoryTraits()
  return {buffers = {_weightNorm = 'both', _inputNorm = 'both', _gradOutput = 'backward',
                     _sum = 'backward', _weight = 'backward', _input = 'backward'},
          needsInput = true, needsOutput = true}
end
