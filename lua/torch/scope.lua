-- Tensor lifetimes under the program's control (docs/memory.md): dispose
-- scopes, the tensor methods that move tensors out of them, memory
-- categories, and torch.memoryStats with the scoped bytes settled.
-- The mechanics are in C (src/lua/th_lua_scope.c): a tensor joins the
-- running coroutine's innermost scope when it is born.

local torch = torch
local C = torch._C
local define = torch._defineTensorMethod

-- local s <close> = torch.DisposeScope(): everything born until s closes is freed then
torch.DisposeScope = C.newDisposeScope
torch.currentDisposeScope = C.currentDisposeScope

-- for nn and optnet: out of any scope, and counted as module-owned memory
torch.detachModuleTensor = C.detachModuleTensor
torch.setMemoryCategory = C.setMemoryCategory
torch.getMemoryCategory = C.getMemoryCategory

-- torch.detachModuleTensors(root) -> root: torch.detachModuleTensor on every
-- live tensor reachable from root through tables (objects included, each
-- visited once). For nn: a module tree owns its tensors; call it after
-- construction, and after a forward/backward that may create buffers
-- lazily while a scope is open (cheap: tensors already detached stay so).
function torch.detachModuleTensors(root)
  local seen = {}
  local own = C.ownIfTensor   -- live tensors only; other userdata left alone
  local function walk(v)
    if seen[v] then return end
    seen[v] = true
    if type(v) == 'table' then
      for _, x in pairs(v) do
        local tx = type(x)
        if tx == 'table' or tx == 'userdata' then walk(x) end
      end
    else
      own(v)
    end
  end
  local tr = type(root)
  if tr == 'table' or tr == 'userdata' then walk(root) end
  return root
end

define('moveToOuterDisposeScope', C.moveToOuterDisposeScope)
define('detachFromDisposeScope', C.detachFromDisposeScope)
define('disposeScope', C.tensorDisposeScope)
define('_setMemoryCategory', C._setMemoryCategory)
define('_memoryCategory', C._memoryCategory)

-- tensors among the results (also inside plain tables, as in `return {out = y}`)
-- that belong to s go to the outer scope
local function moveOut(s, v, seen)
  if torch.isTensor(v) then
    if not v:isFreed() and s:contains(v) then s:moveToOuter(v) end
  elseif type(v) == 'table' and getmetatable(v) == nil and not seen[v] then
    seen[v] = true
    for _, x in pairs(v) do moveOut(s, x, seen) end
  end
end

local function finish(s, ...)
  local seen = {}
  for i = 1, select('#', ...) do moveOut(s, (select(i, ...)), seen) end
  return ...
end

-- torch.withDisposeScope(fn, ...) -> fn(...)'s results, which outlive the scope;
-- every other tensor fn made is freed, also when fn raises
function torch.withDisposeScope(fn, ...)
  local mt = getmetatable(fn)
  if type(fn) ~= 'function' and not (mt and mt.__call) then
    error(string.format("bad argument #1 to 'torch.withDisposeScope' (function expected, got %s)",
                        torch.typename(fn) or type(fn)), 2)
  end
  local s <close> = C.newDisposeScope()
  return finish(s, fn(...))
end

-- the scoped category is labelled after the fact (see th_lua_scope.c):
-- settle it for every open scope before reading the counters
local rawMemoryStats = C.memoryStats
function torch.memoryStats()
  C.scopeSync()
  return rawMemoryStats()
end
