-- optnet.walk: finding the tensors of a net and what each is for.
-- A module's tensors fall in roles: 'output', 'gradInput', 'buffer' (the
-- fields its memoryTraits() declares), 'param' (weight, bias), 'gradParam'
-- (gradWeight, gradBias) and 'state' (any other tensor field, e.g. batch
-- norm's running statistics). Only outputs, gradInputs and buffers are ever
-- planned; params and state are never moved.
local walk = {}

local PARAM = {weight = true, bias = true}
local GRADPARAM = {gradWeight = true, gradBias = true}

-- calls f(t) for every tensor in v (a tensor or nested tables of tensors)
function walk.tensors(v, f, seen)
  if torch.isTensor(v) then
    f(v)
  elseif type(v) == 'table' and not torch.typename(v) then
    seen = seen or {}
    if seen[v] then return end
    seen[v] = true
    for _, x in pairs(v) do walk.tensors(x, f, seen) end
  end
end

local function default(v, d)
  if v == nil then return d end
  return v
end

-- the module's memory traits (its memoryTraits(), lua/nn) with defaults
-- filled in; what a module does not declare is assumed the careful way:
--   needsInput, needsOutput: whether backward reads the input, the output
--     (default: yes for a leaf, no for a container, whose children read);
--   inplace: the name of its in-place flag field (whether the flag may be
--     turned on is the module's inplaceAllowed());
--   writesGradOutput: in place, whether backward writes into gradOutput
--     (default yes) or only hands its storage on as gradInput (CAddTable);
--   containers: childOutputs, childGradInputs: whether it reads its
--     children's outputs at its forward step (Concat copies them) and their
--     gradInputs at its backward step (ConcatTable sums them), and
--     readsGradOutput: whether its backward step reads its gradOutput or
--     its gradInput itself. nn's containers say; others read all three.
function walk.traits(m)
  local tr = m.memoryTraits and m:memoryTraits() or {}
  local isContainer = type(m.modules) == 'table'
  return {
    buffers = tr.buffers or {},
    needsInput = default(tr.needsInput, not isContainer),
    needsOutput = default(tr.needsOutput, not isContainer),
    inplace = tr.inplace,
    writesGradOutput = default(tr.writesGradOutput, true),
    childOutputs = default(tr.childOutputs, isContainer),
    childGradInputs = default(tr.childGradInputs, isContainer),
    readsGradOutput = default(tr.readsGradOutput, true),
  }
end

-- calls f(tensor, role, fieldname) for each tensor held by module m itself
-- (not its children). The field _optnetShadow (optnet.recompute: the second
-- storages that re-computed activations go to) maps a role to its tensors;
-- skipShadow leaves them out.
function walk.moduleTensors(m, f, skipShadow)
  local tr = walk.traits(m)
  for k, v in pairs(m) do
    if k == '_optnetShadow' then
      if not skipShadow then
        for role, list in pairs(v) do
          for _, t in ipairs(list) do f(t, role, k) end
        end
      end
    elseif k ~= 'modules' and type(k) == 'string' then
      local role
      if k == 'output' then role = 'output'
      elseif k == 'gradInput' then role = 'gradInput'
      elseif PARAM[k] then role = 'param'
      elseif GRADPARAM[k] then role = 'gradParam'
      elseif tr.buffers[k] then role = 'buffer'
      else role = 'state' end
      walk.tensors(v, function(t) f(t, role, k) end)
    end
  end
end

-- every module of the net, containers included, each once, in listModules order
function walk.modules(net)
  local list, seen = {}, {}
  for _, m in ipairs(net:listModules()) do
    if not seen[m] then
      seen[m] = true
      list[#list + 1] = m
    end
  end
  return list
end

-- a path name per module ('1.3.2' below the root, the root is '')
function walk.paths(net)
  local names = {}
  local function rec(m, prefix)
    if names[m] then return end
    names[m] = prefix
    if type(m.modules) == 'table' then
      for i, c in ipairs(m.modules) do
        local n = c.name or tostring(i)
        rec(c, prefix == '' and n or (prefix .. '.' .. n))
      end
    end
  end
  rec(net, '')
  return names
end

-- storage ids of every tensor in v
function walk.storageIds(v, set)
  set = set or {}
  walk.tensors(v, function(t)
    local id = t:_storageId()
    if id then set[id] = true end
  end)
  return set
end

return walk
