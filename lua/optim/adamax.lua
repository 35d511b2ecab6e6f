-- optim.adamax(opfunc, x [, config [, state]]): AdaMax, Adam with the
-- infinity norm (Kingma and Ba, section 7), as Torch7's optim.adamax.
-- config: learningRate (0.002), beta1 (0.9), beta2 (0.999), epsilon
-- (1e-38), weightDecay (0).
-- state: t (steps), m (first moment), u (decayed infinity norm), max (the
-- two candidates u is the larger of). Returns x, {f(x) before the step}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.adamax(opfunc, x, config, state)
  local who = 'optim.adamax'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 0.002
  local beta1, beta2 = config.beta1 or 0.9, config.beta2 or 0.999
  local epsilon = config.epsilon or 1e-38
  local wd = config.weightDecay or 0

  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end

  state.t = (state.t or 0) + 1
  -- no parameter (a net of Dropouts and activations): nothing to move
  if dfdx:nElement() == 0 then
    optim._keepState(state)
    return x, {fx}
  end
  state.m = state.m or x.new(dfdx:size()):zero()
  state.u = state.u or x.new(dfdx:size()):zero()
  local sizes = dfdx:size():totable()
  state.max = state.max or x.new(2, table.unpack(sizes)):zero()

  state.m:mul(beta1):add(1 - beta1, dfdx)
  -- u = max(beta2 u, |g| + eps), elementwise
  state.max[1]:copy(state.u):mul(beta2)
  state.max[2]:copy(dfdx):abs():add(epsilon)
  state.u:copy((state.max:max(1)):viewAs(state.u))

  x:addcdiv(-lr / (1 - beta1 ^ state.t), state.m, state.u)
  optim._keepState(state)
  return x, {fx}
end

return optim.adamax
