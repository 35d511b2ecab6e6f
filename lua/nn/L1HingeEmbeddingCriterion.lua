-- nn.L1HingeEmbeddingCriterion([margin=1]): input {x1, x2}, y = 1 or -1 (a
-- number): with d = ||x1 - x2||_1, loss = d for y = 1 and
-- max(0, margin - d) for y = -1. Gradient sign(x1 - x2) for x1 (negated
-- for y = -1 inside the margin, 0 beyond it), its negative for x2. Where
-- x1 = x2 the gradient is 0 (Torch7 picked a random sign there).
-- Lua over tensor ops.

local L1HingeEmbeddingCriterion, parent = torch.class('nn.L1HingeEmbeddingCriterion', 'nn.Criterion')

function L1HingeEmbeddingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

local function check(input, y, method)
  local who = 'nn.L1HingeEmbeddingCriterion:' .. method
  nn.utils.checkTensorPair(input, who, '{x1, x2}')
  if input[1]:nElement() ~= input[2]:nElement() then
    nn.utils.error(who, 'x1 and x2 must have the same number of elements, got %s and %s',
                   nn.utils.shapeString(input[1]), nn.utils.shapeString(input[2]))
  end
  if y ~= 1 and y ~= -1 then
    nn.utils.error(who, 'target must be 1 or -1, got %s', tostring(y))
  end
end

function L1HingeEmbeddingCriterion:updateOutput(input, y)
  check(input, y, 'updateOutput')
  local d = input[1]:nElement() > 0 and input[1]:dist(input[2]:viewAs(input[1]), 1) or 0
  if y == -1 then d = math.max(0, self.margin - d) end
  self.output = d
  return self.output
end

function L1HingeEmbeddingCriterion:updateGradInput(input, y)
  check(input, y, 'updateGradInput')
  local g1, g2 = self.gradInput[1], self.gradInput[2]
  g1:resizeAs(input[1]):copy(input[1]):add(-1, input[2]:viewAs(input[1]))
  local dist = g1:nElement() > 0 and g1:norm(1) or 0
  torch.sign(g1, g1)
  if y == -1 then
    if dist > self.margin then g1:zero() else g1:mul(-1) end
  end
  g2:resizeAs(input[2]):copy(g1:viewAs(input[2])):mul(-1)
  return self.gradInput
end

function L1HingeEmbeddingCriterion:clearState()
  for _, g in ipairs(self.gradInput) do g:set() end
  return self
end
