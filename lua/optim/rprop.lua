-- optim.rprop(opfunc, x [, config [, state]]): resilient propagation
-- (Riedmiller), as Torch7's optim.rprop: each parameter has its own step
-- size, grown by etaplus while its gradient keeps its sign and shrunk by
-- etaminus when the sign flips (then that gradient is not used once);
-- x moves by -sign(g) * step.
-- config: stepsize (0.1), etaplus (1.2), etaminus (0.5), stepsizemax (50),
-- stepsizemin (1e-6), niter (1: evaluations per call).
-- state: delta (the last gradient used), stepsize, sign and the masks
-- psign, nsign, zsign, dminmax. Returns x, {f(x) of each evaluation}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.rprop(opfunc, x, config, state)
  local who = 'optim.rprop'
  optim._checkCall(who, opfunc, x)
  if config == nil and state == nil then print('no state table RPROP initializing') end
  config = config or {}
  state = state or config
  local stepsize = config.stepsize or 0.1
  local etaplus, etaminus = config.etaplus or 1.2, config.etaminus or 0.5
  local stepmax, stepmin = config.stepsizemax or 50.0, config.stepsizemin or 1e-6
  local fxs = {}
  for _ = 1, config.niter or 1 do
    local fx, dfdx = optim._evaluate(who, opfunc, x)
    if not state.delta then
      state.delta = x.new(dfdx:size()):zero()
      state.stepsize = x.new(dfdx:size()):fill(stepsize)
      state.sign = x.new(dfdx:size())
      state.psign = torch.ByteTensor(dfdx:size())
      state.nsign = torch.ByteTensor(dfdx:size())
      state.zsign = torch.ByteTensor(dfdx:size())
      state.dminmax = torch.ByteTensor(dfdx:size())
    end
    -- the sign of g * (last g): grow, shrink or keep each step size
    torch.cmul(state.sign, dfdx, state.delta)
    torch.sign(state.sign, state.sign)
    torch.gt(state.psign, state.sign, 0)
    torch.lt(state.nsign, state.sign, 0)
    torch.eq(state.zsign, state.sign, 0)
    state.sign[state.psign] = etaplus
    state.sign[state.nsign] = etaminus
    state.sign[state.zsign] = 1
    state.stepsize:cmul(state.sign)
    torch.gt(state.dminmax, state.stepsize, stepmax)
    state.stepsize[state.dminmax] = stepmax
    torch.lt(state.dminmax, state.stepsize, stepmin)
    state.stepsize[state.dminmax] = stepmin
    -- a flipped gradient is not used this time (nor remembered)
    dfdx[state.nsign] = 0
    torch.sign(state.sign, dfdx)
    x:addcmul(-1, state.sign, state.stepsize)
    state.delta:copy(dfdx)
    fxs[#fxs + 1] = fx
  end
  optim._keepState(state)
  return x, fxs
end

return optim.rprop
