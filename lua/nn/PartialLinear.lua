-- nn.PartialLinear(inputSize, outputSize [, bias = true]): a Linear layer
-- restricted to a chosen set of output units. setPartition(indices) (a
-- tensor of 1-based output indices) makes it behave as the Linear layer of
-- those rows only: input batch x inputSize -> output batch x #indices;
-- resetPartition() selects all outputs again. Every parameter is kept, so
-- a net can train on a subset and test on the whole layer.
-- As Torch7 it is a small net in 'network': Sequential(ParallelTable(
-- Identity, LookupTable(outputSize, inputSize)), MM(false, true)), fed
-- {input, partition}; the LookupTable's weight is the layer's weight
-- (outputSize x inputSize, initialised N(0, 1) as LookupTable's), bias is
-- 1 x outputSize (zeros). 'addBuffer' (ones, batch) sums gradOutput for the
-- bias. Batch input only (MM needs matrices).

local PartialLinear, parent = torch.class('nn.PartialLinear', 'nn.Module')

function PartialLinear:__init(inputsize, outputsize, bias)
  parent.__init(self)
  nn.utils.positive(inputsize, 'inputsize', 'nn.PartialLinear')
  nn.utils.positive(outputsize, 'outputsize', 'nn.PartialLinear')
  if bias == nil then bias = true end
  local pt = nn.ParallelTable()
  pt:add(nn.Identity()):add(nn.LookupTable(outputsize, inputsize))
  self.network = nn.Sequential():add(pt):add(nn.MM(false, true))
  if bias then
    self.bias = torch.Tensor(1, outputsize):zero()
    self.gradBias = torch.Tensor(1, outputsize):zero()
  end
  self.inputsize = inputsize
  self.outputsize = outputsize
  self.allcolumns = torch.range(1, self.outputsize)
  self:resetPartition()
end

function PartialLinear:setPartition(indices)
  if not torch.isTensor(indices) or indices:dim() ~= 1 or indices:nElement() == 0 then
    error(string.format('nn.PartialLinear:setPartition: indices must be a non-empty 1D tensor, got %s',
                        nn.utils.shapeString(indices)), 2)
  end
  local lo, hi = indices:min(), indices:max()
  if lo < 1 or hi > self.outputsize or indices:clone():double():floor():ne(indices:double()):sum() > 0 then
    error(string.format('nn.PartialLinear:setPartition: indices must be integers in [1, %d], got values in [%g, %g]',
                        self.outputsize, lo, hi), 2)
  end
  self.partition = indices:type(self.allcolumns:type())
  return self
end

function PartialLinear:resetPartition()
  self.partition = self.allcolumns
  return self
end

local function lookup(self)
  return self.network:get(1):get(2)
end

function PartialLinear:parameters()
  local lt = lookup(self)
  if self.bias then
    return {lt.weight, self.bias}, {lt.gradWeight, self.gradBias}
  end
  return {lt.weight}, {lt.gradWeight}
end

local function checkInput(self, input, who)
  nn.utils.checkTensor(input, who)
  if input:dim() ~= 2 or input:size(2) ~= self.inputsize then
    error(string.format('%s: input must be 2D with %d columns, got %s', who, self.inputsize,
                        nn.utils.shapeString(input)), 0)
  end
end

function PartialLinear:updateOutput(input)
  checkInput(self, input, 'nn.PartialLinear:updateOutput')
  local out = self.network:forward{input, self.partition}
  if torch.type(self.output) ~= torch.type(out) then self.output = out.new() end
  self.output:resizeAs(out):copy(out)
  if self.bias then
    self._bias = self._bias or self.bias.new()
    self._bias:index(self.bias, 2, self.partition:long())
    self.output:add(self._bias:expandAs(self.output))
  end
  return self.output
end

local function checkGradOutput(self, input, gradOutput, who)
  if not torch.isTensor(gradOutput) or gradOutput:dim() ~= 2 or gradOutput:size(1) ~= input:size(1)
     or gradOutput:size(2) ~= self.partition:nElement() then
    error(string.format('%s: gradOutput must be %dx%d, got %s', who, input:size(1), self.partition:nElement(),
                        nn.utils.shapeString(gradOutput)), 0)
  end
end

-- gradInput = nil (Torch7's way of skipping it) skips the copy only: the
-- inner network's gradients are what accGradParameters reads (Torch7's
-- skipped them too and its weight gradients came out stale)
function PartialLinear:updateGradInput(input, gradOutput)
  checkInput(self, input, 'nn.PartialLinear:updateGradInput')
  checkGradOutput(self, input, gradOutput, 'nn.PartialLinear:updateGradInput')
  nn.utils.needForward(self, self.output, 'output')
  local gi = self.network:updateGradInput({input, self.partition}, gradOutput)[1]
  if self.gradInput then self.gradInput:resizeAs(gi):copy(gi) end
  return self.gradInput
end

function PartialLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  checkInput(self, input, 'nn.PartialLinear:accGradParameters')
  checkGradOutput(self, input, gradOutput, 'nn.PartialLinear:accGradParameters')
  self.network:accGradParameters({input, self.partition}, gradOutput, scale)
  if self.bias then
    self.addBuffer = self.addBuffer or input.new()
    self.addBuffer:resize(input:size(1)):fill(1)
    self.buffer = self.buffer or input.new()
    self.buffer:resize(gradOutput:size(2)):mv(gradOutput:t(), self.addBuffer):mul(scale)
    self.gradBias:indexAdd(2, self.partition:long(), self.buffer:view(1, self.buffer:nElement()))
  end
end

-- w -= lr dE/dw straight into the weights (the gradient fields pointed at
-- them for the call, and restored even on error)
function PartialLinear:accUpdateGradParameters(input, gradOutput, lr)
  local lt = lookup(self)
  local gw, gb = lt.gradWeight, self.gradBias
  lt.gradWeight, self.gradBias = lt.weight, self.bias
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  lt.gradWeight, self.gradBias = gw, gb
  if not ok then error(err, 0) end
end

function PartialLinear:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:accUpdateGradParameters(input, gradOutput, lr)
end

function PartialLinear:zeroGradParameters()
  self.network:zeroGradParameters()
  if self.gradBias then self.gradBias:zero() end
end

function PartialLinear:updateParameters(learningRate)
  self.network:updateParameters(learningRate)
  if self.bias then self.bias:add(-learningRate, self.gradBias) end
end

function PartialLinear:memoryTraits()
  return {buffers = {_bias = 'forward', addBuffer = 'backward', buffer = 'backward'},
          needsInput = true, needsOutput = false,
          state = {allcolumns = true, partition = true}}
end

function PartialLinear:__tostring__()
  return torch.type(self) .. string.format('(%d -> %d)', self.inputsize, self.outputsize) ..
         (self.bias == nil and ' without bias' or '')
end
