-- graph: Torch7's small graph package (directed graphs of nodes holding
-- data), which nngraph and optnet's pictures are built on.
--   graph.Graph()          nodes and edges; :add(edge or {edges}), :roots(),
--                          :leaves(), :topsort(), :reverse(), :clone(),
--                          :hasCycle(), :todot([title])
--   graph.Node(data)       :add(child), :dfs(f), :bfs(f), :visit(pre, post),
--                          :graph(), :hasCycle(), :label()
--   graph.AnnotatedNode(data)  a node that remembers where it was made and
--                          carries annotations (name, description, graph attributes)
--   graph.Edge(from, to [, weight])
--   graph.dot(g, title [, fname]), graph.graphvizFile(g, algorithm, fname),
--   graph.graphvizLayout(g [, algorithm]): through graphviz's dot program
-- Orders are Torch7's: nodes and edges in insertion order, children in the
-- order they were added, roots and leaves by node number, topsort parents
-- before children with ties broken as Torch7 broke them.
require 'torch'

graph = graph or {}

require 'graph.graphviz'
require 'graph.Node'
require 'graph.AnnotatedNode'
require 'graph.Edge'
require 'graph.Graph'

return graph
