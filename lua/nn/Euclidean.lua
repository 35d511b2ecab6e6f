-- nn.Euclidean(inputSize, outputSize): y_j = ||x - w_j||, the distance of
-- the input to each of outputSize templates, the columns of the weight
-- (inputSize x outputSize, Torch7's layout). input: inputSize or batch x
-- inputSize; output: outputSize or batch x outputSize. Initialised
-- uniform(-1/sqrt(inputSize), 1/sqrt(inputSize)).
--   dy_j/dx = (x - w_j) / y_j,  dy_j/dw_j = (w_j - x) / y_j
-- with 1e-7 added to y_j against division by zero (Torch7's guard).
-- Lua over tensor ops, as Torch7: forward keeps the differences x - w_j
-- for every sample in '_repeat' (batch x inputSize x outputSize), which
-- backward reads; '_repeat2' holds them scaled by g_j / y_j.

local Euclidean, parent = torch.class('nn.Euclidean', 'nn.Module')

function Euclidean:__init(inputSize, outputSize)
  parent.__init(self)
  inputSize = nn.utils.positive(inputSize, 'inputSize', 'nn.Euclidean', 4)
  outputSize = nn.utils.positive(outputSize, 'outputSize', 'nn.Euclidean', 4)
  self.weight = torch.Tensor(inputSize, outputSize)
  self.gradWeight = torch.Tensor(inputSize, outputSize)
  self.gradInput:resize(inputSize)
  self.output:resize(outputSize)
  self.fastBackward = true
  self:reset()
end

function Euclidean:reset(stdv)
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
  local n = self.weight:size(1)
  if (input:dim() ~= 1 and input:dim() ~= 2) or input:size(input:dim()) ~= n then
    error(string.format('%s: input must be 1D or 2D with %d columns, got %s', who, n, nn.utils.shapeString(input)), 0)
  end
  if input:dim() == 1 then return input:view(1, n) end
  return input
end

-- into 'd' (batch x inputSize x outputSize): x_b - w_j for every b, j
local function differences(self, d, x)
  local w = self.weight
  local b, inSize, outSize = x:size(1), w:size(1), w:size(2)
  d:resize(b, inSize, outSize):copy(x:view(b, inSize, 1):expand(b, inSize, outSize))
  d:add(-1, w:view(1, inSize, outSize):expand(b, inSize, outSize))
  return d
end
Euclidean.differences = differences

function Euclidean:updateOutput(input)
  local x = matrix(self, input, torch.type(self) .. ':updateOutput')
  local b, outSize = x:size(1), self.weight:size(2)
  local r = differences(self, buf(self, '_repeat', self.weight), x)
  if self.diagCov then r:cmul(self.diagCov:view(1, x:size(2), outSize):expandAs(r)) end
  self.output:resize(b, 1, outSize):norm(r, 2, 2)
  if input:dim() == 1 then self.output:resize(outSize) else self.output:resize(b, outSize) end
  return self.output
end

-- '_repeat2' = _repeat .* (g / (y + 1e-7)) broadcast over the input dimension
local function scaled(self, x, gradOutput, who)
  local b, inSize, outSize = x:size(1), self.weight:size(1), self.weight:size(2)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= b * outSize then
    error(string.format('%s: gradOutput must be %s (the output), got %s', who, nn.utils.sizeString(self.output),
                        nn.utils.shapeString(gradOutput)), 0)
  end
  if not torch.isTensor(self._repeat) or self._repeat:nElement() ~= b * inSize * outSize then
    error(string.format('%s: forward the same %d samples first', who, b), 0)
  end
  local y = buf(self, '_output', self.weight):resize(b, 1, outSize)
  y:copy(self.output:view(b, 1, outSize)):add(1e-7)
  local div = buf(self, '_div', self.weight):resize(b, 1, outSize)
  div:cdiv(gradOutput:contiguous():view(b, 1, outSize), y)
  local r2 = buf(self, '_repeat2', self.weight):resizeAs(self._repeat)
  r2:cmul(self._repeat, div:expand(b, inSize, outSize))
  return r2, div
end
Euclidean.scaled = scaled

function Euclidean:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local who = torch.type(self) .. ':updateGradInput'
  local x = matrix(self, input, who)
  if not self.fastBackward then self:updateOutput(input) end
  local r2 = scaled(self, x, gradOutput, who)
  if self.diagCov then r2:cmul(self.diagCov:view(1, x:size(2), -1):expandAs(r2)) end
  self.gradInput:resize(x:size(1), x:size(2), 1):sum(r2, 3)
  self.gradInput:resizeAs(input)
  return self.gradInput
end

function Euclidean:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local x = matrix(self, input, 'nn.Euclidean:accGradParameters')
  local r2 = scaled(self, x, gradOutput, 'nn.Euclidean:accGradParameters')
  local s = buf(self, '_sum', self.weight):sum(r2, 1)
  self.gradWeight:add(-scale, s:view(self.weight:size()))
end

function Euclidean:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function Euclidean:memoryTraits()
  return {buffers = {_repeat = 'both', _repeat2 = 'backward', _output = 'backward', _div = 'backward',
                     _sum = 'backward'},
          needsInput = true, needsOutput = true}
end
