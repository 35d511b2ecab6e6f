-- nngraph.nest(tree): a node whose output has the shape of a nested table
-- of nodes: a node stays itself, a one-entry list becomes {x}
-- (JustTable), a longer list a table of its entries' outputs (Identity).
local function isNode(v) return torch.typename(v) == 'nngraph.Node' end

local function nest(v)
  if isNode(v) then return v end
  if type(v) ~= 'table' or torch.typename(v) or #v == 0 then
    error('nngraph.nest: a node or a non-empty list of nodes expected, got ' .. torch.type(v), 3)
  end
  if #v == 1 then return nngraph.JustTable()(v) end
  local parts = {}
  for i, x in ipairs(v) do parts[i] = nest(x) end
  return nn.Identity()(parts)
end

function nngraph.nest(...)
  local n = select('#', ...)
  if n > 1 then error('nngraph.nest: use {input1, input2} to pass multiple inputs', 2) end
  local v = ...
  if v == nil then error('nngraph.nest: pass an input', 2) end
  return nest(v)
end
