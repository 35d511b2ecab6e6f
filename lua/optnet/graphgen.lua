-- optnet.graphgen: the computation graph of an nn net as graphviz DOT text,
-- one node per module output (and, in training mode, per gradInput), nodes
-- that share memory filled with the same colour. OptNet's graphgen, for
-- plain nn containers (no nngraph):
--   local generateGraph = require 'optnet.graphgen'
--   local g = generateGraph(net, input, {displayProps = {shape = 'ellipse'},
--     nodeData = function(oldLabel, tensor) return oldLabel .. '\n' .. tensor:nElement() end})
--   optnet.dot(g, 'my net', 'out/net')     -- out/net.dot and, with graphviz, out/net.svg
-- opts: displayProps (graphviz node attributes), nodeData(oldLabel, tensor)
-- -> new label, mode ('inference' or 'training'; default: the mode the net
-- is optimized for, else inference), rankdir (default 'TB'), and for big
-- nets: compact (two-line labels: name, size), fold (each gradInput beside
-- its output, so the graph is as tall as the forward pass; default in
-- training mode), clusters (a box per named container; default true),
-- collapse (N: one node per named container N levels deep, per direction),
-- legend (a note saying what colours and lines mean; default with compact
-- or collapse).
-- Nodes are named as people name modules: the names containers were given
-- (setName) and kind + count within them ('layer3.block2.conv1';
-- optnet.view.names).
--
-- How: the net runs once (forward, and backward in training mode) with
-- every module's methods wrapped. A leaf module's call makes one node per
-- tensor it returns, with edges from the nodes that made the tensors it
-- read. A container's call makes a node only for a tensor none of its
-- children made (Concat's joined output, ConcatTable's summed gradInput),
-- with edges from its children's results. Routers (Sequential) make none.
--
-- Colours: two nodes share a colour when their tensors occupy the same
-- memory block: the same storage, or, in an optimized net, the same slot
-- (arena and offset). A block only one node uses stays white.
local walk = require 'optnet.walk'
local view = require 'optnet.view'
-- OptNet's graphgen required Torch7's graph package, whose global 'graph'
-- scripts then call: graph.dot(generateGraph(net, input), title, file)
require 'graph'

local graphgen = {}

local KNOWN = {displayProps = true, nodeData = true, mode = true, rankdir = true, compact = true,
               fold = true, clusters = true, collapse = true, legend = true}

local LEGEND = table.concat({
  'How to read this graph',
  'a box: a tensor; its name: the module that made it',
  '  (layer3.block2.conv1: 1st convolution of block2 of layer3)',
  'solid box and arrow: forward (output)',
  'dashed box and arrow: backward (gradInput)',
  'same fill colour: one memory block, shared over time',
  'white: a block no other tensor uses'}, '\n')

local function quote(s)
  s = tostring(s):gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\r?\n', '\\n')
  return '"' .. s .. '"'
end

local function attrs(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. '=' .. quote(t[k]) end
  return table.concat(parts, ', ')
end

-- a distinct light colour per group index, as #rrggbb
local function hsv(h, s, v)
  local i = math.floor(h * 6) % 6
  local f = h * 6 - math.floor(h * 6)
  local p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
  local r, g, b
  if i == 0 then r, g, b = v, t, p elseif i == 1 then r, g, b = q, v, p
  elseif i == 2 then r, g, b = p, v, t elseif i == 3 then r, g, b = p, q, v
  elseif i == 4 then r, g, b = t, p, v else r, g, b = v, p, q end
  return string.format('#%02x%02x%02x', math.floor(r * 255 + 0.5), math.floor(g * 255 + 0.5), math.floor(b * 255 + 0.5))
end

local function palette()
  local used, k = {['#ffffff'] = true}, 0
  return function()
    while true do
      k = k + 1
      -- golden-ratio hue steps; saturation and value cycle so that close
      -- hues of far-apart groups still differ
      local c = hsv((k * 0.6180339887) % 1, 0.22 + 0.14 * (k % 3), 1 - 0.08 * ((k // 3) % 3))
      if not used[c] then used[c] = true; return c end
    end
  end
end

-- a gradOutput shaped like the output, with finite values
local function makeGradOutput(out)
  if torch.isTensor(out) then return out:clone():fill(1 / math.max(1, out:nElement())) end
  local g = {}
  for k, v in pairs(out) do g[k] = makeGradOutput(v) end
  return g
end

-- hooks every module's steps so that onCall sees what each produced, runs
-- the pass, and takes the hooks off
local function record(net, input, mode, onCall)
  local handles = {}
  local function hook(m, k, fn) handles[#handles + 1] = m:hook(k, fn) end
  for _, m in ipairs(walk.modules(net)) do
    hook(m, 'updateOutput', function(nextf, self, x)
      local out = nextf(self, x)
      onCall(self, 'output', x, out)
      return out
    end)
    hook(m, 'updateGradInput', function(nextf, self, x, g)
      local gi = nextf(self, x, g)
      onCall(self, 'gradInput', g, gi)
      return gi
    end)
    -- a container's backward does not go through its updateGradInput
    if type(m.modules) == 'table' then
      hook(m, 'backward', function(nextf, self, x, g, scale)
        local gi = nextf(self, x, g, scale)
        onCall(self, 'gradInput', g, gi)
        return gi
      end)
    end
  end
  -- the children's gradInputs kept through the pass, as optnet's trace does
  -- (nn/gradrelease.lua): the graph shows each one with its storage
  local keep = nn.keepGradInputs(true)
  local ok, err = pcall(function()
    local out = net:forward(input)
    if mode == 'training' then
      local g = makeGradOutput(out)
      onCall(nil, 'gradOutput', nil, g)
      net:backward(input, g, 0)
    end
  end)
  nn.keepGradInputs(keep)
  for i = #handles, 1, -1 do handles[i]:remove() end
  if not ok then error(err, 0) end
end

-- opts checked (view.checkOpts and graphgen's own)
local function checkOptions(net, input, opts)
  view.checkNet('graphgen', net)
  view.checkInput('graphgen', input)
  local o = view.checkOpts('graphgen', opts, KNOWN)
  if o.nodeData ~= nil and type(o.nodeData) ~= 'function' then
    view.fail('graphgen', 'opts.nodeData must be a function(oldLabel, tensor), got %s', type(o.nodeData))
  end
  if o.displayProps ~= nil and type(o.displayProps) ~= 'table' then
    view.fail('graphgen', 'opts.displayProps must be a table of graphviz node attributes, got %s', type(o.displayProps))
  end
  for _, k in ipairs{'compact', 'fold', 'clusters', 'legend'} do
    if o[k] ~= nil and type(o[k]) ~= 'boolean' then
      view.fail('graphgen', 'opts.%s must be a boolean, got %s', k, type(o[k]))
    end
  end
  if o.collapse ~= nil and (math.type(o.collapse) ~= 'integer' or o.collapse < 1) then
    view.fail('graphgen', 'opts.collapse must be a positive integer (container depth), got %s', tostring(o.collapse))
  end
  return o
end

-- the graph of one pass: a node per tensor a module made (and the input,
-- and the gradient the caller hands to backward), an edge from what made
-- each one's sources
local function collect(net, input, mode)
  local readable, scopes = view.names(net)
  local bindingOf = view.bindings(view.current(net, input))
  local number = view.storageNumbers(net, input)
  local paths = view.paths(net)

  local nodes, edges, producer = {}, {}, {}
  local function newNode(t, m, kind, field)
    local id, lo = view.block(t, bindingOf)
    local n = {id = #nodes + 1, tensor = t, module = m, kind = kind,
               path = m and (paths[m] .. '.' .. field) or field,
               name = m and (readable[m] .. (field:match('%.%d+$') and ('[' .. field:match('(%d+)$') .. ']') or '')
                             .. (kind == 'gradInput' and '.gradInput' or '')) or field,
               scope = m and scopes[m] or '',
               storage = number(id), offset = lo or 0}
    n.key = id and (tostring(id) .. '@' .. tostring(lo)) or ('none' .. n.id)
    nodes[n.id] = n
    producer[t] = n.id
    return n.id
  end
  local function link(from, to) edges[#edges + 1] = {from = from, to = to} end

  local function onCall(m, kind, read, made)
    if m == nil then
      -- the gradient the net's caller hands to backward
      local outs = {}
      walk.tensors(net.output, function(t) if producer[t] then outs[#outs + 1] = producer[t] end end)
      walk.tensors(made, function(t)
        local id = newNode(t, nil, 'gradOutput', 'gradOutput')
        for _, s in ipairs(outs) do link(s, id) end
      end)
      return
    end
    local isContainer = type(m.modules) == 'table'
    local function from(v, list)
      walk.tensors(v, function(t) if producer[t] then list[#list + 1] = producer[t] end end)
      return list
    end
    -- what made the i-th tensor: for a container, its children's results
    -- (the i-th of each when both are lists of the same length: ConcatTable
    -- sums gradInput i from the children's gradInput i), else all it read
    local function sources(i, n)
      if not isContainer then return from(read, {}) end
      local list = {}
      for _, c in ipairs(m.modules) do
        local v = c[kind]
        if n and type(v) == 'table' and not torch.isTensor(v) and #v == n and torch.isTensor(v[i]) then v = v[i] end
        from(v, list)
      end
      return list
    end
    local list = not torch.isTensor(made) and #made > 0 and #made or nil
    local i = 0
    walk.tensors(made, function(t)
      i = i + 1
      if isContainer and producer[t] then return end
      local field = list and (kind .. '.' .. i) or kind
      local src = sources(i, list)
      local id = newNode(t, m, kind, field)
      local seen = {}
      for _, s in ipairs(src) do
        if not seen[s] and s ~= id then seen[s] = true; link(s, id) end
      end
    end)
  end

  view.sideEffectFree(net, function()
    walk.tensors(input, function(t) newNode(t, nil, 'input', 'input') end)
    record(net, input, mode, onCall)
  end)
  return nodes, edges, bindingOf
end

-- colours: one per memory block used by two nodes or more; labels
local function paint(nodes, o, bindingOf)
  local count = {}
  for _, n in ipairs(nodes) do count[n.key] = (count[n.key] or 0) + 1 end
  local colorOf, nextColor = {}, palette()
  for _, n in ipairs(nodes) do
    if count[n.key] > 1 then
      colorOf[n.key] = colorOf[n.key] or nextColor()
      n.color = colorOf[n.key]
    else
      n.color = '#ffffff'
    end
  end

  for _, n in ipairs(nodes) do
    local where
    if bindingOf[n.tensor] then
      where = string.format('storage %d @ %s', n.storage, view.bytes(n.offset))
    elseif n.storage then
      where = string.format('storage %d', n.storage)
    else
      where = 'no storage'
    end
    local title = n.module and view.typeName(n.module) or n.kind
    if o.compact then
      n.label = n.name .. '\n' .. view.sizeString(n.tensor)
    else
      n.label = table.concat({n.name, title .. '  ' .. view.sizeString(n.tensor), where}, '\n')
    end
    if o.nodeData then
      local l = o.nodeData(n.label, n.tensor)
      if type(l) ~= 'string' then
        view.fail('graphgen', 'opts.nodeData must return a string label, got %s', type(l))
      end
      n.label = l
    end
  end
end

local function backward(kind) return kind == 'gradInput' or kind == 'gradOutput' end

-- opts.collapse: one node per container (to that depth) and direction
local function collapse(nodes, edges, depth)
  local shown, shownEdges, idOf = {}, {}, {}
  local groups = {}
  for _, n in ipairs(nodes) do
    local parts, scope = {}, n.scope
    for part in scope:gmatch('[^.]+') do
      if #parts < depth then parts[#parts + 1] = part end
    end
    local prefix = #parts > 0 and table.concat(parts, '.') or n.name
    local key = prefix .. (backward(n.kind) and ' (backward)' or '')
    local g = groups[key]
    if not g then
      g = {id = #shown + 1, key = key, prefix = prefix, kind = backward(n.kind) and 'gradInput' or 'output',
           scope = #parts > 0 and table.concat(parts, '.', 1, #parts - 1) or n.scope, count = 0, module = n.module}
      groups[key] = g
      shown[#shown + 1] = g
    end
    g.count = g.count + 1
    g.last = n
    idOf[n.id] = g.id
  end
  for _, g in ipairs(shown) do
    g.label = string.format('%s%s\n%d tensor%s, last %s', g.prefix, g.kind == 'gradInput' and ' (backward)' or '',
                            g.count, g.count == 1 and '' or 's', view.sizeString(g.last.tensor))
    g.color = g.kind == 'gradInput' and '#eeeeee' or '#ffffff'
    g.name = g.prefix
  end
  local seen = {}
  for _, e in ipairs(edges) do
    local a, b = idOf[e.from], idOf[e.to]
    local k = a .. '>' .. b
    if a ~= b and not seen[k] then
      seen[k] = true
      shownEdges[#shownEdges + 1] = {from = a, to = b}
    end
  end
  return shown, shownEdges
end

-- opts.fold: each gradInput on the rank of the output of the same module
-- and index (a module's output and gradInput; a container's forward and backward)
local function foldPairs(shown, o)
  local pairsOf = {}
  local function key(n) return (o.collapse and '' or tostring(n.module)) .. n.name:gsub('%.gradInput$', '') end
  local outOf = {}
  for _, n in ipairs(shown) do
    if not backward(n.kind) and n.module then outOf[key(n)] = n end
  end
  for _, n in ipairs(shown) do
    if n.kind == 'gradInput' and n.module then
      local twin = outOf[key(n)]
      if twin then pairsOf[#pairsOf + 1] = {twin, n} end
    end
  end
  return pairsOf
end

-- the DOT lines of the nodes, scope by scope (nested scopes become nested
-- boxes when opts.clusters is not false), with the folded pairs' ranks
local function emitNodes(lines, shown, pairsOf, o)
  local function nodeLine(n, indent)
    local a = {label = n.label, fillcolor = n.color}
    if n.kind ~= 'output' and n.kind ~= 'input' then a.style = 'rounded,filled,dashed' end
    for k, v in pairs(o.displayProps or {}) do a[k] = v end
    return string.format('%sn%d [%s];', indent, n.id, attrs(a))
  end
  local clusters = o.clusters ~= false
  -- scope -> its nodes
  local byScope, children = {}, {}
  local function addScope(sc)
    if byScope[sc] then return end
    byScope[sc] = {}
    if sc ~= '' then
      local parent = sc:match('^(.*)%.[^.]+$') or ''
      addScope(parent)
      children[parent] = children[parent] or {}
      table.insert(children[parent], sc)
    end
  end
  addScope('')
  for _, n in ipairs(shown) do
    local sc = clusters and n.scope or ''
    addScope(sc)
    table.insert(byScope[sc], n)
  end
  local function emit(sc, indent)
    for _, n in ipairs(byScope[sc]) do lines[#lines + 1] = nodeLine(n, indent) end
    for _, p in ipairs(pairsOf) do
      if (clusters and p[1].scope or '') == sc and (clusters and p[2].scope or '') == sc then
        lines[#lines + 1] = string.format('%s{rank=same; n%d; n%d;}', indent, p[1].id, p[2].id)
      end
    end
    for _, c in ipairs(children[sc] or {}) do
      lines[#lines + 1] = string.format('%ssubgraph %s {', indent, quote('cluster_' .. c))
      lines[#lines + 1] = string.format('%s  %s; style="rounded"; color="#999999"; fontname="Helvetica"; fontsize=11;',
                                        indent, attrs{label = c:match('([^.]+)$')})
      emit(c, indent .. '  ')
      lines[#lines + 1] = indent .. '}'
    end
  end
  emit('', '  ')
end

-- returns the DOT text and the graph as data:
--   {nodes = {{id, label, tensor, module, path, kind, storage, offset, key, color}},
--    edges = {{from, to}}}  (node and edge ends are node indices)
local function generate(net, input, opts)
  local o = checkOptions(net, input, opts)
  local mode = view.mode('graphgen', net, o)
  local nodes, edges, bindingOf = collect(net, input, mode)
  paint(nodes, o, bindingOf)
  local fold = o.fold
  if fold == nil then fold = mode == 'training' end
  local legend = o.legend
  if legend == nil then legend = (o.compact or o.collapse) and true or false end
  local lines = {'digraph G {', '  rankdir=' .. quote(o.rankdir or 'TB') .. ';',
                 '  node [' .. attrs{shape = 'box', style = 'rounded,filled', fontname = 'Helvetica', fontsize = 10} .. '];',
                 '  edge [' .. attrs{color = '#555555', arrowsize = 0.6} .. '];'}
  if o.compact or o.collapse then
    lines[#lines + 1] = '  graph [' .. attrs{nodesep = 0.15, ranksep = 0.2} .. '];'
  end
  if legend then
    lines[#lines + 1] = string.format('  legend [%s];', attrs{shape = 'note', style = 'filled', fillcolor = '#ffffff',
                                                              label = LEGEND, fontsize = 10})
  end
  -- what is drawn: the nodes, or one node per container and direction
  local shown, shownEdges = nodes, edges
  if o.collapse then shown, shownEdges = collapse(nodes, edges, o.collapse) end
  emitNodes(lines, shown, fold and foldPairs(shown, o) or {}, o)
  for _, e in ipairs(shownEdges) do
    local back = backward(shown[e.to].kind)
    -- folded, the backward pass takes the forward pass's ranks
    lines[#lines + 1] = string.format('  n%d -> n%d%s;', e.from, e.to,
                                      back and (fold and ' [style="dashed", constraint=false]' or ' [style="dashed"]') or '')
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n') .. '\n', {nodes = nodes, edges = edges}
end

local function shellQuote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

function graphgen.hasDot()
  return os.execute('command -v dot >/dev/null 2>&1') == true
end

-- writes path.dot and, when graphviz's dot is installed, path.svg; returns
-- the two file names (the second nil without graphviz)
function graphgen.dot(g, title, path)
  if type(g) ~= 'string' or not g:find('{', 1, true) then
    error(string.format('optnet.dot: DOT text (from optnet.graphgen) expected as argument 1, got %s', torch.type(g)), 2)
  end
  if title ~= nil and type(title) ~= 'string' then
    error(string.format('optnet.dot: title (a string or nil) expected as argument 2, got %s', torch.type(title)), 2)
  end
  if type(path) ~= 'string' or path == '' then
    error(string.format('optnet.dot: file path (without extension) expected as argument 3, got %s', torch.type(path)), 2)
  end
  path = path:gsub('%.dot$', ''):gsub('%.svg$', '')
  if title then
    g = g:gsub('{', '{\n  label=' .. quote(title) .. '; labelloc="t"; fontname="Helvetica"; fontsize=14;', 1)
  end
  local f, err = io.open(path .. '.dot', 'w')
  if not f then error('optnet.dot: cannot write ' .. path .. '.dot: ' .. tostring(err), 2) end
  f:write(g)
  f:close()
  if not graphgen.hasDot() then return path .. '.dot', nil end
  local errFile = os.tmpname()
  local ok = os.execute(string.format('dot -Tsvg %s -o %s 2>%s', shellQuote(path .. '.dot'),
                                      shellQuote(path .. '.svg'), shellQuote(errFile)))
  local ef = io.open(errFile)
  local msg = ef and ef:read('a') or ''
  if ef then ef:close() end
  os.remove(errFile)
  if ok ~= true then
    error(string.format('optnet.dot: graphviz dot failed on %s.dot: %s', path, msg), 2)
  end
  return path .. '.dot', path .. '.svg'
end

return setmetatable(graphgen, {__call = function(_, ...) return generate(...) end})
