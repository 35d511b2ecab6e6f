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
  for _, v in pairs(state) do
    if torch.isTensor(v) and not v:isFreed() then v:detachFromDisposeScope() end
  end
end
require 'optim.sgd'
require 'optim.adam'

return optim
