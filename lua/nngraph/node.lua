-- nngraph.Node(data): a node of an nngraph graph. data.module is the
-- module the node runs (nil for the graph's input/output nodes and the
-- nodes split() makes); data.mapindex lists the input nodes' data in
-- order (mapindex[d] = position), data.reverseMap the nodes fed by this
-- one, data.annotations what the user and the debug label say about it.
-- Edges point from a node to its inputs (node:add(inputNode, true)): the
-- graph built from the output node is the backward graph.
local utils = require 'nngraph.utils'

local Node, parent = torch.class('nngraph.Node', 'graph.Node')

-- the folder our packages are installed in (this file's folder's parent):
-- only files there are the packages' own, whatever a user's folders are
-- called (nngraph's own tests live in a folder named nngraph)
local ownRoot = debug.getinfo(1, 'S').source:match('^@(.*[/\\])nngraph[/\\][^/\\]+$')

local function ours(source)
  if not ownRoot or source:sub(1, #ownRoot + 1) ~= '@' .. ownRoot then return false end
  local rest = source:sub(#ownRoot + 2)
  return rest:find('^nngraph[/\\]') or rest:find('^graph[/\\]') or rest:find('^nn[/\\]')
         or rest:find('^torch[/\\]class%.lua$') or rest:find('^thrnn[/\\]')
end

-- the script line that made the node: the first caller outside the
-- packages' own files (torch's class system, nn, nngraph, graph)
local function callerLabel()
  for level = 3, 40 do
    local info = debug.getinfo(level, 'Sln')
    if not info then return nil end
    if info.what ~= 'C' and not ours(info.source or '') then
      return string.format('[%s]:%d_%s', info.short_src or '', info.currentline, info.name or '')
    end
  end
end

function Node:__init(data)
  if type(data) ~= 'table' or torch.typename(data) then
    error(string.format('nngraph.Node: a table of node data expected, got %s', torch.type(data)), 2)
  end
  parent.__init(self, data)
  data.annotations = data.annotations or {}
  data.mapindex = data.mapindex or {}
  data.reverseMap = data.reverseMap or {}
  if not data.annotations._debugLabel then data.annotations._debugLabel = callerLabel() end
end

-- child is an input of this node; with domap, it takes the next input slot
function Node:add(child, domap)
  parent.add(self, child)
  if domap then
    local mapindex = self.data.mapindex
    if mapindex[child.data] then
      error("nngraph: don't pass the same input twice", 3)
    end
    mapindex[#mapindex + 1] = child.data
    mapindex[child.data] = #mapindex
    if child.data.reverseMap[self] then error('nngraph: this connection has already been made', 3) end
    child.data.reverseMap[self] = true
  end
end

-- a node whose output is a table of n entries gives n nodes, one per entry
function Node:split(n)
  if math.type(n) ~= 'integer' and not (type(n) == 'number' and n == math.floor(n)) or n < 1 then
    error(string.format('nngraph.Node:split: a number of outputs (>= 1) expected, got %s', tostring(n)), 2)
  end
  if n == 1 then return nngraph.JustElement()(self) end
  local label = self.data.annotations._debugLabel or '?'
  local info = debug.getinfo(2, 'Sl')
  local at = info and string.format(' split at [%s]:%d', info.short_src, info.currentline) or ''
  local splitter = nngraph.Node({nSplitOutputs = n, annotations = {_debugLabel = label .. at .. '-mnode'}})
  splitter:add(self, true)
  local outs = {}
  for i = 1, n do
    local node = nngraph.Node({selectindex = i, input = {}, annotations = {_debugLabel = label .. '-' .. i}})
    node:add(splitter, true)
    outs[i] = node
  end
  return table.unpack(outs)
end

function Node:annotate(annotations)
  for k, v in pairs(annotations) do self.data.annotations[k] = v end
  return self
end

function Node:graphNodeName()
  local name = self.data.annotations.name
  if name then return name .. ' (' .. self.id .. ')' end
  return 'Node' .. self.id
end

function Node:graphNodeAttributes()
  local a = self.data.annotations
  a.graphAttributes = a.graphAttributes or {}
  if not a.graphAttributes.tooltip then a.graphAttributes.tooltip = a._debugLabel end
  return a.graphAttributes
end

local function flag(t)
  if t:nElement() == 0 then return '' end
  if t:ne(t):sum() > 0 then return 'NaN' end
  if t:max() == math.huge then return 'inf' end
  if t:min() == -math.huge then return '-inf' end
  return ''
end

local function describe(v)
  if not v then return '' end
  if torch.isTensor(v) then
    local kind = v:type() == torch.Tensor():type() and 'Tensor' or v:type()
    return kind .. '[' .. table.concat(v:size():totable(), 'x') .. ']' .. flag(v)
  elseif utils.istable(v) then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = describe(x) end
    return '{' .. table.concat(parts, ',') .. '}'
  end
  return (tostring(v):gsub('\n', '\\l'))
end

-- what a picture of the graph shows in the node: its data fields (module,
-- input sizes, ...), its inputs when it has several
function Node:label()
  local keys = {}
  for k in pairs(self.data) do
    if k ~= 'annotations' and k ~= 'forwardNodeId' and k ~= 'reverseMap' then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local lines = {}
  for _, k in ipairs(keys) do
    local v = self.data[k]
    if k == 'mapindex' then
      if #v > 1 then
        local ids = {}
        for i, d in ipairs(v) do ids[i] = 'Node' .. (d.forwardNodeId or '') end
        lines[#lines + 1] = 'mapindex = {' .. table.concat(ids, ',') .. '}'
      end
    else
      lines[#lines + 1] = tostring(k) .. ' = ' .. describe(v)
    end
  end
  local desc = self.data.annotations.description
  return (desc and ('desc = ' .. desc .. '\\n') or '') .. table.concat(lines, '\\l')
end

-- prev - next builds next(prev)
Node.__sub__ = function(prev, next) return next(prev) end

return Node
