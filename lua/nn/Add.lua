-- nn.Add(inputSize [, scalar]): y = x + b with a learnable bias of size
-- inputSize, or of size 1 added to every element when scalar is true.
-- The input is the bias's shape or a batch of it (first dimension).
-- '_ones' holds batch ones for the batch gradient (Torch7's buffer),
-- refilled by each call that uses it. Initialised uniform(-1/sqrt(n),
-- 1/sqrt(n)).

local Add, parent = torch.class('nn.Add', 'nn.Module')

function Add:__init(inputSize, scalar)
  parent.__init(self)
  local size = inputSize
  if scalar then size = 1 end
  if not (torch.type(size) == 'torch.LongStorage' or (type(size) == 'number' and math.tointeger(size) and size >= 1)) then
    error(string.format('nn.Add: inputSize must be a positive integer or a LongStorage, got %s',
                        tostring(inputSize)), 2)
  end
  self.scalar = scalar
  self.bias = torch.Tensor(size)
  self.gradBias = torch.Tensor(size)
  self._ones = torch.Tensor{1}
  self:reset()
end

function Add:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.bias:size(1))
  end
  self.bias:uniform(-stdv, stdv)
  return self
end

local function batchSize(self, input, method)
  local n = self.bias:nElement()
  if input:dim() > 0 and input:nElement() == input:size(1) * n then return input:size(1) end
  error(string.format('%s:%s: input must be the bias\'s size (%s) or a batch of it, got %s',
                      torch.type(self), method, nn.utils.sizeString(self.bias),
                      nn.utils.shapeString(input)), 3)
end

function Add:updateOutput(input)
  self.output:resizeAs(input):copy(input)
  if self.scalar then
    self.output:add(self.bias[1])
  elseif input:isSameSizeAs(self.bias) then
    self.output:add(self.bias)
  else
    local b, n = batchSize(self, input, 'updateOutput'), self.bias:nElement()
    self.output:view(b, n):add(self.bias:view(1, n):expand(b, n))
  end
  return self.output
end

function Add:updateGradInput(input, gradOutput)
  if self.gradInput then
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
    return self.gradInput
  end
end

function Add:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if self.gradBias:nElement() == 1 then
    self.gradBias[1] = self.gradBias[1] + scale * gradOutput:sum()
  elseif input:isSameSizeAs(self.bias) then
    self.gradBias:add(scale, gradOutput)
  else
    local b, n = batchSize(self, input, 'accGradParameters'), self.bias:nElement()
    self._ones = self._ones or self.bias.new()
    self._ones:resize(b):fill(1)
    local go = gradOutput:isContiguous() and gradOutput or gradOutput:contiguous()
    self.gradBias:view(n):addmv(scale, go:view(b, n):t(), self._ones)
  end
end

function Add:memoryTraits()
  return {buffers = {_ones = 'backward'}, needsInput = true, needsOutput = false}
end

