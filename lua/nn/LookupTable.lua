-- nn.LookupTable(nIndex, nOutput [, paddingValue [, maxNorm [, normType]]]):
-- an embedding. weight nIndex x nOutput (initialised N(0, 1) as Torch7);
-- input: n indices (1D) -> n x nOutput, or b x n (2D) -> b x n x nOutput.
-- Indices are 1-based, in a LongTensor or any other tensor holding
-- integers. accGradParameters adds each gradOutput row into the gradWeight
-- row of its index (repeats accumulate); rows whose index equals
-- paddingValue (default 0: none) get no gradient. With maxNorm, forward
-- first rescales the looked-up rows to norm <= maxNorm (normType, default 2).
-- gradInput is zeros shaped like the input (indices have no gradient).
-- Kernel: src/nn/th_nn_lookup.c.

local C = torch._C.nn
local LookupTable, parent = torch.class('nn.LookupTable', 'nn.Module')

function LookupTable:__init(nIndex, nOutput, paddingValue, maxNorm, normType)
  parent.__init(self)
  nIndex = nn.utils.positive(nIndex, 'nIndex', 'nn.LookupTable')
  nOutput = nn.utils.positive(nOutput, 'nOutput', 'nn.LookupTable')
  self.weight = torch.Tensor(nIndex, nOutput)
  self.gradWeight = torch.Tensor(nIndex, nOutput):zero()
  self.paddingValue = paddingValue or 0
  self.maxNorm = maxNorm or nil
  self.normType = normType or nil
  self:reset()
end

-- Torch7's: drops gradWeight, for training by accUpdateGradParameters alone
-- (which then adds straight into the weight)
function LookupTable:accUpdateOnly()
  self.gradWeight = nil
  return self
end

function LookupTable:setPadding(paddingValue)
  self.paddingValue = paddingValue
  return self
end

function LookupTable:setMaxNorm(maxNorm)
  self.maxNorm = maxNorm
  return self
end

function LookupTable:setNormType(normType)
  self.normType = normType
  return self
end

function LookupTable:reset(stdv)
  self.weight:normal(0, stdv or 1)
  return self
end

function LookupTable:updateOutput(input)
  if self.maxNorm then
    C.lookup_renorm(self, self.weight, input, self.maxNorm, self.normType or 2)
  end
  C.lookup_updateOutput(self, self.weight, input, self.output)
  return self.output
end

-- indices have no gradient: zeros of the input's shape. Unlike Torch7 (which
-- swaps in a tensor of the index type), the gradInput object is kept, of
-- the module's type: the optimizer relies on its identity. gradInput = nil
-- (a first layer whose gradInput nobody reads) computes nothing, as the
-- other first layers do.
function LookupTable:updateGradInput(input, gradOutput)
  if self.gradInput == nil then return nil end
  if not self.gradInput:isSameSizeAs(input) then self.gradInput:resize(input:size()) end
  self.gradInput:zero()
  return self.gradInput
end

function LookupTable:accGradParameters(input, gradOutput, scale)
  C.lookup_accGradParameters(self, input, gradOutput, self.gradWeight, self.paddingValue or 0,
                             scale or 1)
end

function LookupTable:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end

