-- the module checks of spec/support/modcheck.lua on modules that exist
-- before issue 16, so that the harness itself is known to pass on good
-- modules and to fail on a broken one
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

describe('modcheck on existing modules', function()
  mc.module(it, {make = function() return nn.Linear(4, 3) end,
                 input = function() return torch.randn(5, 4) end,
                 input2 = function() return torch.randn(7, 4) end,
                 tostring = 'nn.Linear(4 -> 3)'})
  mc.module(it, {make = function() return nn.Tanh() end,
                 input = function() return torch.randn(3, 4) end, tostring = 'nn.Tanh'})
  mc.module(it, {make = function() return nn.SpatialMaxPooling(2, 2) end,
                 input = function() return torch.randn(2, 3, 6, 6) end,
                 input2 = function() return torch.randn(3, 3, 6, 6) end,
                 tostring = 'nn.SpatialMaxPooling(2x2, 2,2)'})
  mc.module(it, {make = function() return nn.Dropout(0.3) end, stochastic = true,
                 jacobian = false, why = 'a fresh mask per forward',
                 input = function() return torch.randn(3, 4) end})
  mc.criterion(it, {make = function() return nn.MSECriterion() end,
                    input = function() return torch.randn(3, 4) end,
                    target = function() return torch.randn(3, 4) end, tostring = 'nn.MSECriterion'})

  -- a module whose gradient is off by a factor, that keeps an undeclared
  -- buffer and inherits the default traits: the checks must say so
  it('fails a broken module on the checks it breaks', function()
    if not torch.getmetatable('nn.SpecBrokenDouble') then
      local B = torch.class('nn.SpecBrokenDouble', 'nn.Module')
      function B:updateOutput(x)
        self.buf = (self.buf or x.new()):resizeAs(x):copy(x)
        self.output:resizeAs(x):copy(x):mul(2)
        return self.output
      end
      function B:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go); return self.gradInput end
    end
    local tests = {}
    local function collect(name, f) tests[#tests + 1] = {name = name, f = f} end
    mc.module(collect, {make = function() return nn.SpecBrokenDouble() end,
                        input = function() return torch.randn(3, 2) end, optnet = false})
    local failed = {}
    for _, t in ipairs(tests) do
      if not pcall(t.f) then failed[#failed + 1] = t.name end
    end
    local text = table.concat(failed, '\n')
    assert.truthy(text:find('gradInput matches finite differences', 1, true), text)
    assert.truthy(text:find('memoryTraits answers', 1, true), text)
    assert.are.equal(2, #failed, text)
  end)
end)
