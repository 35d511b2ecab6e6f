-- nn.Bilinear(inputSize1, inputSize2, outputSize [, bias = true]):
-- input = {x1, x2}, batches n x inputSize1 and n x inputSize2; output
-- n x outputSize with y_k = x1' W_k x2 + b_k. weight outputSize x
-- inputSize1 x inputSize2, bias outputSize; initialised
-- uniform(-1/sqrt(inputSize1), 1/sqrt(inputSize1)).
--   dy_k/dx1 = W_k x2,  dy_k/dx2 = W_k' x1,  dy_k/dW_k = x1 x2'
-- Lua over BLAS gemm, one product per output unit (as Torch7); 'buff1'
-- and 'buff2' are n x inputSize1 and n x inputSize2 scratch.
-- Unlike Torch7, accGradParameters applies 'scale' to the weight gradient
-- too (Torch7 applied it to the bias only and refused a negative scale, so
-- its accUpdateGradParameters failed).

local Bilinear, parent = torch.class('nn.Bilinear', 'nn.Module')

function Bilinear:__init(inputSize1, inputSize2, outputSize, bias)
  parent.__init(self)
  nn.utils.positive(inputSize1, 'inputSize1', 'nn.Bilinear')
  nn.utils.positive(inputSize2, 'inputSize2', 'nn.Bilinear')
  nn.utils.positive(outputSize, 'outputSize', 'nn.Bilinear')
  if bias == nil then bias = true end
  self.weight = torch.Tensor(outputSize, inputSize1, inputSize2)
  self.gradWeight = torch.Tensor(outputSize, inputSize1, inputSize2)
  if bias then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize)
  end
  self.gradInput = {torch.Tensor(), torch.Tensor()}
  self:reset()
end

function Bilinear:reset(stdv)
  if stdv then
    if type(stdv) ~= 'number' or stdv <= 0 then
      error(string.format('nn.Bilinear:reset: stdv must be a positive number, got %s', tostring(stdv)), 2)
    end
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(2))
  end
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  return self
end

local function checkInput(self, input, who)
  local w = self.weight
  local ok = nn.utils.istable(input) and #input == 2 and torch.isTensor(input[1]) and torch.isTensor(input[2])
  if ok then
    local a, b = input[1], input[2]
    ok = a:dim() == 2 and b:dim() == 2 and a:size(1) == b:size(1) and a:size(2) == w:size(2)
         and b:size(2) == w:size(3)
  end
  if not ok then
    local got = nn.utils.shapeString(input)
    if nn.utils.istable(input) then
      got = nn.utils.shapeString(input[1]) .. ' and ' .. nn.utils.shapeString(input[2])
    end
    error(string.format('%s: input must be two 2D tensors n x %d and n x %d, got %s', who, w:size(2), w:size(3),
                        got), 0)
  end
  return input[1], input[2]
end

local function checkGradOutput(self, n, gradOutput, who)
  if not torch.isTensor(gradOutput) or gradOutput:dim() ~= 2 or gradOutput:size(1) ~= n
     or gradOutput:size(2) ~= self.weight:size(1) then
    error(string.format('%s: gradOutput must be %dx%d, got %s', who, n, self.weight:size(1),
                        nn.utils.shapeString(gradOutput)), 0)
  end
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

function Bilinear:updateOutput(input)
  local a, b = checkInput(self, input, 'nn.Bilinear:updateOutput')
  if torch.type(self.output) ~= torch.type(a) then self.output = a.new() end
  local n, k = a:size(1), self.weight:size(1)
  local buff2 = buf(self, 'buff2', a):resizeAs(b)
  self.output:resize(n, k)
  for i = 1, k do
    buff2:mm(a, self.weight[i]):cmul(b)
    self.output:narrow(2, i, 1):sum(buff2, 2)
  end
  if self.bias then self.output:add(self.bias:view(1, k):expand(n, k)) end
  return self.output
end

function Bilinear:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local a, b = checkInput(self, input, 'nn.Bilinear:updateGradInput')
  local n, k = a:size(1), self.weight:size(1)
  checkGradOutput(self, n, gradOutput, 'nn.Bilinear:updateGradInput')
  local g = nn.utils.gradTable(self, 2, a)
  g[1]:resizeAs(a):zero()
  g[2]:resizeAs(b):zero()
  local buff1, buff2 = buf(self, 'buff1', a):resizeAs(a), buf(self, 'buff2', a):resizeAs(b)
  for i = 1, k do
    local go = gradOutput:narrow(2, i, 1)
    buff1:mm(b, self.weight[i]:t()):cmul(go:expandAs(buff1))
    g[1]:add(buff1)
    buff2:mm(a, self.weight[i]):cmul(go:expandAs(buff2))
    g[2]:add(buff2)
  end
  return self.gradInput
end

function Bilinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local a, b = checkInput(self, input, 'nn.Bilinear:accGradParameters')
  local n, k = a:size(1), self.weight:size(1)
  checkGradOutput(self, n, gradOutput, 'nn.Bilinear:accGradParameters')
  local buff1 = buf(self, 'buff1', a):resizeAs(a)
  for i = 1, k do
    buff1:cmul(a, gradOutput:narrow(2, i, 1):expandAs(a))
    self.gradWeight[i]:addmm(scale, buff1:t(), b)
  end
  if self.bias then
    self.gradBias:add(scale, buf(self, '_sum', a):sum(gradOutput, 1):view(k))
  end
end

function Bilinear:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function Bilinear:memoryTraits()
  return {buffers = {buff1 = 'backward', buff2 = 'both', _sum = 'backward'}, needsInput = true,
          needsOutput = false}
end

function Bilinear:__tostring__()
  return torch.type(self) ..
         string.format('(%dx%d -> %d) %s', self.weight:size(2), self.weight:size(3), self.weight:size(1),
                       self.bias == nil and ' without bias' or '')
end
