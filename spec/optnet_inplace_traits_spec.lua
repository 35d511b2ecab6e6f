-- Who decides that a module may run in place: the module. Its
-- memoryTraits().inplace names the flag and its inplaceAllowed() answers
-- from its own invariants (true, or false and why; nn.Module says no);
-- optnet only proves where switching is safe, and never switches a module
-- that says no. OptNet's own alexnet and vgg use nn.Threshold(0, 1e-6),
-- which may not run in place: they optimize in both modes with the numbers
-- of the unoptimized net. A user's own modules and containers state their
-- traits the same way.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local walk = require 'optnet.walk'
local models = require 'models'
local helpers = require 'spec.support.helpers'
local clone = helpers.clone

local each, same, gradFor = helpers.each, helpers.identical, helpers.gradFor

-- optimizes a clone of net a in the given mode and compares it with a over
-- two steps: outputs (inference); outputs, gradInputs, gradParameters and
-- parameters after an update (training). Returns the optimized clone and
-- the modules optnet switched to in place (flag false before, true after).
local function check(a, input, mode)
  local b = a:clone()
  if mode == 'training' then a:training(); b:training() else a:evaluate(); b:evaluate() end
  local before = {}
  for i, m in ipairs(b:listModules()) do before[i] = m.inplace end
  local ok, err = pcall(optnet.optimizeMemory, b, input, {mode = mode})
  assert(ok, 'optimizeMemory failed: ' .. tostring(err))
  local switched = {}
  for i, m in ipairs(b:listModules()) do
    if before[i] == false and m.inplace == true then switched[#switched + 1] = m end
  end
  local pa, ga = a:parameters()
  local pb, gb = b:parameters()
  for iter = 1, 2 do
    torch.manualSeed(100 + iter)
    local oa = clone(a:forward(input))
    torch.manualSeed(100 + iter)
    same(oa, b:forward(input), mode .. ' step ' .. iter .. ' output')
    if mode == 'training' then
      local g = gradFor(oa, 20 + iter)
      a:zeroGradParameters(); b:zeroGradParameters()
      local gia = clone(a:backward(input, clone(g)))
      same(gia, b:backward(input, g), 'step ' .. iter .. ' gradInput')
      for i = 1, #(ga or {}) do same(ga[i], gb[i], 'step ' .. iter .. ' gradParameter ' .. i) end
      a:updateParameters(0.01); b:updateParameters(0.01)
      for i = 1, #(pa or {}) do same(pa[i], pb[i], 'step ' .. iter .. ' parameter ' .. i) end
    end
  end
  return b, switched
end

local function count(list, pred)
  local n = 0
  for _, m in ipairs(list) do if pred(m) then n = n + 1 end end
  return n
end

local function isType(name) return function(m) return torch.type(m) == name end end

-- Threshold(0, 1e-6), OptNet's activation: value above threshold
local function isOptnetThreshold(m)
  return torch.type(m) == 'nn.Threshold' and m.threshold == 0 and m.val == 1e-6
end

-- what optnet writes on stderr while f runs (its verbose summary, printed
-- on stdout, is kept out of the spec's output)
local function stderrOf(f)
  local savedErr, savedPrint, out = io.stderr, print, {}
  io.stderr = {write = function(_, ...) for _, s in ipairs{...} do out[#out + 1] = s end end}
  print = function() end
  local ok, err = pcall(f)
  io.stderr, print = savedErr, savedPrint
  assert(ok, tostring(err))
  return table.concat(out)
end

-- y = 2x, a user's module that can run in place: the input is doubled and
-- the output views it; backward doubles gradOutput there and halves the
-- input back (exact in binary). It names its flag in memoryTraits but does
-- not answer inplaceAllowed: nn.Module's default (no) holds.
if not torch.getmetatable('nn.SpecDouble') then
  local D, parent = torch.class('nn.SpecDouble', 'nn.Module')
  function D:__init(ip)
    parent.__init(self)
    self.inplace = ip or false
  end
  function D:updateOutput(input)
    if self.inplace then
      input:mul(2)
      self.output:set(input)
    else
      self.output:resizeAs(input):copy(input):mul(2)
    end
    return self.output
  end
  function D:updateGradInput(input, gradOutput)
    if self.inplace then
      gradOutput:mul(2)
      self.gradInput:set(gradOutput)
      input:div(2)
    else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(2)
    end
    return self.gradInput
  end
  function D:memoryTraits()
    return {buffers = {}, needsInput = self.inplace, needsOutput = false, inplace = 'inplace'}
  end

  -- the same module answering: 'allow' is its own invariant
  local A = torch.class('nn.SpecDoubleAsked', 'nn.SpecDouble')
  function A:__init(allow)
    nn.SpecDouble.__init(self)
    self.allow = allow
  end
  function A:inplaceAllowed()
    if not self.allow then return false, 'this one keeps its input' end
    return true
  end

  -- a user's container running its children one after another (nn.Module's
  -- backward: all gradInputs, then all parameter gradients). It states no
  -- traits: optnet assumes it reads its children's outputs and gradInputs
  -- and its gradOutput at its own steps.
  local C, cparent = torch.class('nn.SpecChain', 'nn.Container')
  function C:add(m)
    cparent.add(self, m)
    self.gradInput = self.modules[1].gradInput
    self.output = m.output
    return self
  end
  function C:updateOutput(input)
    local x = input
    for i, m in ipairs(self.modules) do x = self:rethrowErrors(m, i, 'updateOutput', x) end
    self.output = x
    return x
  end
  function C:updateGradInput(input, gradOutput)
    local g = gradOutput
    for i = #self.modules, 1, -1 do
      local x = i > 1 and self.modules[i - 1].output or input
      g = self:rethrowErrors(self.modules[i], i, 'updateGradInput', x, g)
    end
    self.gradInput = g
    return g
  end
  function C:accGradParameters(input, gradOutput, scale)
    local g = gradOutput
    for i = #self.modules, 1, -1 do
      local x = i > 1 and self.modules[i - 1].output or input
      self:rethrowErrors(self.modules[i], i, 'accGradParameters', x, g, scale)
      g = self.modules[i].gradInput
    end
  end

  -- the same container saying what it reads: as nn.Sequential, nothing
  local S = torch.class('nn.SpecChainStated', 'nn.SpecChain')
  function S:memoryTraits()
    local tr = nn.Container.memoryTraits(self)
    tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, false, false
    return tr
  end
end

describe('modules answer whether they may run in place', function()
  it("nn.Module's default is no, with the reason", function()
    for _, m in ipairs{nn.Module(), nn.Tanh(), nn.Linear(2, 2), nn.SpecDouble()} do
      local ok, why = m:inplaceAllowed()
      assert.is_false(ok)
      assert.are.equal(torch.type(m) .. ' does not say it may run in place (it defines no inplaceAllowed)', why)
    end
  end)

  it('the in-place capable modules of nn name their flag and say yes', function()
    for _, m in ipairs{nn.ReLU(), nn.Threshold(0.1, 0), nn.Threshold(0, 0), nn.LeakyReLU(0.1), nn.ELU(),
                       nn.Dropout(0.3), nn.MulConstant(2), nn.AddConstant(0.5), nn.CAddTable()} do
      assert.are.equal('inplace', m:memoryTraits().inplace, torch.type(m))
      assert.is_true(m:inplaceAllowed(), torch.type(m))
    end
  end)

  it('they say no where their invariants forbid it, and why', function()
    local cases = {
      {nn.Threshold(0, 1e-6), 'in-place processing requires value (1e-06) not exceed threshold (0)'},
      {nn.Threshold(1, 2), 'in-place processing requires value (2) not exceed threshold (1)'},
      {nn.LeakyReLU(-0.1), 'in-place processing requires a non-negative negval, got -0.1'},
      {nn.MulConstant(0), 'in-place processing needs a non-zero constant (backward divides the input back by it)'},
    }
    for _, c in ipairs(cases) do
      local ok, why = c[1]:inplaceAllowed()
      assert.is_false(ok)
      assert.are.equal(c[2], why)
    end
  end)

  it('the answer follows the fields, not the class', function()
    local t = nn.Threshold(0, 0)
    assert.is_true(t:inplaceAllowed())
    t.val = 1e-6
    assert.is_false(t:inplaceAllowed())
    local r = nn.ReLU()
    r.threshold = -1
    assert.is_false(r:inplaceAllowed())
  end)

  it("the answer agrees with the kernel's own check", function()
    local x = torch.randn(3, 4)
    local function runsInPlace(m)
      m.inplace = true
      return pcall(function()
        local xi = x:clone()
        m:forward(xi)
        m:backward(xi, torch.ones(3, 4))
      end)
    end
    for _, th in ipairs{-1, 0, 0.5} do
      for _, v in ipairs{-2, -1, 0, 1e-6, 0.5, 1} do
        local m = nn.Threshold(th, v)
        assert.are.equal(m:inplaceAllowed(), runsInPlace(m), string.format('Threshold(%g, %g)', th, v))
      end
    end
    for _, negval in ipairs{-0.5, 0, 0.2} do
      local m = nn.LeakyReLU(negval)
      assert.are.equal(m:inplaceAllowed(), runsInPlace(m), string.format('LeakyReLU(%g)', negval))
    end
  end)

  it("nn's containers say what their own steps read; other containers read all", function()
    local want = {
      ['nn.Sequential'] = {false, false}, ['nn.ParallelTable'] = {false, false},
      ['nn.ConcatTable'] = {false, true}, ['nn.Concat'] = {true, true},
      ['nn.DepthConcat'] = {true, true}, ['nn.Parallel'] = {true, true},
    }
    for _, c in ipairs{nn.Sequential(), nn.ParallelTable(), nn.ConcatTable(), nn.Concat(2), nn.DepthConcat(2),
                       nn.Parallel(1, 1)} do
      local tr = walk.traits(c)
      local w = want[torch.type(c)]
      assert.are.same({w[1], w[2], false}, {tr.childOutputs, tr.childGradInputs, tr.readsGradOutput}, torch.type(c))
    end
    local tr = walk.traits(nn.SpecChain())
    assert.are.same({true, true, true}, {tr.childOutputs, tr.childGradInputs, tr.readsGradOutput})
    tr = walk.traits(nn.SpecChainStated())
    assert.are.same({false, false, false}, {tr.childOutputs, tr.childGradInputs, tr.readsGradOutput})
    -- in place, backward writes gradOutput unless the module says it only hands it on
    assert.is_true(walk.traits(nn.ReLU()).writesGradOutput)
    assert.is_true(walk.traits(nn.SpecDouble()).writesGradOutput)
    assert.is_false(walk.traits(nn.CAddTable()).writesGradOutput)
    assert.is_false(walk.traits(nn.AddConstant(1)).writesGradOutput)
  end)
end)

describe("OptNet's alexnet and vgg-A (Threshold(0, 1e-6) in the classifier)", function()
  -- (batch 1: OptNet's View gives a 1D classifier)
  local cases = {
    {'optnet_alexnet', {batch = 2, imageSize = 127}, variants = true},
    {'optnet_alexnet', {batch = 1, imageSize = 63}},
    {'optnet_vgg', {batch = 2, imageSize = 32}, variants = true},
    {'optnet_vgg', {batch = 1, imageSize = 32}},
  }
  for _, c in ipairs(cases) do
    local label = string.format('%s batch %d', c[1], c[2].batch)
    for _, mode in ipairs{'inference', 'training'} do
      it(label .. ', ' .. mode .. ': optimizes with the same numbers; the Thresholds stay out of place', function()
        torch.manualSeed(5)
        local a, input = models.build(c[1], c[2])
        assert.are.equal(2, count(a:listModules(), isOptnetThreshold))
        local b, switched = check(a, input, mode)
        assert.are.equal(0, count(switched, isType('nn.Threshold')))
        for _, m in ipairs(b:listModules()) do
          if isOptnetThreshold(m) then assert.is_false(m.inplace) end
        end
        optnet.removeOptimization(b)
      end)
    end

    if c.variants then
      it(label .. ': with its ReLUs out of place, optnet switches them, never Threshold(0, 1e-6); '
         .. 'Threshold(0, 0) in its place is switched', function()
        for _, mode in ipairs{'inference', 'training'} do
          torch.manualSeed(5)
          local a, input = models.build(c[1], c[2])
          for _, r in ipairs(a:findModules('nn.ReLU')) do r.inplace = false end
          local _, switched = check(a, input, mode)
          assert.are.equal(#a:findModules('nn.ReLU'), count(switched, isType('nn.ReLU')), mode)
          assert.are.equal(0, count(switched, isType('nn.Threshold')), mode)
          -- the same net with Threshold(0, 0): the only difference is the module's answer
          for _, t in ipairs(a:findModules('nn.Threshold')) do t.val = 0 end
          _, switched = check(a, input, mode)
          assert.are.equal(2, count(switched, isType('nn.Threshold')), mode)
        end
      end)
    end
  end

  it("optnet_alexnet at OptNet's own size (batch 1, 224x224), inference: less memory, exact undo", function()
    torch.manualSeed(5)
    local net, input = models.build('optnet_alexnet', {batch = 1})
    net:evaluate()
    local ref = clone(net:forward(input))
    local before = optnet.countUsedMemory(net).total_size
    optnet.optimizeMemory(net, input, {mode = 'inference'})
    same(ref, net:forward(input), 'optimized output')
    assert(optnet.countUsedMemory(net).total_size < before)
    optnet.removeOptimization(net)
    same(ref, net:forward(input), 'output after removeOptimization')
    assert.are.equal(before, optnet.countUsedMemory(net).total_size)
  end)

  it("verbose says why each Threshold stays out of place", function()
    torch.manualSeed(5)
    local net, input = models.build('optnet_vgg', {batch = 2, imageSize = 32})
    local err = stderrOf(function() optnet.optimizeMemory(net, input, {mode = 'training', verbose = true}) end)
    for _, path in ipairs{'2.3', '2.5'} do
      helpers.has(err, 'optnet: ' .. path .. ' nn.Threshold stays out of place (it says: in-place processing '
        .. 'requires value (1e-06) not exceed threshold (0))')
    end
  end)
end)

describe("a user's own modules state their traits", function()
  local x = torch.randn(4, 5)
  local function between(m)
    return nn.Sequential():add(nn.Linear(5, 6)):add(m):add(nn.Linear(6, 3)):double()
  end

  it('a module that names its flag but does not answer is never switched', function()
    for _, mode in ipairs{'inference', 'training'} do
      torch.manualSeed(1)
      local _, switched = check(between(nn.SpecDouble()), x, mode)
      assert.are.equal(0, #switched, mode)
    end
  end)

  it('a module that answers no is never switched; one that answers yes is, where safe', function()
    for _, mode in ipairs{'inference', 'training'} do
      torch.manualSeed(1)
      local _, switched = check(between(nn.SpecDoubleAsked(false)), x, mode)
      assert.are.equal(0, #switched, mode)
      _, switched = check(between(nn.SpecDoubleAsked(true)), x, mode)
      assert.are.equal(1, #switched, mode)
      assert.are.equal('nn.SpecDoubleAsked', torch.type(switched[1]))
    end
    -- last in training, it would write the user's gradOutput: not safe
    local net = nn.Sequential():add(nn.Linear(5, 6)):add(nn.SpecDoubleAsked(true)):double()
    local _, switched = check(net, x, 'training')
    assert.are.equal(0, #switched)
  end)

  it('verbose says why, in the words of the module', function()
    local net = nn.Sequential():add(nn.Linear(5, 6)):add(nn.SpecDoubleAsked(false)):add(nn.SpecDouble())
      :add(nn.ReLU()):add(nn.Linear(6, 3)):double()
    local err = stderrOf(function() optnet.optimizeMemory(net, x, {mode = 'inference', verbose = true}) end)
    helpers.has(err, 'optnet: 2 nn.SpecDoubleAsked stays out of place (it says: this one keeps its input)')
    helpers.has(err, 'optnet: 3 nn.SpecDouble stays out of place (it says: nn.SpecDouble does not say it may '
      .. 'run in place (it defines no inplaceAllowed))')
    helpers.has(err, 'optnet: 4 nn.ReLU runs in place')
  end)

  it('a container that states no traits is taken to read everything; stated, it is trusted', function()
    for _, mode in ipairs{'inference', 'training'} do
      torch.manualSeed(1)
      local function chain(C)
        return C():add(nn.Linear(5, 6)):add(nn.ReLU()):add(nn.Linear(6, 6)):add(nn.Tanh()):double()
      end
      -- the silent container's own forward step reads the ReLU's input (it
      -- would have been overwritten): the ReLU stays out of place
      local _, switched = check(nn.Sequential():add(chain(nn.SpecChain)):add(nn.Linear(6, 2)):double(), x, mode)
      assert.are.equal(0, count(switched, isType('nn.ReLU')), mode)
      _, switched = check(nn.Sequential():add(chain(nn.SpecChainStated)):add(nn.Linear(6, 2)):double(), x, mode)
      assert.are.equal(1, count(switched, isType('nn.ReLU')), mode)
      -- as nn.Sequential, which states the same
      _, switched = check(nn.Sequential():add(chain(nn.Sequential)):add(nn.Linear(6, 2)):double(), x, mode)
      assert.are.equal(1, count(switched, isType('nn.ReLU')), mode)
    end
  end)
end)
