-- Pointwise activations and SoftMax/LogSoftMax: values against the
-- formulas, gradients against finite differences (nn.Jacobian, double) for
-- single and batch shapes, in-place runs equal to out-of-place ones,
-- float/double agreement, memory traits and error messages.
require 'torch'
require 'nn'

local precision = 1e-5

local function flat(t) return t:contiguous():view(t:nElement()) end

local function maxdiff(a, b)
  assert.are.equal(a:nElement(), b:nElement())
  local fa, fb, m = flat(a), flat(b), 0
  for i = 1, fa:nElement() do
    local d = math.abs(fa[i] - fb[i])
    if d > m or d ~= d then m = d end
  end
  return m
end

-- f applied element by element (the reference)
local function map(t, f)
  local r = t:clone()
  local fr = flat(r)
  for i = 1, fr:nElement() do fr[i] = f(fr[i]) end
  return r
end

local function sigmoid(x) return 1 / (1 + math.exp(-x)) end

-- name, constructor, reference f(x), in-place constructor (or nil)
local cases = {
  {'Threshold', function() return nn.Threshold(0.5, -1) end,
   function(x) return x > 0.5 and x or -1 end,
   function() return nn.Threshold(0.5, -1, true) end},
  {'ReLU', function() return nn.ReLU() end, function(x) return math.max(x, 0) end,
   function() return nn.ReLU(true) end},
  {'LeakyReLU', function() return nn.LeakyReLU(0.1) end,
   function(x) return x > 0 and x or 0.1 * x end,
   function() return nn.LeakyReLU(0.1, true) end},
  {'ELU', function() return nn.ELU(0.7) end,
   function(x) return x > 0 and x or 0.7 * (math.exp(x) - 1) end,
   function() return nn.ELU(0.7, true) end},
  {'Tanh', function() return nn.Tanh() end, math.tanh},
  {'Sigmoid', function() return nn.Sigmoid() end, sigmoid},
  {'SoftPlus', function() return nn.SoftPlus(2) end,
   function(x) return 2 * x > 20 and x or math.log(1 + math.exp(2 * x)) / 2 end},
}

describe('pointwise activations', function()
  before_each(function() torch.manualSeed(7) end)

  for _, c in ipairs(cases) do
    local name, new, f, newInplace = c[1], c[2], c[3], c[4]

    describe('nn.' .. name, function()
      it('computes the formula on any shape', function()
        local m = new()
        for _, x in ipairs{torch.randn(7), torch.randn(3, 4), torch.randn(2, 3, 4)} do
          x = map(x, function(v) return 3 * v end)
          local y = m:forward(x)
          assert.are.same(x:size():totable(), y:size():totable())
          assert.is_true(maxdiff(y, map(x, f)) < 1e-12)
        end
      end)

      it('passes the Jacobian check (single and batch)', function()
        local m = new()
        for _, x in ipairs{torch.DoubleTensor(6), torch.DoubleTensor(3, 5), torch.DoubleTensor(2, 3, 4)} do
          -- keep away from the kinks, where finite differences straddle two slopes
          local err = nn.Jacobian.testJacobian(m, x, -2, 2)
          if err > precision then
            local kinked = name == 'Threshold' or name == 'ReLU' or name == 'LeakyReLU' or name == 'ELU'
            assert.is_true(kinked, name .. ' Jacobian error ' .. err)
            -- retry with inputs clear of the kink
            local xs = flat(x)
            for i = 1, xs:nElement() do
              if math.abs(xs[i] - (name == 'Threshold' and 0.5 or 0)) < 1e-3 then xs[i] = xs[i] + 0.01 end
            end
            local jf = nn.Jacobian.forward(m, x)
            local jb = nn.Jacobian.backward(m, x)
            err = maxdiff(jf, jb)
          end
          assert.is_true(err < precision, name .. ' Jacobian error ' .. err)
        end
      end)

      it('keeps its output and gradInput objects', function()
        local m = new()
        local out, gin = m.output, m.gradInput
        local x = torch.randn(4, 5)
        m:forward(x)
        m:backward(x, torch.randn(4, 5))
        assert.are.equal(out, m.output)
        assert.are.equal(gin, m.gradInput)
      end)

      it('gives the same results after a save/load round trip', function()
        local ef, eb = nn.Jacobian.testIO(new(), torch.randn(3, 5))
        assert.are.equal(0, ef)
        assert.are.equal(0, eb)
      end)

      it('agrees in float and double', function()
        local m = new()
        local x, go = torch.randn(3, 6), torch.randn(3, 6)
        local y = m:forward(x):clone()
        local gi = m:backward(x, go):clone()
        local mf = new():float()
        assert.is_true(maxdiff(mf:forward(x:float()):double(), y) < 1e-5)
        assert.is_true(maxdiff(mf:backward(x:float(), go:float()):double(), gi) < 1e-5)
      end)

      if newInplace then
        it('in place gives the out-of-place results and shares the storages', function()
          local m, mi = new(), newInplace()
          local x, go = map(torch.randn(4, 6), function(v) return 2 * v end), torch.randn(4, 6)
          local y = m:forward(x):clone()
          local gi = m:backward(x, go):clone()
          local xi, goi = x:clone(), go:clone()
          local yi = mi:forward(xi)
          assert.are.equal(mi.output, yi)
          assert.is_true(yi:isSetTo(xi))
          assert.is_true(maxdiff(yi, y) == 0)
          local gii = mi:backward(xi, goi)
          assert.is_true(gii:isSetTo(goi))
          assert.is_true(maxdiff(gii, gi) == 0)
          assert.are.equal('inplace', mi:memoryTraits().inplace)
        end)
      end

      it('rejects non-floating and mismatched tensors', function()
        local m = new()
        local ok, err = pcall(m.forward, m, torch.LongTensor(3))
        assert.is_false(ok)
        assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must be a torch.FloatTensor or torch.DoubleTensor, got torch.LongTensor', 1, true))
        ok, err = pcall(m.forward, m, {})
        assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must be a tensor, got table', 1, true))
        ok, err = pcall(m.forward, m, torch.FloatTensor(3))
        assert.truthy(err:find("nn." .. name .. ":updateOutput: input must be a torch.DoubleTensor like the module's output (convert one with :type()), got torch.FloatTensor", 1, true))
        local x = torch.randn(2, 3)
        m:forward(x)
        ok, err = pcall(m.backward, m, x, torch.randn(4))
        assert.is_false(ok)
        assert.truthy(err:find('nn.' .. name .. ':updateGradInput: gradOutput must have as many elements as the', 1, true))
        assert.truthy(err:find('(2x3, 6), got 4 (4)', 1, true))
      end)
    end)
  end

  it('declare what backward reads', function()
    for _, m in ipairs{nn.ReLU(), nn.Threshold(), nn.LeakyReLU()} do
      local t = m:memoryTraits()
      assert.is_true(t.needsInput)
      assert.is_false(t.needsOutput)
      assert.are.equal('inplace', t.inplace)
    end
    for _, m in ipairs{nn.ELU(), nn.Tanh(), nn.Sigmoid(), nn.SoftPlus(), nn.SoftMax(), nn.LogSoftMax()} do
      local t = m:memoryTraits()
      assert.is_false(t.needsInput)
      assert.is_true(t.needsOutput)
      assert.are.same({}, t.buffers)
    end
    assert.is_nil(nn.Tanh():memoryTraits().inplace)
    assert.are.equal('inplace', nn.ELU():memoryTraits().inplace)
  end)

  it('use Torch7 defaults', function()
    local t = nn.Threshold()
    assert.are.equal(1e-6, t.threshold)
    assert.are.equal(0, t.val)
    assert.is_false(t.inplace)
    local r = nn.ReLU(true)
    assert.are.equal(0, r.threshold)
    assert.is_true(r.inplace)
    assert.is_true(torch.isTypeOf(r, 'nn.Threshold'))
    assert.are.equal(0.01, nn.LeakyReLU().negval)
    assert.is_true(nn.LeakyReLU(true).inplace)
    assert.is_false(nn.LeakyReLU(-0.5, true).inplace)  -- Torch7: negative slope turns in-place off
    assert.are.equal(1, nn.ELU().alpha)
    local sp = nn.SoftPlus()
    assert.are.equal(1, sp.beta)
    assert.are.equal(20, sp.threshold)
  end)

  it('SoftPlus is exact beyond its threshold and finite for large inputs', function()
    local m = nn.SoftPlus()
    local x = torch.DoubleTensor{-800, -30, 0, 19, 21, 800}
    local y = m:forward(x)
    assert.are.equal(21, y[5])
    assert.are.equal(800, y[6])
    assert.is_true(math.abs(y[3] - math.log(2)) < 1e-15)
    assert.is_true(y[1] >= 0 and y[1] < 1e-300)
    local g = m:backward(x, torch.DoubleTensor(6):fill(1))
    assert.are.equal(1, g[6])
    assert.is_true(math.abs(g[3] - 0.5) < 1e-12)
  end)

  it('a negative slope still works out of place', function()
    local m = nn.LeakyReLU(-0.5)
    local x = torch.DoubleTensor{-2, 3}
    assert.are.same({1, 3}, m:forward(x):totable())
    assert.are.same({-0.5, 1}, m:backward(x, torch.DoubleTensor{1, 1}):totable())
  end)

  it('reports bad parameters', function()
    local ok, err = pcall(nn.Threshold, 0, 1, true)
    assert.is_false(ok)
    assert.truthy(err:find('nn.Threshold:__init: in-place processing requires value (1) not exceed threshold (0)', 1, true))
    ok, err = pcall(nn.Threshold, 'a')
    assert.truthy(err:find('nn.Threshold: threshold and value must be numbers, got string and nil', 1, true))
    ok, err = pcall(nn.ReLU, 1)
    assert.truthy(err:find('nn.ReLU: in-place flag must be boolean, got number', 1, true))
    ok, err = pcall(nn.ELU, -1)
    assert.truthy(err:find('nn.ELU:__init: alpha must be non-negative, got -1', 1, true))
    ok, err = pcall(nn.SoftPlus, 0)
    assert.truthy(err:find('nn.SoftPlus:__init: beta must be positive, got 0', 1, true))
    -- a field changed after construction is checked again at run time
    local t = nn.Threshold(0, 0, true)
    t.val = 2
    ok, err = pcall(t.forward, t, torch.randn(3))
    assert.truthy(err:find('nn.Threshold:updateOutput: in-place processing requires value (2) not exceed threshold (0)', 1, true))
  end)
end)

-- reference softmax over dimension d of x
local function refSoftMax(x, d, log)
  local r = x:clone()
  local n = x:size(d)
  local rest = x:nElement() / n
  -- move dimension d last and walk each distribution
  local perm = {}
  for i = 1, x:dim() do if i ~= d then perm[#perm + 1] = i end end
  perm[#perm + 1] = d
  local xp = x:permute(table.unpack(perm)):contiguous():view(rest, n)
  local rp = xp:clone()
  for k = 1, rest do
    local mx = -math.huge
    for i = 1, n do mx = math.max(mx, xp[k][i]) end
    local s = 0
    for i = 1, n do s = s + math.exp(xp[k][i] - mx) end
    for i = 1, n do
      rp[k][i] = log and (xp[k][i] - mx - math.log(s)) or math.exp(xp[k][i] - mx) / s
    end
  end
  -- undo the permutation
  local sizes = {}
  for i = 1, #perm do sizes[i] = x:size(perm[i]) end
  local back = {}
  for i = 1, #perm do back[perm[i]] = i end
  r:copy(rp:view(table.unpack(sizes)):permute(table.unpack(back)))
  return r
end

describe('nn.SoftMax and nn.LogSoftMax', function()
  before_each(function() torch.manualSeed(11) end)

  for _, log in ipairs{false, true} do
    local name = log and 'LogSoftMax' or 'SoftMax'
    local new = log and nn.LogSoftMax or nn.SoftMax

    it(name .. ' normalises over the feature dimension of 1D, 2D, 3D and 4D inputs', function()
      local m = new()
      -- {input, feature dimension}: Torch7's rules
      for _, c in ipairs{{torch.randn(5), 1}, {torch.randn(3, 5), 2},
                         {torch.randn(4, 2, 3), 1}, {torch.randn(2, 4, 2, 3), 2},
                         -- more pixels than one block of the kernel (256)
                         {torch.randn(3, 17, 20), 1}, {torch.randn(2, 3, 20, 15), 2}} do
        local x, d = c[1], c[2]
        local y = m:forward(x)
        assert.is_true(maxdiff(y, refSoftMax(x, d, log)) < 1e-12)
        -- backward against the closed forms, with per-distribution sums
        -- over the feature dimension of go (log) or go * y
        local go = torch.randn(x:size())
        local gi = m:backward(x, go)
        local yr = refSoftMax(x, d, log)
        local w = go:clone()
        if not log then w:cmul(yr) end
        local sums = w:sum(d):expandAs(x):contiguous()
        local fy, fgo, fgi, fs = flat(yr), flat(go), flat(gi), flat(sums)
        for i = 1, fgi:nElement() do
          local expect = log and (fgo[i] - math.exp(fy[i]) * fs[i]) or (fy[i] * (fgo[i] - fs[i]))
          assert.is_true(math.abs(fgi[i] - expect) < 1e-12)
        end
      end
    end)

    it(name .. ' passes the Jacobian check for every shape', function()
      local m = new()
      for _, x in ipairs{torch.DoubleTensor(5), torch.DoubleTensor(3, 4),
                         torch.DoubleTensor(3, 2, 2), torch.DoubleTensor(2, 3, 2, 2)} do
        local err = nn.Jacobian.testJacobian(m, x)
        assert.is_true(err < precision, name .. ' error ' .. err)
      end
    end)

    it(name .. ' is stable for large inputs and agrees in float', function()
      local m = new()
      local x = torch.DoubleTensor{{1000, 1001, 1002}, {-1000, -1000, -1000}}
      local y = m:forward(x)
      assert.is_true(maxdiff(y, refSoftMax(x, 2, log)) < 1e-12)
      local xr = torch.randn(4, 7)
      local go = torch.randn(4, 7)
      local yd = m:forward(xr):clone()
      local gd = m:backward(xr, go):clone()
      local mf = new():float()
      assert.is_true(maxdiff(mf:forward(xr:float()):double(), yd) < 1e-5)
      assert.is_true(maxdiff(mf:backward(xr:float(), go:float()):double(), gd) < 1e-5)
    end)

    it(name .. ' accepts non-contiguous inputs and gradOutputs', function()
      local m = new()
      local x = torch.randn(5, 3):t()
      local y = m:forward(x)
      assert.is_true(maxdiff(y, refSoftMax(x:contiguous(), 2, log)) < 1e-12)
      local go = torch.randn(5, 3):t()
      local g1 = m:backward(x, go):clone()
      local g2 = m:backward(x, go:contiguous())
      assert.is_true(maxdiff(g1, g2) == 0)
    end)

    it(name .. ' reports bad shapes', function()
      local m = new()
      local ok, err = pcall(m.forward, m, torch.randn(1, 2, 1, 2, 1))
      assert.is_false(ok)
      assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must be 1D, 2D (batch), 3D (features x h x w) or 4D (batch x features x h x w), got 5D 1x2x1x2x1', 1, true))
      ok, err = pcall(m.forward, m, torch.DoubleTensor())
      assert.truthy(err:find('nn.' .. name .. ':updateOutput: input must be 1D, 2D', 1, true))
      local fresh = new()
      ok, err = pcall(fresh.updateGradInput, fresh, torch.randn(3), torch.randn(3))
      assert.truthy(err:find('call updateOutput before updateGradInput', 1, true))
    end)
  end

  it('SoftMax rows sum to one', function()
    local y = nn.SoftMax():forward(torch.randn(4, 9))
    for i = 1, 4 do
      local s = 0
      for j = 1, 9 do s = s + y[i][j] end
      assert.is_true(math.abs(s - 1) < 1e-12)
    end
  end)
end)

describe('nn.Dropout', function()
  before_each(function() torch.manualSeed(17) end)

  it('zeroes about p of the elements and scales the rest by 1/(1-p) in training', function()
    local m = nn.Dropout(0.3)
    assert.is_true(m.train)
    assert.is_true(m.v2)
    local x = torch.DoubleTensor(100, 100):uniform(1, 2)
    local y = m:forward(x)
    local fy, fx, zeros = flat(y), flat(x), 0
    for i = 1, fy:nElement() do
      if fy[i] == 0 then
        zeros = zeros + 1
      else
        assert.is_true(math.abs(fy[i] - fx[i] / 0.7) < 1e-12)
      end
    end
    assert.is_true(math.abs(zeros / 10000 - 0.3) < 0.02, 'dropped fraction ' .. zeros / 10000)
    -- backward masks with the same noise
    local go = torch.DoubleTensor(100, 100):uniform(-1, 1)
    local gi = m:backward(x, go)
    local fg, fgo = flat(gi), flat(go)
    for i = 1, fg:nElement() do
      local expect = fy[i] == 0 and 0 or fgo[i] / 0.7
      assert.is_true(math.abs(fg[i] - expect) < 1e-12)
    end
  end)

  it('passes the input through in evaluation (v2) and scales by 1-p in v1', function()
    local x = torch.randn(5, 6)
    local m = nn.Dropout(0.4):evaluate()
    assert.are.same(x:totable(), m:forward(x):totable())
    assert.are.same(x:totable(), m:backward(x, x):totable())
    local m1 = nn.Dropout(0.4, true)
    assert.is_false(m1.v2)
    local y1 = m1:forward(x)  -- training: unscaled kept values
    local fy, fx = flat(y1), flat(x)
    for i = 1, fy:nElement() do assert.is_true(fy[i] == 0 or fy[i] == fx[i]) end
    m1:evaluate()
    assert.is_true(maxdiff(m1:forward(x), map(x, function(v) return v * 0.6 end)) < 1e-12)
    assert.is_true(maxdiff(m1:backward(x, x), map(x, function(v) return v * 0.6 end)) < 1e-12)
  end)

  it('keeps dropping in evaluation with stochasticInference', function()
    local m = nn.Dropout(0.5, false, false, true):evaluate()
    local y = m:forward(torch.DoubleTensor(1000):fill(1))
    local zeros = 0
    for i = 1, 1000 do if y[i] == 0 then zeros = zeros + 1 end end
    assert.is_true(zeros > 400 and zeros < 600)
  end)

  it('p = 0 is the identity', function()
    local x = torch.randn(3, 3)
    assert.are.same(x:totable(), nn.Dropout(0):forward(x):totable())
  end)

  it('in place gives the out-of-place results', function()
    local x, go = torch.randn(8, 9), torch.randn(8, 9)
    torch.manualSeed(4)
    local m = nn.Dropout(0.5)
    local y = m:forward(x):clone()
    local gi = m:backward(x, go):clone()
    torch.manualSeed(4)
    local mi = nn.Dropout(0.5, false, true)
    local xi, goi = x:clone(), go:clone()
    local yi = mi:forward(xi)
    assert.is_true(yi:isSetTo(xi))
    assert.are.same(y:totable(), yi:totable())
    local gii = mi:backward(xi, goi)
    assert.is_true(gii:isSetTo(goi))
    assert.are.same(gi:totable(), gii:totable())
  end)

  it('declares its noise buffer and reports a bad p', function()
    local t = nn.Dropout():memoryTraits()
    assert.are.equal('both', t.buffers.noise)
    assert.are.equal('inplace', t.inplace)
    assert.is_false(t.needsInput)
    assert.is_false(t.needsOutput)
    assert.are.equal('nn.Dropout(0.500000)', tostring(nn.Dropout()))
    local ok, err = pcall(nn.Dropout, 1)
    assert.is_false(ok)
    assert.truthy(err:find('nn.Dropout: illegal percentage, must be 0 <= p < 1, got 1', 1, true))
    ok, err = pcall(nn.Dropout, -0.1)
    assert.truthy(err:find('must be 0 <= p < 1, got -0.1', 1, true))
    local m = nn.Dropout()
    ok, err = pcall(m.forward, m, 3)
    assert.truthy(err:find('nn.Dropout:updateOutput: input must be a tensor, got number', 1, true))
    m:forward(torch.randn(4))
    m:clearState()
    assert.are.equal(0, m.noise:nElement())
  end)
end)

describe('nn.MulConstant and nn.AddConstant', function()
  before_each(function() torch.manualSeed(19) end)

  it('MulConstant scales a view in one pass as copy then mul did (NaN * 0 stays NaN)', function()
    for _, T in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
      local x = torch.randn(4, 3):type(T):t()
      x[1][2] = 0 / 0
      local y = nn.MulConstant(0):type(T):forward(x)
      assert.are.same({3, 4}, y:size():totable())
      assert.is_true(y[1][2] ~= y[1][2])
      y[1][2] = 0
      assert.are.equal(0, y:abs():max())
      local z = nn.MulConstant(-1.7):type(T):forward(x)
      assert.is_true(z:eq(x:clone():mul(-1.7)):sum() == 11, T)
    end
  end)

  it('MulConstant scales, passes the Jacobian check and restores the input in place', function()
    local x = torch.randn(3, 4)
    local m = nn.MulConstant(-2.5)
    assert.is_true(maxdiff(m:forward(x), map(x, function(v) return -2.5 * v end)) < 1e-12)
    assert.is_true(nn.Jacobian.testJacobian(m, torch.DoubleTensor(5)) < precision)
    assert.is_true(nn.Jacobian.testJacobian(m, torch.DoubleTensor(2, 5)) < precision)
    local go = torch.randn(3, 4)
    local y = m:forward(x):clone()
    local gi = m:backward(x, go):clone()
    local mi = nn.MulConstant(-2.5, true)
    local xi, goi = x:clone(), go:clone()
    local yi = mi:forward(xi)
    assert.is_true(yi:isSetTo(xi))
    assert.is_true(maxdiff(yi, y) == 0)
    local gii = mi:backward(xi, goi)
    assert.is_true(maxdiff(gii, gi) == 0)
    assert.is_true(maxdiff(xi, x) < 1e-15)  -- input restored
    assert.is_true(mi:memoryTraits().needsInput)
    assert.is_false(m:memoryTraits().needsInput)
    local ok, err = pcall(nn.MulConstant, 'a')
    assert.truthy(err:find('nn.MulConstant: constant must be a number, got string', 1, true))
    ok, err = pcall(nn.MulConstant, 0, true)
    assert.truthy(err:find('nn.MulConstant: in-place processing needs a non-zero constant', 1, true))
  end)

  it('AddConstant adds a number or a per-column tensor, in place too', function()
    local x = torch.randn(3, 4)
    local m = nn.AddConstant(1.5)
    assert.is_true(maxdiff(m:forward(x), map(x, function(v) return v + 1.5 end)) < 1e-12)
    assert.is_true(nn.Jacobian.testJacobian(m, torch.DoubleTensor(2, 5)) < precision)
    local c = torch.DoubleTensor{1, 2, 3, 4}
    local mt = nn.AddConstant(c)
    local y = mt:forward(x)
    for i = 1, 3 do for j = 1, 4 do assert.is_true(math.abs(y[i][j] - x[i][j] - c[j]) < 1e-12) end end
    local y1 = mt:forward(x[2])
    for j = 1, 4 do assert.is_true(math.abs(y1[j] - x[2][j] - c[j]) < 1e-12) end
    for _, k in ipairs{1.5, c} do
      local go = torch.randn(3, 4)
      local mo, mi = nn.AddConstant(k), nn.AddConstant(k, true)
      local yo = mo:forward(x):clone()
      local gio = mo:backward(x, go):clone()
      local xi, goi = x:clone(), go:clone()
      assert.is_true(maxdiff(mi:forward(xi), yo) == 0)
      assert.is_true(maxdiff(mi:backward(xi, goi), gio) == 0)
      assert.is_true(maxdiff(xi, x) < 1e-15)  -- input restored
    end
    local ok, err = pcall(mt.forward, mt, torch.randn(3, 5))
    assert.is_false(ok)
    assert.truthy(err:find("nn.AddConstant:updateOutput: input must be 1D or 2D with 4 elements in its last dimension (the constant's size), got 2D 3x5", 1, true))
    ok, err = pcall(nn.AddConstant, {})
    assert.truthy(err:find('nn.AddConstant: constant must be a number or a tensor, got table', 1, true))
  end)
end)
