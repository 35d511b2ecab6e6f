-- nn.HingeEmbeddingCriterion([margin=1]): for distances x and labels y
-- (+1 similar, -1 dissimilar; a number for one element):
-- loss = sum_{y ~= -1} x + sum_{y ~= 1} max(0, margin - x) (/ n when
-- sizeAverage, the default); gradient y, but 0 where y = -1 and x > margin.
-- As Torch7, an element labelled neither 1 nor -1 counts in both sums.
-- Lua over tensor ops.

local HingeEmbeddingCriterion, parent = torch.class('nn.HingeEmbeddingCriterion', 'nn.Criterion')

function HingeEmbeddingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.sizeAverage = true
end

-- y as a tensor of the input's shape and type
local function labels(self, input, y, method)
  local who = 'nn.HingeEmbeddingCriterion:' .. method
  nn.utils.checkTensor(input, who)
  if type(y) == 'number' then
    self.ty = self.ty or input.new()
    self.ty:resize(1):fill(y)
    y = self.ty
  end
  nn.utils.checkTensor(y, who, 'target')
  if y:nElement() ~= input:nElement() then
    nn.utils.error(who, 'target must have one label (1 or -1) per input element (%s), got %s',
                   nn.utils.shapeString(input), nn.utils.shapeString(y))
  end
  return y:typeAs(input):contiguous():viewAs(input)
end

function HingeEmbeddingCriterion:updateOutput(input, y)
  y = labels(self, input, y, 'updateOutput')
  self.buffer = self.buffer or input.new()
  local b = self.buffer
  b:resizeAs(input):copy(input):maskedFill(torch.eq(y, -1), 0)
  local loss = b:sum()
  b:fill(self.margin):add(-1, input):cmax(0):maskedFill(torch.eq(y, 1), 0)
  loss = loss + b:sum()
  if self.sizeAverage == nil or self.sizeAverage == true then loss = loss / input:nElement() end
  self.output = loss
  return self.output
end

function HingeEmbeddingCriterion:updateGradInput(input, y)
  y = labels(self, input, y, 'updateGradInput')
  self.gradInput:resizeAs(input):copy(y)
  self.gradInput:maskedFill(torch.eq(y, -1):cmul(torch.gt(input, self.margin)), 0)
  if self.sizeAverage == nil or self.sizeAverage == true then
    self.gradInput:mul(1 / input:nElement())
  end
  return self.gradInput
end

function HingeEmbeddingCriterion:clearState()
  nn.utils.clear(self, 'buffer')
  return parent.clearState(self)
end
