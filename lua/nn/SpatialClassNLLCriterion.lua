-- nn.SpatialClassNLLCriterion([weights, sizeAverage=true]): ClassNLL per
-- pixel. input: batch x nClasses x H x W log-probabilities; target: batch x
-- H x W class numbers (1-based). loss = -sum w[t] x[t] over every pixel,
-- divided by the sum of the weights used when sizeAverage; as Torch7,
-- updateOutput also returns that total weight (forward returns the loss).
-- Targets equal to -100 are skipped (ClassNLLCriterion's ignoreIndex, which
-- later Torch7 versions also give this criterion); others out of range are
-- an error.
-- Lua: the input is laid out as (batch*H*W) x nClasses in '_input' and
-- handed to the ClassNLLCriterion kernel (src/nn/th_nn_criterion.c); the
-- gradient comes back through '_gradInput'.

local C = torch._C.nn
local SpatialClassNLLCriterion, parent = torch.class('nn.SpatialClassNLLCriterion', 'nn.Criterion')

function SpatialClassNLLCriterion:__init(weights, sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
  if weights ~= nil then
    if not torch.isTensor(weights) or weights:dim() ~= 1 then
      error(string.format('nn.SpatialClassNLLCriterion: weights must be a 1D tensor, got %s',
                          nn.utils.shapeString(weights)), 2)
    end
    self.weights = weights
  end
  self.output_tensor = torch.zeros(1)
  self.total_weight_tensor = torch.ones(1)
  self.target = torch.zeros(1):long()
end

function SpatialClassNLLCriterion:__len()
  return self.weights and #self.weights or 0
end

-- the pixels as rows of class scores, and their targets as one vector
local function rows(self, input, target, method)
  local who = 'nn.SpatialClassNLLCriterion:' .. method
  nn.utils.checkTensor(input, who)
  nn.utils.checkTensor(target, who, 'target')
  if input:dim() ~= 4 then
    nn.utils.error(who, 'input must be 4D (batch x classes x height x width), got %s', nn.utils.shapeString(input))
  end
  local N, K, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  if target:dim() ~= 3 or target:size(1) ~= N or target:size(2) ~= H or target:size(3) ~= W then
    nn.utils.error(who, 'target must be 3D %dx%dx%d (batch x height x width of the input %s), got %s',
                   N, H, W, nn.utils.sizeString(input), nn.utils.shapeString(target))
  end
  self._input = self._input or input.new()
  self._input:resize(N, H, W, K):copy(input:permute(1, 3, 4, 2))
  return self._input:view(N * H * W, K), target:contiguous():view(N * H * W)
end

function SpatialClassNLLCriterion:updateOutput(input, target)
  local x, t = rows(self, input, target, 'updateOutput')
  local out, tw = C.classnll_updateOutput(self, x, t, self.weights, self.sizeAverage, -100)
  self.output_tensor[1] = out
  self.total_weight_tensor[1] = tw
  self.output = out
  return self.output, tw
end

function SpatialClassNLLCriterion:updateGradInput(input, target)
  local x, t = rows(self, input, target, 'updateGradInput')
  self._gradInput = self._gradInput or input.new()
  C.classnll_updateGradInput(self, x, t, self._gradInput, self.weights, self.sizeAverage, -100,
                             self.total_weight_tensor[1])
  local N, K, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  self.gradInput:resizeAs(input):copy(self._gradInput:view(N, H, W, K):permute(1, 4, 2, 3))
  return self.gradInput
end

function SpatialClassNLLCriterion:clearState()
  nn.utils.clear(self, '_input', '_gradInput')
  return parent.clearState(self)
end
