-- nn.WeightedEuclidean(inputSize, outputSize): y_j = ||c_j .* (x - w_j)||,
-- nn.Euclidean with a learnable diagonal covariance per template: weight
-- and diagCov are inputSize x outputSize (column j is template j), diagCov
-- starts at ones. input: inputSize or batch x inputSize; output: outputSize
-- or batch x outputSize.
--   dy_j/dx   = c_j^2 (x - w_j) / y_j
--   dy_j/dw_j = c_j^2 (w_j - x) / y_j
--   dy_j/dc_j = c_j (x - w_j)^2 / y_j
-- (1e-7 added to y_j, as Torch7). Lua over tensor ops, sharing
-- nn.Euclidean's steps: '_repeat' holds c_j .* (x - w_j) from forward.

require 'nn.Euclidean'
local Euclidean = nn.Euclidean
local WeightedEuclidean, parent = torch.class('nn.WeightedEuclidean', 'nn.Module')

function WeightedEuclidean:__init(inputSize, outputSize)
  parent.__init(self)
  for _, v in ipairs{{inputSize, 'inputSize'}, {outputSize, 'outputSize'}} do
    local i = math.tointeger(v[1])
    if i == nil or i < 1 then
      error(string.format('nn.WeightedEuclidean: %s must be a positive integer, got %s', v[2], tostring(v[1])), 2)
    end
  end
  self.weight = torch.Tensor(inputSize, outputSize)
  self.gradWeight = torch.Tensor(inputSize, outputSize)
  self.diagCov = torch.Tensor(inputSize, outputSize)
  self.gradDiagCov = torch.Tensor(inputSize, outputSize)
  self.fastBackward = true
  self:reset()
end

function WeightedEuclidean:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(1))
  end
  self.weight:uniform(-stdv, stdv)
  self.diagCov:fill(1)
  return self
end

WeightedEuclidean.updateOutput = Euclidean.updateOutput
WeightedEuclidean.updateGradInput = Euclidean.updateGradInput

function WeightedEuclidean:parameters()
  return {self.weight, self.diagCov}, {self.gradWeight, self.gradDiagCov}
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

function WeightedEuclidean:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local who = 'nn.WeightedEuclidean:accGradParameters'
  nn.utils.checkTensor(input, who)
  local inSize, outSize = self.weight:size(1), self.weight:size(2)
  if (input:dim() ~= 1 and input:dim() ~= 2) or input:size(input:dim()) ~= inSize then
    error(string.format('%s: input must be 1D or 2D with %d columns, got %s', who, inSize,
                        nn.utils.shapeString(input)), 0)
  end
  local x = input:dim() == 1 and input:view(1, inSize) or input
  local b = x:size(1)
  local r2, div = Euclidean.scaled(self, x, gradOutput, who)   -- c (x - w) g/y
  local c = self.diagCov:view(1, inSize, outSize):expand(b, inSize, outSize)
  -- both sums before either parameter moves: in accUpdateGradParameters the
  -- gradients are the parameters themselves
  local t = buf(self, '_repeat3', self.weight):resizeAs(r2):cmul(r2, c)
  local sw = buf(self, '_sum', self.weight):sum(t, 1)          -- c^2 (x - w) g/y
  Euclidean.differences(self, t, x)
  local sc = buf(self, '_sum2', self.weight):sum(t:cmul(r2), 1) -- c (x - w)^2 g/y
  self.gradWeight:add(-scale, sw:view(inSize, outSize))
  self.gradDiagCov:add(scale, sc:view(inSize, outSize))
end

-- through the gradients' fields, so that both parameters move
function WeightedEuclidean:defaultAccUpdateGradParameters(input, gradOutput, lr)
  local gw, gc = self.gradWeight, self.gradDiagCov
  self.gradWeight, self.gradDiagCov = self.weight, self.diagCov
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  self.gradWeight, self.gradDiagCov = gw, gc
  if not ok then error(err, 0) end
end

function WeightedEuclidean:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function WeightedEuclidean:memoryTraits()
  return {buffers = {_repeat = 'both', _repeat2 = 'backward', _repeat3 = 'backward', _output = 'backward',
                     _div = 'backward', _sum = 'backward', _sum2 = 'backward'},
          needsInput = true, needsOutput = true}
end
