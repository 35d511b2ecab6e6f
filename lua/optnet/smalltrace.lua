-- optnet.smalltrace: the trace optimizeMemory plans from (its smallTrace
-- option). smalltrace.pass traces the net once; with a batched input it
-- runs three small batches and predicts each storage's size at the full
-- batch (smalltrace.scaled), so the unoptimized net never runs at full size.
local walk = require 'optnet.walk'
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'

local smalltrace = {}

-- the common batch size of a batched input (every tensor 2D or more, same
-- first size), or nil
function smalltrace.batchOf(input)
  local B, ok = nil, true
  walk.tensors(input, function(t)
    if t:dim() < 2 then ok = false return end
    if B == nil then B = t:size(1) elseif B ~= t:size(1) then ok = false end
  end)
  return ok and B or nil
end

local function narrowInput(input, b)
  if torch.isTensor(input) then return input:narrow(1, 1, b) end
  local r = {}
  for k, v in pairs(input) do r[k] = narrowInput(v, b) end
  return r
end

-- bytes each storage needs: the furthest a module tensor reaches into it
-- now, or reached during the trace (a buffer's memory is released after
-- its last step: trace.lua)
function smalltrace.needs(rec, modules)
  local needs = plan.needs(modules)
  for id, b in pairs(rec.extents) do
    if b > (needs[id] or 0) then needs[id] = b end
  end
  return needs
end

-- whether two traces ran the same steps and the planned storages (those a
-- module still holds: keys of needs) in the same order with the same
-- lifetimes; temporaries (a fresh storage at each pass) are not compared,
-- nor is the trace's own gradOutput, which smalltrace.scaled leaves out of needs
function smalltrace.sameOrder(r1, r2, needs1, needs2)
  if r1.nSteps ~= r2.nSteps then return false end
  local function planned(r, needs)
    local l = {}
    for _, s in ipairs(r.order) do if needs[s.id] then l[#l + 1] = s end end
    return l
  end
  local o1, o2 = planned(r1, needs1), planned(r2, needs2)
  if #o1 ~= #o2 then return false end
  for i, s in ipairs(o1) do
    if o2[i].id ~= s.id or o2[i].first ~= s.first or o2[i].last ~= s.last then return false end
  end
  return true
end

-- traces at batches b0, b0 + 1, b0 + 2 and predicts each storage's size at
-- batch B from the three sizes: flat (batch norm statistics, and the
-- kernels' per-thread scratch, which they size by layer geometry and the
-- thread count only: th_nn_scratch_threads) stays; affine (n3 - n2 = n2 -
-- n1 > 0) is extrapolated. Anything else, or a changed order of steps or
-- storages, gives nil: the caller then traces at full size rather than guess.
function smalltrace.scaled(net, modules, input, o, restoreState, B, b0)
  local recs, needs = {}, {}
  for i = 1, 3 do
    -- every trace from emptied buffers, as in a fresh net: otherwise the
    -- first (on a fresh net) and the others (on one that ran) disagree on
    -- when lazily allocated buffers are first used (trace.emptyBuffers)
    trace.emptyBuffers(modules)
    recs[i] = trace.run(net, narrowInput(input, b0 + i - 1), o.mode, o.planGrads)
    needs[i] = smalltrace.needs(recs[i], modules)
    -- the trace's gradOutput, made fresh by each trace, has a new id at
    -- each batch; a module may hold it (FlattenTable's gradInput is made
    -- of gradOutput's tensors: googlenet's aux outputs), but at run time
    -- it is the caller's, and the plan never places it (plan.intervals:
    -- external). So it is neither compared (sameOrder) nor predicted;
    -- every storage the plan places still is.
    for id in pairs(recs[i].gradOutputIds or {}) do needs[i][id] = nil end
    restoreState()
  end
  local same = smalltrace.sameOrder
  if not (same(recs[1], recs[2], needs[1], needs[2]) and same(recs[2], recs[3], needs[2], needs[3])) then
    if o.verbose then
      io.stderr:write(string.format('optnet: the order of steps or storages changes between batches %d..%d\n', b0, b0 + 2))
    end
    return nil
  end
  local predicted = {}
  for id, n3 in pairs(needs[3]) do
    local n1, n2 = needs[1][id], needs[2][id]
    if n1 and n1 == n3 and n2 == n3 then
      predicted[id] = n3
    elseif n1 and n2 and n2 > n1 and n3 - n2 == n2 - n1 then
      predicted[id] = n1 + (n2 - n1) * (B - b0)
    else
      if o.verbose then
        local where = '?'
        for _, m in ipairs(modules) do
          walk.moduleTensors(m, function(t, _, field)
            if t:_storageId() == id then where = torch.type(m) .. '.' .. tostring(field) end
          end)
        end
        io.stderr:write(string.format('optnet: %s holds %s / %s / %s bytes at batches %d..%d: not affine\n',
          where, tostring(n1), tostring(n2), tostring(n3), b0, b0 + 2))
      end
      return nil
    end
  end
  return recs[3], predicted
end

-- traces the pass. With a batched input of B samples the net runs at three
-- small batches only and each storage's size at batch B is predicted from
-- them (see smalltrace.scaled), so optimizing never runs the unoptimized net at
-- full size and the process peak stays at the optimized footprint. The
-- small batches start at twice the thread count T, where every kernel has
-- settled on its batch strategy; when the sizes do not follow the rules
-- there, batches two and four times as far are tried; failing that (or a
-- small or unbatched input) the trace runs at full size.
function smalltrace.pass(net, modules, input, o, restoreState)
  local B = smalltrace.batchOf(input)
  if o.smallTrace ~= false and B then
    local T = math.max(1, torch.getnumthreads and torch.getnumthreads() or 1)
    for _, b0 in ipairs{2 * T, 4 * T, 8 * T} do
      if B > b0 + 2 then
        local ok, rec, needs = pcall(smalltrace.scaled, net, modules, input, o, restoreState, B, b0)
        if ok and rec then return rec, needs, true end
        if not ok then
          restoreState()
          if o.verbose then io.stderr:write('optnet: small trace failed: ' .. tostring(rec) .. '\n') end
        end
      end
    end
    if o.verbose and B > 2 * T + 2 then
      io.stderr:write('optnet: sizes are not affine in the batch; tracing at full size\n')
    end
  end
  -- from emptied buffers too, so the plan does not depend on whether
  -- small traces (or the caller) ran the net before
  trace.emptyBuffers(modules)
  local rec = trace.run(net, input, o.mode, o.planGrads)
  local needs = smalltrace.needs(rec, modules)
  restoreState()
  return rec, needs, false
end

return smalltrace
