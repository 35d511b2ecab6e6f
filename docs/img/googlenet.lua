-- Makes the pictures in docs/optnet.md ("Seeing memory"):
--   bin/th docs/img/googlenet.lua        (graphviz's dot needed for the graph)
-- googlenet at batch 2: the timeline of a training pass, and the graph of
-- the net optimized for inference, labels shortened to type, size and slot.
local optnet = require 'optnet'
local models = require 'models'
local dir = arg[1] or 'docs/img'

torch.manualSeed(1)
local net, input = models.build('googlenet', {batch = 2})
net:training()
local t = optnet.timeline(net, input, {mode = 'training', title = 'googlenet, batch 2: activation memory per step (training)'})
local f = assert(io.open(dir .. '/googlenet-timeline.svg', 'w'))
f:write(t.svg)
f:close()

net:evaluate()
optnet.optimizeMemory(net, input, {mode = 'inference'})
local g = optnet.graphgen(net, input, {
  displayProps = {fontsize = 9},
  -- drop the path line: type, size and where it lives are enough here
  nodeData = function(label)
    local lines = {}
    for l in (label .. '\n'):gmatch('(.-)\n') do lines[#lines + 1] = l end
    return table.concat({lines[1] .. ' ' .. lines[3], lines[4]}, '\n')
  end,
})
local tmp = os.tmpname()
local _, svgFile = optnet.dot(g, 'googlenet, batch 2, optimized for inference', tmp)
assert(svgFile, 'graphviz dot is needed: make viz-deps')
-- graphviz's comments and per-node titles only add bytes
local text = assert(io.open(svgFile)):read('a')
text = text:gsub('<!%-%-.-%-%->\n?', ''):gsub('<title>[^<]*</title>\n?', '')
f = assert(io.open(dir .. '/googlenet-graph.svg', 'w'))
f:write(text)
f:close()
os.remove(svgFile)
os.remove(tmp .. '.dot')
os.remove(tmp)
print(string.format('before %s allocated, %s live at the peak; arena %s, lower bound %s',
  require('optnet.view').bytes(t.before.allocated[t.nSteps]), require('optnet.view').bytes(t.before.peak),
  require('optnet.view').bytes(t.arena), require('optnet.view').bytes(t.lowerBound)))
