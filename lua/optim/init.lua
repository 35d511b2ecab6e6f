-- optim: Torch7's optimisers for Lua 5.4. Each is called as
--   x, {f} = optim.<name>(opfunc, x [, config [, state]])
-- where opfunc(x) returns f(x) and df/dx (a tensor like x). x is updated in
-- place; 'state' (default: config) keeps what the method carries between
-- calls (momentum buffers, step counts).

optim = optim or {}   -- Torch7 scripts expect the global
require 'optim.sgd'
require 'optim.adam'

return optim
