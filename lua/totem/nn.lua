-- totem.nn: checks of an nn module's contract, each reporting through a
-- totem.Tester (failures are assertions, not errors):
--   checkGradients(tester, module, input [, precision])
--   checkMinibatch(tester, module, batchInput [, precision])
--   checkTypeCastable(tester, module, input [, toType [, precision]])
--   checkTypePreservesSharing(tester, module [, toType])
--   checkSerializable(tester, module, input [, precision])
-- Inputs and outputs may be tensors or (nested) tables of tensors; an
-- output may also hold numbers. The loss used for gradients is
-- sum(output .* gradOutput) for a random gradOutput; it is differentiated
-- by central differences (step 1e-6 in double, 1e-3 otherwise) and the
-- default precision is 1e-4 in double, 1e-2 otherwise. The random
-- generator is reset before every forward pass, so that a stochastic
-- module (dropout) is differentiated along one fixed sample.
require 'nn'

local totem = totem
local tnn = {}
rawset(totem, 'nn', tnn)

local function inputType(t)
  if type(t) == 'table' then return inputType(t[1]) end
  return t:type()
end

-- a function that puts the random generator back where it is now
local function checkpointRNG()
  local state = torch.getRNGState()
  return function() torch.setRNGState(state) end
end

local function randomLike(output)
  if torch.isTensor(output) then return torch.randn(output:size()):type(output:type()) end
  if type(output) == 'number' then return torch.normal() end
  local r = {}
  for k, v in pairs(output) do r[k] = randomLike(v) end
  return r
end

local function loss(output, gradOutput)
  if torch.isTensor(output) then return output:double():dot(gradOutput:double()) end
  if type(output) == 'number' then return output * gradOutput end
  local s = 0
  for k, v in pairs(output) do s = s + loss(v, gradOutput[k]) end
  return s
end

-- nested helpers: clone, resize like, copy
local function cloneNested(v)
  if torch.isTensor(v) then return v:clone() end
  local r = {}
  for k, x in pairs(v) do r[k] = cloneNested(x) end
  return r
end

local function copyNested(out, src)
  if torch.isTensor(src) then
    out = torch.isTensor(out) and out or src.new()
    out:resizeAs(src):copy(src)
    return out
  end
  out = type(out) == 'table' and out or {}
  for k, x in pairs(src) do out[k] = copyNested(out[k], x) end
  for k in pairs(out) do if src[k] == nil then out[k] = nil end end
  return out
end

local function checkSizes(tester, input, gradInput)
  if torch.isTensor(input) then
    tester:assert(torch.isTensor(gradInput), 'gradInput should be a tensor')
    if torch.isTensor(gradInput) then
      tester:eq(input:size():totable(), gradInput:size():totable(), 'wrong gradInput size')
    end
  else
    for k, child in pairs(input) do
      if gradInput[k] == nil then error('totem.nn: missing gradInput element ' .. tostring(k), 0) end
      checkSizes(tester, child, gradInput[k])
    end
  end
end

-- the identity, with its own output and gradInput: the checked module sees
-- an input it may not alias, and its gradInput is copied out before the
-- next backward can overwrite it
local CopyModule, CopyParent = torch.class('totem.nn.CopyModule', 'nn.Module')

function CopyModule:__init(tester)
  CopyParent.__init(self)
  self.output, self.gradInput = nil, nil
  self.tester = tester
end

function CopyModule:updateOutput(input)
  self.output = copyNested(self.output, input)
  return self.output
end

function CopyModule:updateGradInput(input, gradOutput)
  checkSizes(self.tester, input, gradOutput)
  self.gradInput = copyNested(self.gradInput, gradOutput)
  return self.gradInput
end

-- {tensor, gradTensor, name} for the parameters and every input tensor
local function paramPairs(module, input)
  local pairsList = {}
  local params = module:parameters()
  if params ~= nil and #params > 0 then
    local p, g = module:getParameters()
    pairsList[#pairsList + 1] = {p, g, 'params'}
  end
  local function walk(x, g, name)
    if x == nil then return end
    if g == nil or g == false then
      io.write(string.format('\nWARNING: totem.nn.checkGradients: no gradInput for %s, not checked\n', name))
      return
    end
    if torch.isTensor(x) then
      pairsList[#pairsList + 1] = {x, g, name}
      return
    end
    for i = 1, #x do walk(x[i], g[i], string.format('%s[%d]', name, i)) end
  end
  walk(input, module.gradInput, 'input')
  return pairsList
end

-- d loss / d t by central differences, t perturbed in place
local function numericGradient(feval, t)
  if not t:isContiguous() then
    error('totem.nn.checkGradients: the tensors checked must be contiguous', 0)
  end
  local flat = t:view(t:nElement())
  local grad = torch.DoubleTensor(t:nElement())
  local small = t:type() == 'torch.DoubleTensor' and 1e-6 or 1e-3
  for i = 1, flat:nElement() do
    local orig = flat[i]
    flat[i] = orig - small
    local l1 = feval()
    flat[i] = orig + small
    local l2 = feval()
    flat[i] = orig
    grad[i] = (l2 - l1) / (2 * small)
  end
  return grad:viewAs(t)
end

-- totem.nn.checkGradients(tester, module, input [, precision]): the
-- gradients w.r.t. the input (every tensor of it) and w.r.t. the flattened
-- parameters, against central differences. accGradParameters must add to
-- the gradients already there (they start random here).
function tnn.checkGradients(tester, module, input, precision)
  local net = nn.Sequential():add(totem.nn.CopyModule(tester)):add(module)
  local revertRNG = checkpointRNG()
  -- one pass first: gradInput exists after it
  net:forward(input)
  net:backward(input, randomLike(net.output))
  local gradOutput = randomLike(net.output)
  for _, pair in ipairs(paramPairs(net, input)) do
    local t, g, name = pair[1], pair[2], pair[3]
    local initial = g:clone()
    if name == 'params' then initial:uniform() else initial:zero() end
    local function feval()
      revertRNG()
      if name ~= 'params' then net:zeroGradParameters() end
      g:copy(initial)
      net:forward(input)
      local l = loss(net.output, gradOutput)
      net:backward(input, gradOutput)
      return l
    end
    feval()
    local analytic = g:clone():add(-1, initial):double()
    local numeric = numericGradient(feval, t)
    local tolerance = precision or (t:type() == 'torch.DoubleTensor' and 1e-4 or 1e-2)
    tester:eq(analytic, numeric, 'wrong grad w.r.t. ' .. name, tolerance)
  end
end

-- rows of a batch (tensor or table of batch tensors) as separate inputs
local function debatch(batch)
  if torch.isTensor(batch) then
    local rows = {}
    for i = 1, batch:size(1) do rows[i] = batch[i]:clone() end
    return rows
  end
  local parts = {}
  for i, item in ipairs(batch) do parts[i] = debatch(item) end
  local rows = {}
  for r = 1, #parts[1] do
    rows[r] = {}
    for i, p in ipairs(parts) do rows[r][i] = p[r] end
  end
  return rows
end

-- totem.nn.checkMinibatch(tester, module, batchInput [, precision]): every
-- row of the batch output and batch gradInput equals the single-example
-- result (precision default 1e-14)
function tnn.checkMinibatch(tester, module, batchInput, precision)
  precision = precision or 1e-14
  local inputs = debatch(batchInput)
  local outputs = debatch(module:forward(batchInput))
  local batchGradOutput = randomLike(module.output)
  local gradOutputs = debatch(batchGradOutput)
  local gradInputs = debatch(module:updateGradInput(batchInput, batchGradOutput))
  for i = 1, #inputs do
    tester:eq(outputs[i], module:forward(inputs[i]), 'wrong minibatch output', precision)
    tester:eq(gradInputs[i], module:updateGradInput(inputs[i], gradOutputs[i]), 'wrong minibatch gradInput',
              precision)
  end
end

-- totem.nn.checkTypePreservesSharing(tester, module [, toType]): a clone
-- sharing the parameters still shares them after :type(toType) of a
-- container holding both
function tnn.checkTypePreservesSharing(tester, module, toType)
  toType = toType or 'torch.FloatTensor'
  local params, gradParams = module:parameters()
  if not params then return tester:assert(true) end
  local clone = module:clone()
  local cparams, cgradParams = clone:parameters()
  for i = 1, #params do
    cparams[i]:set(params[i])
    cgradParams[i]:set(gradParams[i])
  end
  nn.Sequential():add(module):add(clone):type(toType)
  params, gradParams = module:parameters()
  cparams, cgradParams = clone:parameters()
  local ok, message = true, nil
  for i = 1, #params do
    if not cparams[i]:isSetTo(params[i]) then
      ok, message = false, string.format('Sharing is broken for parameter #%d', i)
      break
    elseif not cgradParams[i]:isSetTo(gradParams[i]) then
      ok, message = false, string.format('Sharing is broken for gradParameter #%d', i)
      break
    end
  end
  return tester:assert(ok, message)
end

-- paths of the tensors in obj of type 'want' (cycles visited once)
local function tensorsOfType(obj, want, path, found, seen)
  if torch.isTensor(obj) then
    if obj:type() == want then found[#found + 1] = path end
  elseif type(obj) == 'table' and not seen[obj] then
    seen[obj] = true
    for k, v in pairs(obj) do
      if type(k) == 'string' or type(k) == 'number' then
        tensorsOfType(v, want, path .. '.' .. tostring(k), found, seen)
      end
    end
  end
  return found
end

local function castNested(obj, toType)
  if torch.isTensor(obj) then return obj:type(toType) end
  if type(obj) == 'table' then
    local r = {}
    for k, v in pairs(obj) do r[k] = castNested(v, toType) end
    return r
  end
  return obj
end

-- totem.nn.checkTypeCastable(tester, module, input [, toType [, precision]]):
-- :type(toType) succeeds, leaves no tensor of the input's type in the
-- module, gives the same output and gradInput (within precision, default
-- 1e-6), and casting back gives them again
function tnn.checkTypeCastable(tester, module, input, toType, precision)
  precision = precision or 1e-6
  toType = toType or 'torch.FloatTensor'
  local origType = inputType(input)
  local revertRNG = checkpointRNG()
  local preOutput = cloneNested(module:updateOutput(input))
  local gradOutput = randomLike(preOutput)
  local preGradInput = cloneNested(module:updateGradInput(input, gradOutput))
  tester:assertNoError(function() module:type(toType) end, 'module cannot be cast to ' .. toType)
  if origType ~= toType then
    local left = tensorsOfType(module, origType, 'self', {}, {})
    tester:assert(#left == 0, 'after casting, module still contains tensors of the original type: '
                  .. table.concat(left, ', '))
  end
  local now = tensorsOfType(module, toType, 'self', {}, {})
  tester:assert(#now > 0, 'after casting, module contains no tensor of type ' .. toType)
  revertRNG()
  local castInput = castNested(input, toType)
  local castOutput = module:forward(castInput)
  local castGradInput = module:updateGradInput(castInput, castNested(gradOutput, toType))
  tester:eq(castNested(preOutput, toType), castOutput, 'cast module output differs from before casting',
            precision)
  tester:eq(castNested(preGradInput, toType), castGradInput,
            'cast module grad input differs from before casting', precision)
  tester:assertNoError(function() module:type(origType) end, 'module cannot be cast back to ' .. origType)
  revertRNG()
  local postOutput = module:updateOutput(input)
  local postGradInput = module:updateGradInput(input, gradOutput)
  tester:eq(preOutput, postOutput, 'module output differs before and after typecast', precision)
  tester:eq(preGradInput, postGradInput, 'module gradInput differs before and after typecast', precision)
end

-- totem.nn.checkSerializable(tester, module, input [, precision]):
-- torch.save then torch.load gives a module with the same output and
-- gradInput (within precision, default 1e-6)
function tnn.checkSerializable(tester, module, input, precision)
  precision = precision or 1e-6
  local revertRNG = checkpointRNG()
  local preOutput = cloneNested(module:updateOutput(input))
  local gradOutput = randomLike(preOutput)
  local preGradInput = cloneNested(module:updateGradInput(input, gradOutput))
  local filename = os.tmpname()
  tester:assertNoError(function() torch.save(filename, module) end, 'module cannot be serialized')
  local ok, loaded = pcall(torch.load, filename)
  os.remove(filename)
  if not tester:assert(ok, 'module cannot be deserialized: ' .. tostring(not ok and loaded or '')) then return end
  revertRNG()
  tester:eq(preOutput, loaded:updateOutput(input), 'module output differs before and after serialization',
            precision)
  tester:eq(preGradInput, loaded:updateGradInput(input, gradOutput),
            'module gradInput differs before and after serialization', precision)
end

return tnn
