-- nn.SparseLinear(inputSize, outputSize [, doGradInput = false]): a Linear
-- layer over sparse input, Torch7's formats:
--   one sample: an nnz x 2 tensor of {index, value} rows (1-based index);
--   a batch: a table of such tensors (one per sample; {} gives the bias);
--   legacy batch: a batch x nnz x 2 tensor.
-- output: outputSize (one sample) or batch x outputSize; weight outputSize x
-- inputSize, bias outputSize (initialised as Linear, the bias times 1e-6).
-- gradInput is dense only with doGradInput: for each sample an inputSize x
-- 2 tensor {1..inputSize, dE/dx} (a table of them; legacy: a batch x
-- inputSize x 2 tensor); else an empty table.
-- Sparse updates as Torch7: after a single accGradParameters since the
-- last zeroGradParameters ('sparseUpdate', the input kept in 'lastInput'),
-- updateParameters and zeroGradParameters touch only the weight columns of
-- the indices with non-zero values (and the whole bias); after several,
-- every weight. 'weightDecay' (default 0) adds weightDecay * weight to
-- gradWeight in accGradParameters.
-- Lua over index ops: 'formatted_input' (nnz x 3: sample, index, value)
-- is Torch7's coordinate form of the batch.

local SparseLinear, parent = torch.class('nn.SparseLinear', 'nn.Module')

local NO_LAST_INPUT, ONE_LAST_INPUT, ACC_MULTIPLE_TIMES = 0, 1, 2

function SparseLinear:__init(inputSize, outputSize, doGradInput)
  parent.__init(self)
  nn.utils.positive(inputSize, 'inputSize', 'nn.SparseLinear')
  nn.utils.positive(outputSize, 'outputSize', 'nn.SparseLinear')
  if doGradInput ~= nil and type(doGradInput) ~= 'boolean' then
    error(string.format('nn.SparseLinear: doGradInput must be a boolean, got %s', type(doGradInput)), 2)
  end
  self.weightDecay = 0
  self.doGradInput = doGradInput or false
  self.weight = torch.Tensor(outputSize, inputSize):zero()
  self.bias = torch.Tensor(outputSize):zero()
  self.gradWeight = torch.Tensor(outputSize, inputSize):zero()
  self.gradBias = torch.Tensor(outputSize):zero()
  self.lastInput = nil
  self.sparseUpdate = NO_LAST_INPUT
  self.formatted_input = nil
  self.gradInput = {}
  self.output:resize(outputSize)
  self:reset()
end

function SparseLinear:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(2))
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv):mul(0.000001)
  return self
end

-- input as a list of nnz x 2 samples; batchMode, legacyMode
function SparseLinear:reshapeInput(input)
  if nn.utils.istable(input) then return input, true, false end
  if torch.isTensor(input) and input:dim() == 2 then return {input}, false, false end
  return input, true, true
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

-- checks that 'idx' (a tensor of indices) holds integers in [1, n]
local function checkIndices(idx, n, who)
  if idx:nElement() == 0 then return end
  local lo, hi = idx:min(), idx:max()
  if lo < 1 or hi > n or idx:clone():floor():ne(idx):sum() > 0 then
    error(string.format('%s: indices must be integers in [1, %d], got values in [%g, %g]', who, n, lo, hi), 0)
  end
end

-- fills 'formatted_input' (nnz x 3: sample, index, value) from any format
local function format(self, input, who)
  local samples, batchMode, legacy = self:reshapeInput(input)
  local inDim = self.weight:size(2)
  if legacy then
    if not torch.isTensor(input) or input:dim() ~= 3 or input:size(3) ~= 2 then
      error(string.format('%s: input must be an nnz x 2 tensor, a table of them or a batch x nnz x 2 tensor, got %s',
                          who, nn.utils.shapeString(input)), 0)
    end
    local b, nnz = input:size(1), input:size(2)
    local f = buf(self, 'formatted_input', self.weight):resize(b * nnz, 3)
    f:select(2, 1):copy(torch.range(1, b):view(b, 1):expand(b, nnz))
    f:narrow(2, 2, 2):copy(input:contiguous():view(b * nnz, 2))
    checkIndices(f:select(2, 2), inDim, who)
    return f, b, batchMode, legacy
  end
  local size = 0
  for i = 1, #samples do
    local s = samples[i]
    if not torch.isTensor(s) or s:dim() ~= 2 or s:size(2) ~= 2 then
      error(string.format('%s: sample %d must be an nnz x 2 tensor of {index, value} rows, got %s', who, i,
                          nn.utils.shapeString(s)), 0)
    end
    size = size + s:size(1)
  end
  local f = buf(self, 'formatted_input', self.weight):resize(size, 3)
  local at = 1
  for i = 1, #samples do
    local n = samples[i]:size(1)
    if n > 0 then
      local part = f:narrow(1, at, n)
      part:narrow(2, 2, 2):copy(samples[i])
      part:select(2, 1):fill(i)
      at = at + n
    end
  end
  if size > 0 then checkIndices(f:select(2, 2), inDim, who) end
  return f, #samples, batchMode, legacy
end

function SparseLinear:updateOutput(input)
  if self.sparseUpdate == ONE_LAST_INPUT then self.sparseUpdate = ACC_MULTIPLE_TIMES end
  local who = 'nn.SparseLinear:updateOutput'
  local f, b, batchMode, legacy = format(self, input, who)
  self.legacyMode = legacy
  local outDim = self.weight:size(1)
  if b == 0 then
    self.output:resize(outDim):copy(self.bias)
    return self.output
  end
  self.output:resize(b, outDim):zero()
  if f:size(1) > 0 then
    local rows, cols = f:select(2, 1):long(), f:select(2, 2):long()
    local c = buf(self, '_contrib', self.weight):index(self.weight:t(), 1, cols)   -- nnz x outDim
    c:cmul(f:select(2, 3):contiguous():view(-1, 1):expandAs(c))
    self.output:indexAdd(1, rows, c)
  end
  self.output:add(self.bias:view(1, outDim):expand(b, outDim))
  if not batchMode then self.output:resize(outDim) end
  return self.output
end

local function checkGradOutput(self, b, batchMode, gradOutput, who)
  local outDim = self.weight:size(1)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= b * outDim
     or (not batchMode and gradOutput:dim() ~= 1) or (batchMode and gradOutput:dim() ~= 2) then
    error(string.format('%s: gradOutput must be %s, got %s', who,
                        batchMode and (b .. 'x' .. outDim) or tostring(outDim), nn.utils.shapeString(gradOutput)), 0)
  end
  return gradOutput:view(b, outDim)
end

function SparseLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local who = 'nn.SparseLinear:accGradParameters'
  local f, b, batchMode, legacy = format(self, input, who)
  self.legacyMode = legacy
  if self.sparseUpdate == NO_LAST_INPUT then
    local v = legacy and input or f
    self.lastInput = buf(self, 'lastInput', self.weight)
    self.lastInput:resizeAs(v):copy(v)
    self.sparseUpdate = ONE_LAST_INPUT
  elseif self.sparseUpdate == ONE_LAST_INPUT then
    self.sparseUpdate = ACC_MULTIPLE_TIMES
  end
  if b == 0 then return end
  local go = checkGradOutput(self, b, batchMode, gradOutput, who)
  if f:size(1) > 0 then
    local rows, cols = f:select(2, 1):long(), f:select(2, 2):long()
    local g = buf(self, '_gradRows', self.weight):index(go, 1, rows)          -- nnz x outDim
    g:cmul(f:select(2, 3):contiguous():view(-1, 1):expandAs(g)):mul(scale)
    self.gradWeight:t():indexAdd(1, cols, g)
  end
  self.gradBias:add(scale, buf(self, '_sum', self.weight):sum(go, 1):view(-1))
  if self.weightDecay ~= nil and self.weightDecay ~= 0 then
    self.gradWeight:add(self.weightDecay, self.weight)
  end
end

function SparseLinear:updateGradInput(input, gradOutput)
  local who = 'nn.SparseLinear:updateGradInput'
  local _, b, batchMode, legacy = format(self, input, who)
  self.legacyMode = legacy
  local inDim = self.weight:size(2)
  if legacy then
    if not torch.isTensor(self.gradInput) or torch.type(self.gradInput) ~= torch.type(self.weight) then
      self.gradInput = self.weight.new()
    end
    self.gradInput:resizeAs(input)
  else
    if not nn.utils.istable(self.gradInput) then self.gradInput = {} end
  end
  if self.doGradInput and b > 0 then
    local go = checkGradOutput(self, b, batchMode, gradOutput, who)
    local gi = buf(self, '_gradInput', self.weight):resize(b, inDim):mm(go, self.weight)
    local idx = torch.range(1, inDim):typeAs(self.weight)
    if legacy then
      self.gradInput:resize(b, inDim, 2)
      self.gradInput:select(3, 1):copy(idx:view(1, inDim):expand(b, inDim))
      self.gradInput:select(3, 2):copy(gi)
    else
      for i = 1, b do
        local t = self.gradInput[i]
        if not torch.isTensor(t) or torch.type(t) ~= torch.type(self.weight) then
          t = self.weight.new()
          self.gradInput[i] = t
        end
        t:resize(inDim, 2)
        t:select(2, 1):copy(idx)
        t:select(2, 2):copy(gi[i])
      end
    end
  end
  -- entries past this batch go (the table itself stays)
  if not legacy then
    local keep = (self.doGradInput and b) or 0
    for i = #self.gradInput, keep + 1, -1 do self.gradInput[i] = nil end
  end
  return self.gradInput
end

-- the weight columns the last input touched (non-zero values), a LongTensor
local function touched(self)
  local li = self.lastInput
  local cols, vals
  if self.legacyMode then
    cols, vals = li:select(3, 1):contiguous():view(-1), li:select(3, 2):contiguous():view(-1)
  else
    cols, vals = li:select(2, 2), li:select(2, 3)
  end
  local inDim = self.weight:size(2)
  local mark = torch.zeros(inDim)
  if cols:nElement() > 0 then
    mark:indexAdd(1, cols:long(), vals:ne(0):double())
  end
  local nz = mark:gt(0)
  if nz:sum() == 0 then return nil end
  return nz:nonzero():view(-1)
end

function SparseLinear:updateParameters(learningRate)
  if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
    local idx = touched(self)
    if not idx then return end
    self.bias:add(-learningRate, self.gradBias)
    local w = self.weight:index(2, idx)
    w:add(-learningRate, self.gradWeight:index(2, idx))
    self.weight:indexCopy(2, idx, w)
  else
    parent.updateParameters(self, learningRate)
  end
end

function SparseLinear:zeroGradParameters()
  if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
    self.gradBias:zero()
    local idx = touched(self)
    if idx then self.gradWeight:indexFill(2, idx, 0) end
  else
    parent.zeroGradParameters(self)
  end
  self.sparseUpdate = NO_LAST_INPUT
end

function SparseLinear:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

function SparseLinear:clearState()
  if torch.isTensor(self.lastInput) then self.lastInput:set() end
  return parent.clearState(self)
end

-- 'lastInput' lives from one accGradParameters to the next update
function SparseLinear:memoryTraits()
  return {buffers = {formatted_input = 'both', _contrib = 'forward', _gradRows = 'backward', _sum = 'backward',
                     _gradInput = 'backward'},
          needsInput = true, needsOutput = false, state = {lastInput = true}}
end
