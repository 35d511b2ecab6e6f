-- optim: Torch7's optimisers for Lua 5.4. Each is called as
--   x, {f} = optim.<name>(opfunc, x [, config [, state]])
-- where opfunc(x) returns f(x) and df/dx (a tensor like x). x is updated in
-- place; 'state' (default: config) keeps what the method carries between
-- calls (momentum buffers, step counts).

optim = optim or {}   -- Torch7 scripts expect the global

-- the state's buffers (momentum, moments) outlive the dispose scope of the
-- iteration that made them: they are taken out of it (docs/memory.md)
function optim._keepState(state)
  if torch.currentDisposeScope() == nil then return end
  local seen = {}
  local function keep(v)
    if torch.isTensor(v) then
      if not v:isFreed() then v:detachFromDisposeScope() end
    elseif type(v) == 'table' and not torch.typename(v) and not seen[v] then
      seen[v] = true   -- lists of buffers (lbfgs's history)
      for _, x in pairs(v) do keep(x) end
    end
  end
  keep(state)
end
for _, name in ipairs{'sgd', 'adam', 'adamax', 'adagrad', 'adadelta', 'rmsprop', 'nag', 'asgd', 'rprop',
                      'cg', 'polyinterp', 'lswolfe', 'lbfgs', 'fista', 'cmaes', 'de', 'checkgrad'} do
  require('optim.' .. name)
end
require 'optim.ConfusionMatrix'
require 'optim.Logger'

return optim
