-- nn containers: Sequential, Concat, DepthConcat, ConcatTable, ParallelTable,
-- Parallel. Values checked by hand, gradients (input and parameters) checked
-- with nn.Jacobian in double, errors with their "in module N of" context.
require 'torch'
require 'nn'

-- y = w .* x + b over a 1D input, written with loops so that these specs
-- do not depend on the tensor math
if not torch.getmetatable('nn.SpecCAffine') then
  local M, parent = torch.class('nn.SpecCAffine', 'nn.Module')
  function M:__init(n)
    parent.__init(self)
    self.weight = torch.Tensor(n):fill(1)
    self.bias = torch.Tensor(n):zero()
    self.gradWeight = torch.Tensor(n):zero()
    self.gradBias = torch.Tensor(n):zero()
  end
  local function check(self, x)
    if x:dim() ~= 1 or x:size(1) ~= self.weight:size(1) then
      error(string.format('nn.SpecCAffine:updateOutput: input must be 1D with %d elements, got %s',
                          self.weight:size(1), nn.utils.shapeString(x)), 0)
    end
  end
  function M:updateOutput(x)
    check(self, x)
    self.output:resize(x:size(1))
    for i = 1, x:size(1) do self.output[i] = self.weight[i] * x[i] + self.bias[i] end
    return self.output
  end
  function M:updateGradInput(x, go)
    self.gradInput:resize(x:size(1))
    for i = 1, x:size(1) do self.gradInput[i] = self.weight[i] * go[i] end
    return self.gradInput
  end
  function M:accGradParameters(x, go, scale)
    scale = scale or 1
    for i = 1, x:size(1) do
      self.gradWeight[i] = self.gradWeight[i] + scale * x[i] * go[i]
      self.gradBias[i] = self.gradBias[i] + scale * go[i]
    end
  end
end
local Affine = torch.getconstructortable('nn.SpecCAffine')

local function T(t) return torch.DoubleTensor(t) end

local same = require('spec.support.helpers').same

local function sizes(t) return table.concat(t:size():totable(), 'x') end

local function affine(n, w, b)
  local m = Affine(n)
  if w then m.weight:copy(T(w)) end
  if b then m.bias:copy(T(b)) end
  return m
end

local errorMessage = require('spec.support.helpers').errorMessage

local function jacobianOK(m, input)
  local err = nn.Jacobian.testJacobian(m, input)
  assert.is_true(err < 1e-5, 'input Jacobian error ' .. err)
  local p, g = m:getParameters()
  if p:nElement() > 0 then
    local perr = nn.Jacobian.testJacobianParameters(m, input, p, g)
    assert.is_true(perr < 1e-5, 'parameter Jacobian error ' .. perr)
  end
end

torch.manualSeed(123)

describe('nn.Sequential', function()
  it('chains its modules and aliases the ends', function()
    local a, b = affine(2, {2, 3}, {1, 1}), affine(2, {-1, 10}, {0, 5})
    local s = nn.Sequential():add(a):add(b)
    assert.are.equal(2, s:size())
    assert.are.equal(b, s:get(2))
    local y = s:forward(T{1, 2})
    assert.is_true(same(y, T{-3, 75}))
    assert.are.equal(b.output, s.output)
    local gi = s:backward(T{1, 2}, T{1, 1})
    assert.is_true(same(gi, T{-2, 30}))
    assert.are.equal(a.gradInput, s.gradInput)
    assert.is_true(same(b.gradWeight, T{3, 7}))
    assert.is_true(same(a.gradWeight, T{-1, 20}))
  end)

  it('updateGradInput + accGradParameters equals backward', function()
    local s1 = nn.Sequential():add(affine(2, {2, 3})):add(affine(2, {4, 5}))
    local s2 = s1:clone()
    local x, go = T{1, -1}, T{0.5, 2}
    s1:forward(x) s1:backward(x, go, 2)
    s2:forward(x) s2:updateGradInput(x, go) s2:accGradParameters(x, go, 2)
    assert.is_true(same(s1.gradInput, s2.gradInput))
    assert.is_true(same(s1:get(1).gradWeight, s2:get(1).gradWeight))
    assert.is_true(same(s1:get(2).gradBias, s2:get(2).gradBias))
  end)

  it('insert and remove keep the aliases right', function()
    local s = nn.Sequential():add(affine(1, {2})):add(affine(1, {3}))
    s:insert(affine(1, {5}), 1)
    assert.are.equal(3, s:size())
    assert.is_true(same(s:forward(T{1}), T{30}))
    assert.are.equal(s:get(3).output, s.output)
    local removed = s:remove(3)
    assert.are.equal(3, removed.weight[1])
    assert.is_true(same(s:forward(T{1}), T{10}))
    s:remove()
    s:remove()
    assert.are.equal(0, s:size())
    local x = T{4}
    assert.are.equal(x, s:forward(x))
    assert.truthy(errorMessage(s.insert, s, nn.Identity(), 3):find(
      'nn.Sequential:insert: index must be between 1 and 1, got 3', 1, true))
    assert.truthy(errorMessage(s.remove, s, 1):find(
      'nn.Sequential:remove: index must be between 1 and 0, got 1', 1, true))
    assert.truthy(errorMessage(s.add, s, 42):find('nn.Sequential:add: nn.Module expected, got number', 1, true))
  end)

  it('adds the module position to errors, nested containers outermost first', function()
    local s = nn.Sequential():add(nn.Identity()):add(nn.Sequential():add(nn.Identity()):add(nn.View(6)))
    assert.are.equal(
      'In 2 module of nn.Sequential:\nIn 2 module of nn.Sequential:\n' ..
      'nn.View:updateOutput: input view (5) and desired view (6) do not match',
      errorMessage(s.forward, s, torch.randn(5)))
    local t = nn.Sequential():add(affine(2)):add(affine(3))
    assert.are.equal('In 2 module of nn.Sequential:\nnn.SpecCAffine:updateOutput: input must be 1D with 3 elements, got 1D 2',
                     errorMessage(t.forward, t, T{1, 2}))
  end)

  it('adds the module position to backward errors', function()
    local s = nn.Sequential():add(nn.Identity()):add(nn.View(2, 2))
    s:forward(torch.randn(4))
    assert.are.equal(
      'In 2 module of nn.Sequential:\nnn.View:updateGradInput: gradOutput must have 4 elements like the input, got 1D 3',
      errorMessage(s.backward, s, torch.randn(4), torch.randn(3)))
  end)

  it('passes gradient checks (input and parameters)', function()
    local s = nn.Sequential():add(affine(3, {1, 2, 3}, {0, 1, 0})):add(nn.Narrow(1, 2, 2)):add(affine(2, {-1, 4}))
    jacobianOK(s, torch.randn(3))
  end)
end)

describe('nn.Concat', function()
  it('concatenates outputs along its dimension and sums gradInputs', function()
    local c = nn.Concat(1):add(affine(2, {1, 2})):add(affine(2, {3, 4}, {1, 1}))
    local y = c:forward(T{1, 1})
    assert.is_true(same(y, T{1, 2, 4, 5}))
    local gi = c:backward(T{1, 1}, T{1, 1, 1, 2})
    assert.is_true(same(gi, T{4, 10}))
    assert.is_true(same(c:get(2).gradWeight, T{1, 2}))
  end)

  it('works on batches along dimension 2', function()
    local x = torch.randn(3, 4)
    local c = nn.Concat(2):add(nn.Identity()):add(nn.Narrow(2, 2, 2))
    local y = c:forward(x)
    assert.are.equal('3x6', sizes(y))
    assert.is_true(same(y:narrow(2, 1, 4), x))
    assert.is_true(same(y:narrow(2, 5, 2), x:narrow(2, 2, 2)))
    jacobianOK(c, torch.randn(3, 4))
  end)

  it('passes gradient checks with parameters', function()
    local c = nn.Concat(1):add(affine(3, {1, 2, 3})):add(nn.Narrow(1, 1, 2)):add(affine(3, {0.5, 1, -1}, {1, 2, 3}))
    jacobianOK(c, torch.randn(3))
  end)

  it('rejects outputs that differ outside the dimension', function()
    local c = nn.Concat(2):add(nn.Identity()):add(nn.Narrow(1, 1, 2))
    assert.are.equal('nn.Concat:updateOutput: output of module 2 (2D 2x4) does not match output of module 1 (2D 3x4) ' ..
                     'outside dimension 2', errorMessage(c.forward, c, torch.randn(3, 4)))
    assert.truthy(errorMessage(nn.Concat, 0):find('nn.Concat: dimension (positive integer) expected, got 0', 1, true))
    local d = nn.Concat(1):add(nn.Identity())
    d:forward(torch.randn(2))
    assert.are.equal('nn.Concat:updateGradInput: gradOutput must have the size of the output (1D 2), got 1D 3',
                     errorMessage(d.updateGradInput, d, torch.randn(2), torch.randn(3)))
  end)
end)

describe('nn.DepthConcat', function()
  it('centres smaller outputs in zero padding', function()
    local x = torch.randn(1, 4, 4)
    local c = nn.DepthConcat(1):add(nn.Identity()):add(nn.Narrow(2, 2, 2))
    local y = c:forward(x)
    assert.are.equal('2x4x4', sizes(y))
    assert.is_true(same(y[1], x[1]))
    -- the 1x2x4 output sits in rows 2..3 (start floor((4-2)/2)+1 = 2)
    assert.is_true(same(y[2]:narrow(1, 2, 2), x[1]:narrow(1, 2, 2)))
    assert.is_true(same(y[2][1], torch.zeros and torch.zeros(4) or T{0, 0, 0, 0}))
    assert.is_true(same(y[2][4], T{0, 0, 0, 0}))
  end)

  it('puts an odd difference after the window (9 vs 4 -> start 3)', function()
    local x = torch.randn(1, 9)
    local c = nn.DepthConcat(1):add(nn.Identity()):add(nn.Narrow(2, 1, 4))
    local y = c:forward(x)
    assert.are.equal('2x9', sizes(y))
    assert.is_true(same(y[2]:narrow(1, 3, 4), x[1]:narrow(1, 1, 4)))
    assert.are.equal(0, y[2][2])
    assert.are.equal(0, y[2][7])
  end)

  it('passes gradient checks', function()
    local c = nn.DepthConcat(2):add(nn.Identity()):add(nn.Narrow(3, 2, 3)):add(nn.Narrow(3, 1, 2))
    jacobianOK(c, torch.randn(2, 2, 5))
  end)
end)

describe('nn.ConcatTable', function()
  it('gives every module the input and sums gradients (tensor input)', function()
    local c = nn.ConcatTable():add(affine(2, {1, 2})):add(affine(2, {3, 4}))
    local y = c:forward(T{1, 1})
    assert.are.equal(2, #y)
    assert.are.equal(c:get(1).output, y[1])
    assert.is_true(same(y[2], T{3, 4}))
    local gi = c:backward(T{1, 1}, {T{1, 1}, T{1, 1}})
    assert.is_true(same(gi, T{4, 6}))
    jacobianOK(c, torch.randn(2))
  end)

  -- the sum is gradInput = g1 + g2 in one pass, then + g3 ...: the same
  -- bits as copy then add, in float and double, for views and one child
  it('sums gradInputs as copy then add would, bit for bit', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      local c = nn.ConcatTable():add(nn.MulConstant(0.3)):add(nn.Identity()):add(nn.Tanh()):type(T)
      local x = torch.randn(5, 3):type(T):t()  -- a view
      c:forward(x)
      local gos = {torch.randn(3, 5):type(T), torch.randn(5, 3):type(T):t(), torch.randn(3, 5):type(T)}
      local gi = c:updateGradInput(x, gos)  -- (backward releases the children's)
      local ref = c:get(1).gradInput:clone():add(c:get(2).gradInput):add(c:get(3).gradInput)
      assert.is_true(ref:eq(gi):all(), T)
      local one = nn.ConcatTable():add(nn.MulConstant(0.3)):type(T)
      one:forward(x)
      assert.is_true(one:backward(x, {gos[1]}):eq(gos[1] * 0.3):all(), T)
      assert.are_not.equal(one:get(1).gradInput, one.gradInput)
    end
  end)

  it('handles table inputs with nested gradients', function()
    local c = nn.ConcatTable():add(nn.SelectTable(1)):add(nn.Identity()):add(nn.SelectTable(2))
    local x = {torch.randn(2), torch.randn(3)}
    local y = c:forward(x)
    assert.are.equal(3, #y)
    assert.is_true(same(y[1], x[1]))
    local gi = c:backward(x, {T{1, 2}, {T{10, 20}, T{1, 1, 1}}, T{2, 2, 2}})
    assert.is_true(same(gi[1], T{11, 22}))
    assert.is_true(same(gi[2], T{3, 3, 3}))
    jacobianOK(c, {torch.randn(2), torch.randn(3)})
  end)

  it('rejects a gradOutput that is not a table', function()
    local c = nn.ConcatTable():add(nn.Identity())
    c:forward(torch.randn(2))
    assert.are.equal('nn.ConcatTable:updateGradInput: gradOutput must be a table of 1 elements, got 1D 2',
                     errorMessage(c.updateGradInput, c, torch.randn(2), torch.randn(2)))
  end)
end)

describe('nn.ParallelTable', function()
  it('applies module i to input i', function()
    local p = nn.ParallelTable():add(affine(2, {2, 2})):add(nn.Narrow(1, 2, 1))
    local y = p:forward({T{1, 2}, T{5, 6, 7}})
    assert.is_true(same(y[1], T{2, 4}))
    assert.is_true(same(y[2], T{6}))
    local gi = p:backward({T{1, 2}, T{5, 6, 7}}, {T{1, 1}, T{3}})
    assert.is_true(same(gi[1], T{2, 2}))
    assert.is_true(same(gi[2], T{0, 3, 0}))
    jacobianOK(p, {torch.randn(2), torch.randn(3)})
  end)

  it('names the module that failed and checks the table', function()
    local p = nn.ParallelTable():add(nn.Identity()):add(nn.View(4))
    assert.are.equal('In 2 module of nn.ParallelTable:\nnn.View:updateOutput: input view (3) and desired view (4) do not match',
                     errorMessage(p.forward, p, {torch.randn(2), torch.randn(3)}))
    assert.are.equal('nn.ParallelTable:updateOutput: input must be a table of 2 elements (one per module), got table of 1 elements',
                     errorMessage(p.forward, p, {torch.randn(2)}))
  end)
end)

describe('nn.Parallel', function()
  it('applies module i to slice i and concatenates', function()
    local p = nn.Parallel(1, 1):add(affine(3, {1, 1, 1})):add(affine(3, {2, 2, 2}))
    local x = T{{1, 2, 3}, {4, 5, 6}}
    local y = p:forward(x)
    assert.is_true(same(y, T{1, 2, 3, 8, 10, 12}))
    local gi = p:backward(x, T{1, 1, 1, 1, 1, 1})
    assert.is_true(same(gi, T{{1, 1, 1}, {2, 2, 2}}))
    jacobianOK(p, torch.randn(2, 3))
  end)

  it('selects along inputDimension and joins along outputDimension', function()
    local p = nn.Parallel(2, 2):add(nn.View(2, 1)):add(nn.View(2, 1)):add(nn.View(2, 1))
    local x = torch.randn(2, 3)
    local y = p:forward(x)
    assert.are.equal('2x3', sizes(y))
    assert.is_true(same(y, x))
    jacobianOK(p, torch.randn(2, 3))
  end)

  it('checks that there is a module per slice; extra modules do not run (Torch7)', function()
    local p = nn.Parallel(1, 1):add(nn.Identity())
    assert.are.equal('nn.Parallel:updateOutput: input has 2 slices in dimension 1 but the container has only 1 modules',
                     errorMessage(p.forward, p, torch.randn(2, 3)))
    local q = nn.Parallel(1, 1):add(nn.MulConstant(2)):add(nn.MulConstant(3)):add(nn.Linear(7, 7))
    local x = torch.randn(2, 3)
    local y = q:forward(x)
    assert.are.equal('6', sizes(y))
    assert.is_true(same(y, torch.cat(x[1] * 2, x[2] * 3)))
    local gi = q:backward(x, torch.ones(6))
    assert.is_true(same(gi, torch.Tensor{{2, 2, 2}, {3, 3, 3}}))
  end)
end)

describe('nn containers and parameters', function()
  it('collect parameters of their children in order', function()
    local a, b, c = affine(1), affine(2), affine(3)
    local s = nn.Sequential():add(a):add(nn.ConcatTable():add(b):add(nn.ParallelTable():add(c)))
    local p, g = s:parameters()
    assert.are.equal(6, #p)
    assert.are.equal(a.weight, p[1])
    assert.are.equal(b.bias, p[4])
    assert.are.equal(c.gradWeight, g[5])
    local fp = s:getParameters()
    assert.are.equal(12, fp:nElement())
  end)

  it('zeroGradParameters reaches every child', function()
    local s = nn.Concat(1):add(affine(1)):add(nn.Sequential():add(affine(1)))
    s:forward(T{1}) s:backward(T{1}, T{1, 1})
    s:zeroGradParameters()
    assert.are.equal(0, s:get(2):get(1).gradWeight[1])
    assert.are.equal(0, s:get(1).gradBias[1])
  end)

  it('clearState keeps Concat usable', function()
    local c = nn.Concat(1):add(nn.Identity()):add(nn.Identity())
    c:forward(T{1, 2})
    c:clearState()
    assert.are.equal(0, c.output:nElement())
    assert.is_true(same(c:forward(T{1, 2}), T{1, 2, 1, 2}))
  end)
end)
