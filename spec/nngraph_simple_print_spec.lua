-- nngraph.simple_print (Torch7's compact graph picture), graph.dot on DOT
-- text and without graphviz, and the global 'graph' that OptNet's
-- example.lua uses after require 'optnet.graphgen'.
require 'nngraph'
local H = require 'spec.support.helpers'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/nngraph_simple_print_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- upstream nngraph's test t8: a Linear feeding two Tanh added together
local function t8()
  local in1 = nn.Identity()()
  local m = nn.Linear(10, 10)(in1)
  local out1 = nn.Tanh()(m)
  local out2 = nn.Tanh()(m)
  local out = nn.CAddTable()({out1, out2})
  return nn.gModule({in1}, {out})
end

-- runs f with graphviz reported missing; returns what went to stderr
local function withoutGraphviz(f)
  local has, stderr = graph.hasGraphviz, io.stderr
  local err = {}
  graph.hasGraphviz = function() return false end
  io.stderr = {write = function(_, s) err[#err + 1] = s end}
  local ok, e = pcall(f)
  graph.hasGraphviz, io.stderr = has, stderr
  assert(ok, e)
  return table.concat(err)
end

describe('nngraph.simple_print', function()
  it('todot keeps the module nodes but nn.Identity, bridging edges through removed nodes', function()
    local g = t8()
    assert.are.equal(nngraph.simple_print, require('nngraph.simple_print'))
    local dot = nngraph.simple_print.todot(g.fg, 'bogus')
    assert.are.equal(table.concat({
      'digraph G {',
      'labelloc="t";',
      'label="bogus";',
      'node [shape = oval]; ',
      'n1[label="Node1\\nmapindex = {Node3,Node4}\\lmodule = nn.CAddTable"];',
      'n3[label="Node3\\nmodule = nn.Tanh"];',
      'n4[label="Node4\\nmodule = nn.Tanh"];',
      'n5[label="Node5\\nmodule = nn.Linear(10 -> 10)"];',
      'n3 -> n1;',
      'n4 -> n1;',
      'n5 -> n3;',
      'n5 -> n4;',
      '}'}, '\n'), dot)
    -- the full graph has the Identity input node and the dummy output node
    assert.are.equal(7, #g.fg.nodes)
  end)

  it('bridges every parent of a removed Identity to every child of it', function()
    local a = nn.Identity()()
    local b = nn.Identity()()
    local j = nn.Identity()({a, b})
    local y1 = nn.Tanh()(j)
    local y2 = nn.Sigmoid()(j)
    local g = nn.gModule({a, b}, {y1, y2})
    local dot = nngraph.simple_print.todot(g.fg)
    local edges = {}
    for e in dot:gmatch('n%d+ %-> n%d+') do edges[#edges + 1] = e end
    -- no module node feeds the Identity, so only the Tanh and Sigmoid remain, unconnected
    assert.are.same({}, edges)
    local labels = {}
    for l in dot:gmatch('module = ([%w.]+)') do labels[#labels + 1] = l end
    table.sort(labels)
    assert.are.same({'nn.Sigmoid', 'nn.Tanh'}, labels)
    local x = nn.Linear(3, 3)()
    local i = nn.Identity()(x)
    local g2 = nn.gModule({x}, {nn.Tanh()(i), nn.ReLU()(i)})
    edges = {}
    for e in nngraph.simple_print.todot(g2.fg):gmatch('n%d+ %-> n%d+') do edges[#edges + 1] = e end
    assert.are.equal(2, #edges)
    local lin = nngraph.simple_print.todot(g2.fg):match('n(%d+)%[label="Node%d+\\nmodule = nn.Linear')
    for _, e in ipairs(edges) do assert.are.equal('n' .. lin, e:match('^(n%d+)')) end
  end)

  it('dot writes fname.dot (and says on stderr that the .svg needs graphviz)', function()
    local g = t8()
    local base = os.tmpname()
    local err = withoutGraphviz(function() nngraph.simple_print.dot(g.fg, 'bogus', base) end)
    assert.are.equal(nngraph.simple_print.todot(g.fg, 'bogus'), H.readfile(base .. '.dot'))
    assert.truthy(err:find('nngraph.simple_print.dot: graphviz (the dot program) is not installed: wrote '
                           .. base .. '.dot, not ' .. base .. '.svg', 1, true))
    os.remove(base .. '.dot')
    os.remove(base)
  end)

  it('names itself and the argument on bad input', function()
    H.errors(function() nngraph.simple_print.todot(3) end,
             'nngraph.simple_print.todot: a graph (g.fg or g.bg of an nn.gModule) expected as argument 1, got number')
    H.errors(function() nngraph.simple_print.todot(t8().fg, 5) end,
             'nngraph.simple_print.todot: a title (string) expected as argument 2, got number')
    H.errors(function() nngraph.simple_print.dot(t8().fg, 't', 7) end,
             'nngraph.simple_print.dot: a file name (without extension) expected as argument 3, got number')
  end)
end)

describe('graph.dot on DOT text, and the global graph', function()
  it('writes DOT text with the title after the opening brace', function()
    local base = os.tmpname()
    withoutGraphviz(function() graph.dot('digraph G {\n  a -> b;\n}\n', 'my "net"', base) end)
    assert.are.equal('digraph G {\nlabelloc="t";\nlabel="my \\"net\\"";\n  a -> b;\n}\n', H.readfile(base .. '.dot'))
    withoutGraphviz(function() graph.dot('digraph G {\n  a -> b;\n}\n', nil, base) end)
    assert.are.equal('digraph G {\n  a -> b;\n}\n', H.readfile(base .. '.dot'))
    os.remove(base .. '.dot')
    os.remove(base)
    H.errors(function() graph.dot('not a graph') end,
             'graph.dot: a graph.Graph expected as argument 1 (or DOT text), got string')
  end)

  it("is set by require 'optnet.graphgen' and by require 'graph' alone", function()
    for _, mod in ipairs({'optnet.graphgen', 'graph'}) do
      local p = io.popen(string.format("TH_BUILD=%s %sbin/th -e %s 2>&1", sh(build), root,
        sh("require '" .. mod .. "'; print(type(graph), type(graph.dot), type(graph.Graph))")))
      local out = p:read('a')
      p:close()
      assert.are.equal('table\tfunction\ttable\n', out, mod)
    end
  end)

  it("runs OptNet's example: graphgen's result goes to graph.dot", function()
    local optnet = require 'optnet'
    local generateGraph = require 'optnet.graphgen'
    local net = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
    local input = torch.Tensor(2, 4):fill(1)
    local g = generateGraph(net, input, {displayProps = {shape = 'box'},
      nodeData = function(old, t) return old .. '\nSize: ' .. t:numel() end})
    local base = os.tmpname()
    local err = withoutGraphviz(function() graph.dot(g, 'small', base) end)
    local text = H.readfile(base .. '.dot')
    assert.truthy(text:find('^digraph G {\nlabelloc="t";\nlabel="small";'))
    assert.truthy(text:find('Size: 6', 1, true))
    assert.truthy(err:find('graph.dot: graphviz (the dot program) is not installed', 1, true))
    optnet.optimizeMemory(net, input)
    withoutGraphviz(function() graph.dot(generateGraph(net, input), 'opt', base) end)
    assert.truthy(H.readfile(base .. '.dot'):find('label="opt";', 1, true))
    os.remove(base .. '.dot')
    os.remove(base)
  end)
end)
