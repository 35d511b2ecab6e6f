-- totem: DeepMind's test helpers for Torch7 (torch-totem), so that test
-- scripts written for it (nngraph's, among others) run unchanged.
--   require 'totem'
--   local tester = totem.Tester()          -- a torch.Tester with extras
--   local tests = totem.TestSuite()
--   function tests.linear()
--     totem.nn.checkGradients(tester, nn.Linear(3, 2), torch.randn(4, 3))
--   end
--   tester:add(tests):run()
-- Parts: totem.asserts (are*/assert* predicates that return or raise),
-- totem.Tester (command-line options, test-name patterns, a log file),
-- totem.nn (finite-difference gradient checks and nn.Module contracts:
-- minibatch, type casts, serialization), loaded on first use of totem.nn
-- so that requiring totem does not load nn.
require 'torch'

totem = totem or {}

require 'totem.asserts'
require 'totem.Tester'

-- a torch.TestSuite: a table of tests that refuses two tests of one name
function totem.TestSuite()
  return torch.TestSuite()
end

setmetatable(totem, {__index = function(t, key)
  if key == 'nn' then
    require 'totem.nn'
    return rawget(t, 'nn')
  end
end})

return totem
