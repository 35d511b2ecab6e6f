-- clearState on the structural modules: it returns the module, empties
-- what it keeps, and the module then runs again to the same numbers;
-- nn.Jacobian.testIO (clearState, then a save/load round trip) agrees.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'

local function copy(v)
  if torch.isTensor(v) then return v:clone() end
  if type(v) == 'table' then
    local r = {}
    for k, x in pairs(v) do r[k] = copy(x) end
    return r
  end
  return v
end

local cases = {
  {'Contiguous', function() return nn.Contiguous() end, function() return torch.randn(3, 4):t() end},
  {'Unsqueeze', function() return nn.Unsqueeze(2) end, function() return torch.randn(3, 4) end},
  {'Collapse', function() return nn.Collapse(2) end, function() return torch.randn(2, 3, 4):transpose(1, 3) end},
  {'Padding', function() return nn.Padding(2, -1, 2, 3) end, function() return torch.randn(2, 3, 4) end},
  {'Constant', function() return nn.Constant(torch.randn(2), 1) end, function() return torch.randn(3, 4) end},
  {'CMaxTable', function() return nn.CMaxTable() end, function() return {torch.randn(3), torch.randn(3)} end},
  {'CMinTable', function() return nn.CMinTable() end, function() return {torch.randn(3), torch.randn(3)} end},
  {'CDivTable', function() return nn.CDivTable() end, function() return {torch.randn(3), torch.rand(3) + 1} end},
  {'CAddTensorTable', function() return nn.CAddTensorTable() end,
   function() return {torch.randn(3), {torch.randn(3), torch.randn(3)}} end},
  {'ZipTable', function() return nn.ZipTable() end, function() return {{torch.randn(2), torch.randn(3)}, {torch.randn(2), torch.randn(3)}} end},
  {'ZipTableOneToMany', function() return nn.ZipTableOneToMany() end, function() return {torch.randn(2), {torch.randn(3), torch.randn(1)}} end},
  {'Index', function() return nn.Index(1) end, function() return {torch.randn(4, 2), torch.LongTensor{2, 2, 4}} end},
  {'MaskedSelect', function() return nn.MaskedSelect() end, function() return {torch.randn(2, 3), torch.ByteTensor{{1, 0, 1}, {1, 1, 0}}} end},
  {'OneHot', function() return nn.OneHot(4) end, function() return torch.LongTensor{4, 1} end},
  {'MixtureTable', function() return nn.MixtureTable(2) end, function() return {torch.rand(2, 3), torch.randn(2, 3, 4)} end},
  {'Decorator', function() return nn.Decorator(nn.Linear(3, 2)) end, function() return torch.randn(4, 3) end},
  {'Bottle', function() return nn.Bottle(nn.Linear(3, 2)) end, function() return torch.randn(2, 4, 3):transpose(1, 2) end},
  {'DontCast', function() return nn.DontCast(nn.Linear(3, 2):float(), true) end, function() return torch.randn(4, 3) end},
  {'Profile', function() return nn.Profile(nn.Linear(3, 2), 1000) end, function() return torch.randn(4, 3) end},
  {'MapTable', function() return nn.MapTable(nn.Linear(3, 2)) end, function() return {torch.randn(3), torch.randn(3)} end},
  {'Convert', function() return nn.Convert('chw', 'hwc') end, function() return torch.randn(2, 3, 4) end},
}

describe('clearState on the structural modules', function()
  for _, c in ipairs(cases) do
    local name, make, input = c[1], c[2], c[3]
    it('nn.' .. name .. ': clearState returns the module, which runs again to the same numbers', function()
      torch.manualSeed(7)
      local m, x = make(), input()
      local out = copy(m:forward(x))
      local go = H.gradFor(out, 5)
      local gi = copy(m:backward(x, go))
      assert.are.equal(m, m:clearState())
      H.each(m.output, function(t) assert.are.equal(0, t:nElement()) end)
      H.identical(out, m:forward(x), 'nn.' .. name .. ' output after clearState')
      H.identical(gi, m:backward(x, go), 'nn.' .. name .. ' gradInput after clearState')
    end)
    it('nn.' .. name .. ': nn.Jacobian.testIO', function()
      torch.manualSeed(8)
      local m, x = make(), input()
      local ef, eb = nn.Jacobian.testIO(m, x, 0.5, 2)
      assert(ef < 1e-12 and eb < 1e-12, string.format('errors %g %g', ef, eb))
    end)
  end
end)
