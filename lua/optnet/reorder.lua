-- optnet.reorder (opts.reorder = true): the order in which the branches of
-- the branching containers run: nn.Concat and DepthConcat (inception
-- modules, densenet layers), nn.ConcatTable (resnet blocks: residual branch
-- and shortcut), nn.ParallelTable and nn.Parallel. The branches are
-- independent: the container runs them all, then places their outputs in
-- module order, and in backward runs them all, then sums or copies their
-- gradInputs in module order. Running them in another order therefore gives
-- the very same numbers, but changes which activations are alive together,
-- so the lower bound and the arena. Each container honours the order through
-- its '_branchOrder' field (Container:_runOrder).
--
-- A few orders are tried for all containers at once (module order,
-- reversed, the branches that create the most bytes first, the fewest
-- first), each traced and planned, and the smallest arena is kept; ties
-- keep the earlier order, so module order wins when nothing gains. A
-- per-container pass may follow (GREEDY_PLANS > 0): for the containers whose
-- branches create the most bytes, one at a time, the other one of module
-- order and largest-first is planned on top of the best so far and kept only
-- if the arena drops. It is off by default: on googlenet, densenet and the
-- resnets it never beat the best all-at-once order (bench/reorder.lua,
-- which turns it on), and each plan re-traces the net.
--
-- Some containers are left in module order because another order could
-- change a number: branches sharing a parameter, gradient or state storage
-- (accumulating in another order rounds differently), two branches drawing
-- random numbers (Dropout), and a branch with an in-place module that writes
-- into a storage from outside the branch (the container's input in
-- forward, a gradOutput that may be shared with another branch in backward:
-- ConcatTable, ParallelTable; Concat and Parallel give each branch its own
-- window of gradOutput).
local walk = require 'optnet.walk'

local reorder = {}

-- the all-at-once strategies, in the order they are tried
reorder.STRATEGIES = {'module', 'reverse', 'largest', 'smallest'}
-- the most per-container plans after the all-at-once strategies (0: none)
reorder.GREEDY_PLANS = 0

local KINDS = {'nn.Concat', 'nn.ConcatTable', 'nn.ParallelTable', 'nn.Parallel'}
local RANDOM = {'nn.Dropout'}

local function isKind(m, kinds)
  for _, k in ipairs(kinds) do
    if torch.isTypeOf(m, k) then return true end
  end
  return false
end

-- whether the branches of C share a module, a parameter, gradient or state
-- storage, or two of them draw random numbers, or a module of one holds
-- (walk.holdings) a tensor of another: it reads that branch's results
local function sharesAcrossBranches(C)
  local moduleAt, storageAt, random = {}, {}, 0
  local tensorAt, held = {}, {}
  for i, child in ipairs(C.modules) do
    local drawsHere = false
    for _, m in ipairs(child:listModules()) do
      if moduleAt[m] and moduleAt[m] ~= i then return true end
      moduleAt[m] = i
      if isKind(m, RANDOM) then drawsHere = true end
      local shared = false
      walk.moduleTensors(m, function(t, role)
        local id = t:_storageId()
        if id then tensorAt[id] = tensorAt[id] or i end
        if id and (role == 'param' or role == 'gradParam' or role == 'state') then
          if storageAt[id] and storageAt[id] ~= i then shared = true end
          storageAt[id] = i
        end
      end)
      if shared then return true end
      walk.holdings(m, function(t)
        local id = t:_storageId()
        if id then held[#held + 1] = {id, i} end
      end)
    end
    if drawsHere then random = random + 1 end
  end
  for _, h in ipairs(held) do
    if tensorAt[h[1]] and tensorAt[h[1]] ~= h[2] then return true end
  end
  return random > 1
end

-- the containers whose branches may run in another order, in listModules order
function reorder.containers(net)
  local list = {}
  for _, m in ipairs(walk.modules(net)) do
    if isKind(m, KINDS) and #m.modules > 1 and not sharesAcrossBranches(m) then list[#list + 1] = m end
  end
  return list
end

-- module -> {container -> branch index}, for every module inside a branch
local function owners(list)
  local owner = {}
  for _, C in ipairs(list) do
    for i, child in ipairs(C.modules) do
      for _, m in ipairs(child:listModules()) do
        owner[m] = owner[m] or {}
        owner[m][C] = i
      end
    end
  end
  return owner
end

-- the containers of 'list' in which, in the traced pass 'rec', a module
-- running in place wrote into a storage that existed before its branch
-- started (forward: the input it overwrites; backward: the gradOutput it
-- overwrites): there the order of the branches may change the numbers
function reorder.crossWrites(list, rec)
  local owner = owners(list)
  local start = {{}, {}}  -- [phase][C][i]: the branch's first step in forward (1) and backward (2)
  for s, st in ipairs(rec.steps) do
    local own = owner[st.module]
    if own then
      -- (a forward step in backward is a re-run of optnet.recompute: it
      -- belongs to the forward phase, else it would start the branch's
      -- backward before the gradOutput it overwrites exists)
      local t = start[(s <= rec.nForward or st.kind == 'forward') and 1 or 2]
      for C, i in pairs(own) do
        t[C] = t[C] or {}
        t[C][i] = t[C][i] or s
      end
    end
  end
  local function older(v, first)
    local hit = false
    if first then
      walk.tensors(v, function(x)
        local id = x:_storageId()
        local s = id and rec.storages[id]
        if s and s.first < first then hit = true end
      end)
    end
    return hit
  end
  local bad = {}
  for m, own in pairs(owner) do
    local tr = rec.traits[m]
    local flag = tr and tr.inplace
    if flag and m[flag] == true then
      for C, i in pairs(own) do
        local f, b = start[1][C], start[2][C]
        -- Concat and Parallel hand each branch its own window of gradOutput:
        -- a branch writing there touches no other branch's part
        local windowed = torch.isTypeOf(C, 'nn.Concat') or torch.isTypeOf(C, 'nn.Parallel')
        if older(m.output, f and f[i]) or (not windowed and older(m.gradInput, b and b[i])) then bad[C] = true end
      end
    end
  end
  return bad
end

-- bytes of planned storages first defined inside each branch of each container
function reorder.branchBytes(list, rec, p)
  local owner = owners(list)
  local bytes = {}
  for _, C in ipairs(list) do bytes[C] = {} end
  for _, e in ipairs(p.entries) do
    local st = rec.steps[e.first]
    local own = st and owner[st.module]
    if own then
      for C, i in pairs(own) do bytes[C][i] = (bytes[C][i] or 0) + e.bytes end
    end
  end
  return bytes
end

-- one container's branch order under a strategy
function reorder.perm(C, strategy, bytes)
  local n, perm = #C.modules, {}
  for i = 1, n do perm[i] = i end
  if strategy == 'reverse' then
    for i = 1, n do perm[i] = n + 1 - i end
  elseif strategy == 'largest' or strategy == 'smallest' then
    local b = bytes[C] or {}
    table.sort(perm, function(x, y)
      local bx, by = b[x] or 0, b[y] or 0
      if bx ~= by then
        if strategy == 'largest' then return bx > by end
        return bx < by
      end
      return x < y
    end)
  elseif strategy ~= 'module' then
    error("optnet.reorder.perm: unknown strategy '" .. tostring(strategy) .. "'", 2)
  end
  return perm
end

local function isIdentity(perm)
  for i, v in ipairs(perm) do
    if v ~= i then return false end
  end
  return true
end

-- the branch orders of every container of 'list' under a strategy: C -> perm,
-- only the containers that leave module order
function reorder.perms(list, strategy, bytes)
  local perms = {}
  for _, C in ipairs(list) do
    local perm = reorder.perm(C, strategy, bytes)
    if not isIdentity(perm) then perms[C] = perm end
  end
  return perms
end

-- a key naming a set of perms (the same orders are planned once)
function reorder.key(list, perms)
  local parts = {}
  for k, C in ipairs(list) do
    if perms[C] then parts[#parts + 1] = k .. ':' .. table.concat(perms[C], ',') end
  end
  return table.concat(parts, ';')
end

-- the per-container candidates, after the all-at-once strategies: for each
-- container (the ones whose branches create the most bytes first), the
-- other one of module order and largest-first (module order when 'perms'
-- gives it any other order).
-- Returns {{C, perm or nil}...}, at most GREEDY_PLANS of them
function reorder.flips(list, perms, bytes)
  local total, index = {}, {}
  for k, C in ipairs(list) do
    index[C] = k
    local n = 0
    for _, b in pairs(bytes[C] or {}) do n = n + b end
    total[C] = n
  end
  local sorted = {}
  for _, C in ipairs(list) do sorted[#sorted + 1] = C end
  table.sort(sorted, function(a, b)
    if total[a] ~= total[b] then return total[a] > total[b] end
    return index[a] < index[b]
  end)
  local flips = {}
  for _, C in ipairs(sorted) do
    if #flips >= reorder.GREEDY_PLANS then break end
    -- in module order: try largest-first (if it differs); in any other: try module order
    if perms[C] then
      flips[#flips + 1] = {C, nil}
    else
      local largest = reorder.perm(C, 'largest', bytes)
      if not isIdentity(largest) then flips[#flips + 1] = {C, largest} end
    end
  end
  return flips
end

-- makes each container run its children in perms[C] order; returns the undo state
function reorder.install(perms)
  local undo = {}
  for C, perm in pairs(perms) do
    undo[C] = true
    rawset(C, '_branchOrder', perm)
  end
  return undo
end

function reorder.uninstall(undo)
  for C in pairs(undo) do rawset(C, '_branchOrder', nil) end
end

return reorder
