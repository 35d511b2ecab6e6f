-- optnet.reorder (opts.reorder = true): the order in which the branches of
-- an nn.Concat (DepthConcat, a densenet layer, an inception module) run.
-- The branches are independent: Concat runs them all, then copies their
-- outputs into its own in module order, and in backward runs them all, then
-- sums their gradInputs in module order. Running them in another order
-- therefore gives the very same numbers, but changes which activations are
-- alive together, so the lower bound and the arena. A few orders are tried
-- for all Concats at once (module order, reversed, the branches that create
-- the most bytes first, the fewest first), each traced and planned, and the
-- smallest arena is kept; ties keep module order.
local reorder = {}

reorder.STRATEGIES = {'module', 'reverse', 'largest', 'smallest'}

local function concats(net)
  local list = {}
  for _, m in ipairs(net:listModules()) do
    if torch.isTypeOf(m, 'nn.Concat') and #m.modules > 1 then list[#list + 1] = m end
  end
  return list
end

-- bytes of planned storages first defined inside each branch of each Concat
function reorder.branchBytes(net, rec, p)
  local owner = {}  -- module -> {concat, branch}, innermost Concat wins
  for _, C in ipairs(concats(net)) do
    for i, child in ipairs(C.modules) do
      for _, m in ipairs(child:listModules()) do owner[m] = owner[m] or {} ; owner[m][C] = i end
    end
  end
  local bytes = {}
  for _, e in ipairs(p.entries) do
    local st = rec.steps[e.first]
    local own = st and owner[st.module]
    if own then
      for C, i in pairs(own) do
        bytes[C] = bytes[C] or {}
        bytes[C][i] = (bytes[C][i] or 0) + e.bytes
      end
    end
  end
  return bytes
end

-- the branch order of every Concat under a strategy ('module' gives nil:
-- nothing to install)
function reorder.perms(net, strategy, bytes)
  if strategy == 'module' then return nil end
  local perms = {}
  for _, C in ipairs(concats(net)) do
    local n, perm = #C.modules, {}
    for i = 1, n do perm[i] = i end
    if strategy == 'reverse' then
      for i = 1, n do perm[i] = n + 1 - i end
    else
      local b = bytes[C] or {}
      table.sort(perm, function(x, y)
        local bx, by = b[x] or 0, b[y] or 0
        if bx ~= by then
          if strategy == 'largest' then return bx > by end
          return bx < by
        end
        return x < y
      end)
    end
    perms[C] = perm
  end
  return perms
end

-- makes each Concat run its children in perms[C] order (Concat honours
-- '_branchOrder' in forward and in every backward method); returns the undo state
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
