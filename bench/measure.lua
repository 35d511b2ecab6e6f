-- What the memory benchmarks share: a gradOutput for a net's output, and
-- the key=value lines their one-measurement scripts print.
local measure = {}

-- a gradOutput shaped like the output: a tensor, or a table of them
-- (googlenet with its aux classifiers returns {aux1, aux2, main})
function measure.gradOf(out)
  if torch.isTensor(out) then return out:clone():fill(1 / out:nElement()) end
  local g = {}
  for k, v in pairs(out) do g[k] = measure.gradOf(v) end
  return g
end

-- the key=value pairs of a line (numbers as numbers)
function measure.fields(line)
  local v = {}
  for k, x in line:gmatch('([%w_]+)=([%w%.%-]+)') do v[k] = tonumber(x) or x end
  return v
end

return measure
