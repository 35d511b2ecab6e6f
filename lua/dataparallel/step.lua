-- dataparallel.step: optnet.trainStep across MPI ranks (docs/mpi.md,
-- "Whole-step planning across ranks").
--   local dp = require 'dataparallel'
--   local s = dp.trainStep(net, criterion, input, {method = optim.adam, config = {...},
--                          shard = 'none' | 'optim' | 'grad', bucketMB = 25,
--                          syncBatchNorm = false, ...optnet options})
--   local loss, out = s:step(input, target)
-- The gradients are those of optnet.trainStep: planned in the activation
-- arena, each alive from its first accumulation to the moment it is
-- complete. There onGradReady copies it into the bucket it falls in (a
-- range of the parameters' concatenation, in net:parameters() order, cut
-- at about bucketMB; a parameter may span buckets) and its arena slot is
-- free again. A full bucket starts its nonblocking reduction (buckets
-- start in the same order on every rank). A bucket whose reduction is
-- waited for (when a buffer is needed and two are in flight, or after
-- backward) updates the parts of the parameters it covers, and its buffer
-- goes back to the pool: gradient memory past the arena is the pool, a few
-- buckets, not the whole gradient.
-- shard = 'optim': buckets are all-reduced, each rank updates its slice of
--   the concatenation only (mpi.range's even split; optimizer state of that
--   slice only); parameters all-gathered after the step.
-- shard = 'grad': buckets are reduce-scattered into the rank's slice of the
--   gradient (1/R of it), then as 'optim'.
-- The optimizer's state is per part of a parameter (a bucket's part, or
-- the rank's part): optim's methods here are elementwise, so the numbers
-- are the whole-vector ones. optim.nag (its look-ahead needs the whole
-- state on every rank) is refused.
require 'torch'
require 'nn'
local mpi = require 'mpi'
local optnet = require 'optnet'

local M = {}
local DPStep = {}
DPStep.__index = DPStep
DPStep.__name = 'dataparallel.Step'

local SHARDS = {none = true, optim = true, grad = true}
local OWN = {shard = true, bucketMB = true, syncBatchNorm = true, inFlight = true}

local function fail(fmt, ...)
  error('dataparallel.trainStep: ' .. string.format(fmt, ...), 3)
end

local BN = require 'dataparallel.batchnorm'
M.batchNorms, M.syncBatchNorms = BN.list, BN.sync

-- buckets over [0, n) from the end, each capElems long (the first shorter);
-- bucket b covers the parts of the groups it overlaps
local function makeBuckets(groups, n, capElems)
  local out = {}
  local hi = n
  while hi > 0 do
    local lo = math.max(0, hi - capElems)
    local b = {lo = lo, hi = hi, index = #out + 1, parts = {}}
    for _, g in ipairs(groups) do
      local a, z = math.max(lo, g.lo), math.min(hi, g.hi)
      if z > a then
        b.parts[#b.parts + 1] = {group = g, lo = a, hi = z}
        g.buckets[#g.buckets + 1] = b
      end
    end
    out[#out + 1] = b
    hi = lo
  end
  return out
end

-- rank r's part of [lo, hi) under the even split of n, as dp.new splits
local counts = require('dataparallel')._splitCounts

-- M.new's checks of its arguments on this rank: no collective (so a
-- failure here can be agreed on before any)
local function checkArgs(net, opts)
  if opts ~= nil and type(opts) ~= 'table' then fail('options table expected as argument 4, got %s', type(opts)) end
  opts = opts or {}
  local shard = opts.shard or 'none'
  if not SHARDS[shard] then fail("option 'shard' should be 'none', 'optim' or 'grad', got %s", tostring(shard)) end
  local bucketMB = opts.bucketMB or 25
  if type(bucketMB) ~= 'number' or not (bucketMB > 0) then
    fail("option 'bucketMB' should be a number > 0, got %s", tostring(bucketMB))
  end
  local inFlight = opts.inFlight or 2
  if math.type(inFlight) ~= 'integer' or inFlight < 1 then
    fail("option 'inFlight' should be an integer >= 1, got %s", tostring(inFlight))
  end
  if opts.syncBatchNorm ~= nil and type(opts.syncBatchNorm) ~= 'boolean' then
    fail("option 'syncBatchNorm' should be a boolean, got %s", torch.type(opts.syncBatchNorm))
  end
  for _, k in ipairs{'onGradReady', 'onBackwardDone', 'twoPass', 'maxNorm', 'deferUpdates'} do
    if opts[k] ~= nil then fail("option '%s' is not available across ranks (the step object uses the hooks)", k) end
  end
  local m = opts.method
  if m == 'nag' or (m ~= nil and m == require('optim').nag) then
    fail('optim.nag is not supported across ranks (its look-ahead needs the whole momentum on every rank)')
  end
  if type(net) ~= 'table' or not torch.isTypeOf(net, 'nn.Module') then
    fail('nn.Module expected as argument 1, got %s', torch.type(net))
  end
  -- what decides the collectives: the same on every rank (agree.layout)
  return require('dataparallel')._layout(net, {
    {'option shard', shard}, {'option bucketMB', tostring(bucketMB)},
    {'option syncBatchNorm', tostring(opts.syncBatchNorm or false)}})
end

-- dp.trainStep(net, criterion, input, opts): see the file head. Every rank
-- calls it; a failure on any rank raises on every rank, and so do nets or
-- options that differ across ranks (what differs is named).
function M.new(net, criterion, input, opts)
  if not mpi.initialized() then mpi.init() end
  local agree = require 'dataparallel.agree'
  local desc = agree.run(checkArgs, net, opts)
  agree.layout('dataparallel.trainStep', desc)
  opts = opts or {}
  local self = setmetatable({net = net, shard = opts.shard or 'none', rank = mpi.rank(), size = mpi.size(),
                             syncBatchNorm = opts.syncBatchNorm or false, inFlight = opts.inFlight or 2,
                             pool = {}, poolBytes = 0, flight = {}, steps = 0}, DPStep)
  local shard, bucketMB = self.shard, opts.bucketMB or 25
  -- rank 0's parameters and running statistics everywhere
  for _, p in ipairs(net:parameters() or {}) do mpi.broadcast(p, 0) end
  self.bns = M.batchNorms(net)
  for _, b in ipairs(self.bns) do
    mpi.broadcast(b.running_mean, 0)
    mpi.broadcast(b.running_var, 0)
  end
  local stepOpts = {}
  for k, v in pairs(opts) do if not OWN[k] then stepOpts[k] = v end end
  stepOpts.deferUpdates = true
  stepOpts.onGradReady = function(i, grad) self:_ready(i, grad) end
  self.st = agree.run(optnet.trainStep, net, criterion, input, stepOpts)
  -- the groups laid end to end
  local n, why = 0, nil
  self.groups = {}
  for i, grp in ipairs(self.st.groups) do
    if not grp.param:isContiguous() and not why then why = string.format('parameter %d is not contiguous', i) end
    local k = grp.param:nElement()
    local flat = grp.param:isContiguous() and grp.param:view(-1) or nil
    self.groups[i] = {index = i, lo = n, hi = n + k, buckets = {}, flat = flat}
    n = n + k
  end
  if n == 0 then why = string.format('the net (%s) has no parameters to train', torch.type(net)) end
  if why then self.st:remove() end
  agree.check(not why, 'dataparallel.trainStep: ' .. tostring(why))
  self.n = n
  self.tname = self.st.groups[1].param:type()
  local T = torch.getmetatable(self.tname)
  self.new = function(k) return T.new(k) end
  self.elemBytes = T.new(1):elementSize()
  local cap = math.max(1, math.floor(bucketMB * 2^20 / self.elemBytes))
  self.cap = math.min(cap, n)
  self.buckets = makeBuckets(self.groups, n, self.cap)
  self.first, self.count = mpi.range(n)
  local mlo, mhi = self.first - 1, self.first - 1 + self.count
  for _, b in ipairs(self.buckets) do
    b.counts = counts(b.lo, b.hi, n, self.size)
    b.mlo, b.mhi = math.max(b.lo, mlo), math.min(b.hi, mhi)
  end
  if shard == 'grad' then self.gshard = self.new(math.max(self.count, 1)) end
  if shard ~= 'none' then
    for _, g in ipairs(self.groups) do g.counts = counts(g.lo, g.hi, n, self.size) end
  end
  return self
end

-- a bucket-sized buffer: a free one, or the oldest reduction in flight
-- finished to free its own, or a new one
function DPStep:_buffer()
  if #self.pool == 0 and #self.flight >= self.inFlight then self:_finish(table.remove(self.flight, 1)) end
  if #self.pool > 0 then return table.remove(self.pool) end
  self.poolBytes = self.poolBytes + self.cap * self.elemBytes
  return self.new(self.cap)
end

function DPStep:_ready(i, grad)
  local g = self.groups[i]
  local flat = grad:contiguous():view(-1)
  for _, b in ipairs(g.buckets) do
    if not b.buf then
      b.buf = self:_buffer()
      b.send = b.buf:narrow(1, 1, b.hi - b.lo)
    end
    for _, part in ipairs(b.parts) do
      if part.group == g then
        local k = part.hi - part.lo
        b.send:narrow(1, part.lo - b.lo + 1, k):copy(flat:narrow(1, part.lo - g.lo + 1, k))
        part.filled = true
      end
    end
    b.pending = b.pending - 1
    -- started at once when full: a parameter spanning many buckets holds
    -- only the buffers in flight
    if b.pending == 0 then self:_advance() end
  end
  -- Open MPI moves nonblocking collectives on only inside MPI calls
  for _, b in ipairs(self.flight) do b.req:test() end
end

-- starts the full buckets in index order (the same order on every rank)
function DPStep:_advance()
  local bs = self.buckets
  while self.next <= #bs and bs[self.next].pending == 0 do
    local b = bs[self.next]
    if self.shard == 'grad' then
      local recv = b.mhi > b.mlo and self.gshard:narrow(1, b.mlo - (self.first - 1) + 1, b.mhi - b.mlo) or self.new(0)
      b.req = mpi.ireducescatter(recv, b.send, 'sum', b.counts)
    else
      b.req = mpi.iallreduce(b.send)
    end
    self.flight[#self.flight + 1] = b
    self.next = self.next + 1
  end
  for _, b in ipairs(self.flight) do b.req:test() end
end

-- a bucket's reduction waited for; the parts of the parameters it covers
-- (this rank's parts when sharded) updated; its buffer back in the pool
function DPStep:_finish(b)
  b.req:wait()
  b.req = nil
  local R = self.size
  for _, part in ipairs(b.parts) do
    local g = part.group
    local lo, hi = part.lo, part.hi
    if self.shard ~= 'none' then lo, hi = math.max(lo, b.mlo), math.min(hi, b.mhi) end
    if hi > lo then
      local grad
      if self.shard == 'grad' then
        grad = self.gshard:narrow(1, lo - (self.first - 1) + 1, hi - lo)
      else
        grad = b.send:narrow(1, lo - b.lo + 1, hi - lo)
      end
      grad:div(R)
      self.st:update(g.index, grad, g.flat:narrow(1, lo - g.lo + 1, hi - lo), g.index .. ':' .. lo)
    end
  end
  self.pool[#self.pool + 1] = b.buf
  b.buf, b.send = nil, nil
end

-- s:step(input, target): one step on this rank's batch; every rank calls
-- it. Returns this rank's loss and output.
-- A failure on one rank (the step raised, or a bucket never filled): that
-- rank still completes the step's collectives, its missing gradients taken
-- as zero; then every rank raises its message. The buckets reduced during
-- the backward have updated their parts by then, on every rank alike: the
-- ranks stay in step with the same parameters (one small collective per
-- step).
function DPStep:step(input, target)
  for _, b in ipairs(self.buckets) do
    b.pending, b.req = #b.parts, nil
    for _, part in ipairs(b.parts) do part.filled = false end
  end
  self.next, self.flight = 1, {}
  local ok, loss, out = pcall(self.st.step, self.st, input, target)
  if ok and self.next <= #self.buckets then
    self:_advance()
    if self.next <= #self.buckets then
      ok, loss = false, string.format('dataparallel.trainStep: bucket %d of %d never filled (a parameter got no '
        .. 'gradient)', self.next, #self.buckets)
    end
  end
  if not ok then self:_complete() end
  self:_advance()
  while #self.flight > 0 do self:_finish(table.remove(self.flight, 1)) end
  if self.shard ~= 'none' then
    for _, g in ipairs(self.groups) do mpi.allgather(g.flat, nil, g.counts) end
  end
  if self.syncBatchNorm then M.syncBatchNorms(self.bns) end
  require('dataparallel.agree').check(ok, loss)
  self.steps = self.steps + 1
  return loss, out
end

-- after a failed step on this rank: the buckets not started get what
-- gradient they have, zero for the rest, and are ready to start
function DPStep:_complete()
  for i = self.next, #self.buckets do
    local b = self.buckets[i]
    if not b.buf then
      b.buf = self:_buffer()
      b.send = b.buf:narrow(1, 1, b.hi - b.lo)
    end
    for _, part in ipairs(b.parts) do
      if not part.filled then b.send:narrow(1, part.lo - b.lo + 1, part.hi - part.lo):zero() end
    end
    b.pending = 0
  end
end

-- bytes this rank holds for gradients past the arena (the bucket pool and,
-- sharded by 'grad', its gradient slice) and for the optimizer's state
function DPStep:memory()
  local grads = self.poolBytes + (self.gshard and self.gshard:nElement() * self.elemBytes or 0)
  return {grads = grads, optimState = require('optnet.step').stateBytes(self.net)}
end

-- s:checkpoint(path [, extra]): every rank calls it; rank 0 writes
-- {params, running (batch normalisation's, averaged across ranks), states
-- (each rank's optimizer state, by rank), steps, shard, size, cap, extra}
-- through a temporary file renamed over path. A failure on any rank raises
-- on every rank.
function DPStep:checkpoint(path, extra)
  local fname = 'dataparallel.Step:checkpoint'
  local agree = require 'dataparallel.agree'
  local ckio = require 'dataparallel.checkpoint'
  agree.check(type(path) == 'string', fname .. ': a path expected, got ' .. type(path))
  local running = {}
  for _, b in ipairs(self.bns) do
    local m, v = b.running_mean:clone(), b.running_var:clone()
    M.syncBatchNorms{{running_mean = m, running_var = v}}
    running[#running + 1] = {running_mean = m, running_var = v}
  end
  -- every rank's state, serialized; the exchange's sequence is fixed
  local mine = agree.run(function()
    ckio.fault('checkpoint.state')
    return torch.serialize(self.st.states)
  end)
  local all = agree.strings(mine)
  ckio.write(fname, path, function()
    local states = {}
    for r = 1, self.size do states[r] = torch.deserialize(all[r]) end
    local params = {}
    for i, grp in ipairs(self.st.groups) do params[i] = grp.param end
    return {params = params, running = running, states = states, steps = self.steps,
            shard = self.shard, size = self.size, cap = self.cap, extra = extra}
  end)
end

-- the optimizer-state parts this rank keeps: key -> elements
function DPStep:_parts()
  local parts = {}
  for _, b in ipairs(self.buckets) do
    for _, part in ipairs(b.parts) do
      local lo, hi = part.lo, part.hi
      if self.shard ~= 'none' then lo, hi = math.max(lo, b.mlo), math.min(hi, b.mhi) end
      if hi > lo then parts[part.group.index .. ':' .. lo] = hi - lo end
    end
  end
  return parts
end

-- why ck (read from path) does not fit this step object, or nil
function DPStep:_misfit(path, ck)
  local function bad(fmt, ...) return path .. ': ' .. string.format(fmt, ...) end
  if type(ck) ~= 'table' or type(ck.params) ~= 'table' then
    return bad('not a checkpoint of dataparallel.trainStep (no params table)')
  end
  if #ck.params ~= #self.groups then
    return bad('not a checkpoint of this net: field params holds %d tensors, the net has %d', #ck.params,
               #self.groups)
  end
  if ck.size ~= self.size or ck.shard ~= self.shard or ck.cap ~= self.cap then
    return bad('was written by %s ranks, shard %s, buckets of %s elements; this job has %d, %s, %d',
               tostring(ck.size), tostring(ck.shard), tostring(ck.cap), self.size, self.shard, self.cap)
  end
  for i, grp in ipairs(self.st.groups) do
    local p = ck.params[i]
    if not torch.isTensor(p) or p:nElement() ~= grp.param:nElement() then
      return bad('field params[%d] should be a tensor of %d elements, got %s', i, grp.param:nElement(),
                 torch.isTensor(p) and p:nElement() .. ' elements' or torch.type(p))
    end
  end
  if ck.steps ~= nil and (math.type(ck.steps) ~= 'integer' or ck.steps < 0) then
    return bad('field steps should be an integer >= 0, got %s', tostring(ck.steps))
  end
  for i, b in ipairs(self.bns) do
    local r = type(ck.running) == 'table' and ck.running[i]
    for _, f in ipairs{'running_mean', 'running_var'} do
      local t = type(r) == 'table' and r[f]
      if r and (not torch.isTensor(t) or t:nElement() ~= b[f]:nElement()) then
        return bad('field running[%d].%s should be a tensor of %d elements, got %s', i, f, b[f]:nElement(),
                   torch.isTensor(t) and t:nElement() .. ' elements' or torch.type(t))
      end
    end
  end
  local states = type(ck.states) == 'table' and ck.states[self.rank + 1] or {}
  if type(states) ~= 'table' then
    return bad('field states[%d] should be a table (rank %d\'s optimizer state), got %s', self.rank + 1, self.rank,
               torch.type(states))
  end
  local parts, ptype = self:_parts(), self.tname
  for key, st in pairs(states) do
    local k = parts[key]
    if not k then
      return bad("field states[%d]['%s'] is not a part of this net's parameters on rank %d", self.rank + 1,
                 tostring(key), self.rank)
    end
    if type(st) ~= 'table' then
      return bad("field states[%d]['%s'] should be a table, got %s", self.rank + 1, tostring(key), torch.type(st))
    end
    for f, v in pairs(st) do
      if torch.isTensor(v) and f ~= 'max' then
        if v:nElement() ~= k then
          return bad("field states[%d]['%s'].%s holds %d elements, the part has %d", self.rank + 1, tostring(key),
                     tostring(f), v:nElement(), k)
        end
        if v:type() ~= ptype and v:type() ~= 'torch.ByteTensor' then
          return bad("field states[%d]['%s'].%s is a %s, the parameters are %s", self.rank + 1, tostring(key),
                     tostring(f), v:type(), ptype)
        end
      end
    end
  end
  return nil
end

-- s:resume(path): every rank calls it; rank 0 reads the checkpoint and
-- broadcasts it; every rank checks it against its net, ranks, shard and
-- bucket size (the optimizer state is kept per bucket part: sizes and
-- types checked) before anything changes. Returns its 'extra'. A failure
-- on any rank raises on every rank.
function DPStep:resume(path)
  local fname = 'dataparallel.Step:resume'
  local agree = require 'dataparallel.agree'
  local ckio = require 'dataparallel.checkpoint'
  agree.check(type(path) == 'string', fname .. ': a path expected, got ' .. type(path))
  local ck = ckio.read(fname, path)
  agree.run(function()
    ckio.fault('resume.check')
    local why = self:_misfit(path, ck)
    if why then error(fname .. ': ' .. why, 0) end
  end)
  agree.run(function()
    ckio.fault('resume.apply')
    for i, grp in ipairs(self.st.groups) do grp.param:copy(ck.params[i]) end
    for i, b in ipairs(self.bns) do
      local r = ck.running and ck.running[i]
      if r then
        b.running_mean:copy(r.running_mean)
        b.running_var:copy(r.running_var)
      end
    end
    local states = self.st.states
    for k in pairs(states) do states[k] = nil end
    for k, v in pairs(ck.states and ck.states[self.rank + 1] or {}) do states[k] = v end
    self.steps = ck.steps or 0
  end)
  return ck.extra
end

function DPStep:remove()
  return self.st:remove()
end

M.Step = DPStep
return M
