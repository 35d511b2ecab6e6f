-- graph.Graph(): nodes and edges, each in insertion order in its array
-- part and mapped to its position (g.nodes[node] = i, g.edges[edge] = i).
local Graph = torch.class('graph.Graph')

function Graph:__init()
  self.nodes = {}
  self.edges = {}
end

local function addNode(g, node)
  if g.nodes[node] == nil then
    g.nodes[#g.nodes + 1] = node
    g.nodes[node] = #g.nodes
  end
end

-- adds an edge (its nodes too, and the child link from -> to), or each of
-- a plain table of edges
function Graph:add(edge)
  if type(edge) ~= 'table' then
    error(string.format('graph.Graph:add: graph.Edge or a table of them expected, got %s', torch.type(edge)), 2)
  end
  if not torch.typename(edge) then
    for _, e in ipairs(edge) do self:add(e) end
    return
  end
  if type(edge.from) ~= 'table' or type(edge.to) ~= 'table' then
    error('graph.Graph:add: the edge needs nodes at both ends (from, to)', 2)
  end
  if self.edges[edge] == nil then
    self.edges[#self.edges + 1] = edge
    self.edges[edge] = #self.edges
  end
  addNode(self, edge.from)
  addNode(self, edge.to)
  edge.from:add(edge.to)
  edge.from.id = self.nodes[edge.from]
  edge.to.id = self.nodes[edge.to]
end

-- new nodes (made with each node's own class, sharing its data) and edges
function Graph:clone()
  local g = graph.Graph()
  local copies = {}
  for i, node in ipairs(self.nodes) do copies[i] = node.new(node.data) end
  for _, e in ipairs(self.edges) do
    g:add(e.new(copies[self.nodes[e.from]], copies[self.nodes[e.to]]))
  end
  return g
end

-- the graph with every edge turned round, over new nodes sharing the data;
-- also the map from each old node to its new one
function Graph:reverse()
  local g, map = graph.Graph(), {}
  local function copy(node)
    map[node] = map[node] or node.new(node.data)
    return map[node]
  end
  for _, e in ipairs(self.edges) do
    local from, to = copy(e.from), copy(e.to)
    g:add(e.new(to, from))
  end
  return g, map
end

-- nodes at the start (no edge in) or the end (no edge out) of the edges,
-- by node number
local function ends(g, side, other)
  local found = {}
  for _, e in ipairs(g.edges) do found[e[side]] = true end
  for _, e in ipairs(g.edges) do found[e[other]] = nil end
  local list = {}
  for node in pairs(found) do list[#list + 1] = node end
  table.sort(list, function(a, b) return g.nodes[a] < g.nodes[b] end)
  return list
end

function Graph:roots() return ends(self, 'from', 'to') end
function Graph:leaves() return ends(self, 'to', 'from') end

function Graph:hasCycle()
  local roots = self:roots()
  if #roots == 0 then return #self.edges > 0 end
  for _, r in ipairs(roots) do
    if r:hasCycle() then return true end
  end
  return false
end

-- parents before children: a post-order walk of the reversed graph from
-- its roots (this graph's leaves). Returns the sorted nodes, the reversed
-- graph and its roots; errors on a cycle.
function Graph:topsort()
  local rg, map = self:reverse()
  local back = {}
  for old, new in pairs(map) do back[new] = old end
  local roots = rg:roots()
  if #roots == 0 and #self.edges > 0 then error('graph.Graph:topsort: the graph has cycles', 2) end
  local start = roots[1]
  if #roots > 1 then
    -- a node outside the graph above all roots: it maps to no node, so
    -- the walk adds nothing for it
    start = graph.Node('dummy_root')
    for _, r in ipairs(roots) do start:add(r) end
  end
  local sorted = {}
  if start then
    start:dfs(function(node)
      local old = back[node]
      if old then sorted[#sorted + 1] = old end
    end)
  end
  if #sorted ~= #self.nodes then error('graph.Graph:topsort: the graph has cycles', 2) end
  return sorted, rg, roots
end

-- quotes a DOT id unless it is a plain word; escapes newlines and quotes
function graph._dotEscape(s)
  if not s:find('[^a-zA-Z]') then return s end
  return '"' .. s:gsub('\n', '\\n'):gsub('"', '\\"') .. '"'
end

local function attributes(attrs)
  local keys = {}
  for k in pairs(attrs) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for i, k in ipairs(keys) do parts[i] = tostring(k) .. '=' .. graph._dotEscape(tostring(attrs[k])) end
  return ' ' .. table.concat(parts, ' ')
end

-- the graph in graphviz's DOT language: a node nI per node, labelled with
-- its name (graphNodeName, else NodeI) and label(), edges in order. A
-- node's attributes (graphNodeAttributes) and its label are written in
-- name order, as graphviz itself writes them (Torch7 wrote this file
-- through graphviz; scripts and tests match on that order)
function Graph:todot(title)
  local out = {'digraph G {\n'}
  if title then out[#out + 1] = 'labelloc="t";\nlabel="' .. title .. '";\n' end
  out[#out + 1] = 'node [shape = oval]; '
  for _, node in ipairs(self.nodes) do
    local name = node.graphNodeName and node:graphNodeName() or ('Node' .. node.id)
    local attrs = {}
    if node.graphNodeAttributes then
      for k, v in pairs(node:graphNodeAttributes()) do attrs[k] = v end
    end
    attrs.label = name .. '\n' .. node:label()
    out[#out + 1] = string.format('\nn%d[%s];', node.id, attributes(attrs):sub(2))
  end
  out[#out + 1] = '\n'
  for _, e in ipairs(self.edges) do
    out[#out + 1] = string.format('n%d -> n%d;\n', e.from.id, e.to.id)
  end
  out[#out + 1] = '}'
  return table.concat(out)
end

return Graph
