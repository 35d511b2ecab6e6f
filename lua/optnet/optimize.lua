-- optnet.optimize: optimizeMemory's planning, from a net and an input to
-- a state: trace (optnet.smalltrace), in-place choice (optnet.inplace),
-- plan (optnet.plan), branch orders (optnet.reorder), recompute segments
-- within a byte budget (optnet.recompute), then the tensors rebound into
-- the arenas (optnet.apply) and the records written (optnet.record).
-- optnet's init.lua puts the state in force (its hooks).
local walk = require 'optnet.walk'
local plan = require 'optnet.plan'
local apply = require 'optnet.apply'
local recompute = require 'optnet.recompute'
local reorder = require 'optnet.reorder'
local record = require 'optnet.record'
local inplace = require 'optnet.inplace'
local smalltrace = require 'optnet.smalltrace'

local optimize = {}

-- the sizes of every tensor of an input, as one string (re-planning key)
function optimize.signature(input)
  local parts = {}
  walk.tensors(input, function(t)
    local s = {}
    for d = 1, t:dim() do s[d] = t:size(d) end
    parts[#parts + 1] = torch.typename(t) .. ':' .. table.concat(s, 'x')
  end)
  return table.concat(parts, ',')
end

-- tensors that a pass changes but that are not activations (batch norm's running
-- statistics): saved before the trace, restored after, so optimizing changes no number
function optimize.snapshotState(modules)
  local saved = {}
  -- a field holding another module's activation is no state (walk.holdings)
  local acts = walk.activationIds(modules)
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role)
      if role == 'state' and t:nElement() > 0 and not acts[t:_storageId()] then saved[#saved + 1] = {t, t:clone()} end
    end)
  end
  local rng = torch.getRNGState and torch.getRNGState()
  return function()
    for _, s in ipairs(saved) do
      -- an undeclared scratch the pass resized (a custom module's own)
      if not s[1]:isSameSizeAs(s[2]) then s[1]:resizeAs(s[2]) end
      s[1]:copy(s[2])
    end
    if rng then torch.setRNGState(rng) end
  end
end

-- traces, chooses in-place modules, traces again if it did, and plans
function optimize.planPass(net, modules, input, o, restoreState)
  local rec, needs, scaled = smalltrace.pass(net, modules, input, o, restoreState)
  local p = plan.intervals(rec, net, input, o, needs)
  local inplaced = {}
  if o.inplace and o.reuse then
    inplaced = inplace.choose(rec, p, o.verbose)
    if #inplaced > 0 then
      for _, s in ipairs(inplaced) do
        s.module[s.flag] = true
        -- its own output storage is no longer needed
        s.module.output:set()
      end
      rec, needs, scaled = smalltrace.pass(net, modules, input, o, restoreState)
      p = plan.intervals(rec, net, input, o, needs)
    end
  end
  if o.verbose then
    for _, note in ipairs(p.unplanned) do io.stderr:write('optnet: ' .. note .. '\n') end
  end
  local t0 = torch._C.clock()
  local result = plan.solve(p, o)
  result.planSeconds = torch._C.clock() - t0
  result.scaled = scaled
  return rec, p, result, inplaced
end

function optimize.arenaBytes(result)
  local n = 0
  for _, v in pairs(result.arena) do n = n + v end
  return n
end

-- planPass, and with opts.reorder the branch orders of optnet.reorder: the
-- all-at-once strategies, then the per-container flips on top of the best,
-- each traced and planned; an order is kept only if its arena is smaller
-- (and no in-place module in it writes across branches), and the winner is
-- planned again. Returns rec, p, result, inplaced, and the reorder undo state (or nil)
function optimize.planOrdered(net, input, o, restoreState)
  local modules = walk.modules(net)
  local rec, p, result, inplaced = optimize.planPass(net, modules, input, o, restoreState)
  result.reorder = 'module'
  if not o.reorder then return rec, p, result, inplaced end
  local t0 = torch._C.clock()
  local list, all = {}, reorder.containers(net)
  local cross = reorder.crossWrites(all, rec)
  for _, C in ipairs(all) do
    if not cross[C] then list[#list + 1] = C end
  end
  local bytes = reorder.branchBytes(list, rec, p)
  local best, bestPerms, bestArena = 'module', {}, optimize.arenaBytes(result)
  local tried, seen, plans, flipped = {module = bestArena}, {[''] = 'module'}, 0, 0
  -- plans one set of orders; nil when an in-place choice made for it writes
  -- across branches (the order could change a number there)
  local function try(perms)
    plans = plans + 1
    inplace.undo(inplaced)
    inplaced = {}
    local undo = reorder.install(perms)
    local rec2, _, r2, inp2 = optimize.planPass(net, modules, input, o, restoreState)
    local n = optimize.arenaBytes(r2)
    if next(reorder.crossWrites(list, rec2)) then n = nil end
    inplace.undo(inp2)
    reorder.uninstall(undo)
    return n
  end
  for _, strategy in ipairs(reorder.STRATEGIES) do
    local perms = reorder.perms(list, strategy, bytes)
    local key = reorder.key(list, perms)
    if seen[key] then
      tried[strategy] = tried[seen[key]]
    else
      seen[key] = strategy
      tried[strategy] = try(perms)
      if tried[strategy] and tried[strategy] < bestArena then best, bestPerms, bestArena = strategy, perms, tried[strategy] end
    end
  end
  for _, f in ipairs(reorder.flips(list, bestPerms, bytes)) do
    local perms = {}
    for C, perm in pairs(bestPerms) do perms[C] = perm end
    perms[f[1]] = f[2]
    local key = reorder.key(list, perms)
    if not seen[key] then
      seen[key] = 'greedy'
      local n = try(perms)
      if n and n < bestArena then bestPerms, bestArena, flipped = perms, n, flipped + 1 end
    end
  end
  tried.greedy = bestArena
  if flipped > 0 then best = 'greedy' end
  local undo
  if next(bestPerms) then undo = reorder.install(bestPerms) end
  if plans > 0 then
    -- the candidates undid the first plan's in-place choices: plan the winner again
    rec, p, result, inplaced = optimize.planPass(net, modules, input, o, restoreState)
  end
  result.reorder, result.reorderTried = best, tried
  result.reorderPlans, result.reorderFlips = plans, flipped
  result.reorderContainers = #list
  result.reorderSeconds = torch._C.clock() - t0
  return rec, p, result, inplaced, undo
end

-- recompute = <bytes>: the cheapest plan whose activation arena fits the
-- budget, in the order none, the budget segmentation of optnet.recompute
-- (its model, from the trace without recompute, is corrected by the
-- planned arena and tried again, a few times; it takes the cheap modules
-- first, so 'cheap' needs no try of its own), sqrt
local BUDGET_TRIES = 5

-- the modules the trace saw run, in net order: a module made during the
-- trace (nn.Convert builds its converter at its first forward) was not
-- counted in the steps, so the verifier must not count it either
local function tracedModules(rec)
  local seen, list = {}, {}
  for _, st in ipairs(rec.steps) do
    if st.module and not seen[st.module] then
      seen[st.module] = true
      list[#list + 1] = st.module
    end
  end
  return list
end

-- An attempt: what one optimizeMemory call has planned so far. a.rec, a.p,
-- a.result, a.inplaced: the plan in force; a.undoRc, a.undoRo: the
-- recompute segments and branch orders installed for it; a.tried: each
-- segmentation's arena, for the budget's error message.

-- plans with one segmentation ('none', 'cheap', 'sqrt' or segments of
-- recompute.budget); returns whether it fits the byte budget, and its arena bytes
function optimize.try(a, how, label)
  local net, input, o = a.net, a.input, a.o
  if how ~= 'none' then a.undoRc = recompute.install(net, how, o.verbose) end
  a.modules = walk.modules(net)
  a.rec, a.p, a.result, a.inplaced, a.undoRo = optimize.planOrdered(net, input, o, a.restoreState)
  -- segments whose re-run in-place modules would spoil go, and the rest is planned again
  for _ = 1, 8 do
    if not a.undoRc then break end
    local keep, why = recompute.unsafe(a.undoRc, a.rec, a.inplaced)
    if not keep then break end
    if o.verbose then recompute.tellUnsafe(net, why) end
    if a.undoRo then reorder.uninstall(a.undoRo) end
    a.undoRo = nil
    inplace.undo(a.inplaced)
    recompute.uninstall(a.undoRc)
    a.undoRc = recompute.install(net, keep, o.verbose)
    a.modules = walk.modules(net)
    a.rec, a.p, a.result, a.inplaced, a.undoRo = optimize.planOrdered(net, input, o, a.restoreState)
  end
  a.result.recompute = label or how
  local bytes = optimize.arenaBytes(a.result)
  a.tried[#a.tried + 1] = string.format('%s: %d', label or how, bytes)
  local rc = o.recompute
  return type(rc) ~= 'number' or bytes <= rc, bytes
end

-- takes off what the last try installed
function optimize.untry(a)
  if a.undoRo then reorder.uninstall(a.undoRo) end
  a.undoRo = nil
  inplace.undo(a.inplaced)
  if a.undoRc then recompute.uninstall(a.undoRc) end
  a.undoRc = nil
end

-- the next target of the budget search: corrected by the last plan's
-- miss, and once a target that fits and one that misses are known, halfway
-- between them; nil to stop
local function nextTarget(s, rc, bytes)
  if bytes <= rc then s.fitAt = math.max(s.fitAt or -math.huge, s.target)
  else s.missAt = math.min(s.missAt or math.huge, s.target) end
  if s.fitAt and s.missAt then
    if s.missAt - s.fitAt < rc / 200 then return nil end
    return (s.fitAt + s.missAt) / 2
  end
  return s.target + s.push * (rc - bytes)
end

-- recompute = <bytes>: the budget segmentations tried (see BUDGET_TRIES);
-- returns the best that fits, and the one left installed
local function budgetSearch(a, rc, recNone, pNone, noneBytes)
  local net = a.net
  -- the model counts long-lived bytes only: what else the arena holds
  -- (gradients, temporaries) comes off the target
  local _, info = recompute.budget(net, recNone, pNone, math.huge)
  -- the model is corrected by each planned arena: down when the plan
  -- missed the budget, up (for less re-run work) when it fell well short
  -- (a plan already planned is not planned again: its arena is known,
  -- and the target moves on from it)
  -- (the best plan so far stays installed until another is tried, so
  -- the last one tried need not be planned again when it wins)
  -- a miss the model's next target answers with the same plan again
  -- (it missed by less than one unit's bytes) is answered by a target
  -- lowered twice as far each time (push)
  local s = {target = rc - (noneBytes - info.total), push = 1}
  local best, seen, plans, installed, floor = nil, {}, 0, nil, false
  for _ = 1, 4 * BUDGET_TRIES do
    local segs, fig = recompute.budget(net, recNone, pNone, s.target)
    if #segs == 0 then break end
    local key = fig.work .. ':' .. fig.kept
    local bytes = seen[key]
    if bytes and bytes > rc then s.push = s.push * 2 else s.push = 1 end
    if not bytes then
      if plans == BUDGET_TRIES then break end
      plans = plans + 1
      if installed then optimize.untry(a) end
      local fitsB
      fitsB, bytes = optimize.try(a, segs, 'budget')
      installed = key
      seen[key] = bytes
      if fitsB and (not best or fig.work < best.fig.work) then best = {segs = segs, fig = fig, key = key} end
      if fitsB and bytes >= 0.97 * rc then break end
    end
    -- below the model's floor a lower target gives the same plans: stop
    if not fig.fits and floor then break end
    floor = not fig.fits
    s.target = nextTarget(s, rc, bytes)
    if not s.target or s.target <= 0 then break end
  end
  return best, installed
end

-- recompute = <bytes>: the cheapest plan whose arena fits the budget
function optimize.withinBudget(a)
  local rc = a.o.recompute
  local fits, noneBytes = optimize.try(a, 'none')
  if fits then return end
  local recNone, pNone = a.rec, a.p
  optimize.untry(a)
  local best, installed = budgetSearch(a, rc, recNone, pNone, noneBytes)
  if best then
    if installed ~= best.key then
      if installed then optimize.untry(a) end
      optimize.try(a, best.segs, 'budget')
    end
    a.result.recomputeWork = best.fig.workFraction
    return
  end
  if installed then optimize.untry(a) end
  if optimize.try(a, 'sqrt') then return end
  optimize.untry(a)
  error(string.format('optnet.optimizeMemory: no segmentation fits the recompute budget of %d bytes '
    .. '(planned activation bytes: %s)', rc, table.concat(a.tried, ', ')), 0)
end

-- the plan of an attempt, with the recompute option's segmentation
local function planAll(a)
  local rc = a.o.recompute
  if type(rc) ~= 'number' then
    optimize.try(a, rc)
    -- never worse than before: shadows that add more than re-computing saves
    if plan.grows(a.result) then optimize.untry(a); optimize.try(a, 'none') end
    return
  end
  optimize.withinBudget(a)
end

-- plans net for input with the checked options o, rebinds its tensors and
-- writes its records; returns the state (not yet in force) and the trace
function optimize.run(net, input, o)
  local modules = walk.modules(net)
  local a = {net = net, input = input, o = o, modules = modules, tried = {},
             restoreState = optimize.snapshotState(modules)}
  -- inference: gradient parameters go first, before the traces and the
  -- arenas, so neither stacks on them (they come back if planning fails)
  local gradParams
  if o.mode == 'inference' and o.removeGradParams then
    gradParams = apply.dropGradParams(modules)
    collectgarbage()
    if torch._C.mallocTrim then torch._C.mallocTrim() end
  end
  local ok, err = pcall(planAll, a)
  if not ok then
    if a.undoRc then pcall(recompute.uninstall, a.undoRc) end
    if gradParams then apply.restoreGradParams(a.modules) end
    error(err, 0)
  end
  modules = walk.modules(net)
  local rec, p, result = a.rec, a.p, a.result
  local arenas, bindings = apply.rebind(modules, p, result)
  local state = {opts = o, modules = modules, arenas = arenas, bindings = bindings, plan = p,
                 result = result, signature = optimize.signature(input), nSteps = rec.nSteps, recompute = a.undoRc,
                 nForward = rec.nForward, traced = tracedModules(rec)}
  for _, s in ipairs(a.inplaced) do rawset(s.module, '_optnetInplace', s.flag) end
  record.writeRoot(net, state)
  return state, rec
end

return optimize
