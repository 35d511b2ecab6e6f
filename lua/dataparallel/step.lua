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

function M.new(net, criterion, input, opts)
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
  if not mpi.initialized() then mpi.init() end
  local self = setmetatable({net = net, shard = shard, rank = mpi.rank(), size = mpi.size(),
                             syncBatchNorm = opts.syncBatchNorm or false, inFlight = inFlight,
                             pool = {}, poolBytes = 0, flight = {}, steps = 0}, DPStep)
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
  self.st = optnet.trainStep(net, criterion, input, stepOpts)
  -- the groups laid end to end
  local n = 0
  self.groups = {}
  for i, grp in ipairs(self.st.groups) do
    if not grp.param:isContiguous() then
      self.st:remove()
      fail('parameter %d is not contiguous', i)
    end
    local k = grp.param:nElement()
    self.groups[i] = {index = i, lo = n, hi = n + k, buckets = {}, flat = grp.param:view(-1)}
    n = n + k
  end
  if n == 0 then
    self.st:remove()
    fail('the net (%s) has no parameters to train', torch.type(net))
  end
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
function DPStep:step(input, target)
  for _, b in ipairs(self.buckets) do b.pending, b.req = #b.parts, nil end
  self.next, self.flight = 1, {}
  local ok, loss, out = pcall(self.st.step, self.st, input, target)
  if not ok then error(loss, 0) end
  self:_advance()
  if self.next <= #self.buckets then
    error(string.format('dataparallel.trainStep: bucket %d of %d never filled (a parameter got no gradient)',
      self.next, #self.buckets), 2)
  end
  while #self.flight > 0 do self:_finish(table.remove(self.flight, 1)) end
  if self.shard ~= 'none' then
    for _, g in ipairs(self.groups) do mpi.allgather(g.flat, nil, g.counts) end
  end
  if self.syncBatchNorm then M.syncBatchNorms(self.bns) end
  self.steps = self.steps + 1
  return loss, out
end

-- bytes this rank holds for gradients past the arena (the bucket pool and,
-- sharded by 'grad', its gradient slice) and for the optimizer's state
function DPStep:memory()
  local grads = self.poolBytes + (self.gshard and self.gshard:nElement() * self.elemBytes or 0)
  return {grads = grads, optimState = require('optnet.step').stateBytes(self.net)}
end

-- every rank's serialized table on rank 0 (a collective): a list by rank there, nil elsewhere
local function gather(t)
  local R = mpi.size()
  local str = torch.serialize(t)
  local lens = torch.LongTensor(R):zero()
  lens[mpi.rank() + 1] = #str
  mpi.allreduce(lens)
  local counts, total = {}, 0
  for r = 1, R do counts[r] = lens[r]; total = total + lens[r] end
  local all = torch.ByteTensor(total)
  mpi.allgather(all, torch.ByteTensor(torch.ByteStorage():string(str)), counts)
  if mpi.rank() ~= 0 then return nil end
  local out, o = {}, 0
  for r = 1, R do
    out[r] = torch.deserialize(all:narrow(1, o + 1, counts[r]):clone():storage():string())
    o = o + counts[r]
  end
  return out
end

-- s:checkpoint(path [, extra]): every rank calls it; rank 0 writes
-- {params, running (batch normalisation's, averaged across ranks), states
-- (each rank's optimizer state, by rank), steps, shard, size, cap, extra}
-- through a temporary file renamed over path
function DPStep:checkpoint(path, extra)
  if type(path) ~= 'string' then error('dataparallel.Step:checkpoint: a path expected, got ' .. type(path), 2) end
  local running = {}
  for _, b in ipairs(self.bns) do
    local m, v = b.running_mean:clone(), b.running_var:clone()
    M.syncBatchNorms{{running_mean = m, running_var = v}}
    running[#running + 1] = {running_mean = m, running_var = v}
  end
  local states = gather(self.st.states)
  if self.rank == 0 then
    local params = {}
    for i, grp in ipairs(self.st.groups) do params[i] = grp.param end
    torch.save(path .. '.tmp', {params = params, running = running, states = states, steps = self.steps,
                                shard = self.shard, size = self.size, cap = self.cap, extra = extra})
    assert(os.rename(path .. '.tmp', path))
  end
  mpi.barrier()
end

-- s:resume(path): every rank calls it; rank 0 reads the checkpoint and
-- broadcasts it. Same net, ranks, shard and bucket size expected (the
-- optimizer state is kept per bucket part). Returns its 'extra'.
function DPStep:resume(path)
  local fname = 'dataparallel.Step:resume'
  if type(path) ~= 'string' then error(fname .. ': a path expected, got ' .. type(path), 2) end
  local len, bytes = torch.LongTensor(1):zero(), nil
  if self.rank == 0 then
    local ok, ck = pcall(torch.load, path)
    if ok then
      local str = torch.serialize(ck)
      bytes, len[1] = torch.ByteTensor(torch.ByteStorage():string(str)), #str
    else
      io.stderr:write(fname, ': ', tostring(ck), '\n')
      len[1] = -1
    end
  end
  mpi.broadcast(len, 0)
  if len[1] < 0 then error(string.format('%s: rank 0 could not read %s', fname, path), 2) end
  if self.rank ~= 0 then bytes = torch.ByteTensor(len[1]) end
  mpi.broadcast(bytes, 0)
  local ck = torch.deserialize(bytes:storage():string())
  if type(ck) ~= 'table' or type(ck.params) ~= 'table' or #ck.params ~= #self.groups then
    error(string.format('%s: %s is not a checkpoint of this net (%d parameters expected)', fname, path,
      #self.groups), 2)
  end
  if ck.size ~= self.size or ck.shard ~= self.shard or ck.cap ~= self.cap then
    error(string.format('%s: %s was written by %d ranks, shard %s, buckets of %d elements; this job has %d, %s, %d',
      fname, path, ck.size, tostring(ck.shard), ck.cap, self.size, self.shard, self.cap), 2)
  end
  for i, grp in ipairs(self.st.groups) do
    if ck.params[i]:nElement() ~= grp.param:nElement() then
      error(string.format('%s: parameter %d holds %d elements in %s, %d here', fname, i, ck.params[i]:nElement(),
        path, grp.param:nElement()), 2)
    end
    grp.param:copy(ck.params[i])
  end
  for i, b in ipairs(self.bns) do
    local r = ck.running and ck.running[i]
    if r then
      b.running_mean:copy(r.running_mean)
      b.running_var:copy(r.running_var)
    end
  end
  local states = self.st.states
  for k in pairs(states) do states[k] = nil end
  for k, v in pairs(ck.states[self.rank + 1] or {}) do states[k] = v end
  self.steps = ck.steps or 0
  return ck.extra
end

function DPStep:remove()
  return self.st:remove()
end

M.Step = DPStep
return M
