-- optim.adadelta(opfunc, x [, config [, state]]): AdaDelta (Zeiler 2012),
-- as Torch7's optim.adadelta: the step is g * sqrt(E[dx^2] + eps) /
-- sqrt(E[g^2] + eps), both averages decaying with rho.
-- config: rho (0.9), eps (1e-6), weightDecay (0).
-- state: evalCounter, paramVariance (E[g^2]), paramStd, delta (the last
-- step), accDelta (E[dx^2]). Returns x, {f(x) before the step}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.adadelta(opfunc, x, config, state)
  local who = 'optim.adadelta'
  optim._checkCall(who, opfunc, x)
  if config == nil and state == nil then print('no state table, ADADELTA initializing') end
  config = config or {}
  state = state or config
  local rho = config.rho or 0.9
  local eps = config.eps or 1e-6
  local wd = config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0

  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end

  if not state.paramVariance then
    state.paramVariance = x.new():resizeAs(dfdx):zero()
    state.paramStd = x.new():resizeAs(dfdx):zero()
    state.delta = x.new():resizeAs(dfdx):zero()
    state.accDelta = x.new():resizeAs(dfdx):zero()
  end
  state.paramVariance:mul(rho):addcmul(1 - rho, dfdx, dfdx)
  state.paramStd:resizeAs(state.paramVariance):copy(state.paramVariance):add(eps):sqrt()
  state.delta:resizeAs(state.paramVariance):copy(state.accDelta):add(eps):sqrt()
  state.delta:cdiv(state.paramStd):cmul(dfdx)
  x:add(-1, state.delta)
  state.accDelta:mul(rho):addcmul(1 - rho, state.delta, state.delta)

  state.evalCounter = state.evalCounter + 1
  optim._keepState(state)
  return x, {fx}
end

return optim.adadelta
