-- nn.MarginRankingCriterion([margin=1]): input {x1, x2}, y = 1 when x1
-- should rank higher, -1 when x2 should:
-- loss = sum max(0, -y (x1 - x2) + margin) (/ batch when sizeAverage, the
-- default). One pair: x1, x2 1-element tensors and y a number. A batch:
-- x1, x2 and y tensors of n. Gradient -y and y where the hinge is active
-- (>= 0, as Torch7), 0 elsewhere. Lua over tensor ops.

local MarginRankingCriterion, parent = torch.class('nn.MarginRankingCriterion', 'nn.Criterion')

function MarginRankingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.gradInput = {torch.Tensor(1), torch.Tensor(1)}
  self.sizeAverage = true
end

local function check(input, y, method)
  local who = 'nn.MarginRankingCriterion:' .. method
  nn.utils.checkTensorPair(input, who, '{x1, x2}')
  local n = input[1]:nElement()
  if input[2]:nElement() ~= n then
    nn.utils.error(who, 'x1 and x2 must have the same number of elements, got %s and %s',
                   nn.utils.shapeString(input[1]), nn.utils.shapeString(input[2]))
  end
  if torch.type(y) == 'number' then
    if n < 1 then nn.utils.error(who, 'x1 and x2 must not be empty') end
  else
    nn.utils.checkTensor(y, who, 'target (a number, or a tensor of labels for a batch)')
    if y:nElement() ~= n then
      nn.utils.error(who, 'target must have one label per pair (%d), got %s', n, nn.utils.shapeString(y))
    end
  end
end

function MarginRankingCriterion:updateOutput(input, y)
  check(input, y, 'updateOutput')
  if torch.type(y) == 'number' then
    self.output = math.max(0, -y * (input[1][1] - input[2][1]) + self.margin)
  else
    self._output = self._output or input[1].new()
    local o = self._output
    o:resizeAs(input[1]):copy(input[1]):add(-1, input[2]):mul(-1):cmul(y:typeAs(o):contiguous():viewAs(o))
    o:add(self.margin):cmax(0)
    self.output = o:sum()
    if self.sizeAverage then self.output = self.output / y:size(1) end
  end
  return self.output
end

function MarginRankingCriterion:updateGradInput(input, y)
  check(input, y, 'updateGradInput')
  local g1, g2 = self.gradInput[1], self.gradInput[2]
  if torch.type(y) == 'number' then
    local dist = -y * (input[1][1] - input[2][1]) + self.margin
    g1:resizeAs(input[1]); g2:resizeAs(input[2])
    g1:fill(dist < 0 and 0 or -y)
    g2:fill(dist < 0 and 0 or y)
  else
    self.dist = self.dist or input[1].new()
    local d = self.dist
    local yv = y:typeAs(input[1]):contiguous():viewAs(input[1])
    d:resizeAs(input[1]):copy(input[1]):add(-1, input[2]):mul(-1):cmul(yv):add(self.margin)
    self.mask = self.mask or input[1].new()
    self.mask:resizeAs(d):copy(torch.ge(d, 0))
    g1:resizeAs(d):copy(self.mask):mul(-1):cmul(yv)
    g2:resizeAs(d):copy(self.mask):cmul(yv)
    if self.sizeAverage then
      g1:div(y:size(1))
      g2:div(y:size(1))
    end
  end
  return self.gradInput
end

-- the two gradInput tensors are emptied, not dropped (backward fills them)
function MarginRankingCriterion:clearState()
  nn.utils.clear(self, '_output', 'dist', 'mask')
  for _, g in ipairs(self.gradInput) do g:set() end
  return self
end
