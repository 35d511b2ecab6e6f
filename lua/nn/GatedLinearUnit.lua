-- nn.GatedLinearUnit([dim]): the gated linear unit (Dauphin et al. 2016):
-- the input is halved along 'dim' (default: its last dimension) into a and
-- b, and y = a * sigmoid(b), half the input's size along dim.
-- dy/da = sigmoid(b), dy/db = a sigmoid(b) (1 - sigmoid(b)).
-- Composition of tensor ops (narrow, sigmoid, cmul), no buffers: backward
-- builds sigmoid(b) in the first half of gradInput.

local GatedLinearUnit, parent = torch.class('nn.GatedLinearUnit', 'nn.Module')

function GatedLinearUnit:__init(dim)
  parent.__init(self)
  if dim ~= nil and (math.type(dim) == nil or dim < 1 or dim ~= math.floor(dim)) then
    error(string.format('nn.GatedLinearUnit: dim must be a positive integer, got %s', tostring(dim)), 2)
  end
  self.dim = dim
end

-- the halving dimension and the half size, checked
function GatedLinearUnit:_half(input, method)
  if not torch.isTensor(input) then
    error(string.format('nn.GatedLinearUnit:%s: input must be a tensor, got %s', method,
                        torch.type(input)), 3)
  end
  local dim = self.dim or input:dim()
  if dim < 1 or dim > input:dim() then
    error(string.format('nn.GatedLinearUnit:%s: halving dimension %d is out of range for a %dD input',
                        method, dim, input:dim()), 3)
  end
  local n = input:size(dim)
  if n % 2 ~= 0 then
    error(string.format('nn.GatedLinearUnit:%s: halving dimension %d must have an even size, got %d',
                        method, dim, n), 3)
  end
  return dim, n // 2
end

function GatedLinearUnit:updateOutput(input)
  local dim, h = self:_half(input, 'updateOutput')
  local size = input:size()
  size[dim] = h
  self.output:resize(size)
  self.output:sigmoid(input:narrow(dim, h + 1, h)):cmul(input:narrow(dim, 1, h))
  return self.output
end

function GatedLinearUnit:updateGradInput(input, gradOutput)
  local dim, h = self:_half(input, 'updateGradInput')
  if gradOutput:nElement() ~= input:nElement() // 2 then
    error(string.format('nn.GatedLinearUnit:updateGradInput: gradOutput must have %d elements (half the input), got %d',
                        input:nElement() // 2, gradOutput:nElement()), 2)
  end
  local a = input:narrow(dim, 1, h)
  self.gradInput:resizeAs(input)
  local ga, gb = self.gradInput:narrow(dim, 1, h), self.gradInput:narrow(dim, h + 1, h)
  local go = gradOutput:contiguous():view(a:size())
  ga:sigmoid(input:narrow(dim, h + 1, h))
  -- gb = s (1 - s) a go, then ga = s go
  gb:fill(1):add(-1, ga):cmul(ga):cmul(a):cmul(go)
  ga:cmul(go)
  return self.gradInput
end

function GatedLinearUnit:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
