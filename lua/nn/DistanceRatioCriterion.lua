-- nn.DistanceRatioCriterion([sizeAverage=true]): the triplet loss of Hoffer
-- & Ailon ("Deep metric learning using triplet network"): input {X, Y}, X
-- the distances of similar pairs, Y of dissimilar ones (n each):
-- loss = sum X + log(exp(-X) + exp(-Y)) (/ n when sizeAverage), i.e.
-- -log softmax(-X, -Y)[1]. Gradients 1 - exp(-X)/s and -exp(-Y)/s with
-- s = exp(-X) + exp(-Y) (/ n). No target. Lua over tensor ops.

local DistanceRatioCriterion, parent = torch.class('nn.DistanceRatioCriterion', 'nn.Criterion')

function DistanceRatioCriterion:__init(sizeAverage)
  parent.__init(self)
  if sizeAverage ~= nil then self.sizeAverage = sizeAverage else self.sizeAverage = true end
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

local function check(input, method)
  local who = 'nn.DistanceRatioCriterion:' .. method
  nn.utils.checkTensorPair(input, who, '{X, Y}')
  local X, Y = input[1], input[2]
  if X:nElement() ~= Y:nElement() or X:dim() == 0 or Y:dim() == 0 or X:size(1) ~= Y:size(1) then
    nn.utils.error(who, 'X and Y must hold as many distances, got %s and %s',
                   nn.utils.shapeString(X), nn.utils.shapeString(Y))
  end
  return X, Y
end

-- exp(-X), exp(-Y) and their sum into buffers
local function exps(self, X, Y)
  self._expMinusX = self._expMinusX or X.new()
  self._expMinusY = self._expMinusY or Y.new()
  self._sumExpMinusXY = self._sumExpMinusXY or X.new()
  self._expMinusX:resizeAs(X):copy(X):mul(-1):exp()
  self._expMinusY:resizeAs(Y):copy(Y):mul(-1):exp()
  self._sumExpMinusXY:resizeAs(X):copy(self._expMinusX):add(self._expMinusY:viewAs(X))
end

function DistanceRatioCriterion:updateOutput(input)
  local X, Y = check(input, 'updateOutput')
  exps(self, X, Y)
  local loss = X:sum() + self._sumExpMinusXY:clone():log():sum()
  if self.sizeAverage then loss = loss / X:size(1) end
  self.output = loss
  return self.output
end

function DistanceRatioCriterion:updateGradInput(input)
  local X, Y = check(input, 'updateGradInput')
  exps(self, X, Y)
  local dX, dY = self.gradInput[1], self.gradInput[2]
  dX:resizeAs(X):copy(self._expMinusX):mul(-1):cdiv(self._sumExpMinusXY):add(1)
  dY:resizeAs(Y):copy(self._expMinusY):mul(-1):cdiv(self._sumExpMinusXY:viewAs(Y))
  if self.sizeAverage then
    dX:div(X:size(1))
    dY:div(X:size(1))
  end
  return self.gradInput
end

function DistanceRatioCriterion:clearState()
  nn.utils.clear(self, '_expMinusX', '_expMinusY', '_sumExpMinusXY')
  for _, g in ipairs(self.gradInput) do g:set() end
  return self
end
