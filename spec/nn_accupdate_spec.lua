-- accUpdateGradParameters and backwardUpdate (w := w - lr * dE/dw in one
-- call) for every nn module with parameters, in double: alone, with its
-- weights shared with a clone (clone('weight','bias'), also sharing the
-- gradients) or through share(), and inside containers; each against
-- zeroGradParameters + accGradParameters(x, g, 1) on an identical copy.
-- A shared module once called itself forever here, so every update runs
-- under an instruction budget that turns a loop into a failure.
require 'torch'
require 'nn'

local TOL = 1e-10
local LR = 0.3
local H = require 'spec.support.helpers'
local maxdiff = H.maxAbsDiff

local function D(...) return torch.DoubleTensor(...) end
local function randn(size) return torch.randn(size):double() end

-- one case per module class (and per distinct code path): a constructor
-- and an input; gradOutputs are drawn in the output's shape
local cases = {
  {'nn.Linear', function() return nn.Linear(5, 3) end, function() return randn{4, 5} end},
  {'nn.Linear', function() return nn.Linear(5, 3) end, function() return randn{5} end, 'one sample'},
  {'nn.Linear', function() return nn.Linear(5, 3, false) end, function() return randn{4, 5} end, 'no bias'},
  {'nn.SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1) end,
   function() return randn{2, 2, 5, 5} end},
  {'nn.SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 2, 3, 2, 1):noBias() end,
   function() return randn{2, 2, 6, 5} end, 'strided, no bias'},
  {'nn.SpatialConvolutionMM', function() return nn.SpatialConvolutionMM(2, 3, 3, 3, 1, 1, 1, 1) end,
   function() return randn{2, 2, 5, 5} end},
  {'nn.SpatialConvolutionMM', function() return nn.SpatialConvolutionMM(3, 2, 3, 3) end,
   function() return randn{3, 6, 6} end, 'one image'},
  {'nn.SpatialFullConvolution', function() return nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 1, 1) end,
   function() return randn{2, 2, 4, 4} end},
  {'nn.BatchNormalization', function() return nn.BatchNormalization(4) end, function() return randn{6, 4} end},
  {'nn.SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(3) end,
   function() return randn{2, 3, 4, 4} end},
  {'nn.LookupTable', function() return nn.LookupTable(7, 3) end,
   function() return torch.LongTensor{{1, 3, 3, 7}, {2, 3, 1, 1}} end, 'repeated indices'},
  {'nn.LookupTable', function() return nn.LookupTable(7, 3, 3) end,
   function() return torch.LongTensor{1, 3, 5, 3, 6} end, 'padding index'},
  {'nn.CMul', function() return nn.CMul(3, 4) end, function() return randn{3, 4} end},
  {'nn.CMul', function() return nn.CMul(1, 4) end, function() return randn{3, 4} end, 'broadcast'},
  {'nn.CMul', function() return nn.CMul(4) end, function() return randn{5, 4} end, 'batch'},
  {'nn.Mul', function() return nn.Mul() end, function() return randn{3, 4} end},
  {'nn.Add', function() return nn.Add(4) end, function() return randn{5, 4} end},
  {'nn.Add', function() return nn.Add(4, true) end, function() return randn{5, 4} end, 'scalar'},
  {'nn.Sequential', function()
     return nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh()):add(nn.Linear(5, 2))
   end, function() return randn{3, 4} end, 'of Linear, Tanh, Linear'},
  {'nn.Concat', function()
     return nn.Concat(2):add(nn.Linear(4, 2)):add(nn.Sequential():add(nn.Add(4)):add(nn.Mul()))
   end, function() return randn{3, 4} end, 'of Linear and Add, Mul'},
  -- temporal and spatial convolutions (Torch7's wider module set)
  {'nn.TemporalConvolution', function() return nn.TemporalConvolution(3, 2, 2, 1) end, function() return randn{2, 6, 3} end},
  {'nn.TemporalSubSampling', function() return nn.TemporalSubSampling(3, 2) end, function() return randn{6, 3} end},
  {'nn.TemporalRowConvolution', function() return nn.TemporalRowConvolution(3, 2) end, function() return randn{2, 6, 3} end},
  {'nn.SpatialSubSampling', function() return nn.SpatialSubSampling(2, 2, 2) end, function() return randn{2, 2, 4, 4} end},
  {'nn.SpatialConvolutionMap', function() return nn.SpatialConvolutionMap(nn.tables.full(3, 2), 2, 2) end,
   function() return randn{2, 3, 4, 4} end},
  {'nn.SpatialFullConvolutionMap', function() return nn.SpatialFullConvolutionMap(nn.tables.full(2, 2), 2, 2) end,
   function() return randn{2, 3, 3} end},
  {'nn.SpatialConvolutionLocal', function() return nn.SpatialConvolutionLocal(2, 2, 4, 4, 2, 2) end,
   function() return randn{2, 2, 4, 4} end},
  {'nn.SpatialDepthWiseConvolution', function() return nn.SpatialDepthWiseConvolution(2, 2, 2, 2) end,
   function() return randn{2, 2, 4, 4} end},
  {'nn.SpatialDilatedConvolution', function() return nn.SpatialDilatedConvolution(2, 2, 2, 2, 1, 1, 0, 0, 2, 2) end,
   function() return randn{2, 2, 5, 5} end},
  -- the simple and products families
  {'nn.PReLU', function() return nn.PReLU(3) end, function() return randn{2, 3, 2} end, 'per channel'},
  {'nn.PReLU', function() return nn.PReLU() end, function() return randn{4, 3} end, 'shared'},
  {'nn.CAdd', function() return nn.CAdd(1, 4) end, function() return randn{3, 4} end},
  {'nn.Bilinear', function() return nn.Bilinear(3, 2, 4) end, function() return {randn{5, 3}, randn{5, 2}} end},
  -- the volumetric family
  {'nn.VolumetricConvolution', function() return nn.VolumetricConvolution(2, 3, 2, 2, 2) end,
   function() return randn{2, 2, 3, 4, 4} end},
  {'nn.VolumetricDilatedConvolution', function() return nn.VolumetricDilatedConvolution(2, 2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2) end,
   function() return randn{2, 2, 4, 5, 5} end},
  {'nn.VolumetricFullConvolution', function() return nn.VolumetricFullConvolution(2, 3, 2, 2, 2, 2, 2, 2) end,
   function() return randn{2, 2, 2, 3, 3} end},
  {'nn.VolumetricBatchNormalization', function() return nn.VolumetricBatchNormalization(3) end,
   function() return randn{2, 3, 2, 3, 3} end},
  -- gradients that depend on the weights: two steps do not simply add up
  {'nn.Cosine', function() return nn.Cosine(4, 3) end, function() return randn{5, 4} end, nil, {nonlinear = true}},
  {'nn.Euclidean', function() return nn.Euclidean(4, 3) end, function() return randn{5, 4} end, nil, {nonlinear = true}},
  -- parameters beyond weight and bias (diagCov; v and g), which
  -- clone('weight', 'bias') does not share: checked alone
  {'nn.WeightedEuclidean', function() return nn.WeightedEuclidean(4, 3) end, function() return randn{5, 4} end, nil,
   {alone = true}},
  {'nn.LinearWeightNorm', function() return nn.LinearWeightNorm(4, 3) end, function() return randn{5, 4} end, nil,
   {alone = true}},
  -- its weight is its inner network's (Torch7's layout): clone('weight')
  -- shares the outer alias only, as in Torch7
  {'nn.PartialLinear', function() return nn.PartialLinear(4, 6) end, function() return randn{3, 4} end, nil,
   {alone = true}},
}

-- classes that own a weight but whose update is not w - lr * dE/dw on
-- the gradient accGradParameters accumulates, as in Torch7: their own specs
-- check what they do instead
local OWN_RULE = {
  ['nn.Kmeans'] = 'moves centroids toward their members (its gradient is a cluster update, not dE/dw)',
  ['nn.SparseLinear'] = 'updates only the weight columns the last input touched (spec/nn_products_sparse_spec.lua)',
  ['nn.IndexLinear'] = 'updates only the rows of the keys seen (spec/nn_products_sparse_spec.lua)',
}

-- runs f(...) and fails when it has not returned within 'budget' Lua VM
-- instructions (the kernels run in C and do not count)
local function bounded(budget, f, ...)
  local hook, mask, count = debug.gethook()
  debug.sethook(function() error('did not return within ' .. budget .. ' instructions', 2) end, '', budget)
  local ok, err = pcall(f, ...)
  debug.sethook(hook, mask, count)
  if not ok then error(err, 0) end
end
local BUDGET = 2000000

local function update(m, x, g, how)
  if how == 'backwardUpdate' then
    bounded(BUDGET, m.backwardUpdate, m, x, g, LR)
  else
    m:updateGradInput(x, g)  -- containers step their children with the gradInputs
    bounded(BUDGET, m.accUpdateGradParameters, m, x, g, LR)
  end
end

local function gradOutputOf(m, x)
  return randn(m:forward(x):size())
end

-- copies of a module's parameters after w - lr * (sum of the gradients of
-- the (x, g) pairs), from a fresh copy and accGradParameters
local function expected(m, pairs_)
  local ref = m:clone()
  ref._sharedParameters = nil
  ref:zeroGradParameters()
  for _, p in ipairs(pairs_) do
    ref:forward(p[1])
    ref:backward(p[1], p[2], 1)
  end
  local params, grads = ref:parameters()
  local out = {}
  for i = 1, #params do out[i] = params[i]:clone():add(-LR, grads[i]) end
  return out
end

local function assertParams(m, want, what)
  local params = m:parameters()
  assert.are.equal(#want, #params, what)
  for i = 1, #want do
    local d = maxdiff(params[i], want[i])
    assert(d <= TOL, string.format('%s: parameter %d off by %g', what, i, d))
  end
end

-- the module built, run forward, and the gradOutput drawn, seeded per case
local function setup(case, seed)
  torch.manualSeed(seed)
  local m = case[2]():double()
  local x = case[3]()
  local g = gradOutputOf(m, x)
  return m, x, g
end

describe('accUpdateGradParameters and backwardUpdate', function()
  it('cover every module class in lua/nn that owns a weight or bias', function()
    local dir = assert(package.searchpath('nn.Linear', package.path)):match('^(.*)/[^/]*$')
    local parentOf, owns = {}, {}
    for file in io.popen('ls "' .. dir .. '"'):lines() do
      local name = file:match('^(%w+)%.lua$')
      if name and name ~= 'Module' then
        local f = assert(io.open(dir .. '/' .. file))
        local src = f:read('a')
        f:close()
        local cls, parent = src:match("torch%.class%('([%w%.]+)',%s*'([%w%.]+)'")
        if cls then
          parentOf[cls] = parent
          if src:find('self%.weight%s*=[^=]') or src:find('self%.bias%s*=[^=]') then owns[cls] = true end
        end
      end
    end
    local covered = {}
    for _, c in ipairs(cases) do covered[c[1]] = true end
    local missing = {}
    for cls in pairs(parentOf) do
      local k = cls
      while k and not owns[k] do k = parentOf[k] end
      if k and not covered[cls] and not OWN_RULE[cls] and not cls:find('Criterion') then missing[#missing + 1] = cls end
    end
    table.sort(missing)
    assert.are.same({}, missing)
    assert.is_true(owns['nn.Linear'] and owns['nn.BatchNormalization'] and owns['nn.Add'])
  end)

  for k, case in ipairs(cases) do
    local label = case[1] .. (case[4] and (' (' .. case[4] .. ')') or '')
    local seed = 100 + k

    describe(label, function()
      for _, how in ipairs{'accUpdateGradParameters', 'backwardUpdate'} do
        it(how .. ' alone is w - lr * grad', function()
          local m, x, g = setup(case, seed)
          local want = expected(m, {{x, g}})
          local gradIn = how == 'backwardUpdate' and H.clone(m:clone():updateGradInput(x, g))
          update(m, x, g, how)
          assertParams(m, want, label)
          if gradIn then
            -- gradInput from the weights before the step
            local flatNow, flatThen = {}, {}
            H.each(m.gradInput, function(t, p) flatNow[p] = t end)
            H.each(gradIn, function(t, p) assert(maxdiff(flatNow[p], t) <= TOL, label .. ': gradInput ' .. p) end)
          end
        end)

        for _, share in ipairs((case[5] or {}).alone and {} or {'clone', 'clone with gradients', 'share'}) do
          it(how .. ' with weights shared by ' .. share .. ' returns and is w - lr * grad', function()
            local m, x, g = setup(case, seed)
            local want = expected(m, {{x, g}})
            local c
            if share == 'clone' then
              c = m:clone('weight', 'bias')
            elseif share == 'clone with gradients' then
              c = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
            else
              torch.manualSeed(seed + 1000)
              c = case[2]():double():share(m, 'weight', 'bias')
              c:forward(x)
            end
            update(c, x, g, how)
            assertParams(c, want, label .. ', the clone')
            assertParams(m, want, label .. ', the original')
          end)
        end
      end

      if not (case[5] or {}).alone then it('shared by a clone, a step from each module moves both, the second from the first', function()
        local m, x, g = setup(case, seed)
        local x2 = case[3]()
        local g2 = gradOutputOf(m, x2)
        m:forward(x)
        local c = m:clone('weight', 'bias')
        local want1 = expected(m, {{x, g}})
        update(m, x, g, 'accUpdateGradParameters')
        assertParams(c, want1, label .. ', the clone after the first step')
        c:forward(x2)
        local want2 = expected(c, {{x2, g2}})
        update(c, x2, g2, 'backwardUpdate')
        assertParams(m, want2, label .. ', the original after the second step')
        if case[1] ~= 'nn.Sequential' and case[1] ~= 'nn.Concat' and not (case[5] or {}).nonlinear then
          -- one layer: the gradients do not depend on the weights, so they add up
          assertParams(m, expected(setup(case, seed), {{x, g}, {x2, g2}}), label .. ', both steps')
        end
      end) end
    end)
  end

  it("a module keeping Torch7's old idiom sharedAccUpdateGradParameters = accUpdateGradParameters returns", function()
    if not torch.getmetatable('nn.SpecOldIdiomLinear') then
      local cls = torch.class('nn.SpecOldIdiomLinear', 'nn.Linear')
      cls.sharedAccUpdateGradParameters = cls.accUpdateGradParameters
    end
    torch.manualSeed(7)
    local m = nn.SpecOldIdiomLinear(4, 3):double()
    local x = randn{2, 4}
    local g = gradOutputOf(m, x)
    local want = expected(m, {{x, g}})
    local c = m:clone('weight', 'bias')
    update(c, x, g, 'accUpdateGradParameters')
    assertParams(m, want, 'old idiom')
  end)

  it('an error in accGradParameters leaves gradWeight and gradBias in place', function()
    local m = nn.Linear(4, 3):double()
    local gw, gb = m.gradWeight, m.gradBias
    assert.is_false(pcall(m.accUpdateGradParameters, m, randn{2, 5}, randn{2, 3}, LR))
    assert.are.equal(gw, m.gradWeight)
    assert.are.equal(gb, m.gradBias)
  end)
end)
