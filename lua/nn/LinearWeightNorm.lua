-- nn.LinearWeightNorm(inputSize, outputSize [, bias = true, eps = 1e-16]):
-- nn.Linear with its weight rows reparametrised as w_j = g_j v_j/||v_j||
-- (Salimans and Kingma's weight normalisation). Parameters v (outputSize x
-- inputSize), g (outputSize x 1) and bias; 'weight' is derived from them
-- by each forward in training mode (and by evaluate()), with the norms in
-- 'norm' and g/norm in 'scale' (norms clamped to >= eps). Initialised as
-- Linear, then g = ||w_j||, v = w. fromLinear(linear) and toLinear()
-- convert. Forward and gradInput are Linear's; accGradParameters takes
-- dE/dW = G' X and maps it to
--   dE/dg_j = dE/dW_j . v_j/||v_j||,
--   dE/dv_j = scale_j (dE/dW_j - dE/dg_j v_j/||v_j||).
-- Unlike Torch7, which transformed the whole accumulated gradV again on
-- each call (and overwrote gradG), gradients accumulate over calls and
-- accUpdateGradParameters moves v and g by -lr times their gradients.

require 'nn.Linear'
local LinearWeightNorm, parent = torch.class('nn.LinearWeightNorm', 'nn.Linear')

function LinearWeightNorm:__init(inputSize, outputSize, bias, eps)
  nn.Module.__init(self)   -- Linear's constructor would make its own weight
  nn.utils.positive(inputSize, 'inputSize', 'nn.LinearWeightNorm')
  nn.utils.positive(outputSize, 'outputSize', 'nn.LinearWeightNorm')
  if bias == nil then bias = true end
  self.eps = eps or 1e-16
  self.outputSize = outputSize
  self.inputSize = inputSize
  self.v = torch.Tensor(outputSize, inputSize)
  self.gradV = torch.Tensor(outputSize, inputSize)
  self.weight = torch.Tensor(outputSize, inputSize)
  self.g = torch.Tensor(outputSize, 1)
  self.gradG = torch.Tensor(outputSize, 1)
  self.norm = torch.Tensor(outputSize, 1)
  self.scale = torch.Tensor(outputSize, 1)
  if bias then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize)
  end
  self:reset()
end

function LinearWeightNorm:evaluate()
  if self.train ~= false then self:updateWeightMatrix() end
  return parent.evaluate(self)
end

function LinearWeightNorm:initFromWeight(weight)
  weight = weight or self.weight
  self.g:norm(weight, 2, 2):clamp(self.eps, math.huge)
  self.v:copy(weight)
  return self
end

function LinearWeightNorm.fromLinear(linear)
  local m = nn.LinearWeightNorm(linear.weight:size(2), linear.weight:size(1), torch.isTensor(linear.bias))
  m:type(linear.weight:type())
  m.weight:copy(linear.weight)
  m:initFromWeight()
  if linear.bias then m.bias:copy(linear.bias) end
  return m
end

function LinearWeightNorm:toLinear()
  self:updateWeightMatrix()
  local m = nn.Linear(self.inputSize, self.outputSize, torch.isTensor(self.bias)):type(self.v:type())
  m.weight:copy(self.weight)
  if self.bias then m.bias:copy(self.bias) end
  return m
end

function LinearWeightNorm:parameters()
  if self.bias then
    return {self.v, self.g, self.bias}, {self.gradV, self.gradG, self.gradBias}
  end
  return {self.v, self.g}, {self.gradV, self.gradG}
end

function LinearWeightNorm:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.inputSize)
  end
  self.weight:uniform(-stdv, stdv)
  self:initFromWeight()
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

function LinearWeightNorm:updateWeightMatrix()
  self.norm:resizeAs(self.g):norm(self.v, 2, 2):clamp(self.eps, math.huge)
  self.scale:resizeAs(self.g):cdiv(self.g, self.norm)
  self.weight:resizeAs(self.v):cmul(self.v, self.scale:expandAs(self.v))
end

function LinearWeightNorm:updateOutput(input)
  if self.train ~= false then self:updateWeightMatrix() end
  return parent.updateOutput(self, input)
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

function LinearWeightNorm:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local v = self.v
  -- dE/dW (and the bias's gradient) through Linear's kernel, into scratch
  local dW = buf(self, '_gradWeight', v):resizeAs(v):zero()
  local db = self.bias and buf(self, '_gradBias', v):resizeAs(self.bias):zero() or nil
  local gw, gb = self.gradWeight, self.gradBias
  self.gradWeight, self.gradBias = dW, db
  local ok, err = pcall(parent.accGradParameters, self, input, gradOutput, scale)
  self.gradWeight, self.gradBias = gw, gb
  if not ok then error(err, 0) end
  -- both gradients before either moves (in accUpdateGradParameters they
  -- are v and g themselves)
  local norm = self.norm:expandAs(v)
  local dg = buf(self, '_gradG', v):resizeAs(self.g)
  local t = buf(self, '_buffer', v):resizeAs(v):cmul(dW, v):cdiv(norm)
  dg:sum(t, 2)
  t:cdiv(v, norm):cmul(dg:expandAs(v))
  dW:add(-1, t):cmul(self.scale:expandAs(v))
  self.gradV:add(dW)
  self.gradG:add(dg)
  if db then self.gradBias:add(db) end
end

function LinearWeightNorm:defaultAccUpdateGradParameters(input, gradOutput, lr)
  local gv, gg, gb = self.gradV, self.gradG, self.gradBias
  self.gradV, self.gradG, self.gradBias = self.v, self.g, self.bias
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  self.gradV, self.gradG, self.gradBias = gv, gg, gb
  if not ok then error(err, 0) end
end

-- the derived weight, its norms and scales are kept across calls (evaluate
-- mode forwards with them); the rest is scratch
function LinearWeightNorm:memoryTraits()
  return {buffers = {addBuffer = 'both', _gradWeight = 'backward', _gradBias = 'backward', _gradG = 'backward',
                     _buffer = 'backward'},
          needsInput = true, needsOutput = false,
          state = {weight = true, norm = true, scale = true}}
end

function LinearWeightNorm:clearState()
  nn.utils.clear(self, '_gradWeight', '_gradBias', '_gradG', '_buffer')
  return parent.clearState(self)
end

function LinearWeightNorm:__tostring__()
  return torch.type(self) .. string.format('(%d -> %d)', self.inputSize, self.outputSize) ..
         (self.bias == nil and ' without bias' or '')
end
