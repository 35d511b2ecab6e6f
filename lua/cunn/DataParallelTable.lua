-- nn.DataParallelTable(dimension, [flattenParams], [useNCCL]) on the CPU: the
-- one device runs the whole batch, so the module added is run as it is; the
-- GPU lists given to add() are checked and recorded, never used to split the
-- batch (splitting on one device only adds copies: the results are those of
-- the whole batch, which is what Torch7's gathered result equals).

require 'nn.Container'

local DPT, parent = torch.class('nn.DataParallelTable', 'nn.Container')

local function checkDim(d)
  if math.type(d) ~= 'integer' or d < 1 then
    error(string.format('nn.DataParallelTable: dimension (a positive integer) expected as argument 1, got %s',
                        tostring(d)), 3)
  end
end

function DPT:__init(dimension, flattenParams, useNCCL)
  parent.__init(self)
  checkDim(dimension)
  self.dimension = dimension
  self.flattenParams = flattenParams or false
  self.usenccl = useNCCL or false
  self.gpuAssignments = {}
end

-- add(module, gpus): gpus a device number or a list of them (any: they all
-- name the one CPU here); a second add replaces nothing, it is an error as
-- in Torch7 (one module per table)
function DPT:add(module, gpus)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('nn.DataParallelTable:add: nn.Module expected as argument 1, got %s', torch.type(module)), 2)
  end
  if #self.modules > 0 then
    error('nn.DataParallelTable:add: the table already holds its module (one module, replicated per GPU in Torch7)', 2)
  end
  if type(gpus) == 'number' then gpus = {gpus} end
  if gpus ~= nil and type(gpus) ~= 'table' then
    error(string.format('nn.DataParallelTable:add: a GPU number or a list of them expected as argument 2, got %s',
                        torch.type(gpus)), 2)
  end
  self.modules[1] = module
  self.gpuAssignments = gpus or {1}
  return self
end

-- the initialisation function Torch7 ran in each GPU's thread runs once here
function DPT:threads(init)
  if init ~= nil then
    if type(init) ~= 'function' then
      error(string.format('nn.DataParallelTable:threads: function expected, got %s', type(init)), 2)
    end
    init(1)
  end
  return self
end

local function child(self, method)
  local m = self.modules[1]
  if not m then error('nn.DataParallelTable:' .. method .. ': no module added', 3) end
  return m
end

function DPT:updateOutput(input)
  self.output = self:rethrowErrors(child(self, 'updateOutput'), 1, 'updateOutput', input)
  return self.output
end

-- gradInput = nil (fb.resnet.torch sets it on the table) skips the input's
-- gradient as Torch7 did: the module still computes its own
function DPT:updateGradInput(input, gradOutput)
  local g = self:rethrowErrors(child(self, 'updateGradInput'), 1, 'updateGradInput', input, gradOutput)
  if self.gradInput ~= nil then self.gradInput = g end
  return self.gradInput
end

function DPT:accGradParameters(input, gradOutput, scale)
  self:rethrowErrors(child(self, 'accGradParameters'), 1, 'accGradParameters', input, gradOutput, scale)
end

function DPT:backward(input, gradOutput, scale)
  local g = self:rethrowErrors(child(self, 'backward'), 1, 'backward', input, gradOutput, scale)
  if self.gradInput ~= nil then self.gradInput = g end
  return self.gradInput
end

-- one replica: its parameters are the table's own, always in sync
function DPT:syncParameters() return self end
function DPT:syncGradParameters() return self end

function DPT:__tostring__()
  return 'nn.DataParallelTable: ' .. #self.gpuAssignments .. ' x ' .. tostring(self.modules[1])
end
