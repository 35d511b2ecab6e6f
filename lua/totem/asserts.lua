-- totem's comparison predicates. Each are* function returns
-- (success, message); each assert* function raises the message when the
-- comparison fails (Lua's assert: the message has no position prefix).
-- Tensors (and storages) are equal when they have the same type, the same
-- number of dimensions, the same sizes and every element within
-- 'tolerance' (default 0) of the other; a NaN never equals anything.
-- Tables compare key by key, recursively; numbers within the tolerance;
-- anything else with ==. 'negate' swaps success and failure.

local totem = totem

-- Lua's assert, kept here: under busted the global assert is luassert's,
-- which prefixes a position. Argument errors name the caller's line.
local function check(ok, message)
  if not ok then error(message, 0) end
  return ok, message
end

local function argcheck(ok, message)
  if not ok then error(message, 3) end
end

-- largest |a - b| over two tensors of one size, NaN-aware (math.huge)
local function maxAbsDiff(ta, tb)
  if ta:nElement() == 0 then return 0 end
  -- a fresh double copy: ta:double() is ta itself for a DoubleTensor
  local d = torch.DoubleTensor(ta:size()):copy(ta):add(-1, tb:double()):abs()
  if d:ne(d):sum() > 0 then return math.huge end
  return d:max()
end

local function sameFormatEq(ta, tb, tolerance, negate, what)
  local err = maxAbsDiff(ta, tb)
  local success = err <= tolerance
  if negate then success = not success end
  if success then return true end
  return false, string.format('%s%s violation: max diff=%s, tolerance=%s', what,
                              negate and 'NE(==)' or 'EQ(==)', tostring(err), tostring(tolerance))
end

local function checkTolerance(tolerance)
  argcheck(type(tolerance) == 'number',
         'Third argument should be a number describing a tolerance on equality for a single element')
end

-- totem.areTensorsEq(ta, tb [, tolerance [, negate]]) -> success, message
function totem.areTensorsEq(ta, tb, tolerance, negate)
  negate = negate or false
  tolerance = tolerance or 0
  argcheck(torch.isTensor(ta), 'First argument should be a Tensor')
  argcheck(torch.isTensor(tb), 'Second argument should be a Tensor')
  checkTolerance(tolerance)
  if ta:dim() ~= tb:dim() then return negate, 'The tensors have different dimensions' end
  if ta:type() ~= tb:type() then return negate, 'The tensors have different types' end
  if ta:dim() == 0 then return not negate, 'Both tensors are empty' end
  if not ta:isSameSizeAs(tb) then return negate, 'The tensors have different sizes' end
  return sameFormatEq(ta, tb, tolerance, negate, 'Tensor')
end

function totem.areTensorsNe(ta, tb, tolerance)
  return totem.areTensorsEq(ta, tb, tolerance, true)
end

function totem.assertTensorEq(ta, tb, tolerance)
  return check(totem.areTensorsEq(ta, tb, tolerance))
end

function totem.assertTensorNe(ta, tb, tolerance)
  return check(totem.areTensorsNe(ta, tb, tolerance))
end

-- totem.areStoragesEq(sa, sb [, tolerance [, negate]]) -> success, message
function totem.areStoragesEq(sa, sb, tolerance, negate)
  negate = negate or false
  tolerance = tolerance or 0
  argcheck(torch.isStorage(sa), 'First argument should be a Storage')
  argcheck(torch.isStorage(sb), 'Second argument should be a Storage')
  checkTolerance(tolerance)
  if sa:size() ~= sb:size() then return negate, 'The storages have different sizes' end
  local typeA = torch.type(sa)
  if typeA ~= torch.type(sb) then return negate, 'The storages have different types' end
  if sa:size() == 0 then return not negate, 'Both storages are empty' end
  local Tensor = torch[typeA:match('^torch%.(%a+)Storage$') .. 'Tensor']
  return sameFormatEq(Tensor(sa), Tensor(sb), tolerance, negate, 'Storage')
end

function totem.areStoragesNe(sa, sb, tolerance)
  return totem.areStoragesEq(sa, sb, tolerance, true)
end

function totem.assertStorageEq(sa, sb, tolerance)
  return check(totem.areStoragesEq(sa, sb, tolerance))
end

function totem.assertStorageNe(sa, sb, tolerance)
  return check(totem.areStoragesNe(sa, sb, tolerance))
end

-- totem.areEq(got, expected [, tolerance [, negate]]): deep equality of any
-- two values (types must match)
function totem.areEq(got, expected, tolerance, negate)
  negate = negate or false
  tolerance = tolerance or 0
  local violation = negate and 'NE(==)' or 'EQ(==)'
  if type(got) ~= type(expected) then
    return negate, not negate and string.format('Arguments are not of the same type (got: %s, expected: %s)',
                                                type(got), type(expected)) or nil
  end
  if type(got) == 'number' then
    local diff = math.abs(got - expected)
    local ok = diff <= tolerance
    if negate then ok = not ok end
    if ok then return true end
    return false, string.format('number%s violation: max diff=%s, tolerance=%s', violation, tostring(diff),
                                tostring(tolerance))
  end
  if type(expected) == 'table' then return totem.areTablesEq(got, expected, tolerance, negate) end
  if torch.isTensor(got) and torch.isTensor(expected) then
    return totem.areTensorsEq(got, expected, tolerance, negate)
  end
  if torch.isStorage(got) and torch.isStorage(expected) then
    return totem.areStoragesEq(got, expected, tolerance, negate)
  end
  if torch.isTensor(got) ~= torch.isTensor(expected) or torch.isStorage(got) ~= torch.isStorage(expected) then
    return negate, not negate and string.format('Arguments are not of the same type (got: %s, expected: %s)',
                                                torch.type(got), torch.type(expected)) or nil
  end
  local ok = got == expected
  if negate then ok = not ok end
  if ok then return true end
  return false, string.format('%s%s violation: val1=%s, val2=%s', type(got), violation, tostring(got),
                              tostring(expected))
end

-- totem.areTablesEq(t1, t2 [, tolerance [, negate]]): every key of either
-- table maps to equal values in both
function totem.areTablesEq(t1, t2, tolerance, negate)
  negate = negate or false
  tolerance = tolerance or 0
  argcheck(type(t1) == 'table', 'First argument should be a Table')
  argcheck(type(t2) == 'table', 'Second argument should be a Table')
  checkTolerance(tolerance)
  for k, v in pairs(t2) do
    local ok, message = totem.areEq(t1[k], v, tolerance, false)
    if not ok then return negate, string.format('at key %s: %s', tostring(k), message) end
  end
  for k, v in pairs(t1) do
    if t2[k] == nil then
      local _, message = totem.areEq(v, nil, tolerance, false)
      return negate, string.format('at key %s: %s', tostring(k), message)
    end
  end
  return not negate, 'The tables are equal.'
end

function totem.areTablesNe(t1, t2, tolerance)
  return totem.areTablesEq(t1, t2, tolerance, true)
end

function totem.assertTableEq(ta, tb, tolerance)
  return check(totem.areTablesEq(ta, tb, tolerance))
end

function totem.assertTableNe(ta, tb, tolerance)
  return check(totem.areTablesEq(ta, tb, tolerance, true))
end

return totem
