-- nn.gModule(inputs, outputs): a module whose children run as a graph of
-- nngraph.Node built with the node syntax (nn.Linear(3, 4)(x)), as
-- Torch7's nngraph. inputs and outputs are lists of nodes; the module
-- takes one input per input node (a table when several) and gives one
-- output per output node (a table when several).
-- Fields as Torch7's: fg and bg (the forward and backward graphs, whose
-- nodes share their data), forwardnodes and backwardnodes (each graph in
-- topological order), innode and outnode, nInputs, modules (each module
-- once, in forward order), verbose.
local nesting = require 'nngraph.nesting'
local utils = require 'nngraph.utils'
local gradrelease = require 'nn.gradrelease'

local gModule, parent = torch.class('nn.gModule', 'nn.Container')

-- the gradient a node passes back: the sum of what its successors sent
local function totalGradOutput(node)
  local gos = node.data.gradOutput
  if #gos <= 1 then return gos[1] end
  local buf = node.data.gradOutputBuffer or nesting.cloneNested(gos[1])
  node.data.gradOutputBuffer = buf
  nesting.resizeNestedAs(buf, gos[1])
  nesting.copyNested(buf, gos[1])
  for i = 2, #gos do nesting.addNestedTo(buf, gos[i]) end
  return buf
end

local function checkNodes(list, what)
  if not utils.istable(list) then
    error(string.format('nn.gModule: a table of nodes expected as %s, got %s', what, torch.type(list)), 3)
  end
  for i = 1, utils.tableMaxN(list) do
    if torch.typename(list[i]) ~= 'nngraph.Node' then
      error('nn.gModule: ' .. utils.expectingNodeErrorMessage(list[i], what, i), 3)
    end
  end
end

function gModule:__init(inputs, outputs)
  parent.__init(self)
  checkNodes(inputs, 'inputs')
  checkNodes(outputs, 'outputs')
  if #inputs == 0 then error('nn.gModule: no inputs are not supported', 2) end
  local outnode = nngraph.Node({input = {}})
  for i = 1, utils.tableMaxN(outputs) do outnode:add(outputs[i], true) end
  local innode = nngraph.Node({input = {}})
  if #inputs == 1 then
    inputs[1]:add(innode, true)
  else
    local splits = {innode:split(#inputs)}
    for i = 1, #inputs do
      if #inputs[i].children ~= 0 then
        error(string.format('nn.gModule: inputs[%d] already has inputs; an input node should have none', i), 2)
      end
    end
    for i = 1, #inputs do inputs[i]:add(splits[i], true) end
  end

  self.bg = outnode:graph()
  self.fg = self.bg:reverse()
  local roots = self.fg:roots()
  self.innode = nil
  for _, r in ipairs(roots) do
    if r.data == innode.data then self.innode = r end
  end
  if not self.innode or #roots > 1 then
    local extra = {}
    for _, r in ipairs(roots) do
      if r.data ~= innode.data then extra[#extra + 1] = r.data.annotations._debugLabel or '?' end
    end
    error('nn.gModule: every node must depend on the inputs; these do not: ' .. table.concat(extra, ', '), 2)
  end
  self.outnode = outnode
  self.verbose = false
  self.nInputs = #inputs
  self.forwardnodes = self.fg:topsort()
  self.backwardnodes = self.bg:topsort()

  local inGraph = {}
  for _, node in ipairs(self.forwardnodes) do inGraph[node.data] = true end
  for _, node in ipairs(self.forwardnodes) do
    local d = node.data
    if d.nSplitOutputs and d.nSplitOutputs ~= #node.children then
      error(string.format('nn.gModule: %d of split(%d) outputs from the node declared at %s are unused',
                          d.nSplitOutputs - #node.children, d.nSplitOutputs, tostring(d.annotations._debugLabel)), 2)
    end
    for successor in pairs(d.reverseMap) do
      if not inGraph[successor.data] then
        error(string.format('nn.gModule: node declared on %s does not connect to gmodule output',
                            tostring(successor.data.annotations._debugLabel)), 2)
      end
    end
    d.forwardNodeId = node.id
    if d.module then self:add(d.module) end
  end
  -- the output is the children's (a table when several), not a tensor of its own
  self.output = #outnode.children > 1 and outnode.data.input or nil
  self.gradInput = nil
end

-- the input a node's module gets: its one input, or the table of them
local function nodeInput(node)
  local input = node.data.input
  if input == nil then input = {} end
  if #input == 1 then return input[1] end
  return input
end

function gModule:runForwardFunction(func, input)
  if type(func) == 'string' then
    local name = func
    func = function(module, x) return module[name](module, x) end
  end
  local nInputs = self.nInputs or #self.innode.children
  if nInputs <= 1 then
    input = {input}
  elseif type(input) ~= 'table' or torch.typename(input) then
    error(string.format('nn.gModule:updateOutput: expecting a table of %d inputs, got %s', nInputs, torch.type(input)), 3)
  end
  if #input ~= nInputs then
    error(string.format('nn.gModule:updateOutput: got %d inputs instead of %d', #input, nInputs), 3)
  end
  for _, node in ipairs(self.forwardnodes) do
    local x = node.data.input
    while x and #x > 0 do table.remove(x) end
  end
  self.innode.data.input = self.innode.data.input or {}
  for i, x in ipairs(input) do self.innode.data.input[i] = x end

  local function send(node, x)
    for _, child in ipairs(node.children) do
      child.data.input = child.data.input or {}
      local slot = child.data.mapindex[node.data]
      if child.data.input[slot] ~= nil then error('nngraph: each input should have one source', 0) end
      child.data.input[slot] = x
    end
  end
  local function neteval(node)
    local d = node.data
    if d.selectindex then
      local x = d.input
      if #x ~= 1 or not utils.istable(x[1]) then
        error(string.format('nngraph: the node split at %s must get one table, got %s', tostring(d.annotations._debugLabel),
                            torch.type(x[1])), 0)
      end
      send(node, x[1][d.selectindex])
    else
      local x = nodeInput(node)
      local out = d.module and func(d.module, x) or x
      if d.nSplitOutputs and (type(out) ~= 'table' or #out ~= d.nSplitOutputs) then
        error(string.format('nngraph: split(%d) cannot split %s outputs', d.nSplitOutputs,
                            type(out) == 'table' and #out or torch.type(out)), 0)
      end
      send(node, out)
    end
    if self.verbose then print(' V : ' .. node:label()) end
  end
  for _, node in ipairs(self.forwardnodes) do neteval(node) end
  self.output = self.outnode.data.input
  if #self.outnode.children == 1 then self.output = self.output[1] end
  return self.output
end

function gModule:updateOutput(input)
  return self:runForwardFunction('updateOutput', input)
end

local function checkGradOutput(self, gradOutput, who)
  local n = #self.outnode.children
  if n > 1 and (type(gradOutput) ~= 'table' or #gradOutput ~= n) then
    error(string.format('nn.gModule:%s: got %s gradOutputs instead of %d', who,
                        type(gradOutput) == 'table' and #gradOutput or torch.type(gradOutput), n), 3)
  end
end

-- the backward graph in order: each node's module gets the sum of what its
-- successors sent (step(module, input, gradOutput) returns its gradInput)
-- and sends its gradInput on. With 'release', a node's received gradients
-- (its successors' gradInputs and the buffer it summed them in) are let go
-- of once no node still to run holds them (nn/gradrelease.lua)
local function backwardPass(self, input, gradOutput, step, release)
  for _, node in ipairs(self.backwardnodes) do
    local g = node.data.gradOutput
    while g and #g > 0 do table.remove(g) end
  end
  self.outnode.data.gradOutput = self.outnode.data.gradOutput or {}
  self.outnode.data.gradOutput[1] = gradOutput
  local protected = release and gradrelease.protect(gradOutput, input) or nil
  -- tensor -> how many gradOutput entries of nodes still to run hold it
  local pending = {}
  local function hold(v, by)
    if not release then return end
    for t in pairs(gradrelease.collect(v)) do pending[t] = (pending[t] or 0) + by end
  end
  local function consume(d)
    local consumed = {}
    for _, g in ipairs(d.gradOutput or {}) do
      hold(g, -1)
      gradrelease.collect(g, consumed)
    end
    if d.gradOutputBuffer then gradrelease.collect(d.gradOutputBuffer, consumed) end
    for t in pairs(consumed) do
      if (pending[t] or 0) > 0 then consumed[t] = nil end
    end
    gradrelease.releaseTensors(consumed, protected)
  end

  local function neteval(node)
    local d = node.data
    if d.selectindex then
      local child = node.children[1]
      local cd = child.data
      cd.gradOutput = cd.gradOutput or {}
      cd.gradOutput[1] = cd.gradOutput[1] or {}
      local g = totalGradOutput(node)
      cd.gradOutput[1][d.selectindex] = g
      hold(g, 1)
    else
      local go = totalGradOutput(node)
      local gi = go
      if d.module then gi = step(d.module, nodeInput(node), go) end
      -- a module whose gradInput is nil (it computes none: a first layer)
      -- sends nothing, as in Torch7, whose inputs then get no gradient
      for _, child in ipairs(node.children) do
        local cd = child.data
        cd.gradOutput = cd.gradOutput or {}
        local g = gi
        if g ~= nil and #node.children > 1 then g = gi[d.mapindex[cd]] end
        cd.gradOutput[#cd.gradOutput + 1] = g
        hold(g, 1)
      end
    end
    if release and d ~= self.innode.data then consume(d) end
    if self.verbose then print(' V : ' .. node:label()) end
  end
  for _, node in ipairs(self.backwardnodes) do neteval(node) end
  self.gradInput = self.innode.data.gradOutput[1]
  return self.gradInput
end

function gModule:updateGradInput(input, gradOutput)
  checkGradOutput(self, gradOutput, 'updateGradInput')
  return backwardPass(self, input, gradOutput, function(m, x, go) return m:updateGradInput(x, go) end, false)
end

-- backward runs each node's module backward (its derivative step and its
-- gradient step together), as Sequential does, not every updateGradInput
-- and then every accGradParameters (Torch7's Module:backward on a
-- gModule): the numbers are the same, except that a module that puts its
-- input back in its derivative step (an in-place AddConstant) no longer
-- hands the restored values to an earlier node's gradient step. And it lets
-- go of the gradients a node consumed once no node still to run reads
-- them (nn.keepGradInputs(true) or gm:keepGradInputs(true) keep them)
function gModule:backward(input, gradOutput, scale)
  checkGradOutput(self, gradOutput, 'backward')
  return backwardPass(self, input, gradOutput, function(m, x, go) return m:backward(x, go, scale) end,
                      gradrelease.active(self))
end

function gModule:accGradParameters(input, gradOutput, scale)
  checkGradOutput(self, gradOutput, 'accGradParameters')
  -- after a backward that let go of gradients, make them again (Torch7
  -- code takes the gradients twice this way), unless an in-place module
  -- would repeat its work: then an error names the way out
  local needed = {}
  for _, node in ipairs(self.backwardnodes) do
    needed[#needed + 1] = node.data.gradOutput
    needed[#needed + 1] = node.data.gradOutputBuffer
  end
  if not gradrelease.remake(self, input, gradOutput, needed) then
    error("nn.gModule:accGradParameters: gradients its backward let go of are needed, and an in-place module "
      .. 'inside keeps them from being made again; call updateGradInput before accGradParameters, or keep them '
      .. 'with nn.keepGradInputs(true) or module:keepGradInputs(true)', 2)
  end
  local function neteval(node)
    local d = node.data
    if d.module then
      local go = #d.gradOutput > 1 and d.gradOutputBuffer or d.gradOutput[1]
      d.module:accGradParameters(nodeInput(node), go, scale)
    end
    if self.verbose then print(' V : ' .. node:label()) end
  end
  for _, node in ipairs(self.backwardnodes) do neteval(node) end
end

-- the modules of the graph in the same places of another graph of the
-- same structure: func(mine, theirs)
function gModule:map(gm, func)
  for i, node in ipairs(self.forwardnodes) do
    local other = gm.forwardnodes[i]
    if not other or (node.data.module ~= nil) ~= (other.data.module ~= nil) then
      error('nn.gModule:map: trying to map another gModule with a different structure', 2)
    end
    if node.data.module then func(node.data.module, other.data.module) end
  end
end

function gModule:replace(callback)
  local out = callback(self)
  local at = {}
  for i, m in ipairs(self.modules) do at[m] = i end
  for _, node in ipairs(self.forwardnodes) do
    local m = node.data.module
    if m then
      node.data.module = m:replace(callback)
      self.modules[at[m]] = node.data.module
    end
  end
  return out
end

-- tensors the graph keeps in its nodes (inputs seen, gradient sums) and
-- its output and gradInput (its children's) are converted through the
-- same cache as the children, so they stay the children's tensors
function gModule:type(typeName, cache)
  if not typeName then return self._type end
  if not torch._tensortypes[typeName] then
    error(string.format("nn.gModule:type: tensor type name expected (e.g. 'torch.FloatTensor'), got %s",
                        tostring(typeName)), 2)
  end
  local outermost = cache == nil
  cache = cache or {}
  local convert = nn.utils.recursiveType
  for _, m in ipairs(self.modules) do m:type(typeName, cache) end
  for _, list in ipairs{self.forwardnodes, self.backwardnodes} do
    for _, node in ipairs(list) do
      local d = node.data
      for _, k in ipairs{'input', 'gradOutput', 'gradOutputBuffer'} do
        if d[k] ~= nil then d[k] = convert(d[k], typeName, cache) end
      end
    end
  end
  self.output = convert(self.output, typeName, cache)
  self.gradInput = convert(self.gradInput, typeName, cache)
  self._type = typeName
  if outermost then nn.utils.derived(self, 'type', true) end
  return nn.utils.own(self)
end

function gModule:clearState()
  local r = parent.clearState(self)
  for _, node in ipairs(self.backwardnodes) do
    node.data.gradOutput = nil
    node.data.gradOutputBuffer = nil
  end
  for _, node in ipairs(self.forwardnodes) do node.data.input = nil end
  return r
end

-- a gModule saved by Torch7 may lack its modules list
function gModule:__postinit()
  if rawget(self, 'modules') == nil and self.forwardnodes then
    self.modules = {}
    for _, node in ipairs(self.forwardnodes) do
      if node.data.module then self.modules[#self.modules + 1] = node.data.module end
    end
  end
  parent.__postinit(self)
end

function gModule:__tostring__()
  return self.name or torch.type(self)
end

-- what optnet may assume: its output and gradInput are its children's
-- (or tables of them); the gradient sums it keeps in its nodes are its own
function gModule:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false,
          childOutputs = false, childGradInputs = true, readsGradOutput = true}
end

return gModule
