-- nnx: the namespace (its modules exist in nn only after require 'nnx'),
-- and its non-image modules: SoftMaxTree with TreeNLLCriterion,
-- CTCCriterion, DistNLLCriterion, SuperCriterion, Balance, MultiSoftMax,
-- PushTable/PullTable, Minus, SaturatedLU, FunctionWrapper, Tic/Toc,
-- Probe, QDRiemaNNLinear. Values by hand, gradients by finite differences.
require 'torch'
require 'nn'

local helpers = require('spec.support.helpers')
local same, fails = helpers.same, helpers.fails
local T = torch.DoubleTensor

local function jacobianOK(m, input, tol)
  local err = nn.Jacobian.testJacobian(m, input)
  assert.is_true(err < (tol or 1e-6), 'Jacobian error ' .. err)
end

describe('nnx namespace', function()
  it('adds its modules to nn only when required', function()
    local cmd = "bin/th -e \"require 'nn'; io.write(tostring(nn.SpatialReSampling), ' ', tostring(nnx)); "
                .. "require 'nnx'; io.write(' ', tostring(nn.SpatialReSampling), ' ', type(nnx), ' ', "
                .. "tostring(nnx.QDRiemaNNLinear), ' ', tostring(nn.SoftMaxTree))\""
    local p = io.popen(cmd)
    local out = p:read('a')
    p:close()
    assert.are.equal('nil nil nn.SpatialReSampling table nnx.QDRiemaNNLinear nn.SoftMaxTree', out)
  end)
end)

require 'nnx'
torch.manualSeed(5)

describe('nn.SoftMaxTree', function()
  -- root 1 -> {2, 3}; 2 -> {4, 5, 6}; leaves 3, 4, 5, 6
  local hierarchy = {[1] = torch.IntTensor{2, 3}, [2] = torch.IntTensor{4, 5, 6}}

  -- log P(leaf) by hand: log-softmaxes of the nodes' linears along the path
  local function logp(smt, x, leaf)
    local function node(p, child)
      local params = smt:getNodeParameters(p)
      local z = torch.mv(params[1], x):add(params[2])
      local lsm = z - math.log(torch.exp(z):sum())
      return lsm[child]
    end
    if leaf == 3 then return node(1, 2) end
    return node(1, 1) + node(2, leaf - 3)
  end

  it('outputs the log-likelihood of each target leaf', function()
    local smt = nn.SoftMaxTree(4, hierarchy, 1)
    local x, target = torch.randn(3, 4), torch.IntTensor{3, 5, 6}
    local out = smt:forward{x, target}
    for i = 1, 3 do assert.is_true(math.abs(out[i] - logp(smt, x[i], target[i])) < 1e-12) end
    -- the leaves' probabilities sum to one
    local total = 0
    for leaf = 3, 6 do total = total + math.exp(logp(smt, x[1], leaf)) end
    assert.is_true(math.abs(total - 1) < 1e-12)
  end)

  it('has the gradients of its forward and counts the updated parents', function()
    local smt = nn.SoftMaxTree(4, hierarchy, 1)
    smt:zeroGradParameters()
    local x, target, go = torch.randn(3, 4), torch.IntTensor{4, 3, 6}, torch.randn(3)
    smt:forward{x, target}
    local gi = smt:backward({x, target}, go)[1]:clone()
    local function loss() return smt:forward{x, target}:dot(go) end
    local eps = 1e-6
    for _, pair in ipairs{{x, gi}, {smt.weight, smt.gradWeight:clone()}, {smt.bias, smt.gradBias:clone()}} do
      local t, g = pair[1], pair[2]
      local flat, gflat = t:view(-1), g:view(-1)
      for i = 1, flat:nElement() do
        local v = flat[i]
        flat[i] = v + eps
        local a = loss()
        flat[i] = v - eps
        local b = loss()
        flat[i] = v
        assert.is_true(math.abs((a - b) / (2 * eps) - gflat[i]) < 1e-6)
      end
    end
    assert.same({[1] = 3, [2] = 2}, smt.updates)
    -- parameters() now lists only the updated parents (keyed: static)
    local params = smt:parameters()
    assert.are.equal(smt.weight:narrow(1, 3, 3):storageOffset(), params[2]:storageOffset())
    smt:zeroGradParameters()
    assert.same({}, smt.updates)
  end)

  it('updates like backward + updateParameters with accUpdate', function()
    local a = nn.SoftMaxTree(4, hierarchy, 1)
    local b = nn.SoftMaxTree(4, hierarchy, 1, true)
    b.weight:copy(a.weight)
    b.bias:copy(a.bias)
    local x, target, go = torch.randn(2, 4), torch.IntTensor{5, 3}, torch.randn(2)
    a:zeroGradParameters()
    a:forward{x, target}
    a:backward({x, target}, go)
    a:updateParameters(0.1)
    b:forward{x, target}
    b:backwardUpdate({x, target}, go, 0.1)
    assert.is_true(same(a.weight, b.weight, 1e-12))
    assert.is_true(same(a.bias, b.bias, 1e-12))
  end)

  it('works with TreeNLLCriterion and names bad input', function()
    local smt = nn.SoftMaxTree(4, hierarchy, 1)
    local c = nn.TreeNLLCriterion()
    local out = smt:forward{torch.randn(2, 4), torch.IntTensor{3, 4}}
    assert.is_true(math.abs(c:forward(out) + (out[1] + out[2]) / 2) < 1e-12)
    assert.is_true(same(c:backward(out), T{-0.5, -0.5}))
    fails('target 7 is not a child node', function() smt:forward{torch.randn(1, 4), torch.IntTensor{7}} end)
    fails('input of N x 4 expected, got 2x5', function() smt:forward{torch.randn(2, 5), torch.IntTensor{3, 4}} end)
    fails('node 4 has two parents', function()
      nn.SoftMaxTree(2, {[1] = torch.IntTensor{2, 4}, [2] = torch.IntTensor{4}}, 1)
    end)
  end)
end)

describe('nn.SoftMaxForest', function()
  it('mixes its trees with the gater, with the gradient of the mixture', function()
    torch.manualSeed(8)
    local h1 = {[1] = torch.IntTensor{2, 3}, [2] = torch.IntTensor{4, 5, 6}}
    local h2 = {[1] = torch.IntTensor{3, 4, 5, 6}}
    local f = nn.SoftMaxForest(4, {h1, h2}, {1, 1}, {3})
    local x, t, go = torch.randn(3, 4), torch.IntTensor{3, 5, 6}, torch.randn(3)
    local out = f:forward{x, t}:clone()
    local g = f.gater:forward{x, t}:clone()
    local mix = torch.cmul(g:select(2, 1), f.smts[1]:forward{x, t}) + torch.cmul(g:select(2, 2), f.smts[2]:forward{x, t})
    assert.is_true(same(out, mix, 1e-12))
    f:forward{x, t}
    local gx = f:backward({x, t}, go)[1]:clone()
    local flat, eps = x:view(-1), 1e-6
    for i = 1, flat:nElement() do
      local v = flat[i]
      flat[i] = v + eps
      local a = f:forward{x, t}:dot(go)
      flat[i] = v - eps
      local b = f:forward{x, t}:dot(go)
      flat[i] = v
      assert.is_true(math.abs((a - b) / (2 * eps) - gx:view(-1)[i]) < 1e-6)
    end
  end)
end)

describe('nn.CTCCriterion', function()
  -- warp-ctc's figures (nnx's test) were computed in float: 1e-6
  it('gives the costs of warp-ctc', function()
    local c = nn.CTCCriterion()
    assert.is_true(math.abs(c:forward(torch.zeros(1, 1, 5), {{1}}, T{1}) - math.log(5)) < 1e-12)
    local acts = T{{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {11, 12, 13, 14, 15}}}
    assert.is_true(math.abs(c:forward(acts, {{3, 3}}, T{3}) - 7.355742931366) < 1e-6)
    local neg = T{{{-5, -4, -3, -2, -1}, {-10, -9, -8, -7, -6}, {-15, -14, -13, -12, -11}}}:transpose(1, 2):contiguous()
    assert.is_true(math.abs(c:forward(neg, {{2, 3}}, T{3}) - 4.9388499259949) < 1e-6)
  end)

  it('has the gradient of the summed costs, batch first or not', function()
    local acts = torch.randn(4, 2, 5)   -- time x batch x classes
    local target, sizes = {{1, 2}, {3}}, T{4, 3}
    local c = nn.CTCCriterion()
    local cost = c:forward(acts, target, sizes)
    local g = c:backward(acts, target):clone()
    local eps = 1e-6
    local flat, gflat = acts:view(-1), g:view(-1)
    for i = 1, flat:nElement() do
      local v = flat[i]
      flat[i] = v + eps
      local a = c:forward(acts, target, sizes) * 2
      flat[i] = v - eps
      local b = c:forward(acts, target, sizes) * 2
      flat[i] = v
      assert.is_true(math.abs((a - b) / (2 * eps) - gflat[i]) < 1e-6)
    end
    local bf = nn.CTCCriterion(true)
    assert.is_true(math.abs(bf:forward(acts:transpose(1, 2):contiguous(), target, sizes) - cost) < 1e-12)
    assert.is_true(same(bf:backward(acts, target):transpose(1, 2), g, 1e-12))
    fails('size of each sequence', function() c:forward(acts, target) end)
  end)
end)

describe('nnx criterions', function()
  it('DistNLLCriterion is the cross-entropy against a distribution', function()
    local c = nn.DistNLLCriterion()
    local x, t = T{1, 2, 3}, T{0.2, 0.3, 0.5}
    local lsm = nn.LogSoftMax():forward(x)
    assert.is_true(math.abs(c:forward(x, t) + lsm:dot(t)) < 1e-12)
    assert.is_true(nn.Jacobian.testCriterion(c, x, t) < 1e-6)
    local p = nn.DistNLLCriterion{inputIsProbability = true}
    assert.is_true(nn.Jacobian.testCriterion(p, T{0.2, 0.5, 0.3}, t) < 1e-6)
  end)

  it('SuperCriterion weighs its criterions', function()
    local c = nn.SuperCriterion():add(nn.MSECriterion(), 2):add(nn.AbsCriterion())
    local input, target = {T{1, 2}, T{3}}, {T{0, 0}, T{1}}
    assert.are.equal(2 * 2.5 + 2, c:forward(input, target))
    local g = c:backward(input, target)
    assert.is_true(same(g[1], T{2, 4}) and same(g[2], T{1}))
  end)
end)

describe('nnx modules', function()
  it('Balance evens out the classes of a batch', function()
    local b = nn.Balance(1)
    local x = T{{0.9, 0.1}, {0.5, 0.5}}
    local out = b:forward(x)
    -- class shares 0.7 and 0.3, then rows renormalised
    local r1 = T{0.9 / 0.7, 0.1 / 0.3}
    assert.is_true(same(out[1], r1 / r1:sum(), 1e-12))
    assert.is_true(same(out:sum(2):view(-1), T{1, 1}, 1e-12))
    b:evaluate()
    assert.is_true(same(b:forward(x), x))
  end)

  it('MultiSoftMax is a softmax per row', function()
    local x = torch.randn(2, 3, 4)
    local ref = nn.SoftMax():forward(x:view(6, 4))
    assert.is_true(same(nn.MultiSoftMax():forward(x):view(6, 4), ref, 1e-12))
    jacobianOK(nn.MultiSoftMax(), x)
  end)

  it('PushTable teleports a table element to its pulls and sums their gradients', function()
    local push = nn.PushTable(2)
    local net = nn.Sequential():add(push):add(nn.Identity()):add(push:pull(2)):add(push:pull(1))
    local a, b = T{1, 2}, T{3}
    local out = net:forward{a, b}
    assert.are.equal(3, #out)
    assert.is_true(out[1] == b and out[2] == a and out[3] == b)
    local g = net:backward({a, b}, {T{10}, T{1, 1}, T{100}})
    assert.is_true(same(g[1], T{1, 1}) and same(g[2], T{110}))
  end)

  it('Minus, SaturatedLU and FunctionWrapper', function()
    assert.is_true(same(nn.Minus():forward(T{1, -2}), T{-1, 2}))
    jacobianOK(nn.Minus(), torch.randn(3))
    local s = nn.SaturatedLU(-1, -2, 1, 3)
    assert.is_true(same(s:forward(T{-1.5, 0.5, 2}), T{-2, 0.5, 3}))
    assert.is_true(same(s:backward(T{-1.5, 0.5, 2}, T{1, 1, 1}), T{0, 1, 0}))
    local f = nn.FunctionWrapper(function(self) self.k = 3 end,
      function(self, x) return x * self.k end, function(self, x, g) return g * self.k end)
    assert.is_true(same(f:forward(T{1, 2}), T{3, 6}))
    assert.is_true(same(f:backward(T{1, 2}, T{1, 1}), T{3, 3}))
    fails('argument #2 must be a function', function() nn.FunctionWrapper(function() end, 1, 2) end)
  end)

  it('Tic, Toc and Probe pass their input through and print', function()
    local printed = {}
    local savedPrint = _G.print
    _G.print = function(s) printed[#printed + 1] = tostring(s) end
    local x = T{1, 2, 3}
    local net = nn.Sequential():add(nn.Tic('t')):add(nn.Probe('p')):add(nn.Toc('t', 'c'))
    local out = net:forward(x)
    local g = net:backward(x, T{1, 1, 1})
    _G.print = savedPrint
    assert.is_true(out == x and same(g, T{1, 1, 1}))
    assert.are.equal('<p>.output', printed[2])
    assert.are.equal('  + mean = 2.0', printed[4])
    assert.truthy(printed[9]:find("^Toc 't' %(c%) : "))
  end)

  it('QDRiemaNNLinear scales the gradient by the diagonal metric', function()
    torch.manualSeed(3)
    local m = nnx.QDRiemaNNLinear(3, 2, 0.1, false)
    local lin = nn.Linear(3, 2)
    lin.weight:copy(m.weight)
    lin.bias:copy(m.bias)
    local x, go = torch.randn(4, 3), torch.randn(4, 2)
    m:zeroGradParameters()
    lin:zeroGradParameters()
    m:forward(x)
    m:backward(x, go)
    lin:forward(x)
    lin:backward(x, go)
    local Mii = torch.mm(torch.pow(go, 2):t(), torch.pow(x, 2))
    local M00 = torch.pow(go, 2):sum(1):view(-1)
    assert.is_true(same(m.gradWeight, torch.cdiv(lin.gradWeight, Mii:add(1e-12)), 1e-9))
    assert.is_true(same(m.gradBias, torch.cdiv(lin.gradBias, M00:add(1e-12)), 1e-9))
  end)
end)
