-- nn gradInput release: a container's backward lets go of its children's
-- gradInputs once it has consumed them, so that a training step holds the
-- saved activations and only the gradients in flight (PyTorch's figure),
-- not one gradInput per module (Torch7 kept them all).
--
-- The rule (the containers call release() at the points named):
--   * only in backward (the combined call). updateGradInput followed by
--     accGradParameters keeps everything: Torch7's
--     Sequential:accGradParameters reads its children's gradInputs.
--   * Sequential: child i's gradInput is consumed once child i-1's
--     backward returned (it was child i-1's gradOutput). Concat,
--     DepthConcat, ConcatTable, Parallel: every child's gradInput is
--     consumed once it is summed or copied into the container's own.
--     ParallelTable, MapTable, Decorator, Bottle: their gradInput is their
--     children's gradInputs; nothing to release. nngraph's gModule: the
--     gradients a node received (its successors' gradInputs, and the
--     buffer it summed them in) once its module's backward returned and
--     no node still to run will read them.
--   * releasing a gradInput releases every tensor reachable from it
--     through plain tables: t:set() drops the storage reference and keeps
--     the tensor object, so the identity that containers and users hold
--     stays valid and the next backward refills it. A storage another
--     tensor still views (an in-place ReLU's gradInput views its
--     gradOutput's storage) stays alive for that tensor.
--   * never released: a tensor reachable from what the container returns
--     (Sequential: the first child's gradInput, which is the container's
--     gradInput), from the gradOutput or the input it was given (an
--     nn.Identity's gradInput IS its gradOutput, maybe the criterion's
--     gradInput the user holds), from the gradient still to be consumed
--     (Sequential: what child i-1 returned), or bound to optnet's arena
--     (t:_limit() > 0: a planned slot; releasing it would unbind it).
--   * opt-outs: nn.keepGradInputs(true) (every container keeps all) and
--     module:keepGradInputs(true) (the module and the modules it holds keep
--     theirs: a marked child's gradInput is never released, a marked
--     container releases none of its children's). optnet's trace keeps all
--     while it runs (it reads children's gradInputs at the container's step).
require 'nn.Module'
local torch = torch
local nn = nn

local gradrelease = {}

local keepAll = false

-- nn.keepGradInputs([flag]) -> the previous setting
function nn.keepGradInputs(flag)
  local prev = keepAll
  if flag ~= nil then
    if type(flag) ~= 'boolean' then
      error(string.format('nn.keepGradInputs: flag must be a boolean, got %s', type(flag)), 2)
    end
    keepAll = flag
  end
  return prev
end

-- module:keepGradInputs([flag]): marks the module and every module it holds
-- now; returns the module
function nn.Module:keepGradInputs(flag)
  if flag == nil then flag = true end
  if type(flag) ~= 'boolean' then
    error(string.format('%s:keepGradInputs: flag must be a boolean, got %s', torch.type(self), type(flag)), 2)
  end
  local function mark(m)
    rawset(m, '_keepGradInputs', flag or nil)
    if type(m.modules) == 'table' then
      for _, c in ipairs(m.modules) do mark(c) end
    end
  end
  mark(self)
  return self
end

-- does the container release its children's gradInputs in this backward?
function gradrelease.active(container)
  return not keepAll and not rawget(container, '_keepGradInputs')
end

-- adds every tensor reachable from v (through plain tables) to set
local function collect(v, set, seen)
  if torch.isTensor(v) then
    set[v] = true
  elseif type(v) == 'table' and not torch.typename(v) and not seen[v] then
    seen[v] = true
    for _, x in pairs(v) do collect(x, set, seen) end
  end
  return set
end

-- the tensors the container must not release: reachable from any of ...
function gradrelease.protect(...)
  local set, seen = {}, {}
  for i = 1, select('#', ...) do collect((select(i, ...)), set, seen) end
  return set
end

-- tensors left alone only because optnet's arena holds them: optnet's undo
-- releases them instead of giving them private memory, so that the net
-- holds what a plain one would after the same passes. Weak keys: memory
-- bookkeeping only (the numbers never depend on it), so a side table
local skipped = setmetatable({}, {__mode = 'k'})
-- tensors this module emptied -> {key, bytes}: what each held, for
-- the accGradParameters error and for optnet.countUsedMemory, which counts a
-- released gradInput at the size it had (OptNet's measure of a net's
-- tensors, as Torch7 held them). Tensors that viewed one storage share its
-- key: aliveKey maps a storage (by its serial, never reused) still held by
-- others to its key. Weak values: a key no released tensor refers to any
-- more goes, so a training loop does not grow the table
local released = setmetatable({}, {__mode = 'k'})
local aliveKey, nextKey = setmetatable({}, {__mode = 'v'}), 0

local function record(v)
  local id, bytes, refs = v:_storageSerial(), v:_storageBytes(), v:_storageRefs()
  local k = aliveKey[id]
  if not k or k.bytes ~= bytes then
    nextKey = nextKey + 1
    k = {key = 'released:' .. nextKey, bytes = bytes}
  end
  aliveKey[id] = refs > 1 and k or nil
  released[v] = k
end

local function drop(v, protected, seen)
  if torch.isTensor(v) then
    if protected[v] or v:isFreed() then return end
    if v:_limit() > 0 then
      skipped[v] = true
    elseif v:nElement() > 0 then
      record(v)
      v:set()
    end
  elseif type(v) == 'table' and not torch.typename(v) and not seen[v] then
    seen[v] = true
    for _, x in pairs(v) do drop(x, protected, seen) end
  end
end

-- releases child's gradInput (the container decided it is consumed), but
-- no tensor in 'protected' (from gradrelease.protect)
function gradrelease.release(child, protected)
  if rawget(child, '_keepGradInputs') then return end
  local gi = rawget(child, 'gradInput')
  if gi ~= nil then drop(gi, protected, {}) end
end

-- a container's pass that keeps its children's gradInputs (updateGradInput,
-- or backward with the release off): they are no longer released ones
function gradrelease.kept(container)
  if next(skipped) == nil then return end
  for _, m in ipairs(container.modules) do
    local gi = rawget(m, 'gradInput')
    if gi ~= nil then
      for t in pairs(collect(gi, {}, {})) do skipped[t] = nil end
    end
  end
end

-- in-place modules whose updateGradInput, run twice, gives what it gave
-- once: they mask the gradOutput they write over
local IDEMPOTENT = {['nn.ReLU'] = true, ['nn.Threshold'] = true, ['nn.ReLU6'] = true,
                    ['nn.HardTanh'] = true, ['nn.Clamp'] = true}

-- Sequential's accGradParameters and accUpdateGradParameters read child
-- i's gradInput as child i-1's gradOutput: after a backward it may be
-- released. Torch7 code calls accGradParameters after backward (to take
-- the gradients twice, as torch-autograd's tests do): the released
-- gradInputs are then made again by the container's updateGradInput, from
-- the same outputs and gradOutput, so the numbers are Torch7's. Not when a
-- module inside writes over its gradOutput or input in a way a second run
-- would repeat (an in-place MulConstant, AddConstant, Dropout): false then.
-- does v (a tensor or a table of them) hold a tensor this module emptied?
function gradrelease.anyReleased(v)
  for t in pairs(collect(v, {}, {})) do
    if released[t] and t:nElement() == 0 then return true end
  end
  return false
end

-- 'needed' (a list of gradients the container's accGradParameters reads;
-- by default its children's gradInputs after the first)
function gradrelease.remake(container, input, gradOutput, needed)
  if not needed then
    -- a child's gradInput may be a table (CAddTable's), released leaf by leaf
    needed = {}
    for i = 2, #container.modules do needed[#needed + 1] = rawget(container.modules[i], 'gradInput') end
  end
  if not gradrelease.anyReleased(needed) then return true end
  for _, m in ipairs(container:listModules()) do
    if rawget(m, 'inplace') and not IDEMPOTENT[torch.type(m)] then return false end
  end
  container:updateGradInput(input, gradOutput)
  return true
end

-- Sequential's accGradParameters or accUpdateGradParameters ('method')
-- after a backward: the released gradInputs made again (remake), or an
-- error naming the first released one when an in-place module forbids it
-- (the child would otherwise report an empty gradOutput, deep inside)
function gradrelease.ensureKept(container, input, gradOutput, method)
  if gradrelease.remake(container, input, gradOutput) then return end
  for i = #container.modules, 2, -1 do  -- the first the loop would meet
    if gradrelease.anyReleased(rawget(container.modules[i], 'gradInput')) then
      error(string.format("%s:%s: the gradInput of module %d is empty: backward releases the children's gradInputs "
        .. 'once consumed, and an in-place module inside keeps them from being made again; call updateGradInput '
        .. 'before %s, or keep them with nn.keepGradInputs(true) or module:keepGradInputs(true)',
        torch.type(container), method, i, method), 3)
    end
  end
end

-- the key and bytes of what gradInput tensor t held before a container
-- released it, or nil (t holds memory again, or was never released)
function gradrelease.releasedBytes(t)
  local k = released[t]
  if k and t:nElement() == 0 then return k.key, k.bytes end
end

-- optnet's undo: was t (bound to the arena) one a plain net would have
-- released in the last pass? Forgets it.
function gradrelease.takeSkipped(t)
  local was = skipped[t] == true
  skipped[t] = nil
  return was
end

-- a branching container (Concat, DepthConcat, ConcatTable, Parallel),
-- after its backward summed or copied its children's gradInputs into its
-- own: releases them all
function gradrelease.releaseChildren(container, input, gradOutput)
  if not gradrelease.active(container) then return gradrelease.kept(container) end
  local protected = gradrelease.protect(gradOutput, input, container.gradInput)
  for _, m in ipairs(container.modules) do gradrelease.release(m, protected) end
end

-- releases each tensor of 'set' (tensor -> true) not in 'protected': the
-- gradients an nngraph node consumed, once no later node reads them
function gradrelease.releaseTensors(set, protected)
  for t in pairs(set) do drop(t, protected, {}) end
end

-- gradrelease.collect(v[, set]): every tensor reachable from v through
-- plain tables, as keys of set
function gradrelease.collect(v, set)
  return collect(v, set or {}, {})
end

return gradrelease
