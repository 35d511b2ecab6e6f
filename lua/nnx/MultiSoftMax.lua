-- nn.MultiSoftMax() (nnx): a softmax over the last dimension of a 2D
-- (N x C) or 3D (N x S x C) input: each of the N*S rows separately.
local MultiSoftMax, parent = torch.class('nn.MultiSoftMax', 'nn.Module')

function MultiSoftMax:__init()
  parent.__init(self)
  self.softmax = nn.SoftMax()
end

local function rows(t, input)
  if input:dim() == 2 then return t end
  if input:dim() ~= 3 then
    error(string.format('nn.MultiSoftMax: 2D or 3D input expected, got %dD', input:dim()), 3)
  end
  return t:contiguous():view(input:size(1) * input:size(2), input:size(3))
end

function MultiSoftMax:updateOutput(input)
  local out = self.softmax:updateOutput(rows(input, input))
  self.output:resizeAs(input):copy(out:viewAs(input))
  return self.output
end

function MultiSoftMax:updateGradInput(input, gradOutput)
  nn.utils.needForward(self, self.softmax.output, 'output')
  local g = self.softmax:updateGradInput(rows(input, input), rows(gradOutput, input))
  self.gradInput:resizeAs(input):copy(g:viewAs(input))
  return self.gradInput
end
