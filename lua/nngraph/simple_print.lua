-- nngraph.simple_print: a compact picture of an nngraph graph (g.fg or
-- g.bg of a gModule), as Torch7's nngraph had it: only the nodes that run
-- a module other than nn.Identity, each edge through a removed node
-- replaced by edges from its parents to its children.
--   nngraph.simple_print.todot(g [, title]) -> DOT text
--   nngraph.simple_print.dot(g, title [, fname]) writes fname.dot and, with
--       graphviz, fname.svg (graph.dot's rules: without fname a temporary
--       name is printed; without graphviz only the .dot, said on stderr)
-- DOT node n<id> is labelled 'Node<id>' (the node's own id) and, under it,
-- its label(). Edge order: the graph's, then the edges that
-- replace a removed node in the order the nodes are removed (Torch7's).
require 'graph'

local M = {}

local function check(fn, g)
  if type(g) ~= 'table' or type(g.nodes) ~= 'table' then
    error(string.format('%s: a graph (g.fg or g.bg of an nn.gModule) expected as argument 1, got %s',
                        fn, torch.type(g)), 3)
  end
end

local function kept(node)
  local m = node.data and node.data.module
  return m ~= nil and torch.typename(m) ~= 'nn.Identity'
end

-- the kept nodes in graph order, and edges {source, target} between their
-- positions in that list
local function simplify(g)
  local nodes, edges = {}, {}
  for _, node in ipairs(g.nodes) do
    nodes[#nodes + 1] = node
    for _, child in ipairs(node.children) do edges[#edges + 1] = {node, child} end
  end
  local i = 1
  while i <= #nodes do
    local node = nodes[i]
    if kept(node) then
      i = i + 1
    else
      table.remove(nodes, i)
      -- bridge the removed node: every parent to every child
      local from, to, j = {}, {}, 1
      while j <= #edges do
        local e = edges[j]
        if e[1] == node then
          to[#to + 1] = e[2]
          table.remove(edges, j)
        elseif e[2] == node then
          from[#from + 1] = e[1]
          table.remove(edges, j)
        else
          j = j + 1
        end
      end
      for _, f in ipairs(from) do
        for _, t in ipairs(to) do edges[#edges + 1] = {f, t} end
      end
    end
  end
  return nodes, edges
end

function M.todot(g, title)
  check('nngraph.simple_print.todot', g)
  if title ~= nil and type(title) ~= 'string' then
    error(string.format('nngraph.simple_print.todot: a title (string) expected as argument 2, got %s',
                        torch.type(title)), 2)
  end
  local nodes, edges = simplify(g)
  local out = {'digraph G {\n'}
  if title then out[#out + 1] = 'labelloc="t";\nlabel="' .. title .. '";\n' end
  out[#out + 1] = 'node [shape = oval]; '
  for _, node in ipairs(nodes) do
    local label = ('Node' .. node.id .. '\\n' .. node:label()):gsub('"', '\\"')
    out[#out + 1] = string.format('\nn%d[label="%s"];', node.id, label)
  end
  out[#out + 1] = '\n'
  for _, e in ipairs(edges) do
    out[#out + 1] = string.format('n%d -> n%d;\n', e[1].id, e[2].id)
  end
  out[#out + 1] = '}'
  return table.concat(out)
end

function M.dot(g, title, fname)
  local fn = 'nngraph.simple_print.dot'
  check(fn, g)
  if fname ~= nil and (type(fname) ~= 'string' or fname == '') then
    error(string.format('%s: a file name (without extension) expected as argument 3, got %s', fn,
                        torch.type(fname)), 2)
  end
  graph._writeDot(fn, M.todot(g, title), fname)
end

return M
