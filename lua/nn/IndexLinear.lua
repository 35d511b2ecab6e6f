-- nn.IndexLinear(inputSize, outputSize [, doGradInput, keysOffset, weight,
-- bias, normalize]): a Linear layer over sparse input given as keys and
-- values, Torch7's formats:
--   one sample: {keys (LongTensor n), values (Tensor n)};
--   a batch: {{keys1, keys2, ...}, {values1, values2, ...}};
--   a flat batch: {keys (all samples'), values, sizes (LongTensor or number)}.
-- Keys are 1-based (keysOffset shifts them: row = key + keysOffset - 1).
-- weight is inputSize x outputSize (the transpose of Linear's: one row per
-- feature), zeros until reset(); bias outputSize. With normalize, 4 columns
-- in front of each row keep the feature's max |value|, its inverse, an
-- update scale and an offset, and values are scaled by the max seen
-- (training mode raises it) before they meet the weight.
-- Gradients stay sparse: accGradParameters keeps dense rows per key in
-- 'running' (one entry per call since zeroGradParameters), which
-- updateParameters applies to the keys' rows only, with the sparse
-- 'weightDecay'; parameters() returns {weight, bias},
-- {the calls' gradient rows, gradBias} (Torch7: {running, gradBias}), so
-- getParameters does not apply. gradInput (doGradInput,
-- without normalize) is dense: {all keys, dE/dx} per sample.
-- Kernels: src/nn/th_nn_indexlinear.c.

local C = torch._C.nn
local IndexLinear, parent = torch.class('nn.IndexLinear', 'nn.Module')

function IndexLinear:__init(inputSize, outputSize, doGradInput, keysOffset, weight, bias, normalize)
  parent.__init(self)
  self.normalize = normalize and 4 or 0
  if not weight then
    nn.utils.positive(inputSize, 'inputSize', 'nn.IndexLinear')
    nn.utils.positive(outputSize, 'outputSize', 'nn.IndexLinear')
  end
  self.weight = weight or torch.Tensor(inputSize, outputSize + self.normalize):zero()
  self.bias = bias or torch.Tensor(self.weight:size(2) - self.normalize):zero()
  self.inputSize = self.weight:size(1)
  self.outputSize = self.weight:size(2) - self.normalize
  self.gradWeight = torch.Tensor()
  self.gradBias = torch.Tensor(self.outputSize):zero()
  self.gradWeightBuffer = torch.Tensor()
  self.valuesBuffer = torch.Tensor()
  self.normalizedValues = torch.Tensor()
  self.running = {cumSumSizes = {}, keys = {}, gradWeight = {}, counter = 1}
  self.sizesCache = {}
  self.cumSumSizesCache = {}
  self.weightDecay = 0
  self.doGradInput = doGradInput or false
  self.offset = keysOffset and keysOffset - 1 or -1
end

function IndexLinear:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:size(2))
  end
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv):mul(0.000001)
  if self.normalize > 0 then self.weight:narrow(2, 1, self.normalize):zero() end
  return self
end

local function formatError(who, input)
  error(string.format('%s: input must be {keys, values}, {{keys...}, {values...}} or {keys, values, sizes}, got %s',
                      who, nn.utils.shapeString(input)), 0)
end

-- keys (LongTensor per sample or flat) and values, as Torch7's reshapeInput
function IndexLinear:reshapeInput(input, who)
  who = who or 'nn.IndexLinear:updateOutput'
  if not nn.utils.istable(input) or (#input ~= 2 and #input ~= 3) then formatError(who, input) end
  if #input == 3 then
    local fkeys, fvals = input[1], input[2]
    local fsizes = input[3]
    if not torch.isTensor(fkeys) or not torch.isTensor(fvals) then formatError(who, input) end
    if not torch.isTensor(fsizes) then
      if type(fsizes) ~= 'number' then formatError(who, input) end
      fsizes = torch.LongTensor{fsizes}
    end
    if fkeys:dim() ~= 1 or fvals:dim() ~= 1 or fkeys:nElement() ~= fvals:nElement() then
      error(string.format('%s: keys and values must be 1D of the same size, got %s and %s', who,
                          nn.utils.shapeString(fkeys), nn.utils.shapeString(fvals)), 0)
    end
    self.isFlat = true
    self.noBatch = false
    return fkeys, fvals, fsizes
  end
  local keys, values = input[1], input[2]
  local lkeys, lvalues
  if nn.utils.istable(keys) and nn.utils.istable(values) and #keys == #values then
    lkeys, lvalues = keys, values
    self.isFlat = false
    self.noBatch = false
  elseif torch.isTensor(keys) and torch.isTensor(values) then
    lkeys, lvalues = {keys}, {values}
    self.isFlat = false
    self.noBatch = true
  else
    formatError(who, input)
  end
  for i = 1, #lkeys do
    local k, v = lkeys[i], lvalues[i]
    if not torch.isTensor(k) or not torch.isTensor(v) or k:dim() ~= 1 or v:dim() ~= 1
       or k:nElement() ~= v:nElement() then
      error(string.format('%s: keys and values of sample %d must be 1D of the same size, got %s and %s', who, i,
                          nn.utils.shapeString(k), nn.utils.shapeString(v)), 0)
    end
  end
  return lkeys, lvalues
end

function IndexLinear:flattenInputs(input, who)
  local lkeys, lvalues, sizes = self:reshapeInput(input, who)
  local counter = self.running.counter
  self.running.keys[counter] = self.running.keys[counter] or torch.LongTensor()
  self.keys = self.running.keys[counter]
  self.values = (torch.isTensor(self.values) and torch.type(self.values) == torch.type(self.weight))
                and self.values or self.weight.new()
  if self.isFlat then
    self.keys:resize(lkeys:size()):copy(lkeys)
    self.values:resize(lvalues:size()):copy(lvalues)
    self.sizes = torch.LongTensor(sizes:nElement()):copy(sizes)
    self.cumSumSizes = torch.LongTensor():cumsum(self.sizes, 1)
  else
    self.lkeys, self.lvalues = lkeys, lvalues
    local batchSize = #lkeys
    self.sizesCache[1] = self.sizesCache[1] or torch.LongTensor(batchSize)
    self.cumSumSizesCache[1] = self.cumSumSizesCache[1] or torch.LongTensor(batchSize)
    self.sizes = self.sizesCache[1]:resize(batchSize)
    for i = 1, batchSize do self.sizes[i] = lkeys[i]:size(1) end
    self.cumSumSizes = self.cumSumSizesCache[1]:resize(batchSize)
    if batchSize > 0 then self.cumSumSizes:cumsum(self.sizes, 1) end
    local n = 0
    for i = 1, batchSize do n = n + lkeys[i]:nElement() end
    self.keys:resize(n)
    self.values:resize(n)
    local at = 1
    for i = 1, batchSize do
      local m = lkeys[i]:nElement()
      if m > 0 then
        self.keys:narrow(1, at, m):copy(lkeys[i])
        self.values:narrow(1, at, m):copy(lvalues[i])
        at = at + m
      end
    end
  end
  self.running.cumSumSizes[counter] = self.cumSumSizes
end

function IndexLinear:updateOutput(input)
  self:flattenInputs(input, 'nn.IndexLinear:updateOutput')
  if torch.type(self.output) ~= torch.type(self.weight) then self.output = self.weight.new() end
  if torch.type(self.normalizedValues) ~= torch.type(self.weight) then self.normalizedValues = self.weight.new() end
  C.indexlinear_updateOutput(self, self.keys, self.offset, self.values, self.sizes, self.output,
                             self.weight, self.bias, self.normalizedValues, self.train ~= false)
  if self.noBatch then self.output:resize(self.output:size(2)) end
  return self.output
end

local function usedValues(self)
  return self.normalize > 0 and self.normalizedValues or self.values
end

local function gradOutputOf(self, gradOutput, who)
  if not torch.isTensor(gradOutput) then
    error(string.format('%s: gradOutput must be a tensor, got %s', who, torch.type(gradOutput)), 0)
  end
  return gradOutput:contiguous()
end

function IndexLinear:accUpdateGradParameters(input, gradOutput, scale)
  local who = 'nn.IndexLinear:accUpdateGradParameters'
  C.indexlinear_accUpdateGradParameters(self, self.keys, self.offset, usedValues(self), self.sizes,
                                        gradOutputOf(self, gradOutput, who), self.weight, self.bias,
                                        self.weightDecay or 0, scale or 1)
end

function IndexLinear:accGradParameters(input, gradOutput, scale)
  local who = 'nn.IndexLinear:accGradParameters'
  local counter = self.running.counter
  self.running.gradWeight[counter] = self.running.gradWeight[counter] or self.values.new()
  C.indexlinear_accGradParameters(self, self.keys, self.offset, usedValues(self), self.sizes,
                                  gradOutputOf(self, gradOutput, who), self.running.gradWeight[counter],
                                  self.gradBias, self.weight, self.bias, scale or 1)
  self.running.counter = counter + 1
end

function IndexLinear:updateGradInput(input, gradOutput)
  if not nn.utils.istable(self.gradInput) then self.gradInput = {} end
  local g = self.gradInput
  for k in pairs(g) do g[k] = nil end
  if not self.doGradInput then return g end
  if self.normalize > 0 then
    error('nn.IndexLinear:updateGradInput: gradInput is not available in max-normalize mode', 0)
  end
  local ini = self.weight:size(1)
  local go = gradOutputOf(self, gradOutput, 'nn.IndexLinear:updateGradInput')
  local gi = go.new()
  if go:dim() == 1 then
    gi:resize(ini):mv(self.weight, go)
    gi:resize(1, ini)
  else
    gi:resize(go:size(1), ini):mm(go, self.weight:t())
  end
  local indices = torch.LongTensor(ini):range(1, ini)
  if self.isFlat then
    g[1] = torch.repeatTensor(indices, gi:size(1), 1)
    g[2] = gi
    if self.noBatch then g[1]:resize(ini); g[2]:resize(ini) end
  else
    g[1], g[2] = {}, {}
    for i = 1, gi:size(1) do
      g[1][i] = indices:clone()
      g[2][i] = go.new(ini):copy(gi[i])
    end
    if self.noBatch then g[1], g[2] = g[1][1], g[2][1] end
  end
  return g
end

function IndexLinear:updateParameters(lr)
  if lr == nil then error('nn.IndexLinear:updateParameters: a learning rate is needed', 2) end
  local counter = self.running.counter
  if counter <= 1 then return end
  if counter == 2 then
    self.updateKeys = self.running.keys[1]
    self.gradWeight = self.running.gradWeight[1]
  else
    self.updateKeysBuffer = self.updateKeysBuffer or torch.LongTensor()
    local lkeys, lgrads = {}, {}
    for i = 1, counter - 1 do
      lkeys[i] = self.running.keys[i]
      lgrads[i] = self.running.gradWeight[i]:contiguous():view(-1)
    end
    self.updateKeysBuffer:cat(lkeys, 1)
    self.gradWeightBuffer:cat(lgrads, 1)
    self.gradWeightBuffer:resize(self.updateKeysBuffer:nElement(),
                                 self.outputSize * (self.normalize > 0 and 2 or 1))
    self.gradWeight = self.gradWeightBuffer
    self.updateKeys = self.updateKeysBuffer
  end
  C.indexlinear_updateParameters(self, self.gradWeight, self.gradBias, self.weight, self.bias,
                                 self.updateKeys, self.offset, self.weightDecay or 0, lr)
end

function IndexLinear:zeroGradParameters()
  self.gradBias:zero()
  self.running.counter = 1
end

-- Torch7 returned the whole 'running' record (with its counter) as the
-- weight's gradient; here the gradient rows of the calls since
-- zeroGradParameters, so that the gradients are tensors (tables of them)
-- as everywhere else
function IndexLinear:parameters()
  local rows = {}
  for i = 1, self.running.counter - 1 do rows[i] = self.running.gradWeight[i] end
  return {self.weight, self.bias}, {rows, self.gradBias}
end

function IndexLinear:clearState()
  self.running.keys = {}
  self.running.gradWeight = {}
  self.keys = nil
  self.updateKeys = nil
  self.values = nil
  self.sizes = nil
  self.lkeys = {}
  self.lvalues = {}
  self.gradWeightBuffer = self.gradWeightBuffer.new()
  self.valuesBuffer = self.valuesBuffer.new()
  self.updateKeysBuffer = nil
  return parent.clearState(self)
end

-- the flattened batch and the per-call gradient rows live from forward to
-- updateParameters, past one pass: all state
function IndexLinear:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false,
          state = {keys = true, values = true, sizes = true, cumSumSizes = true, normalizedValues = true,
                   running = true, sizesCache = true, cumSumSizesCache = true, lkeys = true, lvalues = true,
                   gradWeight = true, gradWeightBuffer = true, valuesBuffer = true, updateKeys = true,
                   updateKeysBuffer = true}}
end
