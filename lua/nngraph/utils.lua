-- nngraph.utils: small checks shared by the nngraph files.
local utils = {}

function utils.istable(x)
  return type(x) == 'table' and not torch.typename(x)
end

-- the largest integer key (inputs may have holes: {a, nil, c} is a mistake
-- the messages below point at)
function utils.tableMaxN(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) == 'integer' and k > n then n = k end
  end
  return n
end

-- why list[idx] is not a node, in words that suggest the fix
function utils.expectingNodeErrorMessage(bad, list, idx)
  if bad == nil then
    return string.format('%s[%d] is nil (typo / bad index?)', list, idx)
  elseif torch.isTypeOf(bad, 'nn.Module') then
    return string.format('%s[%d] is an nn.Module, specifically a %s, but the only valid thing to pass is an '
      .. 'instance of nngraph.Node. Did you forget a second set of parens, which convert a nn.Module to a '
      .. 'nngraph.Node?', list, idx, torch.typename(bad))
  end
  return string.format('%s[%d] should be an nngraph.Node but is of type %s', list, idx, torch.type(bad))
end

return utils
