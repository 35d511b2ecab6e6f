-- dataparallel: data-parallel training over MPI ranks (docs/mpi.md).
--   local dp = require 'dataparallel'
--   local trainer = dp.new(net, {optim = optim.sgd, config = {learningRate = 0.1},
--                                shard = 'none' | 'optim' | 'grad', bucketMB = 25})
--   local loss = trainer:step(feval)   -- feval runs forward/backward, returns the loss
-- At dp.new, rank 0's parameters are broadcast to every rank. During
-- feval's backward, the gradients are averaged across ranks in buckets
-- (contiguous ranges of the flat gradient, about bucketMB each, in backward
-- order): a bucket's nonblocking reduction starts as soon as the last module
-- whose gradient lies in it finished accGradParameters, so communication
-- overlaps the rest of the backward. trainer:step then waits and runs the
-- optim method.
-- shard = 'none': every rank allreduces the whole gradient and updates all
--   parameters (optimizer state: all of it on every rank).
-- shard = 'optim' (ZeRO stage 1): the gradient is allreduced as above, but a
--   rank keeps optimizer state for its slice of the flat parameters only
--   (mpi.range's even split), updates that slice, and the slices are
--   all-gathered into every rank's parameters.
-- shard = 'grad' (ZeRO stage 2): each bucket is reduce-scattered instead, so
--   the averaged gradient exists only as the rank's slice (1/R of it); then
--   as 'optim'. (The modules' own gradient accumulators stay whole: nn's
--   accGradParameters writes into them.)
-- The trainer hooks the net's forward and the accGradParameters of the
-- modules with parameters (nn.Module:hook: never saved or cloned), so
-- optnet's own hooks and recompute (which re-runs forwards and calls the
-- modules' backward) compose with them.
require 'torch'
local mpi = require 'mpi'

local dp = {}
local Trainer = {}
Trainer.__index = Trainer
Trainer.__name = 'dataparallel.Trainer'

local SHARDS = {none = true, optim = true, grad = true}

local function fail(fname, fmt, ...)
  error(fname .. ': ' .. string.format(fmt, ...), 3)
end

-- the leaf modules holding parameters, with the range [lo, hi) (0-based,
-- elements) their gradients take in the flat gradient
local function units(net, grads)
  local byKey, list = {}, {}
  local base = grads:storageOffset()
  for _, m in ipairs(net:listModules()) do
    if type(m.modules) ~= 'table' then
      local _, gs = m:parameters()
      if gs and #gs > 0 then
        local lo, hi = math.huge, -1
        for _, g in ipairs(gs) do
          if g:nElement() > 0 then
            if g:storage() ~= grads:storage() then
              fail('dataparallel.new', 'a gradient of %s is outside the flat gradient (net:getParameters() was called on a part only?)',
                   torch.typename(m))
            end
            local o = g:storageOffset() - base
            lo, hi = math.min(lo, o), math.max(hi, o + g:nElement())
          end
        end
        if hi > lo then
          local key = lo .. ':' .. hi
          local u = byKey[key]
          if not u then
            u = {lo = lo, hi = hi, modules = {}}
            byKey[key] = u
            list[#list + 1] = u
          end
          u.modules[#u.modules + 1] = m
        end
      end
    end
  end
  -- backward order: the last parameters first
  table.sort(list, function(a, b) return a.lo > b.lo end)
  return list
end

-- buckets tiling [0, n) from the end, each of about capElems elements, each
-- made of whole units; a unit overlapping its neighbour joins its bucket
local function buckets(list, n, capElems)
  local out, cur = {}, nil
  local hi = n
  for _, u in ipairs(list) do
    if cur and hi - cur.lo >= capElems and u.hi <= cur.lo then
      cur.hi, hi = hi, cur.lo
      out[#out + 1] = cur
      cur = nil
    end
    cur = cur or {lo = u.lo, units = {}}
    cur.lo = math.min(cur.lo, u.lo)
    cur.units[#cur.units + 1] = u
  end
  if cur then
    cur.hi = hi
    out[#out + 1] = cur
  end
  if #out == 0 then out[1] = {lo = 0, hi = n, units = {}} end
  out[#out].lo = 0
  for i, b in ipairs(out) do
    b.index = i
    b.nmodules = 0
    for _, u in ipairs(b.units) do
      u.bucket = b
      b.nmodules = b.nmodules + #u.modules
    end
  end
  return out
end

-- rank r's part of [lo, hi) under the even split of n: counts for every rank
local function splitCounts(lo, hi, n, R)
  local counts = {}
  for r = 0, R - 1 do
    local a, b = r * n // R, (r + 1) * n // R
    counts[r + 1] = math.max(0, math.min(b, hi) - math.max(a, lo))
  end
  return counts
end
dp._splitCounts = splitCounts  -- dataparallel.step splits its buckets the same way

-- what must be the same on every rank for the ranks to call the same
-- collectives on buffers of the same sizes: the parameters' shapes, types
-- and order, the batch normalisations' statistics, the options that choose
-- the collectives (dataparallel.agree.layout compares it)
local function layout(net, extra)
  local ps = net:parameters() or {}
  local desc = {{'the number of parameter tensors', tostring(#ps)}}
  for i, p in ipairs(ps) do
    desc[#desc + 1] = {'parameter ' .. i, table.concat(p:size():totable(), 'x') .. ' ' .. torch.typename(p)}
  end
  local total = 0
  for _, p in ipairs(ps) do total = total + p:nElement() end
  desc[#desc + 1] = {'the number of parameter elements', tostring(total)}
  local bns = require('dataparallel.batchnorm').list(net)
  desc[#desc + 1] = {'the number of batch normalisations', tostring(#bns)}
  for i, b in ipairs(bns) do
    desc[#desc + 1] = {'the running mean of batch normalisation ' .. i,
                       b.running_mean:nElement() .. ' ' .. torch.typename(b.running_mean)}
    desc[#desc + 1] = {'the running variance of batch normalisation ' .. i,
                       b.running_var:nElement() .. ' ' .. torch.typename(b.running_var)}
  end
  for _, kv in ipairs(extra) do desc[#desc + 1] = kv end
  return desc
end
dp._layout = layout  -- dataparallel.step describes its nets the same way

-- dp.new's checks and set-up on this rank: no collective (so a failure
-- here can be agreed on before any)
local function prepare(net, opts)
  opts = opts or {}
  if type(net) ~= 'table' or type(net.getParameters) ~= 'function' then
    fail('dataparallel.new', 'an nn module expected as argument #1, got %s', torch.typename(net) or type(net))
  end
  if type(opts) ~= 'table' then fail('dataparallel.new', 'an options table expected, got %s', type(opts)) end
  local shard = opts.shard or 'none'
  if not SHARDS[shard] then
    fail('dataparallel.new', "shard should be 'none', 'optim' or 'grad', got %s", tostring(shard))
  end
  local bucketMB = opts.bucketMB or 25
  if type(bucketMB) ~= 'number' or bucketMB <= 0 then
    fail('dataparallel.new', 'bucketMB should be a number > 0, got %s', tostring(bucketMB))
  end
  if opts.syncBatchNorm ~= nil and type(opts.syncBatchNorm) ~= 'boolean' then
    fail('dataparallel.new', 'syncBatchNorm should be a boolean, got %s', type(opts.syncBatchNorm))
  end
  local method = opts.optim or require('optim').sgd
  if type(method) ~= 'function' then fail('dataparallel.new', 'optim should be a function, got %s', type(method)) end

  local self = setmetatable({}, Trainer)
  self.net, self.shard, self.method = net, shard, method
  self.config = opts.config or {}
  self.state = {}
  self.rank, self.size = mpi.rank(), mpi.size()
  self.params, self.grads = net:getParameters()
  local n = self.params and self.params:nElement() or 0
  if n == 0 then fail('dataparallel.new', 'the net (%s) has no parameters to train', torch.typename(net)) end
  self.n = n
  self.steps = 0
  self.syncBatchNorm = opts.syncBatchNorm or false
  self.bns = require('dataparallel.batchnorm').list(net)
  local cap = math.max(1, math.floor(bucketMB * 2^20 / self.grads:elementSize()))
  self.buckets = buckets(units(net, self.grads), n, cap)
  self.layout = layout(net, {
    {'option shard', shard}, {'option syncBatchNorm', tostring(self.syncBatchNorm)},
    {'the number of gradient buckets', tostring(#self.buckets)}})
  for i, b in ipairs(self.buckets) do
    self.layout[#self.layout + 1] = {'gradient bucket ' .. i, b.lo .. '..' .. b.hi}
  end
  return self
end

-- dp.new(net, opts): see the file head. opts.optim (default optim.sgd),
-- opts.config (the optim config), opts.shard, opts.bucketMB (default 25).
-- Every rank calls it; a failure on any rank raises on every rank, and so
-- do nets or options that differ across ranks (what differs is named).
function dp.new(net, opts)
  if not mpi.initialized() then mpi.init() end
  local agree = require 'dataparallel.agree'
  local self = agree.run(prepare, net, opts)
  agree.layout('dataparallel.new', self.layout)
  local n, shard = self.n, self.shard
  mpi.broadcast(self.params, 0)
  for _, b in ipairs(self.bns) do
    mpi.broadcast(b.running_mean, 0)
    mpi.broadcast(b.running_var, 0)
  end
  -- this rank's slice of the flat parameters (sharded modes)
  self.first, self.count = mpi.range(n)
  if shard ~= 'none' then
    self.pslice = self.params:narrow(1, self.first, self.count)
  end
  if shard == 'grad' then
    self.gshard = self.grads.new(self.count):zero()
    local a = self.first - 1
    for _, b in ipairs(self.buckets) do
      b.counts = splitCounts(b.lo, b.hi, n, self.size)
      local mine = b.counts[self.rank + 1]
      if mine > 0 then
        b.recv = self.gshard:narrow(1, math.max(b.lo, a) - a + 1, mine)
      else
        b.recv = self.grads.new()
      end
    end
  end
  self:_hook()
  return self
end

function Trainer:_start(b)
  local send = self.grads:narrow(1, b.lo + 1, b.hi - b.lo)
  if self.shard == 'grad' then
    b.req = mpi.ireducescatter(b.recv, send, 'sum', b.counts)
  else
    b.req = mpi.iallreduce(send)
  end
  b.started = true
end

-- starts the ready buckets in index order (every rank starts the same
-- collectives in the same order, as MPI requires)
function Trainer:_advance()
  local bs = self.buckets
  while self.next <= #bs and bs[self.next].pending == 0 do
    self:_start(bs[self.next])
    self.next = self.next + 1
  end
  self:_progress()
end

-- Open MPI moves a nonblocking collective on only inside MPI calls: a test
-- of each bucket in flight, after each module's backward, keeps them going
function Trainer:_progress()
  local bs = self.buckets
  for i = 1, self.next - 1 do
    local r = bs[i].req
    if r then r:test() end
  end
end

function Trainer:_hook()
  -- gradients computed inside the net's forward are not the step's: optnet
  -- re-plans a net for a new input shape in its forward, tracing a backward
  local trainer = self
  local leave = setmetatable({}, {__close = function() trainer.inForward = trainer.inForward - 1 end})
  self.inForward = 0
  self.hooks = {}
  self.hooks[#self.hooks + 1] = self.net:hook('forward', function(nextf, net, ...)
    trainer.inForward = trainer.inForward + 1
    local _ <close> = leave
    return nextf(net, ...)
  end)
  for _, b in ipairs(self.buckets) do
    for _, u in ipairs(b.units) do
      for _, m in ipairs(u.modules) do
        self.hooks[#self.hooks + 1] = m:hook('accGradParameters', function(nextf, mod, input, gradOutput, scale)
          nextf(mod, input, gradOutput, scale)
          if trainer.inStep and trainer.inForward == 0 and trainer.seen[mod] and b.started then
            -- its gradient is in flight (or was averaged): adding to it now
            -- would be lost on some ranks, or race with MPI
            error(string.format('trainer:step: %s accumulated its gradient again after its bucket was sent '
              .. '(one backward per step; a module used twice in a net is not supported)', torch.typename(mod)), 2)
          end
          if trainer.inStep and trainer.inForward == 0 and not trainer.seen[mod] then
            trainer.seen[mod] = true
            b.pending = b.pending - 1
            if b.pending == 0 then
              trainer:_advance()
            elseif trainer.next > 1 then
              trainer:_progress()
            end
          end
        end)
      end
    end
  end
end

-- trainer:step(feval): feval() runs forward and backward of the net on this
-- rank's batch (gradients zeroed by the trainer first) and returns the loss;
-- then the averaged gradient updates the parameters. Returns feval's loss.
-- A failure on one rank (feval raised, or was not a function): that rank
-- still completes the step's reductions (with the gradients it has), then
-- every rank raises its message before any update, so the ranks stay in
-- step and keep the same parameters (one small collective per step).
function Trainer:step(feval)
  if self.broken then
    -- set on every rank alike (an agreed error): no collective is skipped apart
    error('trainer:step: an earlier step failed in the optim method, so the ranks may hold different parameters; '
          .. 'resume from a checkpoint first (the error was: ' .. self.broken .. ')', 2)
  end
  local ok, loss = type(feval) == 'function', nil
  if not ok then loss = 'trainer:step: a function expected, got ' .. type(feval) end
  local R = self.size
  self.grads:zero()
  for _, b in ipairs(self.buckets) do b.pending, b.started, b.req = b.nmodules, false, nil end
  self.next, self.seen = 1, {}
  if ok then
    self.inStep = true
    ok, loss = pcall(feval)
    self.inStep = false
  end
  -- modules that ran no backward this step: their buckets start now
  for _, b in ipairs(self.buckets) do b.pending = 0 end
  self:_advance()
  local t0 = mpi.wtime()
  for _, b in ipairs(self.buckets) do b.req:wait(); b.req = nil end
  -- the reduction not hidden behind the backward (seconds, this step)
  self.waitTime = mpi.wtime() - t0
  require('dataparallel.agree').check(ok, loss)
  local x, g
  if self.shard == 'none' then
    x, g = self.params, self.grads:div(R)
  elseif self.shard == 'optim' then
    x, g = self.pslice, self.grads:narrow(1, self.first, self.count):div(R)
  else
    x, g = self.pslice, self.gshard:div(R)
  end
  -- the method failing on one rank: the others have updated, it has not
  -- (or half): every rank raises, and refuses further steps until a resume
  local mok, merr = true, nil
  if x:nElement() > 0 then
    mok, merr = pcall(self.method, function() return loss, g end, x, self.config, self.state)
  end
  if self.shard ~= 'none' then mpi.allgather(self.params) end
  if self.syncBatchNorm then require('dataparallel.batchnorm').sync(self.bns) end
  local agreed, why = pcall(require('dataparallel.agree').check, mok, merr)
  if not agreed then
    self.broken = why
    error(why, 0)
  end
  self.steps = self.steps + 1
  return loss
end

-- bytes of optimizer state this rank holds: the storages under the
-- tensors of trainer.state, each counted once, whole (a view does not hide
-- a bigger storage)
function Trainer:stateBytes()
  local bytes, seen = 0, {}
  for _, v in pairs(self.state) do
    local s = torch.isTensor(v) and v:storage()
    if s and not seen[s] then
      seen[s] = true
      bytes = bytes + s:size() * v:elementSize()
    end
  end
  return bytes
end

-- the fields of optim's elementwise methods that hold one value per
-- parameter (rprop's sign masks are bytes) and those that hold a number:
-- checked on resume (per-parameter fields: in checkpoints that do not
-- list theirs)
local PER_PARAMETER, BYTES, NUMBERS = {}, {}, {}
for _, k in ipairs{'m', 'v', 'denom', 'u', 'dfdx', 'deltaParameters', 'decayParameters', 'paramVariance',
                   'paramStd', 'delta', 'accDelta', 'ax', 'tmp', 'stepsize', 'sign', 'psign', 'nsign', 'zsign',
                   'dminmax'} do
  PER_PARAMETER[k] = true
end
for _, k in ipairs{'psign', 'nsign', 'zsign', 'dminmax'} do BYTES[k] = true end
for _, k in ipairs{'t', 'evalCounter', 'eta_t', 'mu_t', 'funcEval', 'nIter'} do NUMBERS[k] = true end
-- adamax's buffer of 2 values per parameter, overwritten before each use
-- and rebuilt when missing: sharded, its shape is the rank's slice's
local SCRATCH = {max = true}

local function keyname(k)
  return type(k) == 'string' and k or '[' .. tostring(k) .. ']'
end

-- the whole optimizer state (a collective: every rank calls it) and the
-- fields holding one value per parameter, with their types. Sharded: the
-- ranks first exchange which fields they hold and of what kind (a field
-- is a slice when it is a tensor of the rank's slice length); the slices
-- are then gathered field by field in an order every rank computed from
-- the same exchanged lists, never from its own state alone (a rank whose
-- slice is empty ran no optimizer and holds no field). The other fields
-- come from the first rank with a non-empty slice.
function Trainer:_fullState()
  local fname = 'trainer:checkpoint'
  local agree = require 'dataparallel.agree'
  if self.shard == 'none' then
    return agree.run(function()
      require('dataparallel.checkpoint').fault('checkpoint.state')
      local sliced = {}
      for k, v in pairs(self.state) do
        if torch.isTensor(v) and v:dim() == 1 and v:nElement() == self.n then sliced[k] = torch.typename(v) end
      end
      return self.state, sliced
    end)
  end
  local R = self.size
  local src = 0
  while select(2, mpi.range(self.n, src)) == 0 do src = src + 1 end
  local mine = agree.run(function()
    require('dataparallel.checkpoint').fault('checkpoint.state')
    local d = {count = self.count, fields = {}}
    for k, v in pairs(self.state) do
      if SCRATCH[k] and torch.isTensor(v) then
        -- shaped by this rank's slice, rebuilt when missing: not saved
      elseif torch.isTensor(v) and v:dim() == 1 and v:nElement() == self.count then
        d.fields[k] = {slice = torch.typename(v)}
      else
        d.fields[k] = {value = self.rank == src and v or nil}
      end
    end
    return torch.serialize(d)
  end)
  local descs = agree.strings(mine)
  -- the fields, their kinds: the same computation on every rank
  local kinds, values, keys, problem = {}, {}, {}, nil
  for r = 1, R do
    local d = torch.deserialize(descs[r])
    if d.count > 0 then
      for k, f in pairs(d.fields) do
        local kind = f.slice and 'a slice (' .. f.slice .. ')' or 'a value'
        if kinds[k] == nil then
          kinds[k] = {kind = kind, slice = f.slice, rank = r - 1}
          keys[#keys + 1] = k
        elseif kinds[k].kind ~= kind and not problem then
          problem = string.format("%s: the ranks' optimizer states differ: field %s is %s on rank %d, %s on rank %d",
                                  fname, keyname(k), kinds[k].kind, kinds[k].rank, kind, r - 1)
        end
        if r - 1 == src and not f.slice then values[k] = f.value end
      end
    end
  end
  for r = 1, R do
    local d = torch.deserialize(descs[r])
    if d.count > 0 and not problem then
      for _, k in ipairs(keys) do
        if d.fields[k] == nil then
          problem = string.format("%s: the ranks' optimizer states differ: rank %d has no field %s, rank %d has",
                                  fname, r - 1, keyname(k), kinds[k].rank)
          break
        end
      end
    end
  end
  if problem then error(problem, 0) end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local full, sliced = {}, {}
  for _, k in ipairs(keys) do
    if kinds[k].slice then
      local T = torch.getmetatable(kinds[k].slice)
      full[k] = T.new(self.n)
      local v = self.state[k]
      mpi.allgather(full[k], self.count > 0 and v:contiguous() or T.new())
      sliced[k] = kinds[k].slice
    else
      full[k] = values[k]
    end
  end
  return full, sliced
end

-- the batch-normalisation running statistics averaged across ranks (a
-- collective), in net:listModules() order, as copies: what a checkpoint saves
function Trainer:_runningStats()
  local out = {}
  for _, b in ipairs(self.bns) do
    local m, v = b.running_mean:clone(), b.running_var:clone()
    require('dataparallel.batchnorm').sync{{running_mean = m, running_var = v}}
    out[#out + 1] = {running_mean = m, running_var = v}
  end
  return out
end

-- trainer:checkpoint(path [, extra]): every rank calls it; rank 0 writes
-- {params, state (whole), sliced (the state's fields holding one value per
-- parameter: their types), running (the batch-normalisation running
-- statistics averaged across ranks), steps, shard, extra} with torch.save
-- (through a temporary file, renamed: a crash never leaves half a
-- checkpoint). A failure on any rank raises on every rank.
function Trainer:checkpoint(path, extra)
  local agree = require 'dataparallel.agree'
  agree.check(type(path) == 'string', 'trainer:checkpoint: a path expected, got ' .. type(path))
  local full, sliced = self:_fullState()
  local running = self:_runningStats()
  require('dataparallel.checkpoint').write('trainer:checkpoint', path, function()
    return {params = self.params, state = full, sliced = sliced, steps = self.steps, running = running,
            shard = self.shard, size = self.size, extra = extra}
  end)
end

-- why ck (read from path) does not fit this trainer, or nil
function Trainer:_misfit(path, ck)
  local function bad(fmt, ...) return path .. ': ' .. string.format(fmt, ...) end
  local n = self.n
  if type(ck) ~= 'table' or not torch.isTensor(ck.params) then
    return bad('not a checkpoint of dataparallel.new (no params tensor)')
  end
  if ck.params:nElement() ~= n then
    return bad('not a checkpoint of this net: field params holds %d elements, the net has %d parameters',
               ck.params:nElement(), n)
  end
  if ck.steps ~= nil and (math.type(ck.steps) ~= 'integer' or ck.steps < 0) then
    return bad('field steps should be an integer >= 0, got %s', tostring(ck.steps))
  end
  if ck.running ~= nil then
    if type(ck.running) ~= 'table' then return bad('field running should be a table, got %s', type(ck.running)) end
    if #ck.running ~= #self.bns then
      return bad('field running holds the statistics of %d batch normalisations, the net has %d',
                 #ck.running, #self.bns)
    end
    for i, b in ipairs(self.bns) do
      local r = ck.running[i]
      for _, f in ipairs{'running_mean', 'running_var'} do
        local t = type(r) == 'table' and r[f]
        if not torch.isTensor(t) or t:nElement() ~= b[f]:nElement() then
          return bad('field running[%d].%s should be a tensor of %d elements, got %s', i, f, b[f]:nElement(),
                     torch.isTensor(t) and t:nElement() .. ' elements' or torch.type(t))
        end
      end
    end
  end
  local state = ck.state
  if state == nil then return nil end
  if type(state) ~= 'table' or torch.typename(state) then
    return bad('field state should be a table (the optimizer state), got %s', torch.type(state))
  end
  local sliced = ck.sliced
  if sliced ~= nil and type(sliced) ~= 'table' then return bad('field sliced should be a table, got %s', type(sliced)) end
  local ptype = torch.typename(self.params)
  for k, v in pairs(state) do
    local want = sliced and sliced[k]
    if want == nil and sliced == nil and PER_PARAMETER[k] and torch.isTensor(v) then want = true end
    if NUMBERS[k] and type(v) ~= 'number' then
      return bad('field state.%s should be a number, got %s', keyname(k), torch.type(v))
    end
    if want then
      if not torch.isTensor(v) then
        return bad('field state.%s should be a tensor of %d elements (one per parameter), got %s', keyname(k), n,
                   torch.type(v))
      end
      if v:nElement() ~= n then
        return bad('field state.%s holds %d elements (size %s), the net has %d parameters', keyname(k),
                   v:nElement(), table.concat(v:size():totable(), 'x'), n)
      end
      -- optim's own fields: the parameters' type (rprop's masks: bytes);
      -- another method's: the type the checkpoint lists
      local wtype = PER_PARAMETER[k] and (BYTES[k] and 'torch.ByteTensor' or ptype)
                    or (type(want) == 'string' and want) or ptype
      if torch.typename(v) ~= wtype then
        return bad('field state.%s is a %s, %s expected', keyname(k), torch.typename(v), wtype)
      end
    end
  end
  for k in pairs(sliced or {}) do
    if state[k] == nil then return bad('field state.%s is missing (field sliced lists it)', keyname(k)) end
  end
  return nil
end

-- puts checkpoint ck (checked by _misfit) into this trainer: parameters,
-- running statistics, the optimizer state (this rank's slices of the
-- per-parameter fields when sharded, contiguous copies), steps
function Trainer:_apply(ck)
  self.params:copy(ck.params)
  for i, b in ipairs(ck.running and self.bns or {}) do
    b.running_mean:copy(ck.running[i].running_mean)
    b.running_var:copy(ck.running[i].running_var)
  end
  local per = ck.sliced or {}
  if not ck.sliced then
    for k, v in pairs(ck.state or {}) do
      if PER_PARAMETER[k] and torch.isTensor(v) then per[k] = true end
    end
  end
  self.state = {}
  for k, v in pairs(ck.state or {}) do
    if per[k] then
      local flat = v:contiguous():view(-1)
      self.state[k] = self.shard ~= 'none' and flat:narrow(1, self.first, self.count):clone() or flat
    elseif SCRATCH[k] and self.shard ~= 'none' then
      self.state[k] = nil   -- another slice's shape (older checkpoints): rebuilt by the method
    else
      self.state[k] = v
    end
  end
  self.steps = ck.steps or 0
end

-- trainer:resume(path): every rank calls it; rank 0 reads the checkpoint and
-- broadcasts it (no shared file system needed); every rank checks it
-- against its net (parameters, running statistics, the optimizer state's
-- per-parameter fields: sizes and types) before anything is changed.
-- Returns its 'extra'. A failure on any rank raises on every rank.
function Trainer:resume(path)
  local agree = require 'dataparallel.agree'
  local ckio = require 'dataparallel.checkpoint'
  agree.check(type(path) == 'string', 'trainer:resume: a path expected, got ' .. type(path))
  local ck = ckio.read('trainer:resume', path)
  agree.run(function()
    ckio.fault('resume.check')
    local why = self:_misfit(path, ck)
    if why then error('trainer:resume: ' .. why, 0) end
  end)
  agree.run(function()
    ckio.fault('resume.apply')
    self:_apply(ck)
  end)
  self.broken = nil
  return ck.extra
end

-- dp.shard(n [, opts]): this rank's sample indices (LongTensor, 1-based) for
-- one epoch of a data set of n samples: a permutation seeded by opts.seed
-- (default 1) and opts.epoch (default 1), the same on every rank without
-- touching the global generator, cut into global batches of size*opts.batch
-- (default batch 1); each rank takes its opts.batch-long part of each global
-- batch, so that R ranks at batch B see exactly the samples, in the order, a
-- single process at batch R*B sees. The last partial global batch is left
-- out: every rank runs the same number of steps.
function dp.shard(n, opts)
  opts = opts or {}
  if math.type(n) ~= 'integer' or n < 0 then fail('dataparallel.shard', 'a sample count >= 0 expected, got %s', tostring(n)) end
  local B = opts.batch or 1
  if math.type(B) ~= 'integer' or B < 1 then fail('dataparallel.shard', 'batch should be an integer >= 1, got %s', tostring(B)) end
  local R, r = opts.size or mpi.size(), opts.rank or mpi.rank()
  local gen = torch.Generator()
  torch.manualSeed(gen, (opts.seed or 1) * 100003 + (opts.epoch or 1))
  local perm = torch.randperm(gen, n):long()
  local steps = n // (R * B)
  local out = torch.LongTensor(steps * B)
  for s = 0, steps - 1 do
    if B > 0 then
      out:narrow(1, s * B + 1, B):copy(perm:narrow(1, s * R * B + r * B + 1, B))
    end
  end
  return out
end

-- dp.trainStep(net, criterion, input, opts): optnet.trainStep across ranks
-- (lua/dataparallel/step.lua)
function dp.trainStep(...)
  return require('dataparallel.step').new(...)
end

dp.Trainer = Trainer
return dp
