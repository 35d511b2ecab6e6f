-- nn.MixtureTable([dim]): a mixture of experts. input {gater, experts}:
-- gater is n (one sample) or batch x n, the experts' weights; experts is a
-- table of n tensors of one shape, or one tensor with the n experts along
-- 'dim'. output = sum_i gater[i] * expert_i (per sample). 'dim' defaults to
-- 1 for a 1D gater and 2 otherwise (set on the first forward, as Torch7).
-- gradInput = {d/dgater: per i, the sum of gradOutput .* expert_i over a
-- sample; d/dexperts: gater[i] * gradOutput, shaped like the experts}.

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local MixtureTable, parent = torch.class('nn.MixtureTable', 'nn.Module')

function MixtureTable:__init(dim)
  parent.__init(self)
  if dim ~= nil and (type(dim) ~= 'number' or dim % 1 ~= 0 or dim < 1) then
    error(string.format('nn.MixtureTable: dim must be a positive integer, got %s', tostring(dim)), 2)
  end
  self.dim = dim
  self.size = torch.LongStorage()
  self.batchSize = 0
  self.size2 = torch.LongStorage()
  self.backwardSetup = false
  self.gradInput = {}
end

local function buffer(self, field, like)
  local b = rawget(self, field)
  if not torch.isTensor(b) or torch.type(b) ~= torch.type(like) then
    b = like.new()
    self[field] = b
  end
  return b
end

local function contiguous(x)
  return x:isContiguous() and x or x:contiguous()
end

-- checks the input, sets dimG/dim/size; returns gater, experts and the
-- gater viewed with one weight per expert along 'dim' (size 1 elsewhere)
function MixtureTable:_setup(input, who)
  if not utils.istable(input) or not torch.isTensor(input[1]) or input[2] == nil then
    utils.error(who, 'input must be {gater, experts}, got %s', utils.shapeString(input))
  end
  local gater, experts = input[1], input[2]
  if gater:dim() ~= 1 and gater:dim() ~= 2 then
    utils.error(who, 'the gater (input[1]) must be 1D or 2D, got %s', utils.shapeString(gater))
  end
  self.dimG = gater:dim() < 2 and 1 or 2
  if self.dimG == 1 then self.dim = self.dim or 1 end
  self.dim = self.dim or 2
  local n = gater:size(self.dimG)
  local one
  if self.table or utils.istable(experts) then
    self.table = true
    if not utils.istable(experts) then
      utils.error(who, 'experts (input[2]) must be a table like on the first call, got %s', torch.type(experts))
    end
    if #experts ~= n then
      utils.error(who, 'one gater output per expert expected: %d gater outputs, %d experts', n, #experts)
    end
    for i = 1, #experts do
      if not torch.isTensor(experts[i]) or not experts[i]:isSameSizeAs(experts[1]) then
        utils.error(who, 'expert %d must be a tensor of size %s like expert 1, got %s', i,
                    utils.sizeString(experts[1]), utils.shapeString(experts[i]))
      end
    end
    one = experts[1]
    self.size:resize(one:dim() + 1):fill(1)
  else
    if not torch.isTensor(experts) then
      utils.error(who, 'experts (input[2]) must be a table of tensors or a tensor, got %s', torch.type(experts))
    end
    if experts:dim() < self.dim or experts:size(self.dim) ~= n then
      utils.error(who, 'experts %s must have the %d experts along dimension %d', utils.shapeString(experts), n, self.dim)
    end
    one = experts
    self.size:resize(experts:dim()):fill(1)
  end
  if self.dim > #self.size then
    utils.error(who, 'dim %d is out of range for experts of %d dimensions', self.dim, #self.size - (self.table and 1 or 0))
  end
  if self.dimG > 1 then
    if one:dim() < 1 or one:size(1) ~= gater:size(1) then
      utils.error(who, 'experts must have the gater\'s batch size %d first, got %s', gater:size(1), utils.shapeString(one))
    end
    self.size[1] = gater:size(1)
  end
  self.size[self.dim] = n
  self.batchSize = self.dimG > 1 and gater:size(1) or 1
  return gater, experts, contiguous(gater):view(self.size)
end

function MixtureTable:updateOutput(input)
  local gater, experts, gaterView = self:_setup(input, 'nn.MixtureTable:updateOutput')
  if torch.type(self.output) ~= torch.type(gater) then self.output = gater.new() end
  if self.table then
    self.output:resizeAs(experts[1]):zero()
    for i, e in ipairs(experts) do
      self.output:addcmul(e, gaterView:select(self.dim, i):expandAs(e))
    end
  else
    local prod = buffer(self, '_expert', gater)
    prod:cmul(gaterView:expandAs(experts), experts)
    self.output:sum(prod, self.dim)
    self.output:resizeAs(experts:select(self.dim, 1))
  end
  return self.output
end

function MixtureTable:updateGradInput(input, gradOutput)
  local who = 'nn.MixtureTable:updateGradInput'
  local gater, experts, gaterView = self:_setup(input, who)
  utils.checkTensor(gradOutput, who, 'gradOutput')
  if gradOutput:nElement() ~= self.output:nElement() then
    utils.error(who, 'gradOutput must have %d elements like the output, got %s', self.output:nElement(),
                utils.shapeString(gradOutput))
  end
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local gi = self.gradInput
  if not torch.isTensor(gi[1]) or torch.type(gi[1]) ~= torch.type(gater) then gi[1] = gater.new() end
  local gGater = gi[1]:resizeAs(gater)
  local prod = buffer(self, '_expert', gater)
  local sum = buffer(self, '_sum', gater)
  if self.table then
    if not utils.istable(gi[2]) then gi[2] = {} end
    local gExperts = gi[2]
    local go = gradOutput:isSameSizeAs(experts[1]) and gradOutput or contiguous(gradOutput):view(experts[1]:size())
    for i, e in ipairs(experts) do
      if not torch.isTensor(gExperts[i]) or torch.type(gExperts[i]) ~= torch.type(e) then gExperts[i] = e.new() end
      -- the gater's gradient: sum over each sample of gradOutput .* expert i
      prod:cmul(go, e)
      local flat = self.dimG == 1 and prod:view(-1) or prod:view(go:size(1), -1)
      sum:sum(flat, self.dimG)
      if self.dimG == 1 then
        gGater[i] = sum[1]
      else
        gGater:select(2, i):copy(sum:select(2, 1))
      end
      -- the expert's gradient: its gater weight times gradOutput
      gExperts[i]:resizeAs(e):cmul(gaterView:select(self.dim, i):expandAs(e), go)
    end
    for i = #gExperts, #experts + 1, -1 do gExperts[i] = nil end
  else
    self.size2:resize(experts:dim()):copy(experts:size())
    self.size2[self.dim] = 1
    local go = contiguous(gradOutput):view(self.size2):expandAs(experts)
    prod:cmul(go, experts)
    -- experts' dimension next to the gater's, then summed per sample
    local t = prod:transpose(self.dim, self.dimG)
    if not t:isContiguous() then t = buffer(self, '_expert2', gater):resizeAs(t):copy(t) end
    local flat = self.dimG == 1 and t:view(gater:size(1), -1) or t:view(gater:size(1), gater:size(2), -1)
    gGater:sum(flat, self.dimG + 1)
    gGater:resizeAs(gater)
    if not torch.isTensor(gi[2]) or torch.type(gi[2]) ~= torch.type(experts) then gi[2] = experts.new() end
    gi[2]:resizeAs(experts):cmul(gaterView:expandAs(experts), go)
  end
  return gi
end

function MixtureTable:memoryTraits()
  return {buffers = {_expert = 'both', _sum = 'backward', _expert2 = 'backward'},
          needsInput = true, needsOutput = false}
end

return MixtureTable
