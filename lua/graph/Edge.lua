-- graph.Edge(from, to [, weight]): a directed edge; plain fields, no methods.
local Edge = torch.class('graph.Edge')

function Edge:__init(from, to, weight)
  self.from = from
  self.to = to
  self.weight = weight
end

return Edge
