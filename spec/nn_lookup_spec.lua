-- nn.LookupTable: row gathering for 1D and 2D index inputs of several
-- types, gradient scatter-add (repeats, padding, scale), max-norm
-- renormalisation, float/double agreement and error messages.
require 'torch'
require 'nn'

local maxdiff = require('spec.support.helpers').maxAbsDiff

describe('nn.LookupTable', function()
  before_each(function() torch.manualSeed(21) end)

  it('has Torch7 fields and sizes', function()
    local m = nn.LookupTable(10, 4)
    assert.are.same({10, 4}, m.weight:size():totable())
    assert.are.same({10, 4}, m.gradWeight:size():totable())
    assert.are.equal(0, m.paddingValue)
    assert.is_nil(m.maxNorm)
    assert.are.equal('nn.LookupTable', tostring(m))   -- Torch7 prints the class only
    for i = 1, 10 do for j = 1, 4 do assert.are.equal(0, m.gradWeight[i][j]) end end
    local ok, err = pcall(nn.LookupTable, 0, 3)
    assert.truthy(err:find('nn.LookupTable: nIndex must be a positive integer, got 0', 1, true))
  end)

  it('gathers rows for 1D and 2D indices of any integer-valued type', function()
    local m = nn.LookupTable(6, 3)
    for _, idx in ipairs{torch.LongTensor{2, 6, 2}, torch.DoubleTensor{2, 6, 2}, torch.FloatTensor{2, 6, 2}} do
      local y = m:forward(idx)
      assert.are.same({3, 3}, y:size():totable())
      for i = 1, 3 do assert.are.same(m.weight[idx[i]]:totable(), y[i]:totable()) end
    end
    local idx2 = torch.LongTensor{{1, 2, 3}, {6, 5, 4}}
    local y2 = m:forward(idx2)
    assert.are.same({2, 3, 3}, y2:size():totable())
    for b = 1, 2 do for i = 1, 3 do
      assert.are.same(m.weight[idx2[b][i]]:totable(), y2[b][i]:totable())
    end end
    -- non-contiguous indices
    local idxt = torch.LongTensor{{1, 2}, {3, 4}}:t()
    local yt = m:forward(idxt)
    assert.are.same(m.weight[3]:totable(), yt[1][2]:totable())
  end)

  it('keeps its output object and returns a zero gradInput shaped like the input', function()
    local m = nn.LookupTable(5, 2)
    local out, gin = m.output, m.gradInput
    local idx = torch.LongTensor{{1, 2}, {3, 3}}
    m:forward(idx)
    local gi = m:backward(idx, torch.randn(2, 2, 2))
    assert.are.equal(out, m.output)
    assert.are.equal(gin, gi)
    assert.are.same({{0, 0}, {0, 0}}, gi:totable())
  end)

  it('accumulates gradients per index, skipping the padding index', function()
    local m = nn.LookupTable(4, 3)
    local idx = torch.LongTensor{2, 4, 2, 1}
    local go = torch.randn(4, 3)
    m:zeroGradParameters()
    m:forward(idx)
    m:backward(idx, go, 0.5)
    local expect = torch.DoubleTensor(4, 3):zero()
    for i = 1, 4 do
      for j = 1, 3 do expect[idx[i]][j] = expect[idx[i]][j] + 0.5 * go[i][j] end
    end
    assert.is_true(maxdiff(m.gradWeight, expect) < 1e-12)
    -- the derivative of <r, output> with respect to the weight, by differences
    local r = torch.randn(4, 3)
    m:zeroGradParameters()
    m:backward(idx, r)
    local eps = 1e-6
    for row = 1, 4 do for col = 1, 3 do
      local v = m.weight[row][col]
      local function f()
        local y, s = m:forward(idx), 0
        for i = 1, 4 do for j = 1, 3 do s = s + y[i][j] * r[i][j] end end
        return s
      end
      m.weight[row][col] = v + eps
      local fp = f()
      m.weight[row][col] = v - eps
      local fm = f()
      m.weight[row][col] = v
      assert.is_true(math.abs((fp - fm) / (2 * eps) - m.gradWeight[row][col]) < 1e-6)
    end end
    local mp = nn.LookupTable(4, 3, 2)
    mp.gradWeight:zero()
    mp:forward(idx)
    mp:backward(idx, go)
    assert.are.same({0, 0, 0}, mp.gradWeight[2]:totable())
    assert.is_true(maxdiff(mp.gradWeight[4], go[2]) == 0)
    assert.are.equal(mp, mp:setPadding(3))
  end)

  it('renormalises looked-up rows to maxNorm', function()
    local m = nn.LookupTable(5, 4, 0, 1.0)
    m.weight:uniform(1, 2)  -- every row norm >= 2
    local before5 = m.weight[5]:clone()
    local idx = torch.LongTensor{1, 3, 3}
    m:forward(idx)
    for _, r in ipairs{1, 3} do
      local s = 0
      for j = 1, 4 do s = s + m.weight[r][j] ^ 2 end
      assert.is_true(math.abs(math.sqrt(s) - 1) < 1e-6)
    end
    assert.are.same(before5:totable(), m.weight[5]:totable())  -- untouched row
    assert.are.same(m.weight[3]:totable(), m.output[2]:totable())
  end)

  it('agrees in float and double', function()
    local m = nn.LookupTable(7, 3)
    local idx = torch.LongTensor{{1, 7}, {3, 3}}
    local go = torch.randn(2, 2, 3)
    local yd = m:forward(idx):clone()
    m:zeroGradParameters()
    m:backward(idx, go)
    local gd = m.gradWeight:clone()
    local mf = m:clone():float()
    mf:zeroGradParameters()
    assert.is_true(maxdiff(mf:forward(idx):double(), yd) < 1e-6)
    mf:backward(idx, go:float())
    assert.is_true(maxdiff(mf.gradWeight:double(), gd) < 1e-6)
  end)

  it('reports bad indices', function()
    local m = nn.LookupTable(5, 2)
    local ok, err = pcall(m.forward, m, torch.LongTensor{1, 6})
    assert.is_false(ok)
    assert.truthy(err:find('nn.LookupTable:updateOutput: index 6 at position 2 out of range (expected 1..5)', 1, true))
    ok, err = pcall(m.forward, m, torch.LongTensor{0})
    assert.truthy(err:find('nn.LookupTable:updateOutput: index 0 out of range (expected 1..5)', 1, true))
    ok, err = pcall(m.forward, m, torch.DoubleTensor{1.5})
    assert.truthy(err:find('nn.LookupTable:updateOutput: index 1.5 at position 1 is not an integer', 1, true))
    ok, err = pcall(m.forward, m, torch.LongTensor(2, 2, 2):fill(1))
    assert.truthy(err:find('nn.LookupTable:updateOutput: input must be a 1D or 2D tensor of indices, got 3D 2x2x2', 1, true))
    m:forward(torch.LongTensor{1, 2})
    ok, err = pcall(m.accGradParameters, m, torch.LongTensor{1, 2}, torch.randn(3, 2))
    assert.truthy(err:find('nn.LookupTable:accGradParameters: gradOutput must hold 2 rows of 2 (one per index of the 2 input), got 3x2', 1, true))
  end)
end)
