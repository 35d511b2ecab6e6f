-- nn.CosineDistance(): input = {x1, x2}, two vectors of size d or two
-- n x d batches; output = x1.x2 / (||x1|| ||x2||), a vector of size 1 or
-- n, with Torch7's guard: each squared norm gets 1e-12 added.
-- Forward keeps, per row, w1 = x1.x2, w22 = 1/(|x1|^2+eps),
-- w32 = 1/(|x2|^2+eps) and w = sqrt(w22 w32), which backward reads:
--   d/dx1 = (x2 - w1 w22 x1) w,  d/dx2 = (x1 - w1 w32 x2) w.
-- Lua over tensor ops.

local CosineDistance, parent = torch.class('nn.CosineDistance', 'nn.Module')

function CosineDistance:__init()
  parent.__init(self)
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

local function matrices(input, who)
  local a, b = nn.utils.checkTensorPair(input, who)
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    error(string.format('%s: inputs must be two vectors or two matrices of the same size, got %s and %s', who,
                        nn.utils.shapeString(a), nn.utils.shapeString(b)), 0)
  end
  if a:dim() == 1 then return a:view(1, -1), b:view(1, -1) end
  return a, b
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

local EPS = 1e-12

function CosineDistance:updateOutput(input)
  local a, b = matrices(input, 'nn.CosineDistance:updateOutput')
  if torch.type(self.output) ~= torch.type(a) then self.output = a.new() end
  local n = a:size(1)
  local buffer = buf(self, 'buffer', a):resizeAs(a)
  local w1, w22, w32, w = buf(self, 'w1', a), buf(self, 'w22', a), buf(self, 'w32', a), buf(self, 'w', a)
  w1:resize(n, 1):sum(buffer:cmul(a, b), 2)
  w22:resize(n, 1):sum(buffer:cmul(a, a), 2):add(EPS):pow(-1)
  w32:resize(n, 1):sum(buffer:cmul(b, b), 2):add(EPS):pow(-1)
  w:resize(n, 1):cmul(w22, w32):sqrt()
  self.output:resize(n, 1):cmul(w1, w)
  self.output:resize(n)
  return self.output
end

function CosineDistance:updateGradInput(input, gradOutput)
  local a, b = matrices(input, 'nn.CosineDistance:updateGradInput')
  local n = a:size(1)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= n then
    error(string.format('nn.CosineDistance:updateGradInput: gradOutput must have %d elements, got %s', n,
                        nn.utils.shapeString(gradOutput)), 0)
  end
  if not torch.isTensor(self.w) or self.w:nElement() ~= n then
    error(string.format('nn.CosineDistance:updateGradInput: forward the same %d samples first', n), 0)
  end
  local g = nn.utils.gradTable(self, 2, a)
  local coef = buf(self, 'coef', a):resize(n, 1)
  local go = gradOutput:contiguous():view(n, 1)
  local scale = buf(self, 'scale', a):resize(n, 1):cmul(self.w, go)
  g[1]:resizeAs(a):copy(b)
  g[1]:addcmul(-1, coef:cmul(self.w1, self.w22):expandAs(a), a)
  g[1]:cmul(scale:expandAs(a))
  g[2]:resizeAs(a):copy(a)
  g[2]:addcmul(-1, coef:cmul(self.w1, self.w32):expandAs(a), b)
  g[2]:cmul(scale:expandAs(a))
  g[1]:resize(input[1]:size())
  g[2]:resize(input[2]:size())
  return self.gradInput
end

-- w1, w22, w32 and w are made by forward and read by backward
function CosineDistance:memoryTraits()
  return {buffers = {buffer = 'forward', w1 = 'both', w22 = 'both', w32 = 'both', w = 'both',
                     coef = 'backward', scale = 'backward'},
          needsInput = true, needsOutput = false}
end
