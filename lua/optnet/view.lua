-- optnet.view: what graphgen, timeline and report share: argument checks,
-- running a net without changing it, short names for storages and modules,
-- the memory block a tensor occupies, byte formatting.
local walk = require 'optnet.walk'
local apply = require 'optnet.apply'

local view = {}

-- an error blamed on the caller of the public function fname: view.fail
-- from that function itself, fail from the checks below it
-- optnet's own folder: errors point past its frames
local here = debug.getinfo(1, 'S').source:match('^@(.*/)')

-- the error level, counted from a fail helper that calls error, of the
-- first caller outside optnet's files: a message names the user's line
-- however deep in optnet the check ran (C frames, pcall's, are passed)
function view.callerLevel()
  -- getinfo's level 1 is this function, 2 the fail helper (error's 1)
  for l = 3, 60 do
    local info = debug.getinfo(l, 'S')
    if not info then return 1 end
    if info.what ~= 'C' and not (here and info.source:sub(2, #here + 1) == here) then return l - 1 end
  end
  return 1
end

function view.fail(fname, fmt, ...)
  error(string.format('optnet.%s: ' .. fmt, fname, ...), view.callerLevel())
end
local fail = view.fail

function view.checkNet(fname, net)
  if type(net) ~= 'table' or not torch.isTypeOf(net, 'nn.Module') then
    fail(fname, 'nn.Module expected as argument 1, got %s', torch.type(net))
  end
end

function view.checkInput(fname, input)
  local ok = torch.isTensor(input)
  if not ok and type(input) == 'table' and not torch.typename(input) then
    ok = true
    walk.tensors(input, function() end)
    if next(input) == nil then ok = false end
  end
  if not ok then
    fail(fname, 'input (a tensor or a table of tensors) expected as argument 2, got %s', torch.type(input))
  end
end

-- checks opts against the keys `known` (a set) accepts, plus the
-- optimizeMemory options when withOptimize; returns a copy (never nil)
function view.checkOpts(fname, opts, known, withOptimize)
  if opts ~= nil and type(opts) ~= 'table' then
    fail(fname, 'options table expected as argument 3, got %s', type(opts))
  end
  local optnet = require 'optnet'
  local o = {}
  for k, v in pairs(opts or {}) do
    if not known[k] and not (withOptimize and optnet._isOption(k)) then
      fail(fname, "unknown option '%s'", tostring(k))
    end
    o[k] = v
  end
  return o
end

-- the mode to run in: opts.mode, else the mode the net is optimized for,
-- else inference. An inference-optimized net has no backward to run.
function view.mode(fname, net, o)
  local st = require('optnet')._state(net)
  local mode = o.mode or (st and st.opts.mode) or 'inference'
  if mode ~= 'inference' and mode ~= 'training' then
    fail(fname, "mode must be 'inference' or 'training', got %s", tostring(mode))
  end
  if st and st.opts.mode == 'inference' and mode == 'training' then
    fail(fname, "the net is optimized for inference (no backward to trace); "
      .. "call optnet.removeOptimization(net) first or use mode 'inference'")
  end
  return mode
end

-- the optimization state the pass will run with: an optimized net plans
-- again when the input's shape changes, so that is done first
function view.current(net, input)
  local optnet = require 'optnet'
  local st = optnet._state(net)
  if st and optnet._signature(input) ~= st.signature then
    optnet.optimizeMemory(net, input, st.opts)
    st = optnet._state(net)
  end
  return st
end

-- runs f() and puts back what a pass changes besides activations (batch
-- norm statistics, the random generator), even when f fails
function view.sideEffectFree(net, f)
  local restore = require('optnet')._snapshotState(walk.modules(net))
  local ok, a, b = pcall(f)
  restore()
  if not ok then error(a, 0) end
  return a, b
end

-- tensor -> its binding {t, entry, rel} in an optimized net
function view.bindings(state)
  local byTensor = {}
  if state then
    for _, b in ipairs(state.bindings) do byTensor[b.t] = b end
  end
  return byTensor
end

function view.elementSize(t)
  return apply.ESIZE[torch.typename(t)] or t:_storageBytes() // math.max(1, t:storage():size())
end

-- the memory block a tensor occupies: storage id, first byte, end byte.
-- A tensor the plan placed in an arena occupies its slot; any other
-- tensor its whole storage.
function view.block(t, bindingOf)
  local id = t:_storageId()
  if not id then return nil end
  local b = bindingOf[t]
  if b then return id, b.entry.offset, b.entry.offset + b.entry.bytes end
  return id, 0, t:_storageBytes()
end

-- calls f(tensor, name) for every tensor in v, table entries in key order
-- and named by key (name.key); the order pairs() gives changes when a
-- table's keys do, this one does not
local function named(v, name, f)
  if torch.isTensor(v) then return f(v, name) end
  if type(v) ~= 'table' or torch.typename(v) then return end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == 'number' or type(a) == 'string') then return a < b end
    return type(a) < type(b)
  end)
  for _, k in ipairs(keys) do named(v[k], name .. '.' .. tostring(k), f) end
end
view.named = named

-- calls f(tensor, role, name) for each tensor module m holds, in field order
function view.moduleTensors(m, prefix, f)
  local roles = {}
  walk.moduleTensors(m, function(_, role, field) roles[field] = role end)
  local fields = {}
  for k in pairs(roles) do fields[#fields + 1] = k end
  table.sort(fields)
  for _, k in ipairs(fields) do
    named(m[k], prefix .. '.' .. k, function(t, name) f(t, roles[k], name) end)
  end
end

-- short storage numbers (1, 2, ...) in a fixed order: the input's, then
-- each module's tensors in net order; ids seen later get the next numbers
function view.storageNumbers(net, input)
  local num, n = {}, 0
  local function number(id)
    if not num[id] then n = n + 1; num[id] = n end
    return num[id]
  end
  local function visit(t)
    local id = t:_storageId()
    if id then number(id) end
  end
  named(input, 'input', visit)
  for _, m in ipairs(walk.modules(net)) do view.moduleTensors(m, '', visit) end
  return function(id) return id and number(id) end
end

-- module -> path ('features.3'; the root is 'net')
function view.paths(net)
  local p = walk.paths(net)
  local names = {}
  for m, s in pairs(p) do names[m] = s == '' and 'net' or s end
  return names
end

function view.typeName(m)
  return (torch.typename(m) or torch.type(m)):gsub('^nn%.', '')
end

-- the short kind a module is named by in readable names ('conv', 'bn')
local SHORT = {
  SpatialConvolution = 'conv', SpatialConvolutionMM = 'conv', SpatialDilatedConvolution = 'conv',
  SpatialFullConvolution = 'deconv', VolumetricConvolution = 'conv', TemporalConvolution = 'conv',
  SpatialBatchNormalization = 'bn', BatchNormalization = 'bn', VolumetricBatchNormalization = 'bn',
  ReLU = 'relu', Linear = 'fc', SpatialMaxPooling = 'maxpool', SpatialAveragePooling = 'avgpool',
  CAddTable = 'add', Dropout = 'dropout', SpatialDropout = 'dropout', View = 'view', Reshape = 'view',
  LogSoftMax = 'logsoftmax', SoftMax = 'softmax', Identity = 'identity', JoinTable = 'join',
  Concat = 'concat', DepthConcat = 'concat', ConcatTable = 'branches', Sequential = 'seq',
  SpatialCrossMapLRN = 'lrn', LookupTable = 'embedding', MulConstant = 'mul',
}

-- module -> a readable name: the names modules were given (setName)
-- joined through their named containers, other modules named by their
-- kind and count within the nearest named container, unnamed containers
-- being transparent: 'layer3.block2.conv1' is the first convolution of a
-- container named block2 inside one named layer3. The root is its own
-- name or 'net'. A module met twice keeps its first name. Second result:
-- module -> its scope, the readable name of its nearest named container
-- ('' for the root's).
function view.names(net)
  local names, scopes = {}, {}
  local function short(m)
    local t = view.typeName(m)
    return SHORT[t] or t:gsub('^Spatial', ''):gsub('^%u', string.lower)
  end
  local function rec(m, scope, counters)
    if type(m.modules) ~= 'table' then return end
    for _, c in ipairs(m.modules) do
      if names[c] == nil then
        scopes[c] = scope
        if type(c.name) == 'string' then
          names[c] = scope == '' and c.name or (scope .. '.' .. c.name)
          rec(c, names[c], {})
        else
          local s = short(c)
          counters[s] = (counters[s] or 0) + 1
          local own = s .. counters[s]
          names[c] = scope == '' and own or (scope .. '.' .. own)
          rec(c, scope, counters)
        end
      end
    end
  end
  names[net] = type(net.name) == 'string' and net.name or 'net'
  scopes[net] = ''
  rec(net, '', {})
  return names, scopes
end

function view.sizeString(t)
  if t:dim() == 0 then return 'empty' end
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return table.concat(s, 'x')
end

-- the unit a set of byte counts up to `max` reads best in
function view.unit(max)
  if max >= 2^30 then return 'GiB', 2^30
  elseif max >= 2^20 then return 'MiB', 2^20
  elseif max >= 2^10 then return 'KiB', 2^10 end
  return 'B', 1
end

function view.bytes(n)
  local u, d = view.unit(n)
  if d == 1 then return string.format('%d B', n) end
  return string.format('%.2f %s', n / d, u)
end

-- the union of [lo, hi) ranges per storage id, in bytes
view.unionBytes = require('optnet.count').unionBytes

return view
