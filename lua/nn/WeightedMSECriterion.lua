-- nn.WeightedMSECriterion(weight): MSECriterion against the target scaled
-- elementwise by 'weight' (a copy is kept): loss = sum (x - w .* y)^2
-- (/ n when sizeAverage, the default). As Torch7, only the target is
-- weighted. 'weight' has the target's shape, or that of one sample of a
-- batch (then it applies to every sample). Lua: the scaled target in
-- 'buffer', then the MSE kernel.

local WeightedMSECriterion, parent = torch.class('nn.WeightedMSECriterion', 'nn.MSECriterion')

function WeightedMSECriterion:__init(w)
  parent.__init(self)
  if not torch.isTensor(w) then
    error(string.format('nn.WeightedMSECriterion: weight must be a tensor, got %s', torch.type(w)), 2)
  end
  self.weight = w:clone()
end

local function weightedTarget(self, input, target, method)
  local who = 'nn.WeightedMSECriterion:' .. method
  nn.utils.checkTensor(input, who)
  nn.utils.checkTensor(target, who, 'target')
  if target:nElement() ~= input:nElement() then
    nn.utils.error(who, 'target must have as many elements as the input (%s), got %s',
                   nn.utils.shapeString(input), nn.utils.shapeString(target))
  end
  self.buffer = self.buffer or input.new()
  self.buffer:resizeAs(input):copy(target:viewAs(input))
  local w = self.weight
  if input:dim() - 1 == w:dim() and w:nElement() * input:size(1) == input:nElement() then
    self.buffer:cmul(w:view(1, table.unpack(w:size():totable())):expandAs(input))
  elseif w:nElement() == input:nElement() then
    self.buffer:cmul(w:viewAs(input))
  else
    nn.utils.error(who, 'weight %s fits neither the input %s nor one of its samples',
                   nn.utils.shapeString(w), nn.utils.shapeString(input))
  end
  return self.buffer
end

function WeightedMSECriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, weightedTarget(self, input, target, 'updateOutput'))
end

function WeightedMSECriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input, weightedTarget(self, input, target, 'updateGradInput'))
end

function WeightedMSECriterion:clearState()
  nn.utils.clear(self, 'buffer')
  return parent.clearState(self)
end
