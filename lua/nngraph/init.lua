-- nngraph: Torch7's graph modules. Loading it gives every module the node
-- syntax: m(x) (or m{x1, x2}, or m() for a node without inputs) returns an
-- nngraph.Node that runs m on the nodes' outputs, and
-- nn.gModule(inputNodes, outputNodes) turns the graph into a module.
-- -m is m(), a - b is b(a); a criterion called on nodes becomes
-- nn.ModuleFromCriterion. (Without nngraph, calling a module runs forward.)
require 'nn'
require 'graph'

nngraph = nngraph or {}

require 'nngraph.node'
require 'nngraph.nest'
require 'nngraph.JustElement'
require 'nngraph.JustTable'
require 'nngraph.ModuleFromCriterion'
require 'nngraph.gModule'
require 'nngraph.graphinspecting'
nngraph.simple_print = require 'nngraph.simple_print'
local utils = require 'nngraph.utils'

local Module = torch.getmetatable('nn.Module')
local Criterion = torch.getmetatable('nn.Criterion')

local syntax = {}

function syntax.call(self, ...)
  local n = select('#', ...)
  if n > 1 then error('nngraph: use {input1, input2} to pass multiple inputs', 2) end
  local input = ...
  if n == 1 and input == nil then error('nngraph: ' .. utils.expectingNodeErrorMessage(nil, 'inputs', 1), 2) end
  if type(input) == 'table' and not torch.typename(input) and next(input) == nil then
    error('nngraph: cannot pass an empty table of inputs. To indicate no incoming connections, leave the '
          .. 'second set of parens blank.', 2)
  end
  if not utils.istable(input) then input = {input} end
  local node = nngraph.Node({module = self})
  for i = 1, utils.tableMaxN(input) do
    if torch.typename(input[i]) ~= 'nngraph.Node' then
      error('nngraph: ' .. utils.expectingNodeErrorMessage(input[i], 'inputs', i), 2)
    end
    node:add(input[i], true)
  end
  return node
end

function syntax.criterionCall(self, ...)
  return nn.ModuleFromCriterion(self)(...)
end
function syntax.unm(m) return m() end
function syntax.sub(prev, next) return next(prev) end

local function current()
  return {Module.__call__, Module.__unm__, Module.__sub__, Criterion.__call__}
end
local function install(v)
  Module.__call__, Module.__unm__, Module.__sub__, Criterion.__call__ = v[1], v[2], v[3], v[4]
end

install{syntax.call, syntax.unm, syntax.sub, syntax.criterionCall}

-- nngraph.build(f, ...): runs f with the node syntax on and puts back what
-- calling a module did before (for libraries that build graphs, like
-- thrnn.LSTM, without changing module calls for the script)
function nngraph.build(f, ...)
  local before = current()
  install{syntax.call, syntax.unm, syntax.sub, syntax.criterionCall}
  local r = table.pack(pcall(f, ...))
  install(before)
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

return nngraph
