-- spec.support.modcheck: the checks every nn module and criterion passes,
-- as busted tests. A spec file describes each module by a case and hands
-- busted's 'it' in:
--
--   local mc = require 'spec.support.modcheck'
--   describe('nn.Abs', function()
--     mc.module(it, {make = function() return nn.Abs() end,
--                    input = function() return torch.randn(3, 4) end,
--                    tostring = 'nn.Abs'})
--   end)
--
-- module(it, case) checks, in double unless said:
--   gradient of the output w.r.t. the input, and w.r.t. every parameter,
--     against central finite differences (nn.Jacobian); accUpdateGradParameters
--     against the same; 'backward' equals updateGradInput + accGradParameters
--   float <-> double: a float copy gives the double numbers to float
--     precision, forward and backward, and converts back to double
--   clone: same numbers; clone('weight', 'bias', ...) shares those tensors
--   save/load (binary and ascii): same class, same numbers, same text
--   __tostring: the text Torch7 prints (case.tostring)
--   memoryTraits: the class answers (it does not inherit nn.Module's
--     default), and every tensor field the module holds after a training
--     pass is classified: output, gradInput, parameter or its gradient (the
--     tensors parameters() returns), a buffer, or state (traits.state)
--   optnet: the module in a Sequential (after an exact x * 1 when the
--     input is a floating tensor, so that in-place switching is tried), optimized in inference and in
--     training mode (verify on: dead slots are NaN), gives exactly the
--     numbers of an unoptimized copy, at the traced input and at case.input2
--     (another batch: a re-plan), and again after removeOptimization.
--
-- case fields:
--   make()            a fresh module (any type; it is converted to double)
--   input()           a fresh input (tensor or table; converted to double
--                     unless it is an integer tensor)
--   input2()          optional: another input (another batch size)
--   tostring          optional: the expected tostring(module)
--   name              optional: label (default: the module's class)
--   minval, maxval    optional: the range finite differences draw the input
--                     from (nn.Jacobian's default [-2, 2]); 'keep' keeps the
--                     case's own input (differentiable only near it)
--   tol               optional: finite-difference tolerance (default 1e-5)
--   jacobian = false  the output is not differentiable in the input
--                     (indices, a sampled or a piecewise constant output);
--                     say why in 'why'
--   params = false    do not check parameters by finite differences
--   accUpdate = false the module has no accUpdateGradParameters of its own
--                     meaning (e.g. its gradient is not a plain derivative)
--   stochastic = true each run reseeds the generator (Dropout-like modules)
--   noGradInput = true backward is not defined for this input (integer input)
--   optnet = false    the module cannot run inside optnet (say why in 'why')
--   prefix = false    no x * 1 before the module in the optnet check
--   float = false     the module has no float path (say why)
--   skip = {name = reason}  skip one named check, with the reason
--
-- criterion(it, case) checks the loss and its gradient the same way:
-- case.make, case.input, case.target (a function), optional tostring, tol,
-- jacobian = false; forward returns exactly one value, a number.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'
local assert = require 'luassert'  -- required modules do not see the spec's

local M = {}

local INT = {['torch.LongTensor'] = true, ['torch.IntTensor'] = true, ['torch.ShortTensor'] = true,
             ['torch.CharTensor'] = true, ['torch.ByteTensor'] = true}

-- v converted to 'tname' (tensors inside tables too); integer tensors stay
local function convert(v, tname)
  if torch.isTensor(v) then
    if INT[torch.type(v)] then return v end
    return v:type(tname)
  elseif type(v) == 'table' then
    local r = {}
    for k, x in pairs(v) do r[k] = convert(x, tname) end
    return r
  end
  return v
end

local copy = H.clone

-- largest |a - b| / max(1, |a|) over tensors or tables of tensors with the same shape
local function reldiff(a, b, what)
  local worst = 0
  local fa = {}
  H.each(a, function(t, p) fa[p] = t end)
  H.each(b, function(t, p)
    local x = fa[p]
    assert(x, what .. ': missing ' .. p)
    assert(x:nElement() == t:nElement(), string.format('%s: %s has %d elements, expected %d', what, p,
                                                        t:nElement(), x:nElement()))
    if t:nElement() > 0 then
      local xd, td = x:double():contiguous():view(-1), t:double():contiguous():view(-1)
      local d = (xd - td):abs():cdiv(xd:clone():abs():clamp(1, math.huge)):max()
      if d ~= d then d = math.huge end
      worst = math.max(worst, d)
    end
  end)
  return worst
end

local function seeded(case, f, ...)
  if case.stochastic then torch.manualSeed(1234) end
  return f(...)
end

-- forward, then backward with a fixed gradOutput; copies of the results
local function pass(case, m, x, go)
  local out = copy(seeded(case, m.forward, m, x))
  go = go or H.gradFor(out, 99)
  local gi
  if not case.noGradInput then
    m:zeroGradParameters()
    gi = copy(m:backward(x, go))
  end
  local _, gp = m:parameters()
  return {output = out, gradInput = gi, gradParams = gp and copy(gp) or nil}, go
end

local function same(a, b, what, tol)
  for _, k in ipairs{'output', 'gradInput', 'gradParams'} do
    if a[k] ~= nil or b[k] ~= nil then
      assert(a[k] ~= nil and b[k] ~= nil, what .. ': ' .. k .. ' present in one run only')
      local d = reldiff(a[k], b[k], what .. ' ' .. k)
      assert(d <= (tol or 0), string.format('%s: %s differs by %g (relative)', what, k, d))
    end
  end
end

local function label(case, m)
  return case.name or torch.type(m)
end

local function skipped(case, check)
  return case.skip and case.skip[check]
end

local function fresh(case)
  torch.manualSeed(42)
  -- gradients as a training script has them before its first backward
  -- (a new module's may hold whatever memory held: nn.NaN would see NaN)
  local m = case.make():double()
  m:zeroGradParameters()
  torch.manualSeed(43)
  local x = convert(case.input(), 'torch.DoubleTensor')
  return m, x
end

-- the module's tensors that parameters() reports (and their gradients)
local function paramSet(m)
  local set = {}
  local p, g = m:parameters()
  for _, t in ipairs(p or {}) do set[t] = true end
  for _, t in ipairs(g or {}) do set[t] = true end
  return set
end

-- max |finite differences - backprop| of d(output)/d(param) (param nil:
-- the input); with minval = 'keep' the case's own input and parameters are
-- used, else nn.Jacobian's tests draw them from [minval, maxval]
local function jacobianError(case, m, x, p, g)
  if case.minval == 'keep' then
    local jf = nn.Jacobian.forward(m, x, p)
    local jb = nn.Jacobian.backward(m, x, p, g)
    return (jf - jb):abs():max()
  end
  if p then return nn.Jacobian.testJacobianParameters(m, x, p, g, case.minval, case.maxval) end
  return nn.Jacobian.testJacobian(m, x, case.minval, case.maxval)
end

local function jacobianChecks(it, case, name)
  local tol = case.tol or 1e-5
  if case.jacobian ~= false and not case.noGradInput and not skipped(case, 'jacobian') then
    it(name .. ': gradInput matches finite differences', function()
      local m, x = fresh(case)
      local err = jacobianError(case, m, x)
      assert(err < tol, string.format('%s: input Jacobian error %g (tolerance %g)', name, err, tol))
    end)
  end
  if case.params ~= false and not skipped(case, 'params') then
    it(name .. ': parameter gradients match finite differences', function()
      local m, x = fresh(case)
      local p, g = m:parameters()
      if not p or #p == 0 then return end
      for i = 1, #p do
        local err = jacobianError(case, m, x, p[i], g[i])
        assert(err < tol, string.format('%s: parameter %d Jacobian error %g', name, i, err))
        if case.accUpdate ~= false and case.minval ~= 'keep' then
          local e2 = nn.Jacobian.testJacobianUpdateParameters(m, x, p[i], case.minval, case.maxval)
          assert(e2 < tol, string.format('%s: accUpdateGradParameters error %g on parameter %d', name, e2, i))
        end
      end
    end)
  end
end

local function typeChecks(it, case, name)
  if case.float ~= false and not skipped(case, 'float') then
    it(name .. ': float gives the double numbers; converts back to double', function()
      local m, x = fresh(case)
      local f = m:clone():float()
      assert.are.equal('torch.FloatTensor', f:type())
      local rd, go = pass(case, m, x)
      local rf = pass(case, f, convert(x, 'torch.FloatTensor'), convert(go, 'torch.FloatTensor'))
      H.each(rf.output, function(t) assert(INT[torch.type(t)] or torch.type(t) == 'torch.FloatTensor',
                                           'float output is ' .. torch.type(t)) end)
      same(rd, rf, name .. ' float vs double', case.floatTol or 1e-3)
      local d = f:double()
      assert.are.equal('torch.DoubleTensor', d:type())
      local rb = pass(case, d, x, go)
      same(rd, rb, name .. ' float -> double', case.floatTol or 1e-3)
    end)
  end
end

local function copyChecks(it, case, name)
  it(name .. ': clone gives the same numbers; clone(names) shares', function()
    local m, x = fresh(case)
    local c = m:clone()
    local r1, go = pass(case, m, x)
    same(r1, pass(case, c, x, go), name .. ' clone', 0)
    local names = {}
    for _, k in ipairs{'weight', 'bias', 'gradWeight', 'gradBias'} do
      if torch.isTensor(rawget(m, k)) then names[#names + 1] = k end
    end
    if #names > 0 then
      local s = m:clone(table.unpack(names))
      for _, k in ipairs(names) do
        assert(s[k]:isSetTo(m[k]) or (s[k]:nElement() == 0 and m[k]:nElement() == 0),
               name .. ': clone(' .. k .. ') does not share ' .. k)
      end
    end
  end)
  it(name .. ': save/load (binary and ascii) keeps class, numbers and text', function()
    local m, x = fresh(case)
    local r1, go = pass(case, m, x)
    for _, mode in ipairs{'binary', 'ascii'} do
      local l = torch.deserialize(torch.serialize(m, mode), mode)
      assert.are.equal(torch.type(m), torch.type(l))
      assert.are.equal(tostring(m), tostring(l))
      same(r1, pass(case, l, x, go), name .. ' ' .. mode .. ' load', 0)
    end
  end)
  if case.tostring then
    it(name .. ': prints as Torch7 does', function()
      local m = fresh(case)
      assert.are.equal(case.tostring, tostring(m))
    end)
  end
end

local ROLES = {output = true, gradInput = true}

local function traitChecks(it, case, name)
  it(name .. ': memoryTraits answers and names every tensor field', function()
    local m, x = fresh(case)
    assert(m.memoryTraits ~= nn.Module.memoryTraits or (case.defaultTraits and true),
           name .. ': inherits the default memoryTraits of nn.Module (say what backward reads)')
    pass(case, m, x)
    local tr = m:memoryTraits()
    assert.are.equal('table', type(tr.buffers), name .. ': traits.buffers')
    local params = paramSet(m)
    local state = tr.state or {}
    for k, v in pairs(m) do
      if type(k) == 'string' and k ~= 'modules' and not ROLES[k] and not tr.buffers[k] and not state[k]
         and not (torch.isTensor(v) and params[v]) and not (case.held and case.held[k]) then
        local tensors = 0
        if type(v) == 'table' and torch.typename(v) and torch.isTypeOf(v, 'nn.Module') then
          tensors = 0
        else
          H.each(type(v) == 'table' and not torch.isTensor(v) and not torch.typename(v) and v or
                 (torch.isTensor(v) and v or {}), function() tensors = tensors + 1 end)
        end
        assert(tensors == 0, string.format('%s: tensor field %s is neither a buffer nor state in memoryTraits', name, k))
      end
    end
  end)
end

local function optnetChecks(it, case, name)
  -- MODCHECK_OPTNET=0: left out (make test-asan: Lua planning over kernels
  -- the other checks run already)
  if case.optnet == false or os.getenv('MODCHECK_OPTNET') == '0' then return end
  local optnet = require 'optnet'
  for _, mode in ipairs{'inference', 'training'} do
    it(name .. ': optnet (' .. mode .. ') gives the unoptimized numbers', function()
      local m, x = fresh(case)
      -- a floating tensor input first goes through x * 1 (exact), so that
      -- the module's input is an activation optnet may overwrite (the net's
      -- own input never is): in-place switching gets exercised
      local ref = nn.Sequential()
      if torch.isTensor(x) and not INT[torch.type(x)] and case.prefix ~= false then
        ref:add(nn.MulConstant(1))
      end
      ref:add(m)
      local net = ref:clone()
      local run = function(n, input, go)
        if mode == 'inference' then
          n:evaluate()
          return {output = copy(seeded(case, n.forward, n, input))}, go
        end
        n:training()
        return pass(case, n, input, go)
      end
      local inputs = {x}
      if case.input2 then torch.manualSeed(44); inputs[2] = convert(case.input2(), 'torch.DoubleTensor') end
      if mode == 'training' then ref:training(); net:training() else ref:evaluate(); net:evaluate() end
      optnet.optimizeMemory(net, x, {mode = mode, verify = true})
      for round = 1, 2 do
        for i, input in ipairs(inputs) do
          local r, go = run(ref, input)
          same(r, run(net, input, go), string.format('%s %s optimized, input %d, round %d', name, mode, i, round), 0)
        end
      end
      optnet.removeOptimization(net)
      local r, go = run(ref, x)
      same(r, run(net, x, go), name .. ' ' .. mode .. ' after removeOptimization', 0)
    end)
  end
end

function M.module(it, case)
  local probe = case.make()
  local name = label(case, probe)
  jacobianChecks(it, case, name)
  typeChecks(it, case, name)
  copyChecks(it, case, name)
  traitChecks(it, case, name)
  optnetChecks(it, case, name)
  if not case.noGradInput and not skipped(case, 'backward') then
    it(name .. ': backward is updateGradInput then accGradParameters', function()
      local m, x = fresh(case)
      local c = m:clone()
      local r1, go = pass(case, m, x)
      c:zeroGradParameters()
      seeded(case, c.forward, c, x)
      local gi = copy(c:updateGradInput(x, go))
      c:accGradParameters(x, go, 1)
      local _, gp = c:parameters()
      same(r1, {output = r1.output, gradInput = gi, gradParams = gp and copy(gp) or nil},
           name .. ' backward vs the two steps', 1e-12)
    end)
  end
end

function M.criterion(it, case)
  local probe = case.make()
  local name = case.name or torch.type(probe)
  local function freshc()
    torch.manualSeed(42)
    local c = case.make():double()
    torch.manualSeed(43)
    return c, convert(case.input(), 'torch.DoubleTensor'), convert(case.target(), 'torch.DoubleTensor')
  end
  it(name .. ': forward returns one number', function()
    local c, x, t = freshc()
    local n = select('#', c:forward(x, t))
    assert.are.equal(1, n, name .. ': forward returned ' .. n .. ' values')
    assert.are.equal('number', type(c:forward(x, t)))
    assert.are.equal(c.output, c:forward(x, t))
  end)
  if case.jacobian ~= false then
    it(name .. ': gradient matches finite differences', function()
      local c, x, t = freshc()
      local err = nn.Jacobian.testCriterion(c, x, t)
      assert(err < (case.tol or 1e-5), string.format('%s: criterion Jacobian error %g', name, err))
    end)
  end
  if case.float ~= false then
    it(name .. ': float gives the double numbers', function()
      local c, x, t = freshc()
      local f = c:clone():float()
      local ld = c:forward(x, t)
      local gd = copy(c:backward(x, t))
      local lf = f:forward(convert(x, 'torch.FloatTensor'), convert(t, 'torch.FloatTensor'))
      local gf = f:backward(convert(x, 'torch.FloatTensor'), convert(t, 'torch.FloatTensor'))
      assert(math.abs(ld - lf) <= 1e-3 * math.max(1, math.abs(ld)), name .. ': float loss ' .. lf .. ' vs ' .. ld)
      assert(reldiff(gd, gf, name .. ' float gradInput') <= 1e-3)
    end)
  end
  it(name .. ': clone and save/load give the same loss and gradient', function()
    local c, x, t = freshc()
    local l = c:forward(x, t)
    local g = copy(c:backward(x, t))
    local others = {c:clone(), torch.deserialize(torch.serialize(c)),
                    torch.deserialize(torch.serialize(c, 'ascii'), 'ascii')}
    for _, o in ipairs(others) do
      assert.are.equal(torch.type(c), torch.type(o))
      assert.are.equal(l, o:forward(x, t))
      assert.are.equal(0, reldiff(g, o:backward(x, t), name .. ' copy gradInput'))
    end
  end)
  if case.tostring then
    it(name .. ': prints as Torch7 does', function()
      assert.are.equal(case.tostring, tostring(freshc()))
    end)
  end
end

return M
