-- Seeing memory: optnet.graphgen / optnet.dot, optnet.timeline, optnet.report
-- and tools/memreport.lua, on small nets and small batches.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'
local svg = require 'optnet.svg'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/optnet_viz_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local hasDot = os.execute('command -v dot >/dev/null 2>&1') == true

local function small(name)
  for _, e in ipairs(models.list()) do
    if e.name == name then return models.build(name, e.small) end
  end
end

-- the first pooling's indices: a buffer that holds memory (the
-- convolutions' columns live in the shared scratch, finput stays empty)
local function lenetIndices(net)
  return net:get(3).indices
end

local function readFile(p)
  local f = assert(io.open(p))
  local s = f:read('a')
  f:close()
  return s
end

-- XML well-formedness: one root, tags nest and close, attributes quoted,
-- '&' only in entities; returns the root element's name
local function wellFormed(xml)
  xml = xml:gsub('^%s*<%?xml.-%?>', ''):gsub('<!%-%-.-%-%->', ''):gsub('<!DOCTYPE[^>]*>', '')
  local function entities(s, where)
    local bare = s:gsub('&#?%w+;', '')
    assert(not bare:find('&', 1, true), 'raw & in ' .. where .. ': ' .. s:sub(1, 80))
  end
  local stack, roots, i, rootName = {}, 0, 1, nil
  while true do
    local s, e, body = xml:find('<([^>]*)>', i)
    local text = xml:sub(i, (s or #xml + 1) - 1)
    entities(text, 'text')
    if #stack == 0 then assert(text:match('^%s*$'), 'text outside the root element: ' .. text:sub(1, 40)) end
    if not s then break end
    if body:sub(1, 1) == '/' then
      local name = body:match('^/([%a_][%w:_%-%.]*)%s*$')
      assert(name, 'bad closing tag <' .. body .. '>')
      assert(stack[#stack] == name, string.format('</%s> closes <%s>', name, tostring(stack[#stack])))
      stack[#stack] = nil
    else
      local selfClosing = body:sub(-1) == '/'
      if selfClosing then body = body:sub(1, -2) end
      local name, rest = body:match('^([%a_][%w:_%-%.]*)(.*)$')
      assert(name, 'bad tag <' .. body .. '>')
      local seen = {}
      rest = rest:gsub('%s+([%a_][%w:_%-%.]*)%s*=%s*(["\'])(.-)%2', function(k, _, v)
        assert(not seen[k], 'attribute ' .. k .. ' twice in <' .. name .. '>')
        seen[k] = true
        assert(not v:find('<', 1, true), 'raw < in attribute ' .. k)
        entities(v, 'attribute ' .. k)
        return ''
      end)
      assert(rest:match('^%s*$'), 'bad attributes in <' .. name .. '>: ' .. rest)
      if #stack == 0 then roots = roots + 1; rootName = name end
      if not selfClosing then stack[#stack + 1] = name end
    end
    i = e + 1
  end
  assert(#stack == 0, 'unclosed <' .. tostring(stack[#stack]) .. '>')
  assert(roots == 1, 'expected one root element, got ' .. roots)
  return rootName
end

-- node id -> fillcolor, read from the DOT text itself
local function dotColors(text)
  local colors, n = {}, 0
  for id, a in text:gmatch('\n  n(%d+) %[(.-)%];') do
    colors[tonumber(id)] = a:match('fillcolor="([^"]*)"')
    n = n + 1
  end
  return colors, n
end

-- the memory block of a tensor, computed here from the optimization state
local function blockKey(net, t)
  local st = optnet._state(net)
  if st then
    for _, b in ipairs(st.bindings) do
      if rawequal(b.t, t) then return t:_storageId() .. '@' .. b.entry.offset end
    end
  end
  return tostring(t:_storageId()) .. '@0'
end

-- same colour exactly when the same memory block (blocks one node uses are white)
local function checkColours(net, text, info)
  local colors = dotColors(text)
  local groups = {}
  for _, n in ipairs(info.nodes) do
    local k = blockKey(net, n.tensor)
    groups[k] = groups[k] or {}
    table.insert(groups[k], n.id)
  end
  local shared, colorOwner = 0, {}
  for k, ids in pairs(groups) do
    local c = colors[ids[1]]
    for _, id in ipairs(ids) do assert.are.equal(c, colors[id]) end
    if #ids > 1 then
      shared = shared + 1
      assert.are_not.equal('#ffffff', c)
      assert(colorOwner[c] == nil, 'two memory blocks share colour ' .. c)
      colorOwner[c] = k
    else
      assert.are.equal('#ffffff', c)
    end
  end
  return shared
end

-- countUsedMemory's categories from a report's rows
local function checkCounts(net, r)
  local c = optnet.countUsedMemory(net)
  for _, k in ipairs{'outputs', 'gradInputs', 'buffers', 'params', 'state'} do
    assert.are.equal(c[k], r.counts[k], k)
  end
end

describe('optnet.graphgen', function()
  it('has one node per module output, labelled with readable name, type, size and storage', function()
    torch.manualSeed(1)
    local net, x = small('lenet')
    local text, info = optnet.graphgen(net, x)
    assert.are.equal('digraph G {', text:sub(1, 11))
    local _, nNodes = dotColors(text)
    -- the input and the 13 layers of LeNet, a chain
    assert.are.equal(14, nNodes)
    assert.are.equal(14, #info.nodes)
    assert.are.equal(13, #info.edges)
    for i, e in ipairs(info.edges) do
      assert.are.same({i, i + 1}, {e.from, e.to})
      assert.truthy(text:find(string.format('n%d -> n%d;', i, i + 1), 1, true))
    end
    local conv = info.nodes[2]
    assert.are.equal('1.output', conv.path)
    assert.are.equal('conv1', conv.name)
    assert.truthy(conv.label:find('^conv1\nSpatialConvolution  2x6x28x28\nstorage %d+$'), conv.label)
    assert.truthy(text:find('label="conv1\\nSpatialConvolution  2x6x28x28\\nstorage', 1, true))
  end)

  it('adds gradInput nodes in training mode, fed from the gradOutput', function()
    local net, x = small('lenet')
    local text, info = optnet.graphgen(net, x, {mode = 'training'})
    local kinds = {}
    for _, n in ipairs(info.nodes) do kinds[n.kind] = (kinds[n.kind] or 0) + 1 end
    assert.are.same({input = 1, output = 13, gradOutput = 1, gradInput = 13}, kinds)
    assert.truthy(text:find('label="fc3.gradInput\\nLinear  2x84', 1, true), text)
    assert.truthy(text:find('style="rounded,filled,dashed"', 1, true))
  end)

  it('colours nodes by shared memory, before and after optimizeMemory', function()
    torch.manualSeed(2)
    local net, x = small('convchain')
    local text, info = optnet.graphgen(net, x, {mode = 'training'})
    -- in-place ReLUs share their input's storage even unoptimized
    assert(checkColours(net, text, info) > 0)
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local text2, info2 = optnet.graphgen(net, x)
    assert.are.equal(#info.nodes, #info2.nodes)
    local shared = checkColours(net, text2, info2)
    assert(shared > 0)
    -- after planning the labels say where in the arena a tensor lives
    assert.truthy(text2:find('storage %d+ @ [%d%.]+ %a?i?B'))
    local tablenet, y = small('tablenet')
    optnet.optimizeMemory(tablenet, y, {mode = 'inference'})
    local t3, i3 = optnet.graphgen(tablenet, y)
    checkColours(tablenet, t3, i3)
  end)

  it('plans an optimized net again for an input of another shape first', function()
    local net, x = small('lenet')
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local x3 = torch.randn(3, 1, 32, 32):typeAs(x)
    local text, info = optnet.graphgen(net, x3)
    assert.are.equal(optnet._signature(x3), optnet._state(net).signature)
    assert.truthy(info.nodes[2].label:find('  3x6x28x28\n', 1, true))
    checkColours(net, text, info)
    local x4 = torch.randn(4, 1, 32, 32):typeAs(x)
    checkCounts(net, optnet.report(net, x4, {print = false}))
    assert.are.equal(optnet._signature(x4), optnet._state(net).signature)
  end)

  it('takes graphviz node attributes and a nodeData callback, as OptNet does', function()
    local net, x = small('mlp')
    net:forward(x)   -- storage numbers count the storages the net holds
    local calls = 0
    local text = optnet.graphgen(net, x, {
      displayProps = {shape = 'ellipse', fontsize = 14},
      nodeData = function(old, t)
        calls = calls + 1
        assert.is_true(torch.isTensor(t))
        return old .. '\nelements: ' .. t:nElement() .. ' "q"'
      end})
    assert.are.equal(7, calls)
    assert.truthy(text:find('shape="ellipse"', 1, true))
    assert.truthy(text:find('fontsize="14"', 1, true))
    assert.truthy(text:find('\\nelements: 64 \\"q\\""', 1, true))
    -- the same generator through require, as in OptNet
    local generateGraph = require 'optnet.graphgen'
    assert.are.equal(text, (generateGraph(net, x, {
      displayProps = {shape = 'ellipse', fontsize = 14},
      nodeData = function(old, t) return old .. '\nelements: ' .. t:nElement() .. ' "q"' end})))
  end)

  it('leaves the net unchanged (outputs, batch norm statistics, random state)', function()
    torch.manualSeed(3)
    local net, x = small('resnet')
    net:training()
    local bn = net:findModules('nn.SpatialBatchNormalization')[1]
    local mean = bn.running_mean:clone()
    local ref = net:forward(x):clone()
    bn.running_mean:copy(mean)
    torch.manualSeed(3)
    optnet.graphgen(net, x, {mode = 'training'})
    local after = torch.random()
    assert.are.equal(0, (bn.running_mean - mean):abs():max())
    -- the generator is where the pass found it
    torch.manualSeed(3)
    assert.are.equal(torch.random(), after)
    assert.are.equal(0, (net:forward(x) - ref):abs():max())
  end)

  it('optnet.dot writes the .dot and, with graphviz, an .svg that parses', function()
    local net, x = small('tablenet')
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local text = optnet.graphgen(net, x)
    local stem = os.tmpname()
    local dotFile, svgFile = optnet.dot(text, 'table "net" <1>', stem)
    assert.are.equal(stem .. '.dot', dotFile)
    local written = readFile(dotFile)
    assert.truthy(written:find('label="table \\"net\\" <1>"', 1, true))
    if not hasDot then
      os.remove(dotFile); os.remove(stem)
      pending('graphviz dot is not installed (make viz-deps): .svg not rendered')
      return
    end
    assert.are.equal(stem .. '.svg', svgFile)
    local out = readFile(svgFile)
    assert.are.equal('svg', wellFormed(out))
    assert.truthy(out:find('table &quot;net&quot; &lt;1&gt;', 1, true))
    -- dot -Tsvg itself accepts the text
    assert.is_true(os.execute('dot -Tsvg ' .. sh(dotFile) .. ' -o /dev/null 2>/dev/null'))
    os.remove(dotFile); os.remove(svgFile); os.remove(stem)
  end)

  it('rejects bad arguments with the function named', function()
    local net, x = small('mlp')
    assert.has_error(function() optnet.graphgen(42, x) end,
      'optnet.graphgen: nn.Module expected as argument 1, got number')
    assert.has_error(function() optnet.graphgen(net, 'x') end,
      'optnet.graphgen: input (a tensor or a table of tensors) expected as argument 2, got string')
    assert.has_error(function() optnet.graphgen(net, x, {colour = 1}) end,
      "optnet.graphgen: unknown option 'colour'")
    assert.has_error(function() optnet.graphgen(net, x, {nodeData = 'x'}) end,
      'optnet.graphgen: opts.nodeData must be a function(oldLabel, tensor), got string')
    assert.has_error(function() optnet.graphgen(net, x, {nodeData = function() return 1 end}) end,
      'optnet.graphgen: opts.nodeData must return a string label, got number')
    assert.has_error(function() optnet.graphgen(net, x, {mode = 'eval'}) end,
      "optnet.graphgen: mode must be 'inference' or 'training', got eval")
    optnet.optimizeMemory(net, x)
    assert.has_error(function() optnet.graphgen(net, x, {mode = 'training'}) end,
      "optnet.graphgen: the net is optimized for inference (no backward to trace); "
      .. "call optnet.removeOptimization(net) first or use mode 'inference'")
    assert.has_error(function() optnet.dot({}, nil, '/tmp/x') end,
      'optnet.dot: DOT text (from optnet.graphgen) expected as argument 1, got table')
    assert.has_error(function() optnet.dot('digraph G {}', 3, '/tmp/x') end,
      'optnet.dot: title (a string or nil) expected as argument 2, got number')
    assert.has_error(function() optnet.dot('digraph G {}', nil) end,
      'optnet.dot: file path (without extension) expected as argument 3, got nil')
  end)
end)

local function sum(t) local s = 0 for _, v in pairs(t) do s = s + v end return s end

describe('optnet.graphgen for big nets', function()
  local models = require 'models'

  it('names modules by their containers names and kind + count (view.names)', function()
    local net = models.build('resnet', {depth = 20})
    local names, scopes = require('optnet.view').names(net)
    local byName = {}
    for m, n in pairs(names) do byName[n] = m end
    assert.are.equal(net, byName.net)
    assert.are.equal('nn.SpatialConvolution', torch.type(byName['conv1']))
    assert.are.equal('nn.SpatialConvolution', torch.type(byName['layer3.block2.conv2']))
    assert.are.equal('nn.SpatialBatchNormalization', torch.type(byName['layer2.block3.bn1']))
    assert.are.equal('nn.CAddTable', torch.type(byName['layer1.block1.add1']))
    assert.are.equal('layer3.block2', scopes[byName['layer3.block2.conv2']])
    assert.are.equal('', scopes[byName['conv1']])
    -- unnamed nets: kind and count over the whole net
    local lenet = small('lenet')
    local n2 = require('optnet.view').names(lenet)
    assert.are.equal('conv2', n2[lenet.modules[4]])
  end)

  it('collapses named containers, folds gradients beside outputs, draws clusters and a legend', function()
    torch.manualSeed(4)
    local net, x = models.build('resnet', {depth = 20, batch = 2})
    local text, info = optnet.graphgen(net, x, {mode = 'training', collapse = 2})
    local boxes = 0
    for _ in text:gmatch('\n  *n%d+ %[') do boxes = boxes + 1 end
    -- the stem and head modules alone, 9 blocks, each forward and backward
    assert.truthy(text:find('label="layer2.block3\\n', 1, true))
    assert.truthy(text:find('label="layer2.block3 (backward)\\n', 1, true))
    assert.truthy(text:find('legend [', 1, true))
    assert.truthy(text:find('{rank=same; n', 1, true))
    assert.truthy(text:find('subgraph "cluster_layer2"', 1, true))
    -- no edge from a box to itself
    for a, b in text:gmatch('n(%d+) %-> n(%d+)') do assert.are_not.equal(a, b) end
    -- input and gradOutput; the stem's conv1, bn1, relu1 and the head's
    -- avgpool1, view1, fc1, logsoftmax1, each forward and backward; the 9
    -- blocks, each forward and backward: 2 + 14 + 18
    assert.are.equal(34, boxes)
    -- the data keeps every tensor node
    assert.is_true(#info.nodes > boxes)
    local compact = optnet.graphgen(net, x, {mode = 'training', compact = true, clusters = false})
    assert.is_nil(compact:find('subgraph', 1, true))
    assert.truthy(compact:find('label="layer1.block1.conv1\\n2x16x32x32"', 1, true))
    assert.has_error(function() optnet.graphgen(net, x, {collapse = 0}) end,
                     'optnet.graphgen: opts.collapse must be a positive integer (container depth), got 0')
    assert.has_error(function() optnet.graphgen(net, x, {fold = 'yes'}) end,
                     'optnet.graphgen: opts.fold must be a boolean, got string')
  end)
end)

describe('optnet.timeline', function()
  it('peaks at the lower bound countUsedMemory reports, before and after', function()
    torch.manualSeed(4)
    local net, x = small('resnet')
    local t = optnet.timeline(net, x, {mode = 'training'})
    assert.is_false(optnet.isOptimized(net))
    assert.are.equal('training', t.mode)
    assert(t.nForward < t.nSteps)
    assert.are.equal(t.nSteps, #t.before.live)
    assert.are.equal(t.nSteps, #t.after.live)
    assert.are.equal(t.nSteps, #t.steps)
    -- before: the net as it is; its live peak is countUsedMemory's bound
    local unopt = optnet.countUsedMemory(net, x, {mode = 'training'})
    assert.are.equal(unopt.lower_bound_activations, t.before.peak)
    assert.are.equal(t.before.peak, t.before.live[t.before.peakStep])
    -- an nn net frees nothing: allocated only rises and never is below live
    for s = 1, t.nSteps do
      if s > 1 then assert(t.before.allocated[s] >= t.before.allocated[s - 1]) end
      assert(t.before.allocated[s] >= t.before.live[s])
    end
    -- after: one element type, so the peak is the lower bound
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local opt = optnet.countUsedMemory(net, x, {mode = 'training'})
    assert.are.equal(opt.lower_bound_activations, t.after.peak)
    assert.are.equal(t.lowerBound, t.after.peak)
    assert.are.equal(t.after.peak, t.after.live[t.after.peakStep])
    assert(t.arena >= t.lowerBound)
    assert.are.equal(sum(optnet._state(net).result.arena), t.arena)
    -- the peak step is a module call of the net
    local st = t.steps[t.after.peakStep]
    assert.truthy(st.module:match('^[%w%.]+$'))
    assert.truthy(({forward = 1, derivative = 1, gradient = 1, backward = 1})[st.kind])
  end)

  it('with several element types, the bound is the sum of their peaks', function()
    local net, x = small('lenet')   -- max pooling keeps LongTensor indices
    net:evaluate()
    local t = optnet.timeline(net, x)
    local types, peaks = 0, 0
    for _, p in pairs(t.after.pools) do
      types = types + 1
      peaks = peaks + p.peak
    end
    assert.are.equal(2, types)
    assert.are.equal(t.lowerBound, peaks)
    assert(t.after.peak <= t.lowerBound)
    assert.are.equal(t.nSteps, t.nForward)
    optnet.optimizeMemory(net, x)
    assert.are.equal(optnet.countUsedMemory(net, x).lower_bound_activations, t.lowerBound)
  end)

  it('renders a well-formed, self-contained SVG with the peak labelled', function()
    local net, x = small('lenet')
    local t = optnet.timeline(net, x, {mode = 'training', title = 'lenet <small> & fast'})
    assert.are.equal('svg', wellFormed(t.svg))
    assert.truthy(t.svg:find('<title>lenet &lt;small&gt; &amp; fast</title>', 1, true))
    local st = t.steps[t.after.peakStep]
    local label = string.format('after peak: %s at step %d, %s %s (%s)', require('optnet.view').bytes(t.after.peak),
      t.after.peakStep, st.module, st.type, st.kind)
    assert.truthy(t.svg:find(label, 1, true), label)
    for _, s in ipairs{'before: live bytes', 'lower bound', 'planned arena', 'backward', 'live bytes (KiB)'} do
      assert.truthy(t.svg:find(s, 1, true), s)
    end
    assert.falsy(t.svg:find('<script', 1, true))
    assert.falsy(t.svg:find('@import', 1, true))
    local links = 0
    for u in t.svg:gmatch('https?://[^"]*') do
      assert.are.equal('http://www.w3.org/2000/svg', u)
      links = links + 1
    end
    assert.are.equal(1, links)
  end)

  it('leaves an optimized net optimized, with its options and its numbers', function()
    torch.manualSeed(5)
    local net, x = small('convchain')
    net:evaluate()
    optnet.optimizeMemory(net, x, {mode = 'inference', planner = 'greedy_size'})
    local ref = net:forward(x):clone()
    local t = optnet.timeline(net, x, {planner = 'best'})
    assert.are.equal('inference', t.mode)
    assert.is_true(optnet.isOptimized(net))
    assert.are.equal('greedy_size', optnet._state(net).opts.planner)
    assert.are.equal(0, (net:forward(x) - ref):abs():max())
  end)

  it('rejects bad arguments with the function named', function()
    local net, x = small('mlp')
    assert.has_error(function() optnet.timeline(net, x, {width = 10}) end,
      'optnet.timeline: width and height must be numbers of pixels (at least 320x240), got 10 x 500')
    assert.has_error(function() optnet.timeline(net, x, {colour = 'red'}) end,
      "optnet.timeline: unknown option 'colour'")
    assert.has_error(function() optnet.timeline(net, x, {title = 1}) end,
      'optnet.timeline: title must be a string, got number')
    assert.has_error(function() optnet.timeline(net) end,
      'optnet.timeline: input (a tensor or a table of tensors) expected as argument 2, got nil')
  end)
end)

describe('optnet.svg', function()
  it('escapes text and attributes and picks round ticks', function()
    local d = svg.new(100, 50)
    d:text(1, 2, 'a<b & "c"', {fill = 'x"y'})
    d:polyline({0, 0, 1.234, 5}, {stroke = 'red'})
    local out = d:render()
    assert.are.equal('svg', wellFormed(out))
    assert.truthy(out:find('<text fill="x&quot;y" x="1" y="2">a&lt;b &amp; &quot;c&quot;</text>', 1, true))
    assert.truthy(out:find('points="0,0 1.23,5"', 1, true))
    assert.are.same({0, 2, 4, 6, 8, 10}, (svg.ticks(0, 10, 5)))
    assert.are.same({0, 50, 100, 150}, (svg.ticks(0, 170, 4)))
    assert.has_error(function() svg.new(0, 5) end, 'optnet.svg.new: positive width and height expected, got 0 and 5')
  end)
end)

describe('optnet.report', function()
  it('names tensors by module path and totals them as countUsedMemory does', function()
    torch.manualSeed(6)
    local features = nn.Sequential():add(nn.SpatialConvolution(1, 4, 3, 3)):add(nn.ReLU(true)):setName('features')
    local classifier = nn.Sequential():add(nn.Linear(4 * 6 * 6, 3)):add(nn.LogSoftMax()):setName('classifier')
    local net = nn.Sequential():add(nn.SpatialBatchNormalization(1)):add(features)
      :add(nn.View(4 * 6 * 6):setNumInputDims(3)):add(classifier)
    net:float()
    local x = torch.randn(2, 1, 8, 8):float()
    local r = optnet.report(net, x, {mode = 'training', print = false})
    local byName = {}
    for _, row in ipairs(r.rows) do byName[row.name] = row end
    local expect = {
      ['input'] = 'input', ['1.running_mean'] = 'state', ['1.weight'] = 'param', ['1.gradBias'] = 'gradParam',
      ['features.1.output'] = 'output', ['features.1.finput'] = 'buffer', ['features.1.gradWeight'] = 'gradParam',
      ['features.2.output'] = 'output', ['3.output'] = 'output', ['classifier.1.gradWeight'] = 'gradParam',
      ['classifier.1.weight'] = 'param', ['classifier.2.gradInput'] = 'gradInput', ['1.gradInput'] = 'gradInput',
    }
    for name, cat in pairs(expect) do
      assert(byName[name], 'no row ' .. name)
      assert.are.equal(cat, byName[name].category, name)
    end
    local conv = byName['features.1.output']
    assert.are.equal('2x4x6x6', conv.size)
    assert.are.equal(2 * 4 * 6 * 6 * 4, conv.bytes)
    assert.are.equal('nn.SpatialConvolution', conv.module)
    assert(conv.first >= 1 and conv.last > conv.first and conv.last <= r.nSteps)
    assert.are.equal(0, byName.input.first)
    -- the in-place ReLU writes into the convolution's storage
    assert.are.equal(conv.storage, byName['features.2.output'].storage)
    -- a Sequential's output is its last child's: one row, the other name an alias
    assert.is_nil(byName['features.output'])
    local found = false
    for _, a in ipairs(byName['features.2.output'].aliases) do found = found or a == 'features.output' end
    assert.is_true(found)
    checkCounts(net, r)
    -- totals count each byte of a storage once
    assert(r.totals.output < conv.bytes * 2 + byName['3.output'].bytes + byName['classifier.2.output'].bytes + 4096)
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local r2 = optnet.report(net, x, {print = false})
    checkCounts(net, r2)
    local byName2 = {}
    for _, row in ipairs(r2.rows) do byName2[row.name] = row end
    -- planned tensors show their slot in the arena and their planned interval
    local b = byName2['features.1.output']
    local entry
    for _, bd in ipairs(optnet._state(net).bindings) do
      if rawequal(bd.t, features.modules[1].output) then entry = bd.entry end
    end
    assert.are.same({entry.first, entry.last}, {b.first, b.last})
    assert.are.same({entry.offset, entry.offset + entry.bytes}, b.block)
  end)

  it('matches countUsedMemory on zoo nets, both modes, before and after', function()
    for _, name in ipairs{'googlenet', 'tablenet', 'siamese'} do
      for _, mode in ipairs{'inference', 'training'} do
        local net, x = small(name)
        checkCounts(net, optnet.report(net, x, {mode = mode, print = false}))
        optnet.optimizeMemory(net, x, {mode = mode})
        checkCounts(net, optnet.report(net, x, {print = false}))
      end
    end
  end)

  it('numbers storages as graphgen does', function()
    local net, x = small('lenet')
    optnet.optimizeMemory(net, x, {mode = 'training'})
    local _, info = optnet.graphgen(net, x)
    local r = optnet.report(net, x, {print = false})
    local byName = {}
    for _, row in ipairs(r.rows) do byName[row.name] = row end
    for _, n in ipairs(info.nodes) do
      if byName[n.path] then assert.are.equal(byName[n.path].storage, n.storage, n.path) end
    end
  end)

  it('prints a table with totals per category', function()
    local net, x = small('lenet')
    local name = os.tmpname()
    local f = assert(io.open(name, 'w'))
    local r = optnet.report(net, x, {out = f})
    f:close()
    local text = readFile(name)
    os.remove(name)
    assert.truthy(text:match('^name%s+category%s+size%s+bytes%s+first%s+last%s+storage%s+offset\n'))
    -- the first pooling's indices, at the size the kernel gave them
    local ind = lenetIndices(net)
    local sz = table.concat(ind:size():totable(), 'x')
    assert.truthy(ind:nElement() > 0)
    assert.truthy(text:find('\n3.indices +buffer +' .. sz .. ' +'
      .. require('optnet.view').bytes(ind:nElement() * ind:elementSize()):gsub('%.', '%%.'), 1), sz)
    assert.truthy(text:find('totals (each byte of a storage counted once):', 1, true))
    assert.truthy(text:find(string.format('  output        %d tensors', r.tensors.output), 1, true))
    assert.truthy(text:find('\n  all ', 1, true))
  end)

  it('rejects bad arguments with the function named', function()
    local net, x = small('mlp')
    assert.has_error(function() optnet.report(net, x, {out = 'stdout'}) end,
      'optnet.report: opts.out must be an open file, got string')
    assert.has_error(function() optnet.report(net, x, 7) end,
      'optnet.report: options table expected as argument 3, got number')
  end)
end)

describe('tools/memreport.lua', function()
  local function run(args)
    local err = os.tmpname()
    local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th tools/memreport.lua %s 2>%s',
      sh(root ~= '' and root or '.'), sh(build), args, err))
    local out = p:read('a')
    local _, _, status = p:close()
    local e = readFile(err)
    os.remove(err)
    return out, e, status
  end

  it('prints the report and writes the graph and the timeline', function()
    local dir = os.tmpname()
    os.remove(dir)
    local out, err, status = run('models.lenet --batch 2 --mode training --svg ' .. sh(dir))
    assert.are.equal(0, status, err)
    assert.truthy(out:find('totals (each byte of a storage counted once):', 1, true))
    assert.truthy(out:find('lenet, training mode, 41 steps: activations before', 1, true))
    assert.truthy(err:find('memreport: timeline', 1, true))
    assert.are.equal('svg', wellFormed(readFile(dir .. '/lenet-timeline.svg')))
    assert.truthy(readFile(dir .. '/lenet-graph.dot'):find('^digraph G {'))
    if hasDot then assert.are.equal('svg', wellFormed(readFile(dir .. '/lenet-graph.svg'))) end
    for _, f in ipairs{'lenet-timeline.svg', 'lenet-graph.dot', 'lenet-graph.svg'} do os.remove(dir .. '/' .. f) end
    os.remove(dir)
  end)

  -- the README's example: the graphs convert to PNG (rsvg-convert refuses
  -- images over 32767 px, which the one-page ResNet-56 graph was)
  local hasRsvg = os.execute('command -v rsvg-convert >/dev/null 2>&1') == true
  local it_viz = (hasDot and hasRsvg) and it or pending
  it_viz("draws the README's ResNet-56 as an overview and a full graph that convert to PNG", function()
    local dir = os.tmpname()
    os.remove(dir)
    local out, err, status = run('models.resnet --depth 56 --batch 64 --mode training --svg ' .. sh(dir))
    assert.are.equal(0, status, err)
    for _, f in ipairs{'resnet-graph.svg', 'resnet-graph-full.svg'} do
      assert.truthy(out:find('wrote ' .. dir .. '/' .. f, 1, true), out)
      local png = dir .. '/' .. f:gsub('svg$', 'png')
      local ok = os.execute('rsvg-convert ' .. sh(dir .. '/' .. f) .. ' -o ' .. sh(png) .. ' 2>/dev/null')
      assert.is_true(ok == true, f)
      -- PNG: width and height are big-endian at bytes 17..24
      local head = readFile(png):sub(17, 24)
      local w, h = string.unpack('>I4>I4', head)
      assert.is_true(w > 300 and w < 32767 and h > 300 and h < 32767, f .. ' ' .. w .. 'x' .. h)
    end
    local overview = readFile(dir .. '/resnet-graph.dot')
    -- one box per block and direction: 3 stages of 9 blocks, forward and backward
    local blocks = 0
    for _ in overview:gmatch('label="layer%d%.block%d+\\n') do blocks = blocks + 1 end
    for _ in overview:gmatch('label="layer%d%.block%d+ %(backward%)\\n') do blocks = blocks + 1 end
    assert.are.equal(54, blocks)
    assert.truthy(overview:find('How to read this graph', 1, true))
    local full = readFile(dir .. '/resnet-graph-full.dot')
    assert.truthy(full:find('label="layer3.block2.conv1\\n64x64x8x8"', 1, true))
    assert.truthy(full:find('label="layer3.block2.conv1.gradInput\\n64x64x8x8"', 1, true))
    assert.truthy(full:find('subgraph "cluster_layer3.block2"', 1, true))
    os.execute('rm -rf ' .. sh(dir))
  end)

  it('says what is wrong with its arguments', function()
    local _, err, status = run('models.nosuch')
    assert.are.equal(1, status)
    assert.truthy(err:find("memreport: models.build: unknown model 'nosuch'", 1, true))
    _, err, status = run('lenet --mode eval')
    assert.are.equal(1, status)
    assert.truthy(err:find("memreport: --mode must be 'inference' or 'training', got 'eval'", 1, true))
  end)
end)
