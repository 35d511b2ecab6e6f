-- graph.Node(data): a node that knows its children. Nodes alone make a
-- graph that can be walked (dfs, bfs) without a Graph object; Graph:add
-- links nodes this way too. 'visited' and 'marked' are the walks' marks,
-- left false after every walk.
local Node = torch.class('graph.Node')

function Node:__init(data)
  self.data = data
  self.id = 0
  self.children = {}
  self.visited = false
  self.marked = false
end

-- adds a child (once), or each node of a plain table of children
function Node:add(child)
  if type(child) == 'table' and not torch.typename(child) then
    for _, c in ipairs(child) do self:add(c) end
    return
  end
  local children = self.children
  if children[child] == nil then
    children[#children + 1] = child
    children[child] = #children
  end
end

-- depth first: pre(node) on the way down, post(node) on the way up; a node
-- already visited is skipped (the caller sets and clears 'visited')
function Node:visit(pre, post)
  if self.visited then return end
  if pre then pre(self) end
  for _, child in ipairs(self.children) do child:visit(pre, post) end
  if post then post(self) end
end

function Node:label()
  return tostring(self.data)
end

-- the graph of every node reachable from this one
function Node:graph()
  local g = graph.Graph()
  self:bfs(function(node)
    for _, child in ipairs(node.children) do g:add(graph.Edge(node, child)) end
  end)
  return g
end

-- f(node) in post-order (children first), each node once; returns the
-- nodes in that order with their 'visited' marks still set
function Node:dfs_dirty(f)
  local order = {}
  self:visit(function(node) node.visited = true end,
             function(node)
               f(node)
               order[#order + 1] = node
             end)
  return order
end

function Node:dfs(f)
  for _, node in ipairs(self:dfs_dirty(f)) do node.visited = false end
end

-- f(node) level by level from this node, each node once; returns the nodes
-- in that order with their 'marked' marks still set
function Node:bfs_dirty(f)
  local queue, head = {self}, 1
  self.marked = true
  while queue[head] do
    local node = queue[head]
    head = head + 1
    f(node)
    for _, child in ipairs(node.children) do
      if not child.marked then
        child.marked = true
        queue[#queue + 1] = child
      end
    end
  end
  return queue
end

function Node:bfs(f)
  for _, node in ipairs(self:bfs_dirty(f)) do node.marked = false end
end

-- whether a cycle is reachable from this node: a node met again while it
-- is still on the walk's path
function Node:hasCycle()
  local found, done = false, {}
  local function pre(node)
    if found then return end
    if node.marked then
      found = true
      node.visited = true  -- do not descend into it again
      return
    end
    node.marked = true
  end
  local function post(node)
    node.marked = false
    node.visited = true
    done[node] = true
  end
  self:visit(pre, post)
  for node in pairs(done) do node.visited = false end
  return found
end

return Node
