-- Torch7's training and checking helpers that Torch7's own tests lean on:
-- nn.Jacobian.testAllUpdate, Jacobian over integer (index) inputs,
-- nn.hessian's diagonal-Hessian methods and checks; and the fixes to
-- existing behaviour: Criterion:forward returns one value, getParameters
-- refuses non-compact tensors.
require 'torch'
require 'nn'
local H = require 'spec.support.helpers'

local jac = nn.Jacobian

describe('nn.Jacobian.testAllUpdate', function()
  before_each(function() torch.manualSeed(7) end)

  it('returns the four update errors, all tiny for a correct module', function()
    for _, case in ipairs{{nn.Linear(5, 3), torch.randn(4, 5), 'weight', 'gradWeight'},
                          {nn.Linear(5, 3), torch.randn(5), 'bias', 'gradBias'},
                          {nn.SpatialConvolution(2, 3, 3, 3), torch.randn(2, 2, 5, 5), 'weight', 'gradWeight'},
                          {nn.CMul(4), torch.randn(3, 4), 'weight', 'gradWeight'}} do
      local m = case[1]
      local w0 = m[case[3]]:clone()
      local errs = jac.testAllUpdate(m, case[2], case[3], case[4])
      local names = {}
      for k, v in pairs(errs) do
        names[#names + 1] = k
        assert.is_true(v < 1e-10, k .. ' ' .. v)
      end
      table.sort(names)
      assert.are.same({'accGradParameters', 'accGradParameters [shared]', 'accUpdateGradParameters',
                       'accUpdateGradParameters [shared]'}, names)
      assert.is_true(m[case[3]]:equal(w0))   -- the module itself is left alone
    end
  end)

  it('sees a wrong accUpdateGradParameters', function()
    local m = nn.Linear(3, 2)
    m.accUpdateGradParameters = function(self, input, gradOutput, lr)
      self.weight:add(-lr * 2, self.gradWeight)
    end
    local errs = jac.testAllUpdate(m, torch.randn(3), 'weight', 'gradWeight')
    assert.is_true(errs.accUpdateGradParameters > 1e-3)
  end)
end)

describe('nn.Jacobian with integer inputs', function()
  it('checks LookupTable\'s weight without perturbing the Long indices', function()
    torch.manualSeed(2)
    local m = nn.LookupTable(7, 3)
    local input = torch.LongTensor{3, 1, 7, 3}
    assert.is_true(jac.testJacobianParameters(m, input, m.weight, m.gradWeight, 1, 7) < 1e-6)
    for _, v in ipairs(input:totable()) do assert.is_true(v >= 1 and v <= 7 and math.type(v) == 'integer') end
    assert.is_true(jac.testJacobianUpdateParameters(m, torch.LongTensor(2, 3), m.weight, 1, 7) < 1e-6)
    for _, e in pairs(jac.testAllUpdate(m, input, 'weight', 'gradWeight')) do assert.is_true(e < 1e-10) end
  end)
end)

describe('nn.LookupTable:accUpdateOnly', function()
  it('drops gradWeight and still trains by accUpdateGradParameters', function()
    local m = nn.LookupTable(5, 2)
    local w = m.weight:clone()
    assert.are.equal(m, m:accUpdateOnly())
    assert.is_nil(m.gradWeight)
    local idx = torch.LongTensor{2, 4}
    local out = m:forward(idx):clone()
    m:backwardUpdate(idx, out, 0.1)
    assert.is_true((m.weight[2] - w[2] * 0.9):abs():max() < 1e-12)
    assert.is_true(m.weight[1]:equal(w[1]))
    m:zeroGradParameters()
  end)
end)

describe('nn.hessian', function()
  setup(function() nn.hessian.enable() end)
  before_each(function() torch.manualSeed(4) end)

  it('matches the diagonal Hessian from first derivatives on linear layers', function()
    for _, case in ipairs{{nn.Linear(4, 3), torch.randn(4)}, {nn.Linear(4, 3), torch.randn(5, 4)},
                          {nn.SpatialConvolution(2, 2, 3, 3), torch.randn(2, 5, 5)},
                          {nn.SpatialFullConvolution(2, 2, 3, 3), torch.randn(2, 3, 3)}} do
      local m, x = case[1], case[2]
      local name = torch.type(m)
      assert.is_true(jac.testDiagHessianInput(m, x) < 1e-6, name .. ' input')
      assert.is_true(jac.testDiagHessianWeight(m, x) < 1e-6, name .. ' weight')
      assert.is_true(jac.testDiagHessianBias(m, x) < 1e-6, name .. ' bias')
    end
  end)

  it('leaves the module\'s own tensors in place', function()
    local m = nn.Linear(3, 2)
    local w, gw, out, gi = m.weight, m.gradWeight, m.output, m.gradInput
    local x = torch.randn(3)
    m:forward(x)
    local y = m.output:clone()
    m:initDiagHessianParameters()
    m:updateDiagHessianInput(x, torch.ones(2))
    m:accDiagHessianParameters(x, torch.ones(2))
    assert.are.equal(w, m.weight); assert.are.equal(gw, m.gradWeight)
    assert.are.equal(out, m.output); assert.are.equal(gi, m.gradInput)
    assert.is_true(m.output:equal(y))
    -- d2/dx_i = sum_k w_ki^2, d2/dw_ki = x_i^2, d2/db_k = 1
    local wsq = torch.cmul(m.weight, m.weight)
    assert.is_true((m.diagHessianInput - wsq:sum(1):view(3)):abs():max() < 1e-12)
    assert.is_true((m.diagHessianWeight - torch.cmul(x, x):view(1, 3):expand(2, 3)):abs():max() < 1e-12)
    assert.are.same({1, 1}, m.diagHessianBias:totable())
  end)

  it('goes through Sequential, pointwise modules and criterions', function()
    local net = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2))
    local x = torch.randn(3)
    net:initDiagHessianParameters()
    net:forward(x)
    local crit = nn.MSECriterion()
    local d = crit:updateDiagHessianInput(net.output, torch.randn(2))
    assert.are.same({1, 1}, d:totable())   -- 2 / n
    local h = net:updateDiagHessianInput(x, d)
    net:accDiagHessianParameters(x, d)
    assert.are.same({3}, h:size():totable())
    -- tanh: f'(x)^2 times the Hessian of its output
    local t = net.modules[2]
    local fp = torch.cmul(t.output, t.output):mul(-1):add(1)
    local expect = torch.cmul(torch.cmul(fp, fp), net.modules[3].diagHessianInput)
    assert.is_true((t.diagHessianInput - expect):abs():max() < 1e-12)
    assert.are.same({4, 3}, net.modules[1].diagHessianWeight:size():totable())
    H.has(H.errmsg(function() nn.ReLU():updateDiagHessianInput(x, x) end),
          'nn.ReLU:updateDiagHessianInput() is undefined')
    assert.are.same({1, 0, 1}, nn.L1Cost():updateDiagHessianInput(torch.Tensor{2, 0, -1}):totable())
  end)
end)

describe('fixes to Torch7 behaviour', function()
  it('Criterion:forward returns exactly the loss', function()
    local x = nn.LogSoftMax():forward(torch.randn(3, 4))
    local losses = {}
    table.insert(losses, nn.ClassNLLCriterion():forward(x, torch.LongTensor{1, 2, 4}))
    assert.are.equal(1, #losses)
    -- updateOutput keeps Torch7's second value, the total weight
    local _, tw = nn.ClassNLLCriterion(torch.Tensor{1, 2, 3, 4}):updateOutput(x, torch.LongTensor{1, 2, 4})
    assert.are.equal(7, tw)
  end)

  it('ConcatTable says "table size mismatch" as Torch7 when a gradInput table is short', function()
    if not torch.getmetatable('nn.SpecShortGradTable') then
      local M = torch.class('nn.SpecShortGradTable', 'nn.Module')
      function M:updateOutput(x) self.output = x[1]; return self.output end
      function M:updateGradInput(x, go) self.gradInput = {go}; return self.gradInput end
    end
    local c = nn.ConcatTable():add(nn.Identity()):add(nn.SpecShortGradTable())
    local x = {torch.randn(2), torch.randn(2)}
    c:forward(x)
    local err = H.errmsg(function() c:backward(x, {{torch.randn(2), torch.randn(2)}, torch.randn(2)}) end)
    H.has(err, 'nn.ConcatTable:backward: table size mismatch: 2 ~= 1 (the input has 2 elements, gradInput of module 2 has 1)')
  end)

  it('getParameters refuses non-compact tensors that leave holes, as Torch7', function()
    local L = nn.Linear(10, 10)
    L.bias = torch.Tensor(10, 10):fill(2):select(2, 2)
    H.has(H.errmsg(function() L:getParameters() end),
          'cannot gather tensors that are not compact (parameter 2, size 10, stride 10')
    -- transposed and expanded tensors are compact: they are gathered
    local L2 = nn.Linear(10, 10)
    L2.weight = torch.Tensor(10, 10):t():fill(1)
    L2.bias = torch.Tensor(10, 10):fill(2):select(1, 2)
    local p = L2:getParameters()
    assert.are.equal(110, p:nElement())
    assert.are.equal(2, L2.bias:mean())
  end)
end)
