-- nn.hessian: Torch7's (experimental) estimates of the diagonal of the
-- Hessian, the Gauss-Newton approximation of LeCun's "Efficient BackProp",
-- used to give each parameter its own learning rate.
--
-- Nothing changes until nn.hessian.enable() is called; it then adds to the
-- classes Torch7 covers (those that are loaded):
--   m:updateDiagHessianInput(input, diagHessianOutput) -> m.diagHessianInput
--   m:accDiagHessianParameters(input, diagHessianOutput)
--     accumulates into m.diagHessianWeight / m.diagHessianBias
--   m:initDiagHessianParameters()
-- For a layer linear in its input and weights (Linear, convolutions) the
-- second derivatives go back through the same kernels as the gradients,
-- with the weights squared (towards the input) or the input squared
-- (towards the weights): the module's fields are swapped for one call and
-- put back, also when the call raises. A pointwise module f gets
-- f'(x)^2 * diagHessianOutput.
-- Unlike Torch7, parameters()/getParameters() are left as they are (they
-- do not return the diagonal Hessian tensors as a third value).

require 'nn.utils'
local torch = torch
local nn = nn

local hessian = {}
nn.hessian = hessian

-- swaps module[a[i]] and module[b[i]] for every i; calling it again undoes it
local function swapFields(module, a, b)
  for i = 1, #a do
    module[a[i]], module[b[i]] = module[b[i]], module[a[i]]
  end
end

local swapBack = {__close = function(g) swapFields(g[1], g[2], g[3]) end}
local restoreField = {__close = function(g) g[1][g[2]] = g[3] end}

-- diagonal Hessian of the parameters named in 'gw' (their gradients'
-- fields), accumulated into the fields named in 'hw': accGradParameters
-- run on input^2 with the hessian tensors in place of the gradients
function hessian.accDiagHessianParameters(module, input, diagHessianOutput, gw, hw)
  if #gw ~= #hw then
    error(string.format('nn.hessian: %d gradients but %d hessians', #gw, #hw), 2)
  end
  module.inputSq = module.inputSq or input.new()
  module.inputSq:resizeAs(input)
  torch.cmul(module.inputSq, input, input)
  for i = 1, #gw do
    if module[hw[i]] == nil then
      module[hw[i]] = module[gw[i]].new():resizeAs(module[gw[i]]):zero()
    end
  end
  swapFields(module, gw, hw)
  local _ <close> = setmetatable({module, gw, hw}, swapBack)
  -- the forward pass on input^2 (convolutions rebuild their unfolded input
  -- from it) must not overwrite the real output
  local _o <close> = setmetatable({module, 'output', module.output}, restoreField)
  module.output = module.output.new():resizeAs(module.output)
  module:forward(module.inputSq)
  module:accGradParameters(module.inputSq, diagHessianOutput, 1)
end

-- diagonal Hessian towards the input: updateGradInput with the weights
-- named in 'w' squared (kept in the fields named in 'wsq') and the result
-- written into diagHessianInput
function hessian.updateDiagHessianInput(module, input, diagHessianOutput, w, wsq)
  if #w ~= #wsq then
    error(string.format('nn.hessian: %d weights but %d squared weights', #w, #wsq), 2)
  end
  module.diagHessianInput = module.diagHessianInput or input.new()
  module.diagHessianInput:resizeAs(input):zero()
  for i = 1, #w do
    local sq = module[wsq[i]] or module[w[i]].new()
    module[wsq[i]] = sq
    sq:resizeAs(module[w[i]])
    torch.cmul(sq, module[w[i]], module[w[i]])
  end
  swapFields(module, w, wsq)
  local _ <close> = setmetatable({module, w, wsq}, swapBack)
  local _g <close> = setmetatable({module, 'gradInput', module.gradInput}, restoreField)
  module.gradInput = module.diagHessianInput
  module:updateGradInput(input, diagHessianOutput)
end

-- pointwise y = f(x): diagHessianInput = f'(x)^2 * diagHessianOutput
function hessian.updateDiagHessianInputPointWise(module, input, diagHessianOutput)
  local ones = diagHessianOutput.new():resizeAs(diagHessianOutput):fill(1)
  hessian.updateDiagHessianInput(module, input, ones, {}, {})
  module.diagHessianInput:cmul(module.diagHessianInput)
  module.diagHessianInput:cmul(diagHessianOutput)
end

-- creates diagHessianInput and the hessian tensors named in 'hw'
function hessian.initDiagHessianParameters(module, gw, hw)
  module.diagHessianInput = module.diagHessianInput or module.gradInput.new()
  for i = 1, #gw do
    module[hw[i]] = module[hw[i]] or module[gw[i]].new():resizeAs(module[gw[i]]):zero()
  end
end

local GRADS = {'gradWeight', 'gradBias'}
local HESS = {'diagHessianWeight', 'diagHessianBias'}

-- the three methods of a layer linear in input and weights; 'squared'
-- lists the parameters squared towards the input (Torch7: the map
-- convolutions square the bias too)
local function linearLayer(class, squared)
  local sq = {}
  for i = 1, #squared do sq[i] = squared[i] .. 'Sq' end
  function class:updateDiagHessianInput(input, diagHessianOutput)
    hessian.updateDiagHessianInput(self, input, diagHessianOutput, squared, sq)
    return self.diagHessianInput
  end
  function class:accDiagHessianParameters(input, diagHessianOutput)
    local gw, hw = {}, {}
    for i = 1, #GRADS do
      if self[GRADS[i]] then gw[#gw + 1], hw[#hw + 1] = GRADS[i], HESS[i] end
    end
    hessian.accDiagHessianParameters(self, input, diagHessianOutput, gw, hw)
  end
  function class:initDiagHessianParameters()
    local gw, hw = {}, {}
    for i = 1, #GRADS do
      if self[GRADS[i]] then gw[#gw + 1], hw[#hw + 1] = GRADS[i], HESS[i] end
    end
    hessian.initDiagHessianParameters(self, gw, hw)
  end
end

local function pointwise(class)
  function class:updateDiagHessianInput(input, diagHessianOutput)
    hessian.updateDiagHessianInputPointWise(self, input, diagHessianOutput)
    return self.diagHessianInput
  end
end

local enabled = false

function hessian.enable()
  if enabled then return end
  enabled = true

  function nn.Module:updateDiagHessianInput(input, diagHessianOutput)
    error(torch.typename(self) .. ':updateDiagHessianInput() is undefined', 2)
  end
  function nn.Module:accDiagHessianParameters(input, diagHessianOutput) end
  function nn.Module:initDiagHessianParameters() end

  function nn.Sequential:initDiagHessianParameters()
    for i = 1, #self.modules do self.modules[i]:initDiagHessianParameters() end
  end
  function nn.Sequential:updateDiagHessianInput(input, diagHessianOutput)
    local d = diagHessianOutput
    for i = #self.modules, 2, -1 do
      d = self.modules[i]:updateDiagHessianInput(self.modules[i - 1].output, d)
    end
    d = self.modules[1]:updateDiagHessianInput(input, d)
    self.diagHessianInput = d
    return d
  end
  function nn.Sequential:accDiagHessianParameters(input, diagHessianOutput)
    local d = diagHessianOutput
    for i = #self.modules, 2, -1 do
      local m = self.modules[i]
      m:accDiagHessianParameters(self.modules[i - 1].output, d)
      d = m.diagHessianInput
    end
    self.modules[1]:accDiagHessianParameters(input, d)
  end

  function nn.Criterion:updateDiagHessianInput(input, diagHessianOutput)
    error(torch.typename(self) .. ':updateDiagHessianInput() is undefined', 2)
  end

  -- MSE: d2/dx2 (x - y)^2 = 2 (/ n when averaged)
  local function mseDiag(self, input)
    self.diagHessianInput = self.diagHessianInput or input.new()
    local v = 2
    if self.sizeAverage then v = v / input:nElement() end
    self.diagHessianInput:resizeAs(input):fill(v)
    return self.diagHessianInput
  end
  nn.MSECriterion.updateDiagHessianInput = mseDiag
  if nn.WeightedMSECriterion then nn.WeightedMSECriterion.updateDiagHessianInput = mseDiag end

  if nn.L1Cost then
    -- Torch7's value: 1 where the input is not 0
    function nn.L1Cost:updateDiagHessianInput(input)
      self.diagHessianInput = self.diagHessianInput or input.new()
      self.diagHessianInput:resizeAs(input):fill(1)
      self.diagHessianInput[torch.eq(input, 0)] = 0
      return self.diagHessianInput
    end
  end

  for _, name in ipairs{'Linear', 'SpatialConvolution', 'SpatialConvolutionLocal',
                        'SpatialFullConvolution', 'SpatialFullConvolutionMap'} do
    if nn[name] then linearLayer(nn[name], {'weight'}) end
  end
  if nn.SpatialConvolutionMap then linearLayer(nn.SpatialConvolutionMap, {'weight', 'bias'}) end

  for _, name in ipairs{'Tanh', 'Square', 'Sqrt'} do
    if nn[name] then pointwise(nn[name]) end
  end
  if nn.TanhShrink then
    -- x - tanh(x): Torch7 adds diagHessianOutput to tanh's term
    function nn.TanhShrink:updateDiagHessianInput(input, diagHessianOutput)
      hessian.updateDiagHessianInputPointWise(self.tanh, input, diagHessianOutput)
      self.diagHessianInput = self.diagHessianInput or input.new()
      self.diagHessianInput:resizeAs(input)
      torch.add(self.diagHessianInput, self.tanh.diagHessianInput, diagHessianOutput)
      return self.diagHessianInput
    end
  end

  function nn.Reshape:updateDiagHessianInput(input, diagHessianOutput)
    self.diagHessianInput = self.diagHessianInput or input.new()
    self.diagHessianInput:set(diagHessianOutput:contiguous()):resizeAs(input)
    return self.diagHessianInput
  end
end

return hessian
