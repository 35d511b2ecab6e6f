-- nn.PairwiseDistance([p = 2]): input = {x1, x2}, two vectors of size d or
-- two n x d batches; output = the p-norm distance ||x1 - x2||_p, a vector of
-- size 1 or n. Backward uses d||v||_p/dv = sign(v) |v|^(p-1) / ||v||_p^(p-1)
-- (with 1e-6 added to the norm, as Torch7, against division by zero).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local PairwiseDistance, parent = torch.class('nn.PairwiseDistance', 'nn.Module')

function PairwiseDistance:__init(p)
  parent.__init(self)
  p = p or 2
  if type(p) ~= 'number' or p < 1 then
    error(string.format('nn.PairwiseDistance: p must be a number >= 1, got %s', tostring(p)), 3)
  end
  self.gradInput = {}
  self.diff = torch.Tensor()
  self.norm = p
end

-- the two inputs as n x d matrices (views)
local function matrices(input, who)
  local a, b = nn.utils.checkTensorPair(input, who)
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    error(string.format('%s: inputs must be two vectors or two matrices of the same size, got %s and %s', who,
                        utils.shapeString(a), utils.shapeString(b)), 0)
  end
  if a:dim() == 1 then
    return utils.addSingletonDimension(a, 1), utils.addSingletonDimension(b, 1)
  end
  return a, b
end

function PairwiseDistance:updateOutput(input)
  local a, b = matrices(input, 'nn.PairwiseDistance:updateOutput')
  if torch.type(self.output) ~= torch.type(a) then self.output = a.new() end
  if not torch.isTensor(self.diff) or torch.type(self.diff) ~= torch.type(a) then self.diff = a.new() end
  local diff = self.diff:resizeAs(a):copy(a):add(-1, b):abs()
  if self.norm ~= 1 then diff:pow(self.norm) end
  self.output:resize(a:size(1), 1)
  torch.sum(self.output, diff, 2)
  self.output:resize(a:size(1))
  if self.norm ~= 1 then self.output:pow(1 / self.norm) end
  return self.output
end

function PairwiseDistance:updateGradInput(input, gradOutput)
  local a, b = matrices(input, 'nn.PairwiseDistance:updateGradInput')
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= a:size(1) then
    error(string.format('nn.PairwiseDistance:updateGradInput: gradOutput must have %d elements, got %s',
                        a:size(1), utils.shapeString(gradOutput)), 0)
  end
  utils.needForward(self, self.output, 'output')
  local g = utils.gradTable(self, 2, a)
  local g1 = g[1]:resize(a:size()):copy(a):add(-1, b)   -- n x d
  local p = self.norm
  if p ~= 2 then
    -- v |v|^(p-2) written as sign(v) |v|^(p-1): finite at v = 0 for p >= 1
    self.buffer = (torch.isTensor(self.buffer) and torch.type(self.buffer) == torch.type(a)) and self.buffer or a.new()
    self.buffer:resizeAs(g1):copy(g1):abs()
    if p ~= 1 then self.buffer:pow(p - 1) else self.buffer:fill(1) end
    g1:sign():cmul(self.buffer)
  end
  if p ~= 1 then
    self.outExpand = (torch.isTensor(self.outExpand) and torch.type(self.outExpand) == torch.type(a))
                     and self.outExpand or a.new()
    self.outExpand:resize(a:size(1), 1):copy(self.output):add(1e-6):pow(-(p - 1))
    g1:cmul(self.outExpand:expandAs(g1))
  end
  local go = gradOutput:dim() == 1 and utils.addSingletonDimension(gradOutput, 2)
             or gradOutput:contiguous():view(a:size(1), 1)
  g1:cmul(go:expandAs(g1))
  g[2]:resizeAs(g1):copy(g1):mul(-1)
  g[1]:resize(input[1]:size())
  g[2]:resize(input[2]:size())
  return g
end

function PairwiseDistance:memoryTraits()
  return {buffers = {diff = 'forward', buffer = 'backward', outExpand = 'backward'},
          needsInput = true, needsOutput = true}
end

return PairwiseDistance
