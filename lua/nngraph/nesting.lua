-- nngraph.nesting: tensors nested in tables (a node's gradOutput may be
-- a table of tables of tensors): clone, fill, resize like, copy, add.
local nesting = {}

function nesting.cloneNested(v)
  if torch.isTensor(v) then return v:clone() end
  local r = {}
  for k, x in pairs(v) do r[k] = nesting.cloneNested(x) end
  return r
end

function nesting.fillNested(v, value)
  if torch.isTensor(v) then v:fill(value); return end
  for _, x in pairs(v) do nesting.fillNested(x, value) end
end

-- out takes the structure and sizes of like (keys like lacks are dropped)
function nesting.resizeNestedAs(out, like)
  if torch.isTensor(out) then out:resizeAs(like); return end
  for k, x in pairs(like) do
    if out[k] == nil then out[k] = nesting.cloneNested(x) else nesting.resizeNestedAs(out[k], x) end
  end
  for k in pairs(out) do
    if like[k] == nil then out[k] = nil end
  end
end

function nesting.copyNested(out, src)
  if torch.isTensor(out) then out:copy(src); return end
  for k, x in pairs(src) do nesting.copyNested(out[k], x) end
  for k in pairs(out) do
    if src[k] == nil then error('nngraph: key ' .. tostring(k) .. ' present in output but not in input', 2) end
  end
end

function nesting.addNestedTo(out, src)
  if torch.isTensor(out) then out:add(src); return end
  for k, x in pairs(src) do
    if out[k] == nil then error('nngraph: gradients to sum differ in structure (missing key ' .. tostring(k) .. ')', 2) end
    nesting.addNestedTo(out[k], x)
  end
end

return nesting
