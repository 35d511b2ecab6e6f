-- nn.Module and nn.Criterion: parameters, getParameters (flattening with
-- sharing), clone/share, apply/listModules/findModules/replace, type
-- conversion with sharing, clearState, training/evaluate, gradient updates,
-- namedParameters/setName, tostring trees, save/load, memoryTraits.
require 'torch'
require 'nn'

-- y = w .* x + b elementwise over a 1D input (loops: independent of the
-- tensor math under test elsewhere)
if not torch.getmetatable('nn.SpecAffine') then
  local M, parent = torch.class('nn.SpecAffine', 'nn.Module')
  function M:__init(n)
    parent.__init(self)
    self.weight = torch.Tensor(n):fill(1)
    self.bias = torch.Tensor(n):zero()
    self.gradWeight = torch.Tensor(n):zero()
    self.gradBias = torch.Tensor(n):zero()
    self.buf = torch.Tensor()
  end
  function M:updateOutput(x)
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
  function M:memoryTraits()
    return {buffers = {buf = 'both'}, needsInput = true, needsOutput = false}
  end
  function M:__tostring__() return 'nn.SpecAffine(' .. self.weight:size(1) .. ')' end
end

local SpecAffine = torch.getconstructortable('nn.SpecAffine')

local function T(t) return torch.DoubleTensor(t) end

local function same(a, b)
  if a:nElement() ~= b:nElement() then return false end
  local fa, fb = a:contiguous():view(a:nElement()), b:contiguous():view(b:nElement())
  for i = 1, fa:nElement() do if fa[i] ~= fb[i] then return false end end
  return true
end

local function affine(n, w, b)
  local m = SpecAffine(n)
  if w then m.weight:copy(T(w)) end
  if b then m.bias:copy(T(b)) end
  return m
end

local errorMessage = require('spec.support.helpers').errorMessage

describe('nn.Module basics', function()
  it('has Torch7 fields and a default type', function()
    local m = nn.Module()
    assert.are.equal('torch.DoubleTensor', torch.type(m.output))
    assert.are.equal('torch.DoubleTensor', torch.type(m.gradInput))
    assert.are.equal('torch.DoubleTensor', m:type())
    assert.is_nil(m:parameters())
    assert.are.equal('nn.Module', tostring(m))
  end)

  it('parameters() returns weights and gradients in order', function()
    local m = affine(3)
    local p, g = m:parameters()
    assert.are.equal(2, #p)
    assert.are.equal(m.weight, p[1])
    assert.are.equal(m.bias, p[2])
    assert.are.equal(m.gradWeight, g[1])
    assert.are.equal(m.gradBias, g[2])
    m.bias = nil
    p, g = m:parameters()
    assert.are.equal(1, #p)
    assert.are.equal(m.gradWeight, g[1])
  end)

  it('forward/backward call updateOutput/updateGradInput/accGradParameters with scale', function()
    local m = affine(3, {1, 2, 3}, {10, 20, 30})
    local x = T{1, 1, 2}
    local y = m:forward(x)
    assert.is_true(same(y, T{11, 22, 36}))
    assert.are.equal(m.output, y)
    local gi = m:backward(x, T{1, 1, 1}, 0.5)
    assert.are.equal(m.gradInput, gi)
    assert.is_true(same(gi, T{1, 2, 3}))
    assert.is_true(same(m.gradWeight, T{0.5, 0.5, 1}))
    assert.is_true(same(m.gradBias, T{0.5, 0.5, 0.5}))
    m:zeroGradParameters()
    assert.is_true(same(m.gradWeight, T{0, 0, 0}))
    assert.is_true(same(m.gradBias, T{0, 0, 0}))
  end)

  it('calling a module runs forward, and backward with a gradOutput', function()
    local m = affine(2, {2, 3})
    local y = m(T{1, 1})
    assert.is_true(same(y, T{2, 3}))
    local y2, gi = m(T{1, 1}, T{1, 1})
    assert.is_true(same(y2, T{2, 3}))
    assert.is_true(same(gi, T{2, 3}))
  end)

  it('updateParameters(lr) steps against the gradients', function()
    local m = affine(2, {1, 2}, {0, 0})
    m.gradWeight:copy(T{1, -1})
    m.gradBias:copy(T{2, 2})
    m:updateParameters(0.5)
    assert.is_true(same(m.weight, T{0.5, 2.5}))
    assert.is_true(same(m.bias, T{-1, -1}))
  end)

  it('passes nn.Jacobian checks for input, parameters and accUpdateGradParameters', function()
    torch.manualSeed(5)
    local m = affine(4)
    local x = torch.randn(4)
    assert.is_true(nn.Jacobian.testJacobian(m, x) < 1e-5)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight) < 1e-5)
    assert.is_true(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias) < 1e-5)
    assert.is_true(nn.Jacobian.testJacobianUpdateParameters(m, x, m.weight) < 1e-5)
    assert.is_true(nn.Jacobian.testJacobianUpdateParameters(m, x, m.bias) < 1e-5)
    -- a module whose weights are shared steps through its gradients instead
    local c = m:clone('weight', 'bias')
    assert.is_true(c._sharedParameters and m._sharedParameters)
    assert.is_true(nn.Jacobian.testJacobianUpdateParameters(c, x, c.weight) < 1e-5)
  end)

  it('training/evaluate set train on every module', function()
    local s = nn.Sequential():add(affine(2)):add(nn.Sequential():add(affine(2)))
    s:evaluate()
    for _, m in ipairs(s:listModules()) do assert.is_false(m.train) end
    s:training()
    for _, m in ipairs(s:listModules()) do assert.is_true(m.train) end
  end)

  it('memoryTraits has a conservative default', function()
    local t = nn.Module():memoryTraits()
    assert.are.same({}, t.buffers)
    assert.is_true(t.needsInput)
    assert.is_true(t.needsOutput)
    assert.is_nil(t.inplace)
  end)
end)

describe('nn.Module:getParameters', function()
  it('flattens weights and gradients into contiguous tensors the modules point into', function()
    local s = nn.Sequential():add(affine(2, {1, 2}, {3, 4})):add(affine(3, {5, 6, 7}, {8, 9, 10}))
    local p, g = s:getParameters()
    assert.are.equal(10, p:nElement())
    assert.are.equal(10, g:nElement())
    assert.is_true(p:isContiguous())
    assert.is_true(same(p, T{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
    local m1, m2 = s:get(1), s:get(2)
    for _, t in ipairs{m1.weight, m1.bias, m2.weight, m2.bias} do
      assert.are.equal(p:storage(), t:storage())
    end
    for _, t in ipairs{m1.gradWeight, m1.gradBias, m2.gradWeight, m2.gradBias} do
      assert.are.equal(g:storage(), t:storage())
    end
    p[6] = 60
    assert.are.equal(60, m2.weight[2])
    g:zero()
    m2.gradBias[3] = 7
    assert.are.equal(7, g[10])
    -- parameters and gradients at the same offsets
    for k, t in ipairs{m1.weight, m1.bias, m2.weight, m2.bias} do
      local gt = ({m1.gradWeight, m1.gradBias, m2.gradWeight, m2.gradBias})[k]
      assert.are.equal(t:storageOffset(), gt:storageOffset())
    end
  end)

  it('keeps sharing: shared weights are counted once and stay shared', function()
    local a = affine(3, {1, 2, 3}, {4, 5, 6})
    local b = a:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local s = nn.Sequential():add(a):add(b):add(affine(2, {7, 8}, {9, 10}))
    local p, g = s:getParameters()
    assert.are.equal(10, p:nElement())
    assert.are.equal(10, g:nElement())
    assert.are.equal(a.weight:storage(), b.weight:storage())
    assert.are.equal(a.weight:storageOffset(), b.weight:storageOffset())
    assert.are.equal(a.gradBias:storageOffset(), b.gradBias:storageOffset())
    p:fill(0.25)
    assert.are.equal(0.25, b.weight[1])
    assert.are.equal(0.25, a.bias[3])
  end)

  it('siamese clone(weight, bias) keeps shared weights, and their gradients add up', function()
    local a = affine(2, {1, 2}, {3, 4})
    local b = a:clone('weight', 'bias')
    local s = nn.ParallelTable():add(a):add(b)
    local p, g = s:getParameters()
    assert.are.equal(4, p:nElement())
    assert.are.equal(4, g:nElement())
    assert.are.equal(a.weight:storage(), b.weight:storage())
    assert.are.equal(a.weight:storageOffset(), b.weight:storageOffset())
    -- the gradients of the shared weight now accumulate in one place
    g:zero()
    s:forward({T{1, 1}, T{2, 2}})
    s:backward({T{1, 1}, T{2, 2}}, {T{1, 1}, T{1, 1}})
    assert.is_true(same(a.gradWeight, T{3, 3}))
    assert.is_true(same(g, T{3, 3, 2, 2}))
  end)

  it('twice gives the same layout and the same memory', function()
    local s = nn.Sequential():add(affine(2, {1, 2}, {3, 4})):add(affine(1, {5}, {6}))
    local p1, g1 = s:getParameters()
    local p2, g2 = s:getParameters()
    assert.are.equal(p1:storage(), p2:storage())
    assert.are.equal(g1:storage(), g2:storage())
    assert.is_true(same(p1, p2))
    assert.is_true(same(p2, T{1, 2, 3, 4, 5, 6}))
  end)

  it('drops holes between parameters that lived in one bigger storage', function()
    local big = T{1, 2, 3, 4, 5, 6, 7, 8}
    local gbig = T{0, 0, 0, 0, 0, 0, 0, 0}
    local m = affine(2)
    m.weight:set(big:narrow(1, 2, 2))       -- elements 2, 3
    m.bias:set(big:narrow(1, 7, 2))         -- elements 7, 8
    m.gradWeight:set(gbig:narrow(1, 2, 2))
    m.gradBias:set(gbig:narrow(1, 7, 2))
    local p, g = m:getParameters()
    assert.are.equal(4, p:nElement())
    assert.is_true(same(p, T{2, 3, 7, 8}))
    assert.are.equal(4, g:nElement())
    assert.are.equal(p:storage(), m.bias:storage())
  end)

  it('gives empty tensors for a module without parameters', function()
    local p, g = nn.Sequential():add(nn.Identity()):getParameters()
    assert.are.equal(0, p:nElement())
    assert.are.equal(0, g:nElement())
  end)

  it('refuses parameters of mixed types', function()
    local s = nn.Sequential():add(affine(2)):add(affine(2):float())
    local msg = errorMessage(s.getParameters, s)
    assert.truthy(msg:find('nn.Module.flatten: all parameters must have one type, got torch.DoubleTensor ' ..
                           '(parameter 1) and torch.FloatTensor (parameter 3)', 1, true))
  end)
end)

describe('nn.Module:clone and share', function()
  it('clone is a deep copy', function()
    local m = affine(2, {1, 2}, {3, 4})
    local c = m:clone()
    assert.are.equal('nn.SpecAffine', torch.type(c))
    assert.are_not.equal(m.weight, c.weight)
    assert.are_not.equal(m.weight:storage(), c.weight:storage())
    assert.is_true(same(c.weight, m.weight))
    c.weight:fill(9)
    assert.are.equal(1, m.weight[1])
  end)

  it('clone keeps sharing and cycles inside the copied graph', function()
    local a = affine(2, {1, 2})
    local b = a:clone('weight')
    local s = nn.Sequential():add(a):add(b)
    s.self = s
    local c = s:clone()
    local ca, cb = c:get(1), c:get(2)
    assert.are.equal(ca.weight:storage(), cb.weight:storage())
    assert.are_not.equal(a.weight:storage(), ca.weight:storage())
    assert.are.equal(c, c.self)
    ca.weight[1] = 42
    assert.are.equal(42, cb.weight[1])
    assert.are.equal(1, a.weight[1])
  end)

  it('clone(fields) shares those fields with the original', function()
    local m = affine(2, {1, 2}, {3, 4})
    local c = m:clone('weight', 'gradWeight')
    assert.are.equal(m.weight:storage(), c.weight:storage())
    assert.are.equal(m.gradWeight:storage(), c.gradWeight:storage())
    assert.are_not.equal(m.bias:storage(), c.bias:storage())
    c.weight[2] = 7
    assert.are.equal(7, m.weight[2])
  end)

  it('share points fields at the other module, through containers', function()
    local s1 = nn.Sequential():add(affine(2, {1, 2})):add(affine(2, {3, 4}))
    local s2 = nn.Sequential():add(affine(2)):add(affine(2))
    s2:share(s1, 'weight')
    assert.are.equal(s1:get(1).weight:storage(), s2:get(1).weight:storage())
    assert.are.equal(s1:get(2).weight:storage(), s2:get(2).weight:storage())
    assert.are_not.equal(s1:get(2).bias:storage(), s2:get(2).bias:storage())
    assert.are.equal(4, s2:get(2).weight[2])
  end)
end)

describe('nn.Module tree walking', function()
  local function tree()
    local inner = nn.Sequential():add(affine(2)):add(nn.Identity())
    return nn.Sequential():add(nn.Identity()):add(inner):add(affine(2)), inner
  end

  it('apply visits every module in preorder', function()
    local s, inner = tree()
    local seen = {}
    s:apply(function(m) seen[#seen + 1] = m end)
    assert.are.equal(6, #seen)
    assert.are.equal(s, seen[1])
    assert.are.equal(inner, seen[3])
    assert.are.equal(inner:get(1), seen[4])
  end)

  it('listModules lists self and all descendants in preorder', function()
    local s, inner = tree()
    local l = s:listModules()
    assert.are.equal(6, #l)
    assert.are.equal(s, l[1])
    assert.are.equal(s:get(1), l[2])
    assert.are.equal(inner:get(2), l[5])
    assert.are.equal(s:get(3), l[6])
  end)

  it('findModules finds modules by class with their containers', function()
    local s, inner = tree()
    local nodes, containers = s:findModules('nn.SpecAffine')
    assert.are.equal(2, #nodes)
    assert.are.equal(inner:get(1), nodes[1])
    assert.are.equal(inner, containers[1])
    assert.are.equal(s:get(3), nodes[2])
    assert.are.equal(s, containers[2])
    assert.are.equal(0, #s:findModules('nn.Concat'))
  end)

  it('replace swaps modules returned by the callback', function()
    local s = tree()
    s:replace(function(m)
      if torch.type(m) == 'nn.Identity' then return nn.Narrow(1, 1, 1) end
      return m
    end)
    assert.are.equal('nn.Narrow', torch.type(s:get(1)))
    assert.are.equal('nn.Narrow', torch.type(s:get(2):get(2)))
  end)
end)

describe('nn.Module:type', function()
  it('converts every tensor field, keeping sharing', function()
    local a = affine(3, {1, 2, 3})
    local b = a:clone('weight', 'bias')
    local s = nn.Sequential():add(a):add(b)
    a.view = a.weight:narrow(1, 2, 2)      -- a view into a shared storage
    a.list = {a.bias, {a.weight}}          -- tensors inside tables
    s:float()
    assert.are.equal('torch.FloatTensor', s:type())
    for _, m in ipairs{a, b} do
      for _, f in ipairs{'weight', 'bias', 'gradWeight', 'gradBias', 'output', 'gradInput'} do
        assert.are.equal('torch.FloatTensor', torch.type(m[f]))
      end
    end
    assert.are.equal(a.weight:storage(), b.weight:storage())
    assert.are.equal(a.weight:storage(), a.view:storage())
    assert.are.equal(2, a.view:storageOffset())
    assert.are.equal(a.bias, a.list[1])
    assert.are.equal(a.weight, a.list[2][1])
    assert.are.equal(2, a.view[1])
    s:double()
    assert.are.equal('torch.DoubleTensor', torch.type(a.weight))
    assert.are.equal(a.weight:storage(), b.weight:storage())
  end)

  it('keeps integer index tensors integer', function()
    local m = nn.Module()
    m.indices = torch.LongTensor{1, 2}
    m:float()
    assert.are.equal('torch.LongTensor', torch.type(m.indices))
    assert.are.equal('torch.FloatTensor', torch.type(m.output))
  end)

  it('rejects unknown type names', function()
    local m = nn.Module()
    assert.truthy(errorMessage(m.type, m, 'torch.CudaTensor'):find(
      "nn.Module:type: tensor type name expected (e.g. 'torch.FloatTensor'), got torch.CudaTensor", 1, true))
  end)
end)

describe('nn.Module:clearState', function()
  it('empties output, gradInput and declared buffers, keeping the objects', function()
    local m = affine(2)
    m:forward(T{1, 2})
    m:backward(T{1, 2}, T{1, 1})
    m.buf:resize(5)
    local out, gin = m.output, m.gradInput
    assert.are.equal(m, m:clearState())
    assert.are.equal(out, m.output)
    assert.are.equal(gin, m.gradInput)
    assert.are.equal(0, m.output:nElement())
    assert.are.equal(0, m.gradInput:nElement())
    assert.are.equal(0, m.buf:nElement())
    assert.are.equal(2, m.weight:nElement())
  end)

  it('on a Sequential leaves the children consistent', function()
    local s = nn.Sequential():add(affine(2)):add(affine(2))
    s:forward(T{1, 2})
    s:clearState()
    assert.are.equal(0, s:get(2).output:nElement())
    assert.is_true(same(s:forward(T{1, 2}), T{1, 2}))
  end)
end)

describe('nn.Module names', function()
  it('namedParameters gives dotted paths through containers', function()
    local s = nn.Sequential()
      :add(affine(2))
      :add(nn.Identity())
      :add(nn.ConcatTable():add(affine(3)):add(nn.Sequential():add(affine(1))))
    local p, g = s:namedParameters()
    local keys = {}
    for k in pairs(p) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.are.same({'1.bias', '1.weight', '3.1.bias', '3.1.weight', '3.2.1.bias', '3.2.1.weight'}, keys)
    assert.are.equal(s:get(1).weight, p['1.weight'])
    assert.are.equal(s:get(3):get(2):get(1).bias, p['3.2.1.bias'])
    assert.are.equal(s:get(3):get(1).gradWeight, g['3.1.weight'])
  end)

  it('setName replaces the index in paths', function()
    local s = nn.Sequential():add(affine(2):setName('fc1')):add(nn.Sequential():add(affine(2)):setName('block'))
    local p = s:namedParameters()
    assert.are.equal(s:get(1).weight, p['fc1.weight'])
    assert.are.equal(s:get(2):get(1).bias, p['block.1.bias'])
    assert.is_nil(p['1.weight'])
    assert.are.equal('fc1', s:get(1):getName())
    local mods = s:namedModules()
    assert.are.equal(s:get(2):get(1), mods['block.1'])
    assert.are.equal(s:get(1), mods['fc1'])
  end)

  it('setName rejects names with dots', function()
    local m = nn.Module()
    assert.truthy(errorMessage(m.setName, m, 'a.b'):find(
      "nn.Module:setName: non-empty name without '.' expected, got 'a.b'", 1, true))
  end)
end)

describe('nn containers print as Torch7 trees', function()
  it('Sequential', function()
    local s = nn.Sequential():add(nn.Identity()):add(nn.Sequential():add(nn.Identity()))
    assert.are.equal(
      'nn.Sequential {\n' ..
      '  [input -> (1) -> (2) -> output]\n' ..
      '  (1): nn.Identity\n' ..
      '  (2): nn.Sequential {\n' ..
      '    [input -> (1) -> output]\n' ..
      '    (1): nn.Identity\n' ..
      '  }\n' ..
      '}', tostring(s))
  end)

  it('shows layers with their own text (nn.Linear when present)', function()
    if not nn.Linear then return end
    local s = nn.Sequential():add(nn.Linear(10, 20)):add(nn.Identity())
    assert.are.equal(
      'nn.Sequential {\n' ..
      '  [input -> (1) -> (2) -> output]\n' ..
      '  (1): nn.Linear(10 -> 20)\n' ..
      '  (2): nn.Identity\n' ..
      '}', tostring(s))
  end)

  it('ConcatTable / Concat / ParallelTable', function()
    local c = nn.ConcatTable():add(nn.Identity()):add(nn.Sequential():add(nn.Identity()))
    assert.are.equal(
      'nn.ConcatTable {\n' ..
      '  input\n' ..
      '    |`-> (1): nn.Identity\n' ..
      '     `-> (2): nn.Sequential {\n' ..
      '           [input -> (1) -> output]\n' ..
      '           (1): nn.Identity\n' ..
      '         }\n' ..
      '     ... -> output\n' ..
      '}', tostring(c))
    local p = nn.Concat(1):add(nn.Sequential():add(nn.Identity())):add(nn.Identity())
    assert.are.equal(
      'nn.Concat {\n' ..
      '  input\n' ..
      '    |`-> (1): nn.Sequential {\n' ..
      '    |      [input -> (1) -> output]\n' ..
      '    |      (1): nn.Identity\n' ..
      '    |    }\n' ..
      '     `-> (2): nn.Identity\n' ..
      '     ... -> output\n' ..
      '}', tostring(p))
    assert.truthy(tostring(nn.ParallelTable():add(nn.Identity())):find('^nn.ParallelTable {\n  input\n'))
  end)
end)

describe('nn modules and serialization', function()
  it('torch.save/torch.load round-trip a net with shared weights', function()
    local a = affine(2, {1, 2}, {3, 4})
    local s = nn.Sequential():add(a):add(a:clone('weight', 'bias')):add(nn.View(2)):setName('net')
    local x = T{0.5, -1}
    local y = s:forward(x):clone()
    local file = os.tmpname()
    torch.save(file, s)
    local l = torch.load(file)
    os.remove(file)
    assert.are.equal('nn.Sequential', torch.type(l))
    assert.are.equal('net', l.name)
    assert.are.equal(l:get(1).weight:storage(), l:get(2).weight:storage())
    assert.is_true(same(l:forward(x), y))
    local err = {nn.Jacobian.testIO(s, T{1, 2})}
    assert.are.equal(0, err[1])
    assert.are.equal(0, err[2])
  end)
end)

describe('nn.Criterion', function()
  if not torch.getmetatable('nn.SpecSquare') then
    local C, parent = torch.class('nn.SpecSquare', 'nn.Criterion')
    function C:__init() parent.__init(self) end
    function C:updateOutput(x, t)
      local s = 0
      for i = 1, x:size(1) do s = s + (x[i] - t[i]) ^ 2 end
      self.output = s
      return s
    end
    function C:updateGradInput(x, t)
      self.gradInput:resize(x:size(1))
      for i = 1, x:size(1) do self.gradInput[i] = 2 * (x[i] - t[i]) end
      return self.gradInput
    end
  end

  local SpecSquare = torch.getconstructortable('nn.SpecSquare')

  it('forward/backward and __call__', function()
    local c = SpecSquare()
    assert.are.equal(0, c.output)
    assert.are.equal(5, c:forward(T{1, 2}, T{0, 0}))
    assert.is_true(same(c:backward(T{1, 2}, T{0, 0}), T{2, 4}))
    local l, g = c(T{1, 1}, T{0, 0})
    assert.are.equal(2, l)
    assert.is_true(same(g, T{2, 2}))
    assert.are.equal(0, nn.Jacobian.testCriterion(c, T{0.5, -0.25}, T{1, 1}) > 1e-6 and 1 or 0)
  end)

  it('clone, type and clearState', function()
    local c = SpecSquare()
    c:backward(T{1, 2}, T{0, 0})
    local d = c:clone()
    assert.are_not.equal(c.gradInput, d.gradInput)
    assert.is_true(same(c.gradInput, d.gradInput))
    c:float()
    assert.are.equal('torch.FloatTensor', torch.type(c.gradInput))
    c:clearState()
    assert.are.equal(0, c.gradInput:nElement())
  end)
end)
