-- optim.adagrad(opfunc, x [, config [, state]]): AdaGrad (Duchi et al.),
-- as Torch7's optim.adagrad: each parameter's step is divided by the root
-- of its summed squared gradients.
-- config: learningRate (1e-3), learningRateDecay (0), weightDecay (0).
-- state: evalCounter, paramVariance (summed g^2), paramStd (its root, plus
-- 1e-10). Returns x, {f(x) before the step}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.adagrad(opfunc, x, config, state)
  local who = 'optim.adagrad'
  optim._checkCall(who, opfunc, x)
  if config == nil and state == nil then print('no state table, ADAGRAD initializing') end
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0

  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end
  local clr = lr / (1 + state.evalCounter * lrd)

  state.paramVariance = state.paramVariance or x.new():resizeAs(dfdx):zero()
  state.paramStd = state.paramStd or x.new():resizeAs(dfdx)
  state.paramVariance:addcmul(1, dfdx, dfdx)
  state.paramStd:resizeAs(state.paramVariance):copy(state.paramVariance):sqrt():add(1e-10)
  x:addcdiv(-clr, dfdx, state.paramStd)

  state.evalCounter = state.evalCounter + 1
  optim._keepState(state)
  return x, {fx}
end

return optim.adagrad
