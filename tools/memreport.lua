-- memreport: what a zoo model's memory looks like, before and after optnet.
--   bin/th tools/memreport.lua models.resnet --depth 56 --batch 64 --mode training --svg out/
-- Prints the named memory report of the optimized net (optnet.report) and
-- a summary; with --svg DIR also writes DIR/<model>-graph.dot, an overview
-- with one box per named block (layer3.block2) and direction, when the net
-- has named containers; DIR/<model>-graph-full.dot, every tensor with its
-- module's readable name, coloured by memory block, a box per named
-- container, each gradient beside its output (.svg of both when graphviz
-- is installed); and DIR/<model>-timeline.svg.
-- Options: --mode inference|training (default inference), --svg DIR,
-- --before (report and graph the net without optimization), --planner NAME,
-- --help; any other --key value is a model option (numbers and true/false
-- converted), e.g. --depth 56 --dataset cifar10.
-- A progress line (module calls so far) goes to stderr while it traces.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local models = require 'models'

local USAGE = [[
usage: bin/th tools/memreport.lua MODEL [--mode inference|training] [--svg DIR]
                                        [--before] [--planner NAME] [--MODELOPTION VALUE ...]
  MODEL: a zoo model, as models.NAME or NAME (bin/th -e "for _, m in ipairs(require('models').list()) do print(m.name) end")]]

local function die(msg)
  io.stderr:write('memreport: ', msg, '\n')
  os.exit(1)
end

local function parse(argv)
  local a = {mode = 'inference', modelOpts = {}}
  local i = 1
  while i <= #argv do
    local s = argv[i]
    if s == '--help' or s == '-h' then
      print(USAGE)
      os.exit(0)
    elseif s == '--before' then
      a.before = true
      i = i + 1
    elseif s:match('^%-%-') then
      local key, v = s:sub(3), argv[i + 1]
      if key == '' or v == nil then die(string.format("option '%s' needs a value\n%s", s, USAGE)) end
      if key == 'mode' then a.mode = v
      elseif key == 'svg' then a.svg = v
      elseif key == 'planner' then a.planner = v
      else
        if v == 'true' then v = true elseif v == 'false' then v = false
        else v = math.tointeger(tonumber(v)) or tonumber(v) or v end
        a.modelOpts[key] = v
      end
      i = i + 2
    else
      if a.model then die(string.format("one model expected, got '%s' and '%s'", a.model, s)) end
      a.model = s:gsub('^models%.', '')
      i = i + 1
    end
  end
  if not a.model then die('a model name expected\n' .. USAGE) end
  if a.mode ~= 'inference' and a.mode ~= 'training' then
    die(string.format("--mode must be 'inference' or 'training', got '%s'", a.mode))
  end
  return a
end

-- counts module calls on stderr while the net runs (instance methods, so
-- optnet's own wrapping keeps them and puts them back)
local progress = {phase = '', calls = 0, last = 0}
local tty = os.execute('test -t 2') == true

local function show(final)
  if not tty then return end
  io.stderr:write(string.format('\rmemreport: %-9s %7d module calls%s', progress.phase, progress.calls,
    final and '\n' or ''))
  io.stderr:flush()
end

local function phase(name)
  if progress.phase ~= '' then show(true) end
  progress.phase, progress.calls = name, 0
  if not tty then io.stderr:write('memreport: ', name, '...\n') end
  show(false)
end

local function count()
  progress.calls = progress.calls + 1
  local now = os.clock()
  if now - progress.last > 0.1 then
    progress.last = now
    show(false)
  end
end

local WATCHED = {'updateOutput', 'updateGradInput', 'accGradParameters'}

-- counts the calls of every module's steps (the progress line); returns
-- the function that takes the hooks off
local function watch(net)
  local handles, seen = {}, {}
  for _, m in ipairs(net:listModules()) do
    if not seen[m] then
      seen[m] = true
      for _, k in ipairs(WATCHED) do
        handles[#handles + 1] = m:hook(k, function(nextf, ...) count() return nextf(...) end)
      end
    end
  end
  return function()
    for i = #handles, 1, -1 do handles[i]:remove() end
  end
end

local function mkdir(dir)
  local ok = os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
  if ok ~= true then die('cannot create directory ' .. dir) end
end

local function main(argv)
  local a = parse(argv)
  local ok, net, input = pcall(models.build, a.model, a.modelOpts)
  if not ok then die(tostring(net)) end
  if a.mode == 'training' then net:training() else net:evaluate() end
  local unwatch = watch(net)
  local opts = {mode = a.mode, planner = a.planner}

  phase('timeline')
  local t = optnet.timeline(net, input, opts)
  if not a.before then
    phase('optimize')
    optnet.optimizeMemory(net, input, opts)
  end
  local files = {}
  if a.svg then
    mkdir(a.svg)
    local stem = a.svg:gsub('/+$', '') .. '/' .. a.model
    phase('graph')
    local state = a.before and 'not optimized' or 'optimized'
    -- the overview: named blocks two levels deep (a zoo ResNet's layer3.block2)
    local named = false
    for _, m in ipairs(net:listModules()) do
      if m ~= net and type(m.name) == 'string' then named = true; break end
    end
    if named then
      local g = optnet.graphgen(net, input, {mode = a.mode, collapse = 2})
      local dotFile, svgFile = optnet.dot(g, string.format('%s (%s, %s): blocks', a.model, a.mode, state),
                                          stem .. '-graph')
      files[#files + 1] = dotFile
      files[#files + 1] = svgFile
    end
    local g = optnet.graphgen(net, input, {mode = a.mode, compact = true})
    local title = string.format('%s (%s, %s)', a.model, a.mode, state)
    local dotFile, svgFile = optnet.dot(g, title, stem .. (named and '-graph-full' or '-graph'))
    files[#files + 1] = dotFile
    files[#files + 1] = svgFile or '(no graphviz: no graph .svg; make viz-deps installs it)'
    local f = assert(io.open(stem .. '-timeline.svg', 'w'))
    f:write(t.svg)
    f:close()
    files[#files + 1] = stem .. '-timeline.svg'
  end
  phase('report')
  local r = optnet.report(net, input, {mode = a.mode, print = false})
  show(true)
  unwatch()
  local out = io.stdout
  -- printed after the progress line is done, so the two never interleave
  require('optnet.report').print(r, out)
  local B = require('optnet.view').bytes
  out:write(string.format('\n%s, %s mode, %d steps: activations before %s allocated, '
    .. 'after %s arena (lower bound %s); all tensors %s%s\n', a.model, a.mode, t.nSteps,
    B(t.before.allocated[t.nSteps] or 0), B(t.arena), B(t.lowerBound), B(r.totals.all),
    a.before and ' (not optimized)' or ' (optimized)'))
  for _, f in ipairs(files) do out:write('wrote ', f, '\n') end
end

main(arg)
