-- nn.CosineEmbeddingCriterion([margin=0]): input {x1, x2} (vectors d or
-- batches n x d), y = 1 (similar) or -1 (dissimilar) per pair (a number or
-- a tensor of n). With c = cos(x1, x2) (squared norms + 1e-12, as Torch7):
-- loss = sum_{y=1} (1 - c) + sum_{y=-1} max(0, c - margin)
-- (/ n when sizeAverage, the default). Lua over tensor ops, per-row
-- factors broadcast with expandAs.

local CosineEmbeddingCriterion, parent = torch.class('nn.CosineEmbeddingCriterion', 'nn.Criterion')

local EPS = 1e-12

function CosineEmbeddingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 0
  self.gradInput = {torch.Tensor(), torch.Tensor()}
  self.sizeAverage = true
end

-- x1, x2 as n x d views and y as a tensor of n
local function operands(self, input, y, method)
  local who = 'nn.CosineEmbeddingCriterion:' .. method
  nn.utils.checkTensorPair(input, who, '{x1, x2}')
  local a, b = input[1], input[2]
  if not a:isSameSizeAs(b) or (a:dim() ~= 1 and a:dim() ~= 2) or a:nElement() == 0 then
    nn.utils.error(who, 'x1 and x2 must be vectors or batches (n x d) of one size, got %s and %s',
                   nn.utils.shapeString(a), nn.utils.shapeString(b))
  end
  if a:dim() == 1 then a, b = a:view(1, -1), b:view(1, -1) end
  if type(y) == 'number' then
    self._y = self._y or a.new()
    self._y:resize(1):fill(y)
    y = self._y
  end
  nn.utils.checkTensor(y, who, 'target')
  if y:nElement() ~= a:size(1) then
    nn.utils.error(who, 'target must have one label per pair (%d), got %s', a:size(1), nn.utils.shapeString(y))
  end
  return a, b, y:contiguous():view(a:size(1)):typeAs(a)
end

function CosineEmbeddingCriterion:updateOutput(input, y)
  local a, b, yv = operands(self, input, y, 'updateOutput')
  self.buffer = self.buffer or a.new()
  self.w1, self.w22, self.w32, self.w = self.w1 or a.new(), self.w22 or a.new(), self.w32 or a.new(), self.w or a.new()
  self._outputs = self._outputs or a.new()
  -- w1 = x1.x2, w22 = 1/|x1|^2, w32 = 1/|x2|^2, w = sqrt(w22 w32), cos = w1 w
  self.w1:sum(self.buffer:cmul(a, b), 2)
  self.w22:sum(self.buffer:cmul(a, a), 2):add(EPS):cinv()
  self.w32:sum(self.buffer:cmul(b, b), 2):add(EPS):cinv()
  self.w:cmul(self.w22, self.w32):sqrt()
  local o = self._outputs
  o:cmul(self.w1, self.w):resize(a:size(1))
  -- y = -1: max(0, c - margin); y = 1: 1 - c
  self.buffer:resizeAs(o):copy(o):add(-self.margin):cmax(0)
  o:mul(-1):add(1):maskedFill(torch.eq(yv, -1), 0)
  o:add(self.buffer:maskedFill(torch.ne(yv, -1), 0))
  local loss = o:sum()
  if self.sizeAverage then loss = loss / a:size(1) end
  self.output = loss
  return self.output
end

function CosineEmbeddingCriterion:updateGradInput(input, y)
  local a, b, yv = operands(self, input, y, 'updateGradInput')
  if not self.w or self.w:nElement() ~= a:size(1) then
    nn.utils.error('nn.CosineEmbeddingCriterion:updateGradInput', 'call forward first (with this input)')
  end
  local g1, g2 = self.gradInput[1], self.gradInput[2]
  -- dc/dx1 = (x2 - w1 w22 x1) w, dc/dx2 = (x1 - w1 w32 x2) w
  g1:resizeAs(a):copy(b)
  g2:resizeAs(a):copy(a)
  self.buffer:cmul(self.w1, self.w22)
  g1:addcmul(-1, self.buffer:expandAs(a), a):cmul(self.w:expandAs(a))
  self.buffer:cmul(self.w1, self.w32)
  g2:addcmul(-1, self.buffer:expandAs(a), b):cmul(self.w:expandAs(a))
  -- per row: 0 where the loss is 0, -1 for y = 1, 1 for y = -1 (/ n)
  local f = self.buffer:resize(a:size(1)):fill(0)
  f:maskedFill(torch.eq(yv, -1), 1):maskedFill(torch.eq(yv, 1), -1)
  f:maskedFill(torch.le(self._outputs, 0), 0)
  if self.sizeAverage then f:div(a:size(1)) end
  local fe = f:view(a:size(1), 1):expandAs(a)
  g1:cmul(fe)
  g2:cmul(fe)
  if input[1]:dim() == 1 then
    g1:resize(input[1]:size(1))
    g2:resize(input[2]:size(1))
  end
  return self.gradInput
end

function CosineEmbeddingCriterion:clearState()
  nn.utils.clear(self, 'buffer', 'w1', 'w22', 'w32', 'w', '_outputs', '_y')
  for _, g in ipairs(self.gradInput) do g:set() end
  return self
end
