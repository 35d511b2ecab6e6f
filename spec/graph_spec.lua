-- The graph package (lua/graph), from Torch7's graph: orders of walks and
-- sorts, roots and leaves, clone and reverse, cycles, DOT text, annotated
-- nodes, and the graphviz functions (rendering only where dot is installed).
require 'torch'
require 'graph'
local H = require 'spec.support.helpers'

local function chain()
  local n = {}
  for i = 1, 4 do n[i] = graph.Node(i) end
  local g = graph.Graph()
  g:add(graph.Edge(n[1], n[2]))
  g:add({graph.Edge(n[1], n[3]), graph.Edge(n[2], n[3])})
  g:add(graph.Edge(n[2], n[4]))
  g:add(graph.Edge(n[3], n[4]))
  return g, n
end

local function datas(list)
  local r = {}
  for i, x in ipairs(list) do r[i] = x.data end
  return r
end

describe('graph', function()
  it('keeps nodes and edges in insertion order, each once, and numbers nodes', function()
    local g, n = chain()
    assert.are.equal(4, #g.nodes)
    assert.are.equal(5, #g.edges)
    assert.are.same({1, 2, 3, 4}, datas(g.nodes))
    for i = 1, 4 do assert.are.equal(i, n[i].id) end
    g:add(g.edges[1])
    assert.are.equal(5, #g.edges)
    assert.are.same({2, 3}, datas(n[1].children))
  end)

  it('finds roots and leaves by node number', function()
    local g, n = chain()
    local n0 = graph.Node(0)
    g:add(graph.Edge(n0, n[3]))
    assert.are.same({1, 0}, datas(g:roots()))
    assert.are.same({4}, datas(g:leaves()))
  end)

  it('walks depth first in post-order and breadth first by levels', function()
    local _, n = chain()
    local order = {}
    n[1]:dfs(function(x) order[#order + 1] = x.data end)
    assert.are.same({4, 3, 2, 1}, order)
    order = {}
    n[1]:bfs(function(x) order[#order + 1] = x.data end)
    assert.are.same({1, 2, 3, 4}, order)
    for i = 1, 4 do assert.is_false(n[i].visited); assert.is_false(n[i].marked) end
  end)

  it('sorts parents before children, as Torch7 (several roots, ties)', function()
    local g, n = chain()
    assert.are.same({1, 2, 3, 4}, datas(g:topsort()))
    local n0, n5 = graph.Node(0), graph.Node(5)
    g:add(graph.Edge(n0, n[2]))
    g:add(graph.Edge(n[3], n5))
    local s = g:topsort()
    local pos = {}
    for i, x in ipairs(s) do pos[x] = i end
    for _, e in ipairs(g.edges) do assert(pos[e.from] < pos[e.to], 'edge order') end
    assert.are.equal(6, #s)
  end)

  it('clones and reverses over new nodes that share the data', function()
    local g = chain()
    local data = {}
    g.nodes[1].data = data
    local c = g:clone()
    assert.are.equal(4, #c.nodes)
    assert.are.equal(5, #c.edges)
    assert.are_not.equal(g.nodes[1], c.nodes[1])
    assert.are.equal(data, c.nodes[1].data)
    local r, map = g:reverse()
    assert.are.equal(map[g.nodes[1]], r:leaves()[1])
    assert.are.equal(map[g.nodes[4]], r:roots()[1])
    assert.are.equal(data, map[g.nodes[1]].data)
  end)

  it('finds cycles, and topsort refuses them', function()
    local g, n = chain()
    assert.is_false(g:hasCycle())
    assert.is_false(n[1]:hasCycle())
    g:add(graph.Edge(n[4], n[2]))
    assert.is_true(g:hasCycle())
    assert.truthy(H.errmsg(g.topsort, g):find('cycles', 1, true))
    local a, b = graph.Node('a'), graph.Node('b')
    local ring = graph.Graph()
    ring:add(graph.Edge(a, b))
    ring:add(graph.Edge(b, a))
    assert.is_true(ring:hasCycle())
  end)

  it('builds a graph from a node', function()
    local _, n = chain()
    local g = n[2]:graph()
    assert.are.equal(3, #g.nodes)
    assert.are.equal(3, #g.edges)
  end)

  it('writes DOT text as Torch7 does', function()
    local g = chain()
    local dot = g:todot('My title')
    assert.truthy(dot:find('^digraph G {\nlabelloc="t";\nlabel="My title";\nnode %[shape = oval%]; '))
    assert.truthy(dot:find('\nn1%[label="Node1\\n1"%];'))
    assert.truthy(dot:find('n2 -> n4;\n', 1, true))
    assert.truthy(dot:find('}$'))
    assert.are.equal('red', graph._dotEscape('red'))
    assert.are.equal('"My label"', graph._dotEscape('My label'))
    assert.are.equal('"My\\nnewline"', graph._dotEscape('My\nnewline'))
    assert.are.equal('"Say \\"hello\\""', graph._dotEscape('Say "hello"'))
  end)

  it('annotated nodes know where they were made and show their annotations', function()
    local x = graph.AnnotatedNode({input = torch.zeros(2, 3)})  -- level 4: this line
    assert.truthy(x.data.annotations._debugLabel:find('graph_spec.lua', 1, true))
    x:annotate{name = 'conv1', description = 'first', graphAttributes = {color = 'red'}}
    local g = graph.Graph()
    g:add(graph.Edge(x, graph.AnnotatedNode({})))
    assert.are.equal('conv1 (1)', x:graphNodeName())
    assert.are.equal('red', x:graphNodeAttributes().color)
    assert.truthy(x:label():find('input = Tensor[2x3]', 1, true))
    assert.truthy(x:label():find('desc = first', 1, true))
    assert.truthy(g:todot():find('color=red', 1, true))
    assert.truthy(H.errmsg(graph.AnnotatedNode, 3):find('graph.AnnotatedNode: a table expected', 1, true))
  end)

  it('graph.dot writes the DOT file, and the SVG where graphviz is installed', function()
    local g = chain()
    local base = os.tmpname()
    graph.dot(g, 'title', base)
    local f = io.open(base .. '.dot')
    assert.is_not_nil(f)
    assert.truthy(f:read('a'):find('digraph G', 1, true))
    f:close()
    if graph.hasGraphviz() then
      local s = io.open(base .. '.svg')
      assert.is_not_nil(s)
      s:close()
      local pos = graph.graphvizLayout(g, 'dot')
      assert.are.same({4, 2}, pos:size():totable())
      assert(pos:min() >= 0 and pos:max() <= 1)
    else
      assert.truthy(H.errmsg(graph.graphvizLayout, g):find('graphviz is not installed', 1, true))
    end
    os.remove(base .. '.dot'); os.remove(base .. '.svg'); os.remove(base)
    assert.truthy(H.errmsg(graph.graphvizFile, g, 'dot', 'noextension'):find('extension', 1, true))
    assert.truthy(H.errmsg(graph.graphvizFile, g, 'bogus', 'x.svg'):find('unknown layout algorithm', 1, true))
    assert.truthy(H.errmsg(graph.dot, 3):find('graph.dot: a graph.Graph expected', 1, true))
  end)

  it('refuses what is not an edge', function()
    local g = graph.Graph()
    assert.truthy(H.errmsg(g.add, g, 3):find('graph.Edge or a table of them expected, got number', 1, true))
  end)
end)
