-- nn.ConcatTable: every child gets the same input (tensor or table); the
-- output is the table of their outputs. gradInput is the sum of the
-- children's gradInputs (elementwise through nested tables).

require 'nn.Container'
local torch = torch
local nn = nn
local utils = nn.utils
local gradrelease = require 'nn.gradrelease'

local ConcatTable, parent = torch.class('nn.ConcatTable', 'nn.Container')

function ConcatTable:__init()
  parent.__init(self)
  self.modules = {}
  self.output = {}
end

-- children run in self:_runOrder() (module order unless optnet reorder
-- planned another); outputs stay at their module index and gradInputs are
-- summed in module order, so the numbers do not depend on the running order
function ConcatTable:updateOutput(input)
  if not utils.istable(self.output) then self.output = {} end   -- (read without one)
  for _, i in ipairs(self:_runOrder()) do
    self.output[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input)
  end
  for i = #self.output, #self.modules + 1, -1 do self.output[i] = nil end
  return self.output
end

-- t1 takes t2's nested structure; f(t1, k, v) handles each tensor leaf
local function retable(t1, t2, f)
  for k, v in ipairs(t2) do
    if utils.istable(v) then
      t1[k] = retable(utils.istable(t1[k]) and t1[k] or {}, v, f)
    else
      f(t1, k, v)
    end
  end
  for i = #t1, #t2 + 1, -1 do t1[i] = nil end
  return t1
end

local function backward(self, method, input, gradOutput, scale)
  local who = 'nn.ConcatTable:' .. method
  -- no branch: the output ({}) does not depend on the input
  if #self.modules == 0 then
    self.gradInput = utils.recursiveFill(utils.recursiveResizeAs(self.gradInput, input), 0)
    return self.gradInput
  end
  if not utils.istable(gradOutput) or #gradOutput < #self.modules then
    error(string.format('%s: gradOutput must be a table of %d elements, got %s', who, #self.modules,
                        utils.shapeString(gradOutput)), 0)
  end
  -- all children run first, then their gradInputs are summed (the
  -- container reads its children's results at its own step)
  local gis = {}
  for _, i in ipairs(self:_runOrder()) do
    gis[i] = self:rethrowErrors(self.modules[i], i, method, input, gradOutput[i], scale)
  end
  if utils.istable(input) then
    local wasTable = utils.istable(self.gradInput)
    for i = 1, #self.modules do
      local gi = gis[i]
      if not utils.istable(gi) then
        error(string.format('%s: gradInput of module %d must be a table of %d elements like the input, got %s',
                            who, i, #input, utils.shapeString(gi)), 0)
      end
      -- Torch7's wording ("table size mismatch: 3 ~= 2"), which scripts match on
      if #gi ~= #input then
        error(string.format('%s: table size mismatch: %d ~= %d (the input has %d elements, gradInput of module %d has %d)',
                            who, #input, #gi, #input, i, #gi), 0)
      end
      if i == 1 then
        if not wasTable then self.gradInput = {} end
        retable(self.gradInput, gi, function(t, k, v)
          if not torch.isTensor(t[k]) or torch.type(t[k]) ~= torch.type(v) then t[k] = v.new() end
          t[k]:resizeAs(v):copy(v)
        end)
      else
        retable(self.gradInput, gi, function(t, k, v)
          if t[k] then t[k]:add(v) else t[k] = v:clone() end
        end)
      end
    end
  else
    if not torch.isTensor(self.gradInput) then self.gradInput = input.new() end
    for i = 1, #self.modules do
      if not torch.isTensor(gis[i]) then
        error(string.format('%s: gradInput of module %d must be a tensor like the input, got %s',
                            who, i, torch.type(gis[i])), 0)
      end
    end
    -- the first two summed in one pass (r = a + b reads two and writes one
    -- stream, where copy then add moves five): the same additions in the
    -- same order, so the same bits
    local gi = self.gradInput:resizeAs(gis[1])
    if #self.modules == 1 then
      gi:copy(gis[1])
    else
      gi:add(gis[1], gis[2])
      for i = 3, #self.modules do gi:add(gis[i]) end
    end
  end
  -- consumed: the children's gradInputs (nn/gradrelease.lua)
  if method == 'backward' then gradrelease.releaseChildren(self, input, gradOutput) else gradrelease.kept(self) end
  return self.gradInput
end

function ConcatTable:updateGradInput(input, gradOutput)
  return backward(self, 'updateGradInput', input, gradOutput)
end

function ConcatTable:backward(input, gradOutput, scale)
  local _ <close> = nn.utils.ownGuard(self, 'backward')
  return backward(self, 'backward', input, gradOutput, scale or 1)
end

function ConcatTable:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  for _, i in ipairs(self:_runOrder()) do
    self:rethrowErrors(self.modules[i], i, 'accGradParameters', input, gradOutput[i], scale)
  end
end

function ConcatTable:accUpdateGradParameters(input, gradOutput, lr)
  for _, i in ipairs(self:_runOrder()) do
    self:rethrowErrors(self.modules[i], i, 'accUpdateGradParameters', input, gradOutput[i], lr)
  end
end

-- the output table holds the children's outputs; gradInput is its own
function ConcatTable:clearState()
  self.output = {}
  if torch.isTensor(self.gradInput) then self.gradInput:set() else self.gradInput = {} end
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

function ConcatTable:__tostring__()
  return self:_branchString()
end

-- its output is the table of its children's outputs (read nowhere); at its
-- backward step it sums their gradInputs and reads no number of its
-- gradOutput (the children got it)
function ConcatTable:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, true, false
  return tr
end

return ConcatTable
