-- nn.WeightNorm(module [, outputDim = 1]): wraps a module that has a
-- weight and reparametrises it as w = g v/||v|| (Salimans and Kingma),
-- one norm per slice along outputDim. v is the weight viewed as
-- nOut x (the other dimensions' product) with outputDim moved to the
-- front ('viewIn'), g has nOut entries; parameters() are v, g and the
-- module's bias. Each forward in training mode (and evaluate()) writes
-- the module's weight from v and g, with ||v|| = sqrt(|v|^2 + 1e-4)
-- ('_norm', and g/||v|| in '_scale'), as Torch7. resetInit draws v from
-- N(0, 2/fanIn), sets g = |v| and zeroes the bias.
-- accGradParameters lets the module put dE/dW of the call in its
-- gradWeight (zeroed first) and adds dE/dg = dE/dW . v/||v|| and
-- dE/dv = scale (dE/dW - dE/dg v/||v||) to gradG and gradV.
-- Unlike Torch7, gradients accumulate over calls (Torch7 rebuilt them from
-- the module's gradWeight, which it overwrote) and accUpdateGradParameters
-- moves v, g and the bias. A Decorator: its output and gradInput are the
-- module's.

local base = torch.getmetatable('nn.Decorator') and 'nn.Decorator' or 'nn.Container'
local WeightNorm, parent = torch.class('nn.WeightNorm', base)

function WeightNorm:__init(module, outputDim)
  nn.Container.__init(self)
  if not torch.isTypeOf(module, 'nn.Module') or not torch.isTensor(module.weight) then
    error(string.format('nn.WeightNorm: a module with a weight expected, got %s', torch.type(module)), 2)
  end
  self.modules[1] = module
  if module.bias then
    self.bias = module.bias
    self.gradBias = module.gradBias
  end
  self.gradWeight = module.gradWeight
  self.weight = module.weight
  self.outputDim = outputDim or 1
  local d = math.tointeger(self.outputDim)
  if d == nil or d < 1 or d > self.weight:dim() then
    error(string.format('nn.WeightNorm: outputDim must be a dimension of the weight (1..%d), got %s',
                        self.weight:dim(), tostring(outputDim)), 2)
  end
  self.otherDims = 1
  for i = 1, self.weight:dim() do
    if i ~= self.outputDim then self.otherDims = self.otherDims * self.weight:size(i) end
  end
  self.viewIn = torch.LongStorage({self.weight:size(self.outputDim), self.otherDims})
  self.viewOut = self.weight:size()
  self.weightSize = self.weight:size()
  for i = self.outputDim - 1, 1, -1 do
    self.viewOut[i], self.viewOut[i + 1] = self.viewOut[i + 1], self.viewOut[i]
  end
  self.v = torch.Tensor(self.viewIn[1], self.viewIn[2])
  self.g = torch.Tensor(self.viewIn[1])
  self._norm = torch.Tensor(self.viewIn[1])
  self._scale = torch.Tensor(self.viewIn[1])
  self.gradG = torch.Tensor(self.viewIn[1]):zero()
  self.gradV = torch.Tensor(self.viewIn):zero()
  self:resetInit()
end

-- weight-shaped tensor -> viewOut order (outputDim first), and back
function WeightNorm:permuteIn(t)
  for i = self.outputDim - 1, 1, -1 do t = t:transpose(i, i + 1) end
  return t
end

function WeightNorm:permuteOut(t)
  for i = 1, self.outputDim - 1 do t = t:transpose(i, i + 1) end
  return t
end

function WeightNorm:resetInit()
  self.v:normal(0, math.sqrt(2 / self.viewIn[2]))
  self.g:norm(self.v, 2, 2)
  if self.bias then self.bias:zero() end
  return self
end

function WeightNorm:evaluate()
  if self.train ~= false then self:updateWeight() end
  return parent.evaluate(self)
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

-- module.weight = g v/||v||, written through a view of the weight in the
-- viewOut order (no scratch: a container's buffer would be live before the
-- module's own step, where the memory optimizer does not see it)
function WeightNorm:updateWeight()
  local n = self.viewIn[1]
  self._norm:resize(n):norm(self.v, 2, 2):pow(2):add(10e-5):sqrt()
  self._scale:resize(n):copy(self.g):cdiv(self._norm)
  local w = self:permuteIn(self.weight)
  w:copy(self.v:view(self.viewOut))
  local shape = {n}
  for i = 2, w:dim() do shape[i] = 1 end
  w:cmul(self._scale:view(table.unpack(shape)):expandAs(w))
end

function WeightNorm:updateOutput(input)
  if self.train ~= false then self:updateWeight() end
  self.output = self.modules[1]:updateOutput(input)
  return self.output
end

function WeightNorm:updateGradInput(input, gradOutput)
  self.gradInput = self.modules[1]:updateGradInput(input, gradOutput)
  return self.gradInput
end

function WeightNorm:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local m = self.modules[1]
  local n, k = self.viewIn[1], self.viewIn[2]
  -- the module's gradWeight holds dE/dW of this call alone
  m.gradWeight:resize(self.weightSize):zero()
  m:accGradParameters(input, gradOutput, scale)
  local dW = m.gradWeight
  local dv = buf(self, '_gradV', self.v):resize(n, k):copy(self:permuteIn(dW))
  local norm = self._norm:view(n, 1):expand(n, k)
  local t = buf(self, '_buffer', self.v):resize(n, k):cmul(dv, self.v):cdiv(norm)
  local dg = buf(self, '_gradG', self.v):resize(n, 1):sum(t, 2)
  t:cdiv(self.v, norm):cmul(dg:expand(n, k))
  dv:add(-1, t):cmul(self._scale:view(n, 1):expand(n, k))
  self.gradV:view(n, k):add(dv)
  self.gradG:add(dg:view(n))
end

-- v, g and the module's bias move by -lr times their gradients
function WeightNorm:accUpdateGradParameters(input, gradOutput, lr)
  local m = self.modules[1]
  local gv, gg, gb = self.gradV, self.gradG, m.gradBias
  self.gradV, self.gradG, m.gradBias = self.v, self.g, m.bias
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  self.gradV, self.gradG, m.gradBias = gv, gg, gb
  if not ok then error(err, 0) end
end

function WeightNorm:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:accUpdateGradParameters(input, gradOutput, lr)
end

function WeightNorm:zeroGradParameters()
  self.modules[1]:zeroGradParameters()
  self.gradV:zero()
  self.gradG:zero()
end

function WeightNorm:updateParameters(lr)
  self.modules[1]:updateParameters(lr)
  self.g:add(-lr, self.gradG)
  self.v:add(-lr, self.gradV)
end

function WeightNorm:parameters()
  if self.bias then
    return {self.v, self.g, self.bias}, {self.gradV, self.gradG, self.gradBias}
  end
  return {self.v, self.g}, {self.gradV, self.gradG}
end

-- Torch7 saves no weight and gradWeight (they follow from v and g): such a
-- file gets them back here
function WeightNorm:read(file)
  local var = file:readObject()
  for k, v in pairs(var) do self[k] = v end
  if not self.weight then
    local m = self.modules[1]
    m.weight = self.v.new(self.weightSize)
    m.gradWeight = self.v.new(self.weightSize):zero()
    self.weight, self.gradWeight = m.weight, m.gradWeight
    self:updateWeight()
  end
  -- Torch7 left gradV in the weight's (viewOut) shape
  if self.gradV:nElement() == self.v:nElement() and not self.gradV:isSameSizeAs(self.v) then
    self.gradV = self.gradV:contiguous():view(self.v:size())
  end
end

function WeightNorm:memoryTraits()
  local tr = nn.Container.memoryTraits(self)
  tr.buffers = {_gradV = 'backward', _buffer = 'backward', _gradG = 'backward'}
  tr.state = {weight = true, gradWeight = true, _norm = true, _scale = true}
  return tr
end

function WeightNorm:clearState()
  nn.utils.clear(self, '_gradV', '_buffer', '_gradG')
  return nn.Container.clearState(self)
end

function WeightNorm:__tostring__()
  local m = self.modules[1]
  return torch.type(self) .. ' @ ' .. (m.__tostring__ and m:__tostring__() or torch.type(m))
end
