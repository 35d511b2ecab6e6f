-- nn.utils: helpers shared by modules and containers, as Torch7's nn/utils.lua:
-- recursive operations over tensors-or-tables (the values table modules pass
-- around), type conversion that keeps storage sharing, clearing buffers, a
-- deep copy that keeps internal sharing, and shape strings for error messages.

local torch = torch
nn = nn or {}
local nn = nn
nn.utils = nn.utils or {}
local utils = nn.utils

-- from the C core's one list of types (torch._typenames)
local integerTypes, floatTypes = {}, {}
for _, n in ipairs(torch._typenames) do
  local set = torch._C.dtypeFloating[n] and floatTypes or integerTypes
  set['torch.' .. n .. 'Tensor'] = true
end

-- "2x3x4" for a tensor, "empty" for no dimensions, "table" for a table
function utils.shapeString(x)
  if torch.isTensor(x) then
    if x:dim() == 0 then return 'empty tensor' end
    local s = {}
    for i = 1, x:dim() do s[i] = tostring(x:size(i)) end
    return x:dim() .. 'D ' .. table.concat(s, 'x')
  elseif type(x) == 'table' then
    return 'table of ' .. #x .. ' elements'
  end
  return torch.type(x)
end

-- sizes as "2x3x4" (no dimension prefix)
function utils.sizeString(x)
  local s = {}
  for i = 1, x:dim() do s[i] = tostring(x:size(i)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

-- raises "<who>: <message>" without a position prefix
function utils.error(who, fmt, ...)
  error(string.format('%s: ' .. fmt, who, ...), 0)
end

-- backward before forward: 'state' (a tensor forward fills: the output, a
-- mask, the norms) is missing or empty. Raises "<class>:updateGradInput:
-- no <what>: call forward (updateOutput) before backward"
function utils.needForward(self, state, what)
  if not torch.isTensor(state) or state:nElement() == 0 then
    error(string.format('%s:updateGradInput: no %s: call forward (updateOutput) before backward', torch.type(self),
                        what), 0)
  end
  return state
end

-- --- constructor arguments --------------------------------------------------
-- An integer argument (an integral float passes and is returned as an
-- integer) or an error naming the class and the argument, raised 'level'
-- frames above this function (default 3: where the constructor was called,
-- as error(msg, 2) written in the constructor itself).
-- positive: "<cls>: <what> must be a positive integer, got <v>"
function utils.positive(v, what, cls, level)
  -- a number only: math.tointeger would take the digit string '3' too
  local i = type(v) == 'number' and math.tointeger(v) or nil
  if i == nil or i < 1 then
    error(string.format('%s: %s must be a positive integer, got %s', cls, what, tostring(v)), level or 3)
  end
  return i
end

-- count: "<cls>: <what> must be an integer >= <min>, got <v>" (min default 1)
function utils.count(v, what, cls, min, level)
  min = min or 1
  local i = type(v) == 'number' and math.tointeger(v) or nil
  if i == nil or i < min then
    error(string.format('%s: %s must be an integer >= %d, got %s', cls, what, min, tostring(v)), level or 3)
  end
  return i
end

-- checks that input is a table of two tensors and returns them; 'names'
-- ('{x1, x2}') is added to the message
function utils.checkTensorPair(input, who, names)
  if not utils.istable(input) or #input ~= 2 or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then
    utils.error(who, 'input must be a table of two tensors%s, got %s', names and ' ' .. names or '',
                utils.shapeString(input))
  end
  return input[1], input[2]
end

-- checks that x is a floating tensor; 'who' names the caller in the error
function utils.checkTensor(x, who, what)
  if not torch.isTensor(x) then
    utils.error(who, '%s must be a tensor, got %s', what or 'input', torch.type(x))
  end
  return x
end

-- checks that x is a (possibly nested) table of tensors
function utils.checkTable(x, who, what)
  if type(x) ~= 'table' or torch.typename(x) then
    utils.error(who, '%s must be a table of tensors, got %s', what or 'input', torch.type(x))
  end
  return x
end

-- the CPU type another name stands for (cutorch's torch.CudaTensor is
-- torch.FloatTensor: docs/cuda.md), else the name itself
function utils.canonicalType(tname)
  local aliases = torch._typeAliases
  return aliases and aliases[tname] or tname
end

-- tensorCache keeps sharing: tensors are keyed by the tensor object and
-- storages by the storage object (t:storage() returns the same box each time).
-- Integer tensors (indices, masks) stay integer when the target is floating:
-- they hold indices the kernels read as integers.
function utils.recursiveType(param, tname, tensorCache)
  tname = utils.canonicalType(tname)
  tensorCache = tensorCache or {}
  if torch.type(param) == 'table' then
    for k, v in pairs(param) do
      param[k] = utils.recursiveType(v, tname, tensorCache)
    end
  elseif torch.isTypeOf(param, 'nn.Module') or torch.isTypeOf(param, 'nn.Criterion') then
    param:type(tname, tensorCache)
  elseif torch.isTensor(param) then
    local from = torch.typename(param)
    if from ~= tname and not (integerTypes[from] and floatTypes[tname]) then
      local newparam = tensorCache[param]
      if not newparam then
        newparam = torch[torch._tensortypes[tname] .. 'Tensor']()
        local storage = param:storage()
        if storage then
          local ns = tensorCache[storage]
          if not ns then
            local stname = tname:gsub('Tensor$', 'Storage')
            ns = torch.getconstructortable(stname)(#storage)
            if #storage > 0 then ns:copy(storage) end
            tensorCache[storage] = ns
          end
          newparam:set(ns, param:storageOffset(), param:size(), param:stride())
        end
        tensorCache[param] = newparam
      end
      param = newparam
    end
  end
  return param
end

-- deep copy of a value graph: tables (keeping their metatables, which are
-- classes), tensors and storages are copied once each, so aliases and
-- cycles in the original are aliases and cycles in the copy, and tensors
-- that shared a storage share the copied storage. Functions and other
-- values are kept by reference. Hooks (nn.Module:hook) live in a hooked
-- module's own class, which the copy does not take: they are not copied.
function utils.deepCopy(obj, memo)
  memo = memo or {}
  local function copy(v)
    local tv = type(v)
    if tv ~= 'table' and tv ~= 'userdata' then return v end
    local done = memo[v]
    if done ~= nil then return done end
    if torch.isTensor(v) then
      local r = v.new()
      memo[v] = r
      local s = v:storage()
      if s then r:set(copy(s), v:storageOffset(), v:size(), v:stride()) end
      return r
    elseif torch.isStorage(v) then
      local r = torch.getconstructortable(torch.typename(v))(#v)
      if #v > 0 then r:copy(v) end
      memo[v] = r
      return r
    elseif tv == 'table' then
      local r = {}
      memo[v] = r
      for k, x in pairs(v) do
        r[copy(k)] = copy(x)
      end
      -- the class, not a hooked module's own one (torch._ownClass): hooks are not copied
      local mt = getmetatable(v)
      if mt then setmetatable(r, torch._classOf(mt)) end
      return r
    end
    return v
  end
  return copy(obj)
end

-- empties fields of 'self': tensors are :set() to nothing (same object),
-- tables become empty, anything else becomes nil
-- A kernel workspace field (finput, fgradInput, LRN's paddedRatio): the
-- kernels take their workspace from the shared scratch (src/tensor/
-- th_scratch.c), so the field is kept for Torch7 code and files but holds
-- nothing. Made (like like.new()) when absent; one that holds memory (a
-- Torch7 checkpoint saved between passes kept its columns) gives it back.
function utils.workspaceField(self, name, like)
  local t = self[name]
  if t == nil then
    t = like.new()
    self[name] = t
  elseif t:nElement() > 0 then
    t:set()
  end
  return t
end

function utils.clear(self, ...)
  local arg = {...}
  if #arg > 0 and type(arg[1]) == 'table' then arg = arg[1] end
  for _, f in ipairs(arg) do
    local v = self[f]
    if v ~= nil then
      if torch.isTensor(v) then
        v:set()
      elseif type(v) == 'table' and not torch.typename(v) then
        self[f] = {}
      else
        self[f] = nil
      end
    end
  end
  return self
end

-- --- modules made anew from another ------------------------------------------
-- A package above nn may leave plain-data records on modules (optnet leaves
-- its memory plan: '_optnet', '_optnetSlots', '_optnetFold'). Being data, they
-- travel with the module through torch.save/load, serialize, clone and type;
-- what they mean is the package's business, not nn's. The package registers
-- here, when it loads, the fields it leaves and a function; whenever a module
-- is made anew from another (how = 'load', 'clone' or 'type') and carries one
-- of those fields, the function is handed it (optnet puts the plan back in
-- force, so that a derived net never writes past a slot into its
-- neighbour's memory). deep: look at every module below m (clone, type); a
-- loaded module is seen once per module, as each is read. Registrations are
-- named: registering a name again replaces its entry (a package loaded anew),
-- fn = nil removes it. With none registered, derived returns at once.
local onDerived = {}   -- {name=, fields=, fn=}, in order of registration

function utils.onDerived(name, fields, fn)
  if type(name) ~= 'string' then
    error('nn.utils.onDerived: name (a string) expected as argument 1, got ' .. torch.type(name), 2)
  end
  if type(fields) ~= 'table' or #fields == 0 then
    error('nn.utils.onDerived: field names (a list of strings) expected as argument 2, got ' .. torch.type(fields), 2)
  end
  if fn ~= nil and type(fn) ~= 'function' then
    error('nn.utils.onDerived: function or nil expected as argument 3, got ' .. torch.type(fn), 2)
  end
  for i, e in ipairs(onDerived) do
    if e.name == name then table.remove(onDerived, i) break end
  end
  if fn then onDerived[#onDerived + 1] = {name = name, fields = fields, fn = fn} end
end

function utils.derived(m, how, deep)
  for _, e in ipairs(onDerived) do
    local function records(x)
      for _, f in ipairs(e.fields) do
        if rawget(x, f) ~= nil then return true end
      end
      return false
    end
    -- the walk tolerates holes and non-modules in 'modules': dpnn's
    -- sharedClone clones a module whose step modules it took out of that list
    local function below(x)
      if type(x.modules) ~= 'table' then return false end
      for _, c in pairs(x.modules) do
        if type(c) == 'table' and (records(c) or below(c)) then return true end
      end
      return false
    end
    if records(m) or (deep and below(m)) then e.fn(m, how, deep) end
  end
  return m
end

-- --- where an error is reported --------------------------------------------
-- An error inside a module's method carries the position of the project's
-- own file that raised it ('.../lua/nn/Linear.lua:55: nn.Linear:...'), also
-- after a container's 'In 2 module of nn.Sequential:' line. forward and
-- backward raise it again at the user's call without those positions; an
-- error placed in the user's own file (a module of theirs) keeps its place.
local luaroot = debug.getinfo(1, 'S').source:match('^@(.*/)nn/[^/]*$')

local internal = luaroot and (luaroot:gsub('%p', '%%%0') .. '[^:\n]*:%d+: ')

-- error(msg) again from a forward/backward (level 3: the user's call of it)
function utils.rethrow(e)
  if type(e) ~= 'string' then error(e, 0) end
  if internal then e = e:gsub(internal, '') end
  if e:find('^[^:\n]+:%d+: ') then error(e, 0) end   -- placed in the user's own file
  error(e, 3)
end

-- --- module-owned tensors (docs/memory.md) ----------------------------------
-- A module's output, gradInput, parameters and buffers live as long as the
-- module, not as long as the dispose scope they were born in: they are
-- detached from scopes (and counted as 'module' memory) when the module is
-- built or loaded, and again when forward/backward return (buffers made
-- lazily, `self.buf = self.buf or input.new()`, are born in the caller's
-- scope). Only the outermost call of a nest walks the tree, unless an inner
-- call runs in another scope (a module that opened its own scope).

local C = torch._C

-- detaches every tensor reachable from 'root' (a module, criterion or table)
function utils.own(root)
  return torch.detachModuleTensors(root)
end

local guards = {}          -- open guards, innermost last
local labelled = setmetatable({}, {__mode = 'k'})  -- module -> phases walked without a scope

local guardMT = {__close = function(g)
  -- closes are LIFO within a coroutine; search anyway, coroutines interleave
  local n = #guards
  while n > 0 and guards[n] ~= g do n = n - 1 end
  local outer
  if n > 0 then
    table.remove(guards, n)
    outer = guards[n - 1]
  end
  if outer == nil or outer.scope ~= g.scope then torch.detachModuleTensors(g.module) end
end}

-- local _ <close> = utils.ownGuard(self, 'forward'): detaches the module's
-- tensors when the block ends, also on error. With no scope open only the
-- first call of each phase walks (to label lazily made buffers 'module').
function utils.ownGuard(module, phase)
  local scope = C.currentDisposeScope()
  if scope == nil then
    local done = labelled[module]
    if done and done[phase] then return nil end
    done = done or {}
    done[phase] = true
    labelled[module] = done
  end
  local g = setmetatable({module = module, scope = scope or false}, guardMT)
  guards[#guards + 1] = g
  return g
end

-- t1 takes t2's shape (tensors or nested tables of tensors); returns t1
function utils.recursiveResizeAs(t1, t2)
  if type(t2) == 'table' and not torch.isTensor(t2) then
    t1 = (type(t1) == 'table' and not torch.isTensor(t1)) and t1 or {}
    for k, v in pairs(t2) do
      t1[k] = utils.recursiveResizeAs(t1[k], v)
    end
    for k in pairs(t1) do
      if t2[k] == nil then t1[k] = nil end
    end
  elseif torch.isTensor(t2) then
    t1 = torch.isTensor(t1) and t1 or t2.new()
    t1:resizeAs(t2)
  else
    error('nn.utils.recursiveResizeAs: expecting nested tensors or tables, got ' ..
          torch.type(t1) .. ' and ' .. torch.type(t2), 2)
  end
  return t1
end

function utils.recursiveFill(t2, val)
  if type(t2) == 'table' and not torch.isTensor(t2) then
    for k, v in pairs(t2) do t2[k] = utils.recursiveFill(v, val) end
  elseif torch.isTensor(t2) then
    t2:fill(val)
  else
    error('nn.utils.recursiveFill: expecting tensor or table thereof, got ' .. torch.type(t2), 2)
  end
  return t2
end

-- t1 = t1 + val * t2, recursively
function utils.recursiveAdd(t1, val, t2)
  if not t2 then
    assert(val, 'nn.utils.recursiveAdd: expecting at least two arguments')
    t2 = val
    val = 1
  end
  val = val or 1
  if type(t2) == 'table' and not torch.isTensor(t2) then
    t1 = (type(t1) == 'table' and not torch.isTensor(t1)) and t1 or {}
    for k, v in pairs(t2) do t1[k] = utils.recursiveAdd(t1[k], val, v) end
  elseif torch.isTensor(t1) and torch.isTensor(t2) then
    t1:add(val, t2)
  else
    error('nn.utils.recursiveAdd: expecting nested tensors or tables, got ' ..
          torch.type(t1) .. ' and ' .. torch.type(t2), 2)
  end
  return t1, t2
end

-- t1 gets t2's shape and values (new tensors created where missing)
function utils.recursiveCopy(t1, t2, async)
  if type(t2) == 'table' and not torch.isTensor(t2) then
    t1 = (type(t1) == 'table' and not torch.isTensor(t1)) and t1 or {}
    for k, v in pairs(t2) do t1[k] = utils.recursiveCopy(t1[k], v) end
    for k in pairs(t1) do
      if t2[k] == nil then t1[k] = nil end
    end
  elseif torch.isTensor(t2) then
    t1 = torch.isTensor(t1) and t1 or t2.new()
    t1:resizeAs(t2):copy(t2)
  else
    error('nn.utils.recursiveCopy: expecting nested tensors or tables, got ' ..
          torch.type(t1) .. ' and ' .. torch.type(t2), 2)
  end
  return t1
end

-- a view of t with a size-1 dimension inserted at 'dim' (default 1)
function utils.addSingletonDimension(...)
  local view, t, dim
  if select('#', ...) < 3 then
    t, dim = select(1, ...)
  else
    view, t, dim = select(1, ...)
    assert(torch.isTensor(view), 'nn.utils.addSingletonDimension: output tensor expected, got ' .. torch.type(view))
  end
  assert(torch.isTensor(t), 'nn.utils.addSingletonDimension: input tensor expected, got ' .. torch.type(t))
  dim = dim or 1
  assert(dim > 0 and dim <= t:dim() + 1,
         string.format('nn.utils.addSingletonDimension: invalid dimension %d (tensor has %d)', dim, t:dim()))
  view = view or t.new()
  local size, stride = {}, {}
  for i = 1, t:dim() do size[i], stride[i] = t:size(i), t:stride(i) end
  table.insert(size, dim, 1)
  table.insert(stride, dim, dim <= t:dim() and t:stride(dim) * t:size(dim) or 1)
  view:set(t:storage(), t:storageOffset(), size, stride)
  return view
end

-- output is set to a view of input with the given sizes, copying input into
-- a contiguous buffer first when it is not contiguous
function utils.contiguousView(output, input, ...)
  output = output or input.new()
  if input:isContiguous() then
    output:view(input, ...)
  else
    output:resize(input:size()):copy(input)
    output:view(output, ...)
  end
  return output
end

-- checks a table of >= 1 tensors with equal element counts
function utils.checkTensorTable(self, input, who, minN, maxN)
  if not utils.istable(input) or #input < (minN or 1) then
    error(string.format('%s: input must be a table of at least %d tensors, got %s', who, minN or 1,
                        utils.shapeString(input)), 0)
  end
  local n = nil
  for i = 1, #input do
    local x = input[i]
    if not torch.isTensor(x) then
      error(string.format('%s: input[%d] must be a tensor, got %s', who, i, torch.type(x)), 0)
    end
    if n and x:nElement() ~= n then
      error(string.format('%s: input[%d] (%s) and input[1] (%s) must have the same number of elements', who, i,
                          utils.sizeString(x), utils.sizeString(input[1])), 0)
    end
    n = x:nElement()
  end
  if maxN and #input > maxN then
    error(string.format('%s: input must be a table of %d tensors, got %d', who, maxN, #input), 0)
  end
end

-- gradInput[i] for i <= n exist as tensors of x's type; entries after n go
function utils.gradTable(self, n, like)
  if not utils.istable(self.gradInput) then self.gradInput = {} end
  local g = self.gradInput
  for i = 1, n do
    if not torch.isTensor(g[i]) or torch.type(g[i]) ~= torch.type(like) then g[i] = like.new() end
  end
  for i = #g, n + 1, -1 do g[i] = nil end
  return g
end

-- 'field' becomes (a view of) x: tensors through :set(), tables by reference
function utils.alias(self, field, x)
  if torch.isTensor(x) then
    local cur = self[field]
    if not torch.isTensor(cur) or torch.type(cur) ~= torch.type(x) then
      cur = x.new()
      self[field] = cur
    end
    cur:set(x)
  else
    self[field] = x
  end
  return self[field]
end

-- number of entries of a table (not just its sequence part)
function utils.tableSize(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

-- true when x is a plain table (not a tensor or class instance)
function utils.istable(x)
  return type(x) == 'table' and not torch.typename(x)
end

return utils
