-- nn.Replicate(nFeature [, dim = 1 [, ndim]]): output = the input repeated
-- nFeature times along a new dimension 'dim', as a zero-stride view (no
-- copy). With ndim, an input with more than ndim dimensions is a batch and
-- dim counts after the batch dimension. gradInput sums over the copies.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local Replicate, parent = torch.class('nn.Replicate', 'nn.Module')

function Replicate:__init(nf, dim, ndim)
  parent.__init(self)
  if type(nf) ~= 'number' or nf % 1 ~= 0 or nf < 1 then
    error(string.format('nn.Replicate: nFeature must be a positive integer, got %s', tostring(nf)), 3)
  end
  dim = dim or 1
  if type(dim) ~= 'number' or dim % 1 ~= 0 or dim < 1 then
    error(string.format('nn.Replicate: dim must be a positive integer, got %s', tostring(dim)), 3)
  end
  self.nfeatures = nf
  self.dim = dim
  self.ndim = ndim
end

function Replicate:_rdim(input, who)
  utils.checkTensor(input, who)
  local rdim = self.dim + ((self.ndim and input:dim() > self.ndim) and 1 or 0)
  if rdim > input:dim() + 1 then
    error(string.format('%s: cannot replicate along dimension %d of input %s', who, rdim,
                        utils.shapeString(input)), 0)
  end
  return rdim
end

function Replicate:updateOutput(input)
  local rdim = self:_rdim(input, 'nn.Replicate:updateOutput')
  local sz, st = {}, {}
  for i = 1, input:dim() do sz[i], st[i] = input:size(i), input:stride(i) end
  table.insert(sz, rdim, self.nfeatures)
  table.insert(st, rdim, 0)
  if torch.type(self.output) ~= torch.type(input) then self.output = input.new() end
  if input:storage() then
    self.output:set(input:storage(), input:storageOffset(), torch.LongStorage(sz), torch.LongStorage(st))
  else
    self.output:set()
  end
  return self.output
end

function Replicate:updateGradInput(input, gradOutput)
  local rdim = self:_rdim(input, 'nn.Replicate:updateGradInput')
  if not torch.isTensor(gradOutput) or gradOutput:dim() ~= input:dim() + 1 or
     gradOutput:nElement() ~= input:nElement() * self.nfeatures then
    error(string.format('nn.Replicate:updateGradInput: gradOutput must have the size of the output, got %s',
                        utils.shapeString(gradOutput)), 0)
  end
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resizeAs(input)
  local sz = {}
  for i = 1, input:dim() do sz[i] = input:size(i) end
  table.insert(sz, rdim, 1)
  local view = self.gradInput:view(torch.LongStorage(sz))
  torch.sum(view, gradOutput, rdim)
  return self.gradInput
end

function Replicate:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Replicate
