-- nn.ClassSimplexCriterion(nClasses): MSECriterion against the class's
-- vertex of a regular simplex (Mroueh et al., arXiv:1506.08230): class k
-- is embedded as row k of 'simplex' (nClasses x nClasses: the unit-norm
-- vertices of a regular (nClasses-1)-simplex centred at the origin, padded
-- with a zero column). input: nClasses (target a class number) or batch x
-- nClasses (target a 1D tensor of class numbers). getPredictions(input)
-- gives input * simplex^T, getTopPrediction(input) the best class per row.
-- Lua: the embedded target in '_target', then the MSE kernel.

local ClassSimplexCriterion, parent = torch.class('nn.ClassSimplexCriterion', 'nn.MSECriterion')

-- vertices of a regular simplex in R^n (n + 1 rows of norm 1), built row by
-- row: each new coordinate makes the row unit-norm and fixes the pairwise
-- dot products at -1/n (Wikipedia, "Simplex", Cartesian coordinates)
local function regsplex(n)
  local a = torch.zeros(n + 1, n)
  for k = 1, n do
    if k == 1 then
      a[k][k] = 1
    else
      a[k][k] = math.sqrt(1 - a[{{k}, {1, k - 1}}]:norm() ^ 2)
    end
    local c = (a[k][k] ^ 2 - 1 - 1 / n) / a[k][k]
    a[{{k + 1, n + 1}, {k}}]:fill(c)
  end
  return a
end

function ClassSimplexCriterion:__init(nClasses)
  parent.__init(self)
  local n = math.tointeger(nClasses)
  if n == nil or n < 2 then
    error(string.format('nn.ClassSimplexCriterion: nClasses must be an integer > 1, got %s', tostring(nClasses)), 2)
  end
  self.nClasses = n
  local simp = regsplex(n - 1)
  self.simplex = torch.cat(simp, torch.zeros(simp:size(1), n - simp:size(2)), 2)
  self._target = torch.Tensor(n)
end

local function classOf(self, c, who)
  local k = math.tointeger(c)
  if k == nil or k < 1 or k > self.nClasses then
    nn.utils.error(who, 'target %s out of range (expected a class number in 1..%d)', tostring(c), self.nClasses)
  end
  return k
end

-- the simplex vertices of the targets into self._target, checked against the input
local function transformTarget(self, input, target, who)
  nn.utils.checkTensor(input, who)
  if torch.type(target) == 'number' then
    self._target:resize(self.nClasses):copy(self.simplex[classOf(self, target, who)])
  elseif torch.isTensor(target) and target:dim() == 1 then
    local n = target:size(1)
    self._target:resize(n, self.nClasses)
    for i = 1, n do self._target[i]:copy(self.simplex[classOf(self, target[i], who)]) end
  else
    nn.utils.error(who, 'target must be a class number or a 1D tensor of them, got %s', nn.utils.shapeString(target))
  end
  if input:nElement() ~= self._target:nElement() then
    nn.utils.error(who, 'input must have %d elements (%s targets x %d classes), got %s',
                   self._target:nElement(), self._target:dim() == 1 and '1' or tostring(self._target:size(1)),
                   self.nClasses, nn.utils.shapeString(input))
  end
  return self._target
end

function ClassSimplexCriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, transformTarget(self, input, target, 'nn.ClassSimplexCriterion:updateOutput'))
end

function ClassSimplexCriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input,
                                transformTarget(self, input, target, 'nn.ClassSimplexCriterion:updateGradInput'))
end

function ClassSimplexCriterion:getPredictions(input)
  if input:dim() == 1 then input = input:view(1, -1) end
  return torch.mm(input, self.simplex:t())
end

function ClassSimplexCriterion:getTopPrediction(input)
  local prod = self:getPredictions(input)
  local _, maxs = prod:max(prod:dim())
  return maxs:view(-1)
end
