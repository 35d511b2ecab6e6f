-- nn.MultiLabelSoftMarginCriterion([weights, sizeAverage=true]): one
-- logistic loss per class (sigmoid + binary cross-entropy on scores x,
-- targets t in [0, 1]): loss = sum w (log(1 + exp(x)) - t x), divided by
-- the element count when sizeAverage; gradient w (sigmoid(x) - t) (/ n).
-- input and target: nClasses or batch x nClasses; weights (optional) one
-- per class. Computed as max(x, 0) + log1p(exp(-|x|)) - t x, finite for
-- any x. 'sigmoid' (an nn.Sigmoid, Torch7's field) keeps sigmoid(x) for
-- backward. Lua over tensor ops.

local MultiLabelSoftMarginCriterion, parent = torch.class('nn.MultiLabelSoftMarginCriterion', 'nn.Criterion')

function MultiLabelSoftMarginCriterion:__init(weights, sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
  if weights ~= nil then
    if not torch.isTensor(weights) or weights:dim() ~= 1 then
      error(string.format('nn.MultiLabelSoftMarginCriterion: weights must be a 1D tensor, got %s',
                          nn.utils.shapeString(weights)), 2)
    end
    self.weights = weights
  end
  self.sigmoid = nn.Sigmoid()
end

-- checks; the weights broadcast over the batch (nil without weights)
local function operands(self, input, target, method)
  local who = 'nn.MultiLabelSoftMarginCriterion:' .. method
  nn.utils.checkTensor(input, who)
  nn.utils.checkTensor(target, who, 'target')
  if input:nElement() == 0 then nn.utils.error(who, 'input must not be empty') end
  if target:nElement() ~= input:nElement() then
    nn.utils.error(who, 'target must have as many elements as the input (%s), got %s',
                   nn.utils.shapeString(input), nn.utils.shapeString(target))
  end
  local w = self.weights
  if w ~= nil then
    local n = input:size(input:dim())
    if w:nElement() ~= n then
      nn.utils.error(who, 'weights must have one element per class (%d, the input\'s last dimension), got %d',
                     n, w:nElement())
    end
    w = input:dim() == 1 and w or w:view(1, n):expandAs(input)
  end
  return target:typeAs(input):contiguous():viewAs(input), w
end

function MultiLabelSoftMarginCriterion:updateOutput(input, target)
  local t, w = operands(self, input, target, 'updateOutput')
  self.sigmoid:updateOutput(input)
  self._buffer1 = self._buffer1 or input.new()
  self._buffer2 = self._buffer2 or input.new()
  local b1, b2 = self._buffer1, self._buffer2
  b2:resizeAs(input):copy(input):abs():mul(-1):exp():log1p()   -- log1p(exp(-|x|))
  b1:resizeAs(input):copy(input):cmax(0)                        -- max(x, 0)
  b2:add(b1):addcmul(-1, t, input)
  if w ~= nil then b2:cmul(w) end
  local loss = b2:sum()
  if self.sizeAverage then loss = loss / input:nElement() end
  self.output = loss
  return self.output
end

function MultiLabelSoftMarginCriterion:updateGradInput(input, target)
  local t, w = operands(self, input, target, 'updateGradInput')
  if not self.sigmoid.output:isSameSizeAs(input) then self.sigmoid:updateOutput(input) end
  self.gradInput:resizeAs(input):copy(self.sigmoid.output):add(-1, t)
  if w ~= nil then self.gradInput:cmul(w) end
  if self.sizeAverage then self.gradInput:div(input:nElement()) end
  return self.gradInput
end

function MultiLabelSoftMarginCriterion:clearState()
  nn.utils.clear(self, '_buffer1', '_buffer2')
  self.sigmoid:clearState()
  return parent.clearState(self)
end
