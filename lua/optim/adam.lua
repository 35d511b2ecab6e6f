-- optim.adam(opfunc, x [, config [, state]]): Adam (Kingma and Ba), as
-- Torch7's optim.adam.
-- config: learningRate (1e-3), learningRateDecay (0), beta1 (0.9), beta2
-- (0.999), epsilon (1e-8), weightDecay (0).
-- state: t (steps taken), m and v (first and second moment estimates),
-- denom. Returns x, {f(x) before the step}.

optim = optim or {}
local optim = optim
require 'optim.sgd'  -- optim._checkCall, optim._evaluate

function optim.adam(opfunc, x, config, state)
  local who = 'optim.adam'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 0.001
  local lrd = config.learningRateDecay or 0
  local beta1 = config.beta1 or 0.9
  local beta2 = config.beta2 or 0.999
  local epsilon = config.epsilon or 1e-8
  local wd = config.weightDecay or 0

  local fx, dfdx = optim._evaluate(who, opfunc, x)
  if wd ~= 0 then dfdx:add(wd, x) end

  state.t = state.t or 0
  state.m = state.m or x.new(dfdx:size()):zero()
  state.v = state.v or x.new(dfdx:size()):zero()
  state.denom = state.denom or x.new(dfdx:size()):zero()

  local clr = lr / (1 + state.t * lrd)
  state.t = state.t + 1

  -- moment estimates: m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2
  state.m:mul(beta1):add(1 - beta1, dfdx)
  state.v:mul(beta2):addcmul(1 - beta2, dfdx, dfdx)
  state.denom:copy(state.v):sqrt():add(epsilon)

  local biasCorrection1 = 1 - beta1 ^ state.t
  local biasCorrection2 = 1 - beta2 ^ state.t
  local stepSize = clr * math.sqrt(biasCorrection2) / biasCorrection1
  x:addcdiv(-stepSize, state.m, state.denom)
  optim._keepState(state)
  return x, {fx}
end

return optim.adam
