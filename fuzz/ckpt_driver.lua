-- ckpt_driver.lua: what fuzz_ckpt runs on each input (fuzz_load.c built
-- with this driver), and what spec/fuzz_regression_spec.lua runs on the
-- saved inputs in fuzz/regressions/ckpt/.
-- The reader of dataparallel's checkpoints (trainer:resume) past MPI: what
-- every rank does with the bytes rank 0 broadcast. A table, callable with
-- the input bytes. Byte 1 picks one of the fixture checkpoints below
-- (sharded or not, listing its per-parameter fields or, as older files,
-- not); the rest is a list of 4-byte flips as in modload_driver.lua. The
-- damaged file is decoded (load_driver.lua's rules), checked by
-- Trainer:_misfit, which must refuse it with a message naming the file or
-- accept it; an accepted one is put into the trainer (Trainer:_apply) and
-- the trainer's optimizer runs one step on it: an error there from Lua
-- itself ("attempt to ...") means the check let through something the
-- optimizer relies on.
-- MPI is not linked into the harness: dataparallel is loaded privately
-- (its own copy, whatever the process loaded before) with a stand-in
-- 'mpi' answering rank 1 of 2 (no collective is called on this path).
require 'torch'
require 'nn'
local optim = require 'optim'

local R, RANK = 2, 1
local function range(n, rank)
  rank = rank or RANK
  local lo, hi = rank * n // R, (rank + 1) * n // R
  return lo + 1, hi - lo
end
local mpi = {rank = function() return RANK end, size = function() return R end,
             initialized = function() return true end, range = range}
local private = {}
local function prequire(name)
  if name == 'mpi' then return mpi end
  if name == 'dataparallel' or name:find('^dataparallel%.') then
    if private[name] == nil then
      local path = assert(package.searchpath(name, package.path))
      private[name] = assert(loadfile(path, 't', setmetatable({require = prequire}, {__index = _G})))(name)
    end
    return private[name]
  end
  return require(name)
end
local dp = prequire('dataparallel')
local load = require 'fuzz.load_driver'

-- a trainer without dp.new (no collectives): the fields resume uses
local function trainer(net, shard)
  local t = setmetatable({net = net, shard = shard, method = optim.adam, config = {learningRate = 0.01},
                          state = {}, rank = RANK, size = R, steps = 0}, dp.Trainer)
  t.params, t.grads = net:getParameters()
  t.n = t.params:nElement()
  t.bns = prequire('dataparallel.batchnorm').list(net)
  t.first, t.count = range(t.n)
  t.pslice = shard ~= 'none' and t.params:narrow(1, t.first, t.count) or nil
  return t
end

local function net()
  torch.manualSeed(3)
  return nn.Sequential():add(nn.Linear(3, 4)):add(nn.BatchNormalization(4)):add(nn.Tanh()):add(nn.Linear(4, 1))
end

-- the checkpoints: adam's state after two steps, written as
-- trainer:checkpoint writes it; with and without the 'sliced' list
local function fixtures()
  local list = {}
  for _, shard in ipairs{'none', 'optim'} do
    for _, old in ipairs{false, true} do
      local t = trainer(net(), shard)
      local state = {}
      for s = 1, 2 do
        torch.manualSeed(10 + s)
        local g = torch.randn(t.n)
        optim.adam(function() return 1, g end, t.params, {learningRate = 0.01}, state)
      end
      local sliced = {}
      for k, v in pairs(state) do if torch.isTensor(v) then sliced[k] = torch.typename(v) end end
      local running = {}
      for _, b in ipairs(t.bns) do running[#running + 1] = {running_mean = b.running_mean, running_var = b.running_var} end
      list[#list + 1] = {shard = shard, bytes = torch.serialize({params = t.params, state = state,
        sliced = not old and sliced or nil, steps = 2, running = running, shard = shard, size = R,
        extra = {epoch = 1}})}
    end
  end
  return list
end

local cks = fixtures()

local internal = {'attempt to ', 'stack overflow', 'tensor was freed', 'a nil value'}
local function clean(where, err)
  local msg = tostring(err)
  for _, pat in ipairs(internal) do
    if msg:find(pat, 1, true) then error(where .. ': unclear error: ' .. msg, 0) end
  end
end

local function run(_, bytes)
  local f = cks[(bytes:byte(1) or 0) % #cks + 1]
  local file = f.bytes
  local n, flipped, keys = #file, {}, {}
  for i = 2, #bytes - 3, 4 do
    local a, b, c, v = bytes:byte(i, i + 3)
    local pos = (a * 65536 + b * 256 + c) % n + 1
    flipped[pos] = (flipped[pos] or 0) ~ v
  end
  for pos in pairs(flipped) do keys[#keys + 1] = pos end
  table.sort(keys)
  local parts, last = {}, 1
  for _, pos in ipairs(keys) do
    parts[#parts + 1] = file:sub(last, pos - 1)
    parts[#parts + 1] = string.char(file:byte(pos) ~ flipped[pos])
    last = pos + 1
  end
  parts[#parts + 1] = file:sub(last)
  local damaged = table.concat(parts)
  if not load('\0' .. damaged) then return false end
  local ck = torch.deserialize(damaged)
  local t = trainer(net(), f.shard)
  local ok, why = pcall(t._misfit, t, '<fuzz>', ck)
  if not ok then error('_misfit raised: ' .. tostring(why), 0) end
  if why ~= nil then
    if type(why) ~= 'string' or not why:find('^<fuzz>: ') then error('unclear refusal: ' .. tostring(why), 0) end
    return false
  end
  local applied, err = pcall(t._apply, t, ck)
  if not applied then
    clean('apply', err)
    return false
  end
  local x = t.shard == 'none' and t.params or t.pslice
  local g = x.new(x:nElement()):fill(0.5)
  local stepped, serr = pcall(t.method, function() return 1, g end, x, t.config, t.state)
  if not stepped then
    clean('step', serr)
    return false
  end
  return true
end

return setmetatable({nfixtures = #cks}, {__call = run})
