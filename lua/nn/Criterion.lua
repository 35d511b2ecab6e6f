-- nn.Criterion: the base of loss functions. forward(input, target) returns
-- the loss (a number, kept in self.output); backward(input, target) returns
-- the gradient of the loss with respect to input (self.gradInput).

require 'nn.utils'
local torch = torch
local nn = nn
local utils = nn.utils

local Criterion = torch.class('nn.Criterion')

function Criterion:__init()
  self.gradInput = torch.Tensor()
  self.output = 0
end

function Criterion:updateOutput(input, target)
end

-- runs after the constructor and after torch.load: the criterion owns its tensors
function Criterion:__postinit()
  utils.own(self)
end

-- exactly one value, the loss, whatever updateOutput returns (Torch7's
-- ClassNLLCriterion:updateOutput also returns the total weight), so that
-- table.insert(losses, c:forward(x, y)) works
-- errors are raised at the user's call, not at a line of the criterion's file (utils.rethrow)
function Criterion:forward(input, target)
  local _ <close> = utils.ownGuard(self, 'forward')
  local ok, loss = pcall(self.updateOutput, self, input, target)
  if not ok then utils.rethrow(loss) end
  return loss
end

function Criterion:backward(input, target)
  local _ <close> = utils.ownGuard(self, 'backward')
  local ok, gi = pcall(self.updateGradInput, self, input, target)
  if not ok then utils.rethrow(gi) end
  return gi
end

function Criterion:updateGradInput(input, target)
end

function Criterion:clone()
  return utils.own(utils.deepCopy(self))
end

function Criterion:type(tname, tensorCache)
  if not torch._tensortypes[tname or ''] then
    error(string.format("%s:type: tensor type name expected (e.g. 'torch.FloatTensor'), got %s",
                        torch.type(self), tostring(tname)), 2)
  end
  tensorCache = tensorCache or {}
  for key, param in pairs(self) do
    self[key] = utils.recursiveType(param, tname, tensorCache)
  end
  return utils.own(self)
end

function Criterion:float() return self:type('torch.FloatTensor') end
function Criterion:double() return self:type('torch.DoubleTensor') end

-- Torch7's cuda, cudaHalf and cudaDouble: without the CUDA stand-in they
-- say where to look; with it (docs/cuda.md) they convert to the stand-in's
-- types, and cunn puts its own Criterion:cuda in place
for name, tname in pairs{cuda = 'torch.CudaTensor', cudaHalf = 'torch.CudaHalfTensor',
                         cudaDouble = 'torch.CudaDoubleTensor'} do
  Criterion[name] = function(self)
    if not torch._tensortypes[tname] then
      error(string.format('nn.Criterion:%s: this engine is CPU-only; see docs/cuda.md '
                          .. '(TH_CUDA_STANDIN=1 runs cunn scripts on the CPU)', name), 2)
    end
    return self:type(tname)
  end
end

function Criterion:clearState()
  return utils.clear(self, 'gradInput')
end

function Criterion:__call__(input, target)
  self.output = self:forward(input, target)
  self.gradInput = self:backward(input, target)
  return self.output, self.gradInput
end
Criterion.__call = function(self, ...) return self:__call__(...) end

function Criterion:__tostring__()
  return torch.type(self)
end

return Criterion
