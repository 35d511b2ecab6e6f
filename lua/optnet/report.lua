-- optnet.report: every tensor of a net by name, with what it is for, its
-- bytes, its lifetime in steps and where it lives; and totals per category.
--   local r = optnet.report(net, input, {mode = 'training'})   -- prints the table
--   r.rows[i] = {name = 'features.3.output', category = 'output', module = 'nn.ReLU',
--                size = '64x32x32', bytes = 262144, first = 7, last = 40,
--                storage = 5, offset = 0, block = {lo, hi}, aliases = {...}}
--   r.totals.output, ..., r.totals.all: bytes, each byte of a storage once
--   r.counts: the same sums in countUsedMemory's categories (outputs,
--             gradInputs, buffers, params, state)
-- opts: mode (default: the mode the net is optimized for, else inference),
-- print (default true), out (a file, default io.stdout).
--
-- Names follow nn's paths (Module:namedParameters): the module's path,
-- then the field ('3.finput', 'classifier.1.gradWeight'); a tensor held by
-- several modules (a Sequential's output is its last child's) is named by
-- the module that makes it, the other names are its aliases.
-- Categories: param, gradParam, output, gradInput, buffer (declared by
-- memoryTraits), state (other tensors: batch norm statistics), input.
-- Steps are the trace's; a planned tensor shows its planned interval, a
-- parameter the steps of its module. storage is a short number per storage
-- (the same numbers graphgen shows); offset is in bytes. A tensor the plan
-- placed in an arena holds its slot (block); any other its whole storage.
local walk = require 'optnet.walk'
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'
local view = require 'optnet.view'

local KNOWN = {mode = true, print = true, out = true}

local CATEGORIES = {'param', 'gradParam', 'output', 'gradInput', 'buffer', 'state', 'input'}
local RANK = {}
for i, c in ipairs(CATEGORIES) do RANK[c] = i end
-- countUsedMemory's categories
local COUNT = {output = 'outputs', gradInput = 'gradInputs', buffer = 'buffers', state = 'buffers',
               param = 'params', gradParam = 'params'}

local named = view.named

local function pad(s, w, right)
  s = tostring(s)
  if #s >= w then return s end
  return right and (string.rep(' ', w - #s) .. s) or (s .. string.rep(' ', w - #s))
end

local function printTable(r, out)
  local cols = {{'name'}, {'category'}, {'size'}, {'bytes', true}, {'first', true}, {'last', true},
                {'storage', true}, {'offset', true}}
  local cells = {}
  for i, row in ipairs(r.rows) do
    cells[i] = {row.name, row.category, row.size, view.bytes(row.bytes), row.first or '-', row.last or '-',
                row.storage, view.bytes(row.offset)}
  end
  local w = {}
  for c, col in ipairs(cols) do
    w[c] = #col[1]
    for _, cl in ipairs(cells) do w[c] = math.max(w[c], #tostring(cl[c])) end
  end
  local function line(cl)
    local parts = {}
    for c, col in ipairs(cols) do parts[c] = pad(cl[c], w[c], col[2]) end
    out:write(table.concat(parts, '  '), '\n')
  end
  local head = {}
  for c, col in ipairs(cols) do head[c] = col[1] end
  line(head)
  for _, cl in ipairs(cells) do line(cl) end
  out:write('\ntotals (each byte of a storage counted once):\n')
  for _, c in ipairs(CATEGORIES) do
    if r.tensors[c] > 0 then
      out:write(string.format('  %-10s %5d tensors  %12s\n', c, r.tensors[c], view.bytes(r.totals[c])))
    end
  end
  out:write(string.format('  %-10s %5d tensors  %12s\n', 'all', #r.rows, view.bytes(r.totals.all)))
  if (r.counts.optimState or 0) > 0 then
    out:write(string.format('  %-10s (optimizer state, held by optnet.trainStep)  %s\n', 'optimState',
      view.bytes(r.counts.optimState)))
  end
end

-- totals: the union of the blocks, per category and over all; tensors per
-- category; the figures of countUsedMemory
local function totalsOf(rows, net)
  local function union(pred)
    local ranges = {}
    for _, row in ipairs(rows) do
      if pred(row) then
        local r = ranges[row.storageId] or {}
        ranges[row.storageId] = r
        r[#r + 1] = {row.block[1], row.block[2]}
      end
    end
    return view.unionBytes(ranges)
  end
  local totals, tensors = {}, {}
  for _, c in ipairs(CATEGORIES) do
    totals[c] = union(function(row) return row.category == c end)
    tensors[c] = 0
  end
  for _, row in ipairs(rows) do tensors[row.category] = tensors[row.category] + 1 end
  totals.all = union(function() return true end)
  local counts = {}
  for _, k in ipairs{'outputs', 'gradInputs', 'buffers', 'params'} do
    counts[k] = union(function(row) return COUNT[row.category] == k end)
  end
  counts.state = totals.state
  counts.grads = union(function(row) return row.category == 'gradParam' end)
  -- a training step's optimizer state (optnet.trainStep): outside the net's fields
  counts.optimState = require('optnet.step').stateBytes(net)
  return totals, tensors, counts
end

local function report(net, input, opts)
  view.checkNet('report', net)
  view.checkInput('report', input)
  local o = view.checkOpts('report', opts, KNOWN)
  if o.out ~= nil and io.type(o.out) ~= 'file' then
    view.fail('report', 'opts.out must be an open file, got %s', torch.type(o.out))
  end
  local mode = view.mode('report', net, o)
  local state = view.current(net, input)
  local bindingOf = view.bindings(state)
  local number = view.storageNumbers(net, input)
  local paths = view.paths(net)
  local modules = walk.modules(net)

  local rec = view.sideEffectFree(net, function() return trace.run(net, input, mode) end)
  -- intervals as the plan sees them (the net's results live to the end)
  local entryOf = {}
  if not state then
    for _, e in ipairs(plan.intervals(rec, net, input, {mode = mode}).entries) do entryOf[e.id] = e end
  end
  local stepsOf = {}
  for s, st in ipairs(rec.steps) do
    local r = stepsOf[st.module]
    if not r then stepsOf[st.module] = {s, s} else r[2] = s end
  end

  local rows, rowOf = {}, {}
  local function lifetime(t, category, m)
    local b = bindingOf[t]
    if b then return b.entry.first, b.entry.last end
    if category == 'param' or category == 'gradParam' or category == 'state' then
      local r = stepsOf[m]
      if r then return r[1], r[2] end
      return nil
    end
    local id = t:_storageId()
    local e = entryOf[id] or rec.storages[id]
    if e then return e.first, e.last end
    return nil
  end
  local function add(t, name, category, m, order)
    local id, lo, hi = view.block(t, bindingOf)
    if not id then return end
    local first, last = lifetime(t, category, m)
    local row = {name = name, category = category, module = m and torch.typename(m) or nil,
                 size = view.sizeString(t), bytes = t:nElement() * view.elementSize(t),
                 first = first, last = last, storage = number(id), offset = (t:storageOffset() - 1) * view.elementSize(t),
                 block = {lo, hi}, storageId = id, aliases = {}, order = order}
    rows[#rows + 1] = row
    rowOf[t] = row
  end

  -- the category of a tensor: its role where first seen in net order (as
  -- countUsedMemory counts it); its name: where a leaf module holds it
  local roleOf, index = {}, {}
  for i, m in ipairs(modules) do
    index[m] = i
    walk.moduleTensors(m, function(t, role) if not roleOf[t] then roleOf[t] = role end end)
  end
  local function visit(m)
    view.moduleTensors(m, paths[m], function(t, _, name)
      if rowOf[t] then
        table.insert(rowOf[t].aliases, name)
      else
        add(t, name, roleOf[t], m, {index[m], RANK[roleOf[t]], name})
      end
    end)
  end
  for _, m in ipairs(modules) do if type(m.modules) ~= 'table' then visit(m) end end
  for _, m in ipairs(modules) do if type(m.modules) == 'table' then visit(m) end end
  named(input, 'input', function(t, name)
    if rowOf[t] then table.insert(rowOf[t].aliases, name) else add(t, name, 'input', nil, {0, 0, name}) end
  end)
  table.sort(rows, function(a, b)
    for k = 1, 2 do if a.order[k] ~= b.order[k] then return a.order[k] < b.order[k] end end
    return a.order[3] < b.order[3]
  end)

  local totals, tensors, counts = totalsOf(rows, net)
  for _, row in ipairs(rows) do row.order = nil end

  local r = {rows = rows, totals = totals, tensors = tensors, counts = counts, mode = mode, nSteps = rec.nSteps}
  if o.print ~= false then printTable(r, o.out or io.stdout) end
  return r
end

-- report.print(r[, file]): prints a report's table again
return setmetatable({print = function(r, out) printTable(r, out or io.stdout) end},
                    {__call = function(_, ...) return report(...) end})
