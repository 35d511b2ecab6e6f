-- optim.checkgrad(opfunc, x [, eps]): compares the gradient opfunc returns
-- at x with central differences (f(x + eps e_i) - f(x - eps e_i)) / 2 eps,
-- one element of x at a time, as Torch7's optim.checkgrad. x is perturbed
-- in place and put back. Returns the relative error
-- |dC - dC_est| / |dC + dC_est| (2-norms), dC (opfunc's gradient, laid out
-- like x) and dC_est (the estimate).

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.checkgrad(opfunc, x, eps)
  local who = 'optim.checkgrad'
  optim._checkCall(who, opfunc, x)
  if eps ~= nil and type(eps) ~= 'number' then
    error(string.format('%s: eps must be a number, got %s', who, torch.type(eps)), 2)
  end
  eps = eps or 1e-7
  local _, dC = optim._evaluate(who, opfunc, x)
  dC = dC:clone():resize(x:size())       -- opfunc may reuse its gradient buffer
  local flat = x:view(x:nElement())
  local est = dC.new(x:nElement())
  for i = 1, x:nElement() do
    local keep = flat[i]
    flat[i] = keep + eps
    local c1 = opfunc(x)
    flat[i] = keep - eps
    local c2 = opfunc(x)
    flat[i] = keep
    est[i] = (c1 - c2) / (2 * eps)
  end
  est = est:viewAs(dC)
  local diff = torch.norm(dC - est) / torch.norm(dC + est)
  return diff, dC, est
end

return optim
