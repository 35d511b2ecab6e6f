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
--     children's gradInputs; nothing to release.
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

local function drop(v, protected, seen)
  if torch.isTensor(v) then
    if not protected[v] and v:_limit() == 0 and not v:isFreed() then v:set() end
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

-- a branching container (Concat, DepthConcat, ConcatTable, Parallel),
-- after its backward summed or copied its children's gradInputs into its
-- own: releases them all
function gradrelease.releaseChildren(container, input, gradOutput)
  if not gradrelease.active(container) then return end
  local protected = gradrelease.protect(gradOutput, input, container.gradInput)
  for _, m in ipairs(container.modules) do gradrelease.release(m, protected) end
end

nn.gradrelease = gradrelease
return gradrelease
