-- nn.SoftMaxForest(inputSize, trees, rootIds [, gaterSize={}, gaterAct=
-- nn.Tanh(), accUpdate]) (nnx): a mixture of nn.SoftMaxTree experts, one
-- per hierarchy of 'trees' (rooted at rootIds[i]). A gater (Linear layers
-- of the sizes in gaterSize with gaterAct between, then Linear + SoftMax
-- over the experts) weighs the experts' outputs for each example:
--   output[n] = sum_i gater(x)[n][i] * SoftMaxTree_i{x, target}[n]
-- Input: {x (N x inputSize), target (N)}, as SoftMaxTree. (nnx's own
-- constructor referred to fields it never set and could not run; this is
-- the module its code describes.)
local SoftMaxForest, parent = torch.class('nn.SoftMaxForest', 'nn.Container')

function SoftMaxForest:__init(inputSize, trees, rootIds, gaterSize, gaterAct, accUpdate)
  parent.__init(self)
  if type(trees) ~= 'table' or type(rootIds) ~= 'table' or #trees ~= #rootIds or #trees == 0 then
    error('nn.SoftMaxForest(inputSize, trees, rootIds, ...): as many root ids as trees (tables) expected', 2)
  end
  gaterAct = gaterAct or nn.Tanh()
  self.experts = nn.ConcatTable()
  self.smts = {}
  for i, tree in ipairs(trees) do
    local smt = nn.SoftMaxTree(inputSize, tree, rootIds[i], accUpdate)
    self.smts[i] = smt
    self.experts:add(smt)
  end
  self.gater = nn.Sequential():add(nn.SelectTable(1))   -- the gater ignores the targets
  local size = inputSize
  for _, hidden in ipairs(gaterSize or {}) do
    self.gater:add(nn.Linear(size, hidden)):add(gaterAct:clone())
    size = hidden
  end
  self.gater:add(nn.Linear(size, #trees)):add(nn.SoftMax())
  self.trunk = nn.ConcatTable():add(self.gater):add(self.experts)
  self.mixture = nn.MixtureTable()
  self.module = nn.Sequential():add(self.trunk):add(self.mixture)
  self.modules[1] = self.module
end

function SoftMaxForest:updateOutput(input)
  self.output = self.module:updateOutput(input)
  return self.output
end

function SoftMaxForest:updateGradInput(input, gradOutput)
  self.gradInput = self.module:updateGradInput(input, gradOutput)
  return self.gradInput
end

function SoftMaxForest:accGradParameters(input, gradOutput, scale)
  self.module:accGradParameters(input, gradOutput, scale)
end

function SoftMaxForest:accUpdateGradParameters(input, gradOutput, lr)
  self.module:accUpdateGradParameters(input, gradOutput, lr)
end
