-- optim.sgd(opfunc, x [, config [, state]]): stochastic gradient descent, as
-- Torch7's optim.sgd.
-- config: learningRate (1e-3), learningRateDecay (0: lr / (1 + n decay)
-- after n calls), weightDecay (0, adds wd * x to the gradient) or
-- weightDecays (a tensor like x), momentum (0), dampening (default =
-- momentum), nesterov (false; needs momentum > 0 and dampening 0),
-- learningRates (a tensor like x, per-parameter factors).
-- state: evalCounter, dfdx (the momentum buffer), decayParameters,
-- deltaParameters. Returns x, {f(x) before the step}.

optim = optim or {}
local optim = optim

-- checks shared by the optimisers: who names the caller in messages
function optim._checkCall(who, opfunc, x)
  if type(opfunc) ~= 'function' and not (type(opfunc) == 'table' and getmetatable(opfunc)
                                         and getmetatable(opfunc).__call) then
    error(string.format('%s: opfunc must be a function, got %s', who, torch.type(opfunc)), 3)
  end
  if not torch.isTensor(x) then
    error(string.format('%s: x must be a tensor, got %s', who, torch.type(x)), 3)
  end
end

function optim._evaluate(who, opfunc, x)
  local fx, dfdx = opfunc(x)
  if type(fx) ~= 'number' or not torch.isTensor(dfdx) or dfdx:nElement() ~= x:nElement() then
    error(string.format('%s: opfunc must return f(x) (a number) and df/dx (a tensor of %d elements like x), got %s and %s',
                        who, x:nElement(), torch.type(fx),
                        torch.isTensor(dfdx) and (dfdx:nElement() .. ' elements') or torch.type(dfdx)), 3)
  end
  return fx, dfdx
end

local function checkLike(who, name, t, x)
  if t ~= nil and (not torch.isTensor(t) or t:nElement() ~= x:nElement()) then
    error(string.format('%s: config.%s must be a tensor of %d elements like x, got %s', who, name,
                        x:nElement(), torch.isTensor(t) and (t:nElement() .. ' elements') or torch.type(t)), 3)
  end
end

function optim.sgd(opfunc, x, config, state)
  local who = 'optim.sgd'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0
  local damp = config.dampening or mom
  local nesterov = config.nesterov or false
  local lrs = config.learningRates
  local wds = config.weightDecays
  checkLike(who, 'learningRates', lrs, x)
  checkLike(who, 'weightDecays', wds, x)
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter
  if nesterov and (mom <= 0 or damp ~= 0) then
    error(string.format('%s: Nesterov momentum requires a momentum and zero dampening (momentum %g, dampening %g)',
                        who, mom, damp), 2)
  end

  -- (1) f(x) and df/dx
  local fx, dfdx = optim._evaluate(who, opfunc, x)

  -- (2) weight decay, one for all or per parameter
  if wd ~= 0 then
    dfdx:add(wd, x)
  elseif wds then
    state.decayParameters = state.decayParameters or x.new()
    state.decayParameters:resizeAs(dfdx):copy(wds):cmul(x)
    dfdx:add(state.decayParameters)
  end

  -- (3) momentum
  if mom ~= 0 then
    if not state.dfdx then
      state.dfdx = dfdx.new():resizeAs(dfdx):copy(dfdx)
    else
      state.dfdx:mul(mom):add(1 - damp, dfdx)
    end
    if nesterov then
      dfdx:add(mom, state.dfdx)
    else
      dfdx = state.dfdx
    end
  end

  -- (4) learning rate decay (annealing)
  local clr = lr / (1 + nevals * lrd)

  -- (5) the step, one rate for all or per parameter
  if lrs then
    state.deltaParameters = state.deltaParameters or x.new()
    state.deltaParameters:resizeAs(dfdx):copy(lrs):cmul(dfdx)
    x:add(-clr, state.deltaParameters)
  else
    x:add(-clr, dfdx)
  end

  state.evalCounter = state.evalCounter + 1
  optim._keepState(state)
  return x, {fx}
end

return optim.sgd
