-- nn.SparseJacobian: nn.Jacobian's checks for modules whose input is
-- Torch7's sparse form, an nnz x 2 tensor of {index, value} rows
-- (nn.SparseLinear), as Torch7's nn.SparseJacobian: only the value column
-- is drawn and perturbed, and the gradient w.r.t. the input is read from
-- the value column of gradInput. Checks on a parameter perturb only the
-- parameter, so they are nn.Jacobian's once the values are drawn. The
-- input check needs a gradInput shaped as the input (SparseLinear's dense
-- gradInput is not: check it through its parameters). Rows of
-- the matrices are the perturbed elements, columns the output's elements.
-- Per-element Lua loops: for tests on small sizes.

require 'nn.Jacobian'
local Jacobian = nn.Jacobian
nn.SparseJacobian = nn.SparseJacobian or {}
local SJ = nn.SparseJacobian

local function checkSparse(input, who)
  if not torch.isTensor(input) or input:dim() ~= 2 or input:size(2) < 2 then
    error(string.format('nn.SparseJacobian.%s: input must be an nnz x 2 tensor of {index, value} rows, got %s',
                        who, nn.utils.shapeString(input)), 3)
  end
  return input:select(2, 2)
end

local function drawValues(input, minval, maxval, who)
  local values = checkSparse(input, who)
  minval, maxval = minval or -2, maxval or 2
  values:copy(torch.rand(values:nElement()):mul(maxval - minval):add(minval))
end

-- d(output)/d(values) by central differences (param: d(output)/d(param))
function SJ.forward(module, input, param, perturbation)
  if param then return Jacobian.forward(module, input, param, perturbation) end
  perturbation = perturbation or 1e-6
  local values = checkSparse(input, 'forward')
  local nout = module:forward(input):nElement()
  local jacobian = torch.DoubleTensor(values:nElement(), nout)
  for i = 1, values:nElement() do
    local orig = values[i]
    values[i] = orig - perturbation
    local a = module:forward(input):double():contiguous():view(-1):clone()
    values[i] = orig + perturbation
    local b = module:forward(input):double():contiguous():view(-1)
    values[i] = orig
    jacobian[i]:copy(b - a):div(2 * perturbation)
  end
  return jacobian
end

-- the same from backprop with one-hot gradOutputs
function SJ.backward(module, input, param, dparam)
  if param then return Jacobian.backward(module, input, param, dparam) end
  local values = checkSparse(input, 'backward')
  local out = module:forward(input)
  local dout = out.new():resizeAs(out):zero()
  local flat = dout:view(-1)
  local jacobian = torch.DoubleTensor(values:nElement(), dout:nElement())
  for i = 1, dout:nElement() do
    flat:zero()
    flat[i] = 1
    module:zeroGradParameters()
    local din = module:updateGradInput(input, dout)
    module:accGradParameters(input, dout)
    jacobian:select(2, i):copy(din:select(2, 2))
  end
  return jacobian
end

SJ.backwardUpdate = Jacobian.backwardUpdate
SJ.forwardUpdate = Jacobian.forwardUpdate

function SJ.testJacobian(module, input, minval, maxval, perturbation)
  drawValues(input, minval, maxval, 'testJacobian')
  local jf = SJ.forward(module, input, nil, perturbation)
  local jb = SJ.backward(module, input)
  return (jf - jb):abs():max()
end

function SJ.testJacobianParameters(module, input, param, dparam, minval, maxval, perturbation)
  drawValues(input, minval, maxval, 'testJacobianParameters')
  minval, maxval = minval or -2, maxval or 2
  param:copy(torch.rand(param:nElement()):mul(maxval - minval):add(minval))
  local jb = Jacobian.backward(module, input, param, dparam)
  local jf = Jacobian.forward(module, input, param, perturbation)
  return (jf - jb):abs():max()
end

function SJ.testJacobianUpdateParameters(module, input, param, minval, maxval, perturbation)
  drawValues(input, minval, maxval, 'testJacobianUpdateParameters')
  minval, maxval = minval or -2, maxval or 2
  param:copy(torch.rand(param:nElement()):mul(maxval - minval):add(minval))
  local pb = Jacobian.backwardUpdate(module, input, param)
  local pf = Jacobian.forwardUpdate(module, input, param, perturbation)
  return (pf - pb):abs():max()
end

function SJ.testIO(module, input, minval, maxval)
  drawValues(input, minval, maxval, 'testIO')
  return Jacobian.testIO(module, input, minval, maxval)
end

return SJ
