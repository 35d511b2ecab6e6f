-- optnet.walk: finding the tensors of a net and what each is for.
-- A module's tensors fall in roles: 'output', 'gradInput', 'buffer' (the
-- fields its memoryTraits() declares), 'param' (weight, bias), 'gradParam'
-- (gradWeight, gradBias) and 'state' (any other tensor field, e.g. batch
-- norm's running statistics). Outputs, gradInputs and buffers are
-- planned; params and state are never moved, except a 'state' field that
-- holds another module's output, gradInput or buffer: that is a holding
-- (walk.holdings), planned as the storage it holds, alive while its holder
-- runs.
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
--     its gradInput itself. nn's containers say; others read all three;
--   outputEarly: a container writes its output (gradInput) before its
--     children are done, so they live from where its method began
--     (default: for containers that declare no traits of their own).
function walk.traits(m)
  local tr = m.memoryTraits and m:memoryTraits() or {}
  local isContainer = type(m.modules) == 'table'
  -- a container that says nothing of its own (it inherits nn.Container's
  -- traits) may write its output or gradInput before its children are done
  -- (thrnn.Recurrence did, copying each time step's state as it came): those
  -- are planned from where its method began
  local container = rawget(_G, 'nn') and nn.Container
  local silent = isContainer and container and m.memoryTraits == container.memoryTraits
  return {
    buffers = tr.buffers or {},
    needsInput = default(tr.needsInput, not isContainer),
    needsOutput = default(tr.needsOutput, not isContainer),
    inplace = tr.inplace,
    writesGradOutput = default(tr.writesGradOutput, true),
    childOutputs = default(tr.childOutputs, isContainer),
    childGradInputs = default(tr.childGradInputs, isContainer),
    readsGradOutput = default(tr.readsGradOutput, true),
    held = tr.held or {},
    outputEarly = default(tr.outputEarly, silent and true or false),
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

-- what module m holds beyond its own output, gradInput, parameters and
-- declared buffers, as the trace must see it: f(t, role) for
--  - every tensor in its other fields (role 'state'), nested plain tables
--    included: a field holding another module's input or output (the very
--    tensor object, a view made by :set() or :view(), or a table of them);
--  - every tensor of every module it holds in a field other than
--    'modules' (role: that tensor's role in the held module), and of the
--    modules those hold in turn: a module that keeps an earlier module to
--    read its output (a skip connection) or buffers (its max-pooling
--    indices). Its own children and descendants are not holdings (a
--    container runs them), nor are the children of a held module (hold
--    the child itself to read its tensors).
-- memoryTraits().held narrows a module field to the fields read there:
-- held = {pooling = {'indices'}} reads only the held module's 'indices'.
-- Tensors inside objects of other classes, upvalues or globals are not
-- seen (docs/optnet.md, "Custom modules: what the trace sees").
function walk.holdings(m, f)
  local seenModule, seenTable = {[m] = true}, {}
  local holdingsOf
  -- h, held by x: its tensors (only the fields named, if given), then its holdings
  local function heldModule(x, h, only)
    if seenModule[h] then return end
    for _, d in ipairs(x:listModules()) do
      if d == h then return end    -- x's own descendant: x runs it
    end
    if only then
      local names = {}
      for _, name in ipairs(only) do names[name] = true end
      walk.moduleTensors(h, function(t, role, field) if names[field] then f(t, role) end end)
      return
    end
    seenModule[h] = true
    walk.moduleTensors(h, f)
    holdingsOf(h)
  end
  local function visit(x, v, only)
    if torch.isTensor(v) then
      f(v, 'state')
    elseif type(v) == 'table' then
      if torch.typename(v) then
        if torch.isTypeOf(v, 'nn.Module') then heldModule(x, v, only) end
      elseif not seenTable[v] then
        seenTable[v] = true
        for _, y in pairs(v) do visit(x, y) end
      end
    end
  end
  holdingsOf = function(x)
    local tr = walk.traits(x)
    for k, v in pairs(x) do
      local own = k == 'modules' or k == 'output' or k == 'gradInput' or k == '_optnetShadow'
                  or PARAM[k] or GRADPARAM[k] or tr.buffers[k]
      if type(k) ~= 'string' or not own then
        local only = tr.held[k]
        visit(x, v, type(only) == 'table' and only or nil)
      end
    end
  end
  holdingsOf(m)
end

-- storage ids of every output, gradInput and declared buffer of the
-- modules: the activations (a 'state' field viewing one holds it, it is no
-- state of its own)
function walk.activationIds(modules)
  local ids = {}
  for _, m in ipairs(modules) do
    walk.moduleTensors(m, function(t, role)
      if role == 'output' or role == 'gradInput' or role == 'buffer' then
        local id = t:_storageId()
        if id then ids[id] = ids[id] or {}; ids[id][m] = true end
      end
    end)
  end
  return ids
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

-- whether no two elements of tensor t are one memory location: its
-- dimensions of more than one element, by increasing stride, each step
-- past all the elements of the smaller ones (a sufficient test: a stride-0
-- expansion, nn.Replicate's output, fails it, as does any view whose rows
-- overlap). An in-place module writes each element once; over overlapping
-- ones it would write a location once per alias (optnet's chooseInplace).
function walk.nonOverlapping(t)
  local dims = {}
  for d = 1, t:dim() do
    if t:size(d) > 1 then dims[#dims + 1] = {t:size(d), t:stride(d)} end
  end
  table.sort(dims, function(a, b) return a[2] < b[2] end)
  local reach = 1   -- one past the furthest element the smaller dimensions reach
  for _, d in ipairs(dims) do
    if d[2] < reach then return false end
    reach = reach + (d[1] - 1) * d[2]
  end
  return true
end

-- whether some tensor in v has overlapping elements (walk.nonOverlapping)
function walk.overlaps(v)
  local found = false
  walk.tensors(v, function(t) if not found and not walk.nonOverlapping(t) then found = true end end)
  return found
end

-- whether a and b are tensors of one size, or tables of them with the
-- same keys: in place, a module's backward hands its gradOutput on as its
-- gradInput, which out of place has the input's size (a CAddTable of a
-- 6x4 and a 4x6 tensor gives the second branch a 6x4 gradOutput)
function walk.sameShapes(a, b)
  if torch.isTensor(a) or torch.isTensor(b) then
    return torch.isTensor(a) and torch.isTensor(b) and a:isSameSizeAs(b)
  end
  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end
  for k, v in pairs(a) do
    if not walk.sameShapes(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
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
