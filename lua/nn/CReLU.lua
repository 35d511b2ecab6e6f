-- nn.CReLU(nInputDims [, inplace]): the concatenated rectifier (Shang et al.
-- 2016): y = [relu(x), relu(-x)] along the feature dimension, which doubles:
-- dimension 1 of an nInputDims-D input, dimension 2 of a batch of them
-- (nInputDims + 1 dimensions). As Torch7, each sample is flattened and the
-- two halves joined, so the first half of the features holds relu(x).
-- dx = gradOutput(first half) where x > 0, minus gradOutput(second half)
-- where x < 0.
-- Torch7 builds this from a ConcatTable, JoinTable and ReLU; here it is one
-- module over the HardTanh kernel (clamps to [0, inf) and (-inf, 0]), with
-- the same fields (nInputDims, inplace) and text. Its output is twice the
-- input's size, so it never runs in place ('inplace' is kept for Torch7).

local C = torch._C.nn
local CReLU, parent = torch.class('nn.CReLU', 'nn.Module')

function CReLU:__init(nInputDims, inplace)
  parent.__init(self)
  if math.type(nInputDims) == nil or nInputDims < 1 or nInputDims ~= math.floor(nInputDims) then
    error(string.format('nn.CReLU: nInputDims must be a positive integer, got %s', tostring(nInputDims)), 2)
  end
  self.nInputDims = nInputDims
  self.inplace = inplace or false
end

-- input viewed as batch x features (flattened samples), and the batch flag
function CReLU:_flat(input, method)
  if not torch.isTensor(input) then
    error(string.format('nn.CReLU:%s: input must be a tensor, got %s', method, torch.type(input)), 3)
  end
  local d = input:dim()
  if d ~= self.nInputDims and d ~= self.nInputDims + 1 then
    error(string.format('nn.CReLU:%s: input must be %dD (or %dD with a batch), got %dD', method,
                        self.nInputDims, self.nInputDims + 1, d), 3)
  end
  local batched = d == self.nInputDims + 1
  local b = batched and input:size(1) or 1
  return input:contiguous():view(b, -1), batched
end

function CReLU:updateOutput(input)
  local x, batched = self:_flat(input, 'updateOutput')
  local b, n = x:size(1), x:size(2)
  local osize = input:size()
  local fd = batched and 2 or 1
  osize[fd] = osize[fd] * 2
  self.output:resize(osize)
  local o = self.output:view(b, 2, n)
  C.HardTanh_updateOutput(self, x, o:select(2, 1), false, 0, math.huge)
  C.HardTanh_updateOutput(self, x, o:select(2, 2), false, -math.huge, 0)
  o:select(2, 2):mul(-1)
  return self.output
end

function CReLU:updateGradInput(input, gradOutput)
  local x = self:_flat(input, 'updateGradInput')
  local b, n = x:size(1), x:size(2)
  if gradOutput:nElement() ~= 2 * x:nElement() then
    error(string.format('nn.CReLU:updateGradInput: gradOutput must have %d elements (twice the input), got %d',
                        2 * x:nElement(), gradOutput:nElement()), 2)
  end
  local go = gradOutput:contiguous():view(b, 2, n)
  self._negGrad = self._negGrad or x.new()
  self.gradInput:resizeAs(input)
  local gi = self.gradInput:view(b, n)
  C.HardTanh_updateGradInput(self, x, go:select(2, 1), gi, nil, false, 0, math.huge)
  C.HardTanh_updateGradInput(self, x, go:select(2, 2), self._negGrad, nil, false, -math.huge, 0)
  gi:add(-1, self._negGrad)
  return self.gradInput
end

function CReLU:memoryTraits()
  return {buffers = {_negGrad = 'backward'}, needsInput = true, needsOutput = false}
end

function CReLU:__tostring__()
  return 'CReLU()'
end
