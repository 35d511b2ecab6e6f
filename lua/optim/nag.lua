-- optim.nag(opfunc, x [, config [, state]]): Nesterov's accelerated
-- gradient in Sutskever et al.'s form, as Torch7's optim.nag: x first moves
-- along the momentum, the gradient is taken there, then the step is added
-- to both x and the momentum.
-- config: learningRate (1e-3), learningRateDecay (0), weightDecay (0),
-- momentum (0.9, must be positive), learningRates (a tensor like x).
-- state: evalCounter, dfdx (the momentum), deltaParameters.
-- Returns x, {f(x) at the look-ahead point}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.nag(opfunc, x, config, state)
  local who = 'optim.nag'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0.9
  local lrs = config.learningRates
  if mom <= 0 then
    error(string.format('%s: momentum must be positive for Nesterov accelerated gradient, got %g', who, mom), 2)
  end
  state.evalCounter = state.evalCounter or 0

  if state.dfdx then x:add(mom, state.dfdx) end
  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end
  local clr = lr / (1 + state.evalCounter * lrd)

  if state.dfdx then state.dfdx:mul(mom) else state.dfdx = x.new():resizeAs(dfdx):zero() end
  local step = dfdx
  if lrs then
    state.deltaParameters = state.deltaParameters or x.new():resizeAs(dfdx)
    state.deltaParameters:copy(lrs):cmul(dfdx)
    step = state.deltaParameters
  end
  x:add(-clr, step)
  state.dfdx:add(-clr, step)

  state.evalCounter = state.evalCounter + 1
  optim._keepState(state)
  return x, {fx}
end

return optim.nag
