-- optim.rmsprop(opfunc, x [, config [, state]]): RMSprop (Tieleman and
-- Hinton), as Torch7's optim.rmsprop: the step is lr * g / (sqrt(m) + eps)
-- with m a leaky mean of g^2.
-- config: learningRate (1e-2), alpha (0.99), epsilon (1e-8), weightDecay
-- (0), initialMean (0: m's first value).
-- state: m, tmp (sqrt(m) + eps). Returns x, {f(x) before the step}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.rmsprop(opfunc, x, config, state)
  local who = 'optim.rmsprop'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-2
  local alpha = config.alpha or 0.99
  local epsilon = config.epsilon or 1e-8
  local wd = config.weightDecay or 0

  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end

  if not state.m then
    state.m = x.new():resizeAs(dfdx):fill(config.initialMean or 0)
    state.tmp = x.new():resizeAs(dfdx)
  end
  state.m:mul(alpha):addcmul(1 - alpha, dfdx, dfdx)
  state.tmp:sqrt(state.m):add(epsilon)
  x:addcdiv(-lr, dfdx, state.tmp)
  optim._keepState(state)
  return x, {fx}
end

return optim.rmsprop
