-- nn.SoftMarginCriterion(): two-class logistic loss, targets +1/-1:
-- loss = sum log(1 + exp(-y x)) (/ n when sizeAverage, the default);
-- gradient -y sigmoid(-y x) (/ n). Input and target: equal element counts.
-- Computed as max(z, 0) + log1p(exp(-|z|)) with z = -y x, so that large
-- |x| neither overflows nor loses the small term. Lua over tensor ops.

local SoftMarginCriterion, parent = torch.class('nn.SoftMarginCriterion', 'nn.Criterion')

function SoftMarginCriterion:__init()
  parent.__init(self)
  self.sizeAverage = true
end

-- z = -y x into self._z (the input's shape)
local function margins(self, input, target, method)
  local who = 'nn.SoftMarginCriterion:' .. method
  nn.utils.checkTensor(input, who)
  nn.utils.checkTensor(target, who, 'target')
  if target:nElement() ~= input:nElement() then
    nn.utils.error(who, 'target must have as many elements as the input (%s), got %s',
                   nn.utils.shapeString(input), nn.utils.shapeString(target))
  end
  self._z = self._z or input.new()
  local y = target:typeAs(input):contiguous():viewAs(input)
  self._z:resizeAs(input):copy(y):cmul(input):mul(-1)
  return self._z, y
end

function SoftMarginCriterion:updateOutput(input, target)
  local z = margins(self, input, target, 'updateOutput')
  self._buffer = self._buffer or input.new()
  local b = self._buffer
  b:resizeAs(z):copy(z):abs():mul(-1):exp():log1p()
  local loss = b:sum() + z:clone():cmax(0):sum()
  if self.sizeAverage then loss = loss / input:nElement() end
  self.output = loss
  return self.output
end

function SoftMarginCriterion:updateGradInput(input, target)
  local z, y = margins(self, input, target, 'updateGradInput')
  self.gradInput:resizeAs(input)
  torch.sigmoid(self.gradInput, z)
  self.gradInput:cmul(y):mul(-1)
  if self.sizeAverage then self.gradInput:div(input:nElement()) end
  return self.gradInput
end

function SoftMarginCriterion:clearState()
  nn.utils.clear(self, '_z', '_buffer')
  return parent.clearState(self)
end
