-- nn.Jacobian: finite-difference gradient checks, as Torch7's nn.Jacobian.
--
-- forward() builds the Jacobian d(output)/d(param) by central differences,
-- perturbing one element of 'param' at a time; backward() builds it from
-- the module's updateGradInput/accGradParameters with one-hot gradOutputs.
-- Rows are elements of param, columns elements of the output. test*
-- return the largest absolute difference between the two.
--
-- Beyond Torch7: 'input' and the module's output may be tables (nested) of
-- tensors, so table modules are checked the same way; their elements are
-- taken in depth-first order. Element access goes through storage offsets,
-- so non-contiguous inputs are perturbed in place. These loops are per
-- element in Lua: they are for tests on small sizes, not for speed.

require 'nn.utils'
local torch = torch
local nn = nn

local Jacobian = {}
nn.Jacobian = Jacobian

-- tensors of a tensor or nested table, depth first
local function tensorsOf(x, list)
  list = list or {}
  if torch.isTensor(x) then
    list[#list + 1] = x
  elseif type(x) == 'table' then
    for i = 1, #x do tensorsOf(x[i], list) end
  elseif x ~= nil then
    error('nn.Jacobian: tensor or table of tensors expected, got ' .. torch.type(x), 3)
  end
  return list
end

-- element accessors over a list of tensors: n, get(i), set(i, v) (1-based)
local function elements(x)
  local list = tensorsOf(x)
  local stor, offs = {}, {}
  for _, t in ipairs(list) do
    local n = t:nElement()
    if n > 0 then
      local s, base = t:storage(), t:storageOffset()
      local dim = t:dim()
      local size, stride, idx = {}, {}, {}
      for d = 1, dim do size[d], stride[d], idx[d] = t:size(d), t:stride(d), 0 end
      local off = 0
      for _ = 1, n do
        stor[#stor + 1] = s
        offs[#offs + 1] = base + off
        -- odometer over the indices, last dimension fastest
        local d = dim
        while d >= 1 do
          idx[d] = idx[d] + 1
          off = off + stride[d]
          if idx[d] < size[d] then break end
          off = off - idx[d] * stride[d]
          idx[d] = 0
          d = d - 1
        end
      end
    end
  end
  return #offs,
    function(i) return stor[i][offs[i]] end,
    function(i, v) stor[i][offs[i]] = v end
end

-- copies the elements of x (tensor or table) into the 1D double tensor dst
local function flatCopy(dst, x)
  local pos = 1
  for _, t in ipairs(tensorsOf(x)) do
    local n = t:nElement()
    if n > 0 then
      dst:narrow(1, pos, n):copy(t:contiguous():view(n))
      pos = pos + n
    end
  end
  return dst
end

local function countOf(x)
  local n = 0
  for _, t in ipairs(tensorsOf(x)) do n = n + t:nElement() end
  return n
end

-- zeros shaped like x (tensor or nested table)
local function zerosLike(x)
  if torch.isTensor(x) then return x.new():resizeAs(x):zero() end
  local r = {}
  for i = 1, #x do r[i] = zerosLike(x[i]) end
  return r
end

-- integer tensors (LookupTable's indices) get the uniform numbers cast,
-- truncated toward zero, as Torch7's copy from a double tensor does
local function fillUniform(x, minval, maxval)
  for _, t in ipairs(tensorsOf(x)) do
    if t:nElement() > 0 then
      local tn = torch.type(t)
      if tn == 'torch.DoubleTensor' or tn == 'torch.FloatTensor' then
        t:uniform(minval, maxval)
      else
        t:copy(torch.DoubleTensor(t:size()):uniform(minval, maxval))
      end
    end
  end
end

local function maxAbsDiff(a, b)
  local sa, sb = a:contiguous():storage(), b:contiguous():storage()
  local oa, ob = a:contiguous():storageOffset(), b:contiguous():storageOffset()
  local m = 0
  for i = 0, a:nElement() - 1 do
    local d = math.abs(sa[oa + i] - sb[ob + i])
    if d > m or d ~= d then m = d end
  end
  return m
end

-- Jacobian from backprop: column i is the gradient (of input, or of
-- 'param' through 'dparam') for a one-hot gradOutput at output element i
function Jacobian.backward(module, input, param, dparam)
  local doparam = param ~= nil
  param = param or input
  local out = module:forward(input)
  local dout = zerosLike(out)
  local nout, _, setOut = elements(dout)
  local jacobian = torch.DoubleTensor(countOf(param), nout):zero()
  for i = 1, nout do
    for _, t in ipairs(tensorsOf(dout)) do t:zero() end
    setOut(i, 1)
    module:zeroGradParameters()
    local din = module:updateGradInput(input, dout)
    module:accGradParameters(input, dout)
    flatCopy(jacobian:select(2, i), doparam and dparam or din)
  end
  return jacobian
end

-- parameters after one accUpdateGradParameters step with lr 1, per one-hot
-- gradOutput (the original parameters restored in between)
function Jacobian.backwardUpdate(module, input, param)
  local out = module:forward(input)
  local dout = zerosLike(out)
  local nout, _, setOut = elements(dout)
  local jacobian = torch.DoubleTensor(countOf(param), nout):zero()
  local params = module:parameters()
  local orig = {}
  for j = 1, #params do orig[j] = params[j]:clone() end
  for i = 1, nout do
    for j = 1, #params do params[j]:copy(orig[j]) end
    for _, t in ipairs(tensorsOf(dout)) do t:zero() end
    setOut(i, 1)
    module:updateGradInput(input, dout)
    module:accUpdateGradParameters(input, dout, 1)
    flatCopy(jacobian:select(2, i), param)
  end
  for j = 1, #params do params[j]:copy(orig[j]) end
  return jacobian
end

-- Jacobian by central differences on the elements of 'param' (default input)
function Jacobian.forward(module, input, param, perturbation)
  param = param or input
  perturbation = perturbation or 1e-6
  local n, get, set = elements(param)
  local nout = countOf(module:forward(input))
  local jacobian = torch.DoubleTensor(n, nout)
  local outa, outb = torch.DoubleTensor(nout), torch.DoubleTensor(nout)
  for i = 1, n do
    local orig = get(i)
    set(i, orig - perturbation)
    flatCopy(outa, module:forward(input))
    set(i, orig + perturbation)
    flatCopy(outb, module:forward(input))
    set(i, orig)
    local row = jacobian:select(1, i)
    local sa, sb = outa:storage(), outb:storage()
    local rs, ro = row:storage(), row:storageOffset()
    for k = 1, nout do rs[ro + k - 1] = (sb[k] - sa[k]) / (2 * perturbation) end
  end
  return jacobian
end

-- what parameters become after a step of lr 1 along the finite-difference
-- derivative: param - d(output_k)/d(param), per output element k
function Jacobian.forwardUpdate(module, input, param, perturbation)
  local jacobian = Jacobian.forward(module, input, param, perturbation)
  local n, get = elements(param)
  local nout = jacobian:size(2)
  local s, o = jacobian:storage(), jacobian:storageOffset()
  for i = 1, n do
    local v = get(i)
    for k = 1, nout do
      local at = o + (i - 1) * nout + k - 1
      s[at] = v - s[at]
    end
  end
  return jacobian
end

function Jacobian.testJacobian(module, input, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  fillUniform(input, minval, maxval)
  local jf = Jacobian.forward(module, input, input, perturbation)
  local jb = Jacobian.backward(module, input)
  return maxAbsDiff(jf, jb)
end

function Jacobian.testJacobianParameters(module, input, param, dparam, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  fillUniform(input, minval, maxval)
  fillUniform(param, minval, maxval)
  local jb = Jacobian.backward(module, input, param, dparam)
  local jf = Jacobian.forward(module, input, param, perturbation)
  return maxAbsDiff(jf, jb)
end

function Jacobian.testJacobianUpdateParameters(module, input, param, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  fillUniform(input, minval, maxval)
  fillUniform(param, minval, maxval)
  local pb = Jacobian.backwardUpdate(module, input, param)
  local pf = Jacobian.forwardUpdate(module, input, param, perturbation)
  return maxAbsDiff(pf, pb)
end

local function cloneValue(x)
  if torch.isTensor(x) then return x:clone() end
  local r = {}
  for i = 1, #x do r[i] = cloneValue(x[i]) end
  return r
end

local function flatValue(x)
  return flatCopy(torch.DoubleTensor(countOf(x)), x)
end

-- forward/backward before and after a save/load round trip (clearState
-- first) give the same output and gradInput: returns both max errors
function Jacobian.testIO(module, input, minval, maxval)
  minval, maxval = minval or -2, maxval or 2
  local inputclone = cloneValue(input)
  module:forward(input)
  local go = zerosLike(module.output)
  fillUniform(go, minval, maxval)
  local goclone = cloneValue(go)
  module:zeroGradParameters()
  module:updateGradInput(input, go)
  module:accGradParameters(input, go)
  local fo, bo = flatValue(module.output), flatValue(module.gradInput)

  assert(module:clearState() == module, 'nn.Jacobian.testIO: clearState did not return self')
  local filename = os.tmpname()
  local f = torch.DiskFile(filename, 'w'):binary()
  f:writeObject(module)
  f:close()
  local rf = torch.DiskFile(filename, 'r'):binary()
  local m = rf:readObject()
  rf:close()
  os.remove(filename)

  m:forward(inputclone)
  m:zeroGradParameters()
  m:updateGradInput(inputclone, goclone)
  m:accGradParameters(inputclone, goclone)
  local fo2, bo2 = flatValue(m.output), flatValue(m.gradInput)
  local errf = fo:nElement() == fo2:nElement() and maxAbsDiff(fo, fo2) or math.huge
  local errb = bo:nElement() == bo2:nElement() and (bo:nElement() == 0 and 0 or maxAbsDiff(bo, bo2)) or math.huge
  return errf, errb
end

-- gradient check of a criterion: d(loss)/d(input) by central differences
-- against criterion:backward (tensor or table input)
function Jacobian.testCriterion(criterion, input, target, perturbation)
  perturbation = perturbation or 1e-6
  criterion:forward(input, target)
  local gb = flatValue(criterion:backward(input, target))
  local n, get, set = elements(input)
  local gf = torch.DoubleTensor(n)
  for i = 1, n do
    local orig = get(i)
    set(i, orig - perturbation)
    local a = criterion:forward(input, target)
    set(i, orig + perturbation)
    local b = criterion:forward(input, target)
    set(i, orig)
    gf[i] = (b - a) / (2 * perturbation)
  end
  return maxAbsDiff(gf, gb)
end

-- Torch7's testAllUpdate: the four ways of updating 'weight' (the name of a
-- parameter field, 'gradWeight' its gradient's) after one backward with a
-- random gradOutput must agree: accGradParameters + updateParameters,
-- accUpdateGradParameters, and both again on two clones sharing the field
-- (each applies the step once, so the shared weight moves twice). Returns
-- a table {name = error} over clones, leaving 'module' untouched.
function Jacobian.testAllUpdate(module, input, weight, gradWeight)
  local lr = torch.uniform(0.1, 1)
  local errors = {}

  local acc = module:clone()
  local w0 = acc[weight]:clone()
  acc:forward(input)
  local gradOutput = torch.rand(acc.output:size())
  acc:zeroGradParameters()
  acc:updateGradInput(input, gradOutput)
  acc:accGradParameters(input, gradOutput)
  acc:updateParameters(lr)
  errors.accGradParameters = (w0 - acc[gradWeight] * lr - acc[weight]):norm()

  local upd = module:clone()
  upd:forward(input)
  upd:updateGradInput(input, gradOutput)
  upd:accUpdateGradParameters(input, gradOutput, lr)
  errors.accUpdateGradParameters = (upd[weight] - acc[weight]):norm()

  -- expected weight once both shared clones have stepped
  local twice = w0 - acc[gradWeight] * (lr * 2)

  local sh1, sh2 = module:clone(), module:clone()
  sh2:share(sh1, weight)
  sh1:forward(input)
  sh2:forward(input)
  sh1:zeroGradParameters()
  sh2:zeroGradParameters()
  sh1:updateGradInput(input, gradOutput)
  sh2:updateGradInput(input, gradOutput)
  sh1:accGradParameters(input, gradOutput)
  sh2:accGradParameters(input, gradOutput)
  sh1:updateParameters(lr)
  sh2:updateParameters(lr)
  errors['accGradParameters [shared]'] = (twice - sh1[weight]):norm() + (twice - sh2[weight]):norm()

  local su1, su2 = module:clone(), module:clone()
  su2:share(su1, weight)
  su1:forward(input)
  su2:forward(input)
  su1:updateGradInput(input, gradOutput)
  su2:updateGradInput(input, gradOutput)
  su1:accUpdateGradParameters(input, gradOutput, lr)
  su2:accUpdateGradParameters(input, gradOutput, lr)
  errors['accUpdateGradParameters [shared]'] = (twice - su1[weight]):norm() + (twice - su2[weight]):norm()

  return errors
end

-- --- diagonal Hessian checks (nn.hessian) ----------------------------------
-- Both sides compute the diagonal of the Hessian of F = sum_k y_k^2 / 2 (y
-- the module's output): dF/dy = y and d2F/dy2 = 1, so backpropagating ones
-- through updateDiagHessianInput/accDiagHessianParameters gives it, and for
-- a module linear in its input and parameters it is also sum_k (dy_k/dx)^2
-- from ordinary one-hot backprops.

-- by the hessian methods (nn.hessian.enable()): the module's field
-- 'diagHessianParamName' after one pass with diagHessianOutput = ones
function Jacobian.backwardDiagHessian(module, input, diagHessianParamName)
  module:forward(input)
  local ones = module.output.new():resizeAs(module.output):fill(1)
  if module.diagHessianWeight then module.diagHessianWeight:zero() end
  if module.diagHessianBias then module.diagHessianBias:zero() end
  module:updateDiagHessianInput(input, ones)
  module:accDiagHessianParameters(input, ones)
  return module[diagHessianParamName]
end

-- by first derivatives, for a linear module: sum over one-hot gradOutputs
-- of the squared gradient in field 'gradParamName' (flat)
function Jacobian.linearModuleDiagHessian(module, input, gradParamName)
  module:forward(input)
  local gradOutput = module.output.new():resizeAs(module.output)
  local flatOut = gradOutput:view(gradOutput:nElement())
  local diag, g
  for i = 1, gradOutput:nElement() do
    flatOut:zero()
    flatOut[i] = 1
    module:zeroGradParameters()
    module:updateGradInput(input, gradOutput)
    module:accGradParameters(input, gradOutput)
    -- sized after the first pass: gradInput may be empty before it
    local n = module[gradParamName]:nElement()
    diag = diag or torch.DoubleTensor(n):zero()
    g = g or torch.DoubleTensor(n)
    flatCopy(g, module[gradParamName])
    diag:addcmul(g, g)
  end
  return diag or torch.DoubleTensor()
end

function Jacobian.testDiagHessian(module, input, gradParamName, diagHessianParamName, minval, maxval)
  minval, maxval = minval or -2, maxval or 2
  fillUniform(input, minval, maxval)
  module:initDiagHessianParameters()
  local hb = flatValue(Jacobian.backwardDiagHessian(module, input, diagHessianParamName))
  local hl = Jacobian.linearModuleDiagHessian(module, input, gradParamName)
  if hb:nElement() ~= hl:nElement() then
    error(string.format('nn.Jacobian.testDiagHessian: %s has %d elements, %s %d', diagHessianParamName,
                        hb:nElement(), gradParamName, hl:nElement()), 2)
  end
  return maxAbsDiff(hb, hl)
end

function Jacobian.testDiagHessianInput(module, input, minval, maxval)
  return Jacobian.testDiagHessian(module, input, 'gradInput', 'diagHessianInput', minval, maxval)
end

function Jacobian.testDiagHessianWeight(module, input, minval, maxval)
  return Jacobian.testDiagHessian(module, input, 'gradWeight', 'diagHessianWeight', minval, maxval)
end

function Jacobian.testDiagHessianBias(module, input, minval, maxval)
  return Jacobian.testDiagHessian(module, input, 'gradBias', 'diagHessianBias', minval, maxval)
end

return Jacobian
