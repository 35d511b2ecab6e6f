-- nn's structural modules (Torch7's wider module set, structural family):
-- Contiguous, Unsqueeze, Collapse, Padding, Constant. Each passes the
-- module checks of spec/support/modcheck.lua (finite differences,
-- float/double, clone, save/load, traits, optnet) per code path, plus
-- values computed by hand and the error messages of bad input.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

-- the error message f raises (it must raise)
local function errorOf(f)
  local ok, err = pcall(f)
  assert(not ok, 'expected an error')
  return tostring(err)
end

local function near(a, b, tol)
  assert.are.same(a:size():totable(), b:size():totable())
  assert((a:double() - b:double()):abs():max() <= (tol or 1e-12), tostring(a) .. ' vs ' .. tostring(b))
end

describe('nn.Contiguous', function()
  mc.module(it, {make = function() return nn.Contiguous() end,
                 input = function() return torch.randn(3, 4) end,
                 input2 = function() return torch.randn(5, 4) end, tostring = 'nn.Contiguous'})
  -- a non-contiguous input from a Transpose in front (the harness makes its own inputs contiguous)
  mc.module(it, {name = 'nn.Contiguous (non-contiguous input)',
                 make = function() return nn.Sequential():add(nn.Transpose({1, 2})):add(nn.Contiguous()) end,
                 input = function() return torch.randn(3, 4) end,
                 input2 = function() return torch.randn(5, 4) end})

  it('views a contiguous input and copies a non-contiguous one', function()
    local m = nn.Contiguous()
    local x = torch.randn(3, 4)
    assert.is_true(m:forward(x):isSetTo(x))
    local t = x:t()
    local y = m:forward(t)
    assert.is_true(y:isContiguous())
    near(y, t)
    -- the earlier input is not overwritten by the copy
    near(x, t:t())
    local g = m:backward(t, torch.ones(4, 3):t())
    assert.is_true(g:isContiguous())
    near(g, torch.ones(3, 4))
  end)

  it('says what is wrong', function()
    assert.truthy(errorOf(function() nn.Contiguous():forward({}) end)
      :find('nn.Contiguous:updateOutput: input must be a tensor, got table', 1, true))
    local m = nn.Contiguous()
    m:forward(torch.randn(2, 3))
    assert.truthy(errorOf(function() m:backward(torch.randn(2, 3), torch.randn(4)) end)
      :find('nn.Contiguous:updateGradInput: gradOutput must have 6 elements like the input, got 1D 4', 1, true))
  end)
end)

describe('nn.Unsqueeze', function()
  mc.module(it, {make = function() return nn.Unsqueeze(2) end,
                 input = function() return torch.randn(3, 4) end, tostring = 'nn.Unsqueeze(dim 2)'})
  mc.module(it, {name = 'nn.Unsqueeze (batch, numInputDims)', make = function() return nn.Unsqueeze(3, 2) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 input2 = function() return torch.randn(5, 3, 4) end})

  it('inserts the dimension after the batch dimensions', function()
    local x = torch.randn(5, 2, 3)
    assert.are.same({5, 2, 1, 3}, nn.Unsqueeze(2, 2):forward(x):size():totable())
    assert.are.same({2, 3, 1}, nn.Unsqueeze(3):forward(torch.randn(2, 3)):size():totable())
    -- a non-contiguous input and gradOutput stay views
    local t = torch.randn(3, 4):t()
    local m = nn.Unsqueeze(1)
    local y = m:forward(t)
    assert.are.same({1, 4, 3}, y:size():totable())
    assert.are.equal(t:storage(), y:storage())
    local go = torch.randn(3, 4, 1):transpose(1, 3)
    local g = m:backward(t, go)
    near(g, go:select(1, 1))
    -- the batch size may change between calls
    local b = nn.Unsqueeze(1, 1)
    assert.are.same({2, 1, 3}, b:forward(torch.randn(2, 3)):size():totable())
    assert.are.same({1, 3}, b:forward(torch.randn(3)):size():totable())
  end)

  it('says what is wrong', function()
    assert.truthy(errorOf(function() nn.Unsqueeze() end):find('position to insert', 1, true))
    assert.truthy(errorOf(function() nn.Unsqueeze(4):forward(torch.randn(2, 3)) end)
      :find('nn.Unsqueeze:updateOutput: invalid position 4 for an input of 2 dimensions', 1, true))
    assert.truthy(errorOf(function() nn.Unsqueeze(1, 3):forward(torch.randn(2, 3)) end)
      :find('input must have at least numInputDims = 3 dimensions, got 2D 2x3', 1, true))
  end)
end)

describe('nn.Collapse', function()
  mc.module(it, {make = function() return nn.Collapse(2) end,
                 input = function() return torch.randn(3, 4) end, tostring = 'nn.Collapse'})
  mc.module(it, {name = 'nn.Collapse (batch)', make = function() return nn.Collapse(2) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 input2 = function() return torch.randn(4, 3, 4) end})

  it('collapses the non-batch dimensions', function()
    local x = torch.randn(8, 3, 4, 5)
    local m = nn.Collapse(3)
    near(m:forward(x), x:view(8, 60))
    local t = x:transpose(1, 4)
    near(m:forward(t), t:contiguous():view(5, -1))
    local g = m:backward(t, torch.ones(5, 96):t():t())
    assert.are.same(t:size():totable(), g:size():totable())
    assert.are.same({12}, nn.Collapse(2):forward(torch.randn(3, 4)):size():totable())
  end)

  it('says what is wrong', function()
    assert.truthy(errorOf(function() nn.Collapse() end):find('nInputDim must be a positive integer', 1, true))
    assert.truthy(errorOf(function() nn.Collapse(3):forward(torch.randn(2, 3)) end)
      :find('nn.Collapse:updateOutput: input must have at least 3 dimensions, got 2D 2x3', 1, true))
  end)
end)

describe('nn.Padding', function()
  mc.module(it, {make = function() return nn.Padding(1, -2, 2, 0.5, 2) end,
                 input = function() return torch.randn(3, 4) end, tostring = 'nn.Padding'})
  mc.module(it, {name = 'nn.Padding (batch, pad at the end)', make = function() return nn.Padding(2, 3, 2) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 input2 = function() return torch.randn(5, 3, 4) end})

  it('puts the value where Torch7 does', function()
    local x = torch.Tensor{1, 2, 3}
    near(nn.Padding(1, -2):forward(x), torch.Tensor{0, 0, 1, 2, 3})
    near(nn.Padding(1, 2):forward(x), torch.Tensor{1, 2, 3, 0, 0})
    near(nn.Padding(1, -1, nil, 9, 2):forward(x), torch.Tensor{1, 9, 2, 3})
    near(nn.Padding(1, 1, nil, 9, 2):forward(x), torch.Tensor{1, 2, 9, 3})
    near(nn.Padding(1, -1, nil, 9, 4):forward(x), torch.Tensor{1, 2, 3, 9})
    -- nInputDim: a 2D input to a module for 1D inputs pads dimension 2
    local b = nn.Padding(1, 1, 1, 7)
    near(b:forward(torch.Tensor{{1, 2}, {3, 4}}), torch.Tensor{{1, 2, 7}, {3, 4, 7}})
    near(b:backward(torch.Tensor{{1, 2}, {3, 4}}, torch.Tensor{{1, 2, 3}, {4, 5, 6}}), torch.Tensor{{1, 2}, {4, 5}})
    local m = nn.Padding(1, -1, nil, 9, 2)
    m:forward(x)
    near(m:backward(x, torch.Tensor{10, 20, 30, 40}), torch.Tensor{10, 30, 40})
  end)

  it('says what is wrong', function()
    assert.truthy(errorOf(function() nn.Padding(1) end):find('nn.Padding: pad must be an integer, got nil', 1, true))
    assert.truthy(errorOf(function() nn.Padding(3, 1):forward(torch.randn(2, 3)) end)
      :find('nn.Padding:updateOutput: dim 3 is out of range for input 2D 2x3', 1, true))
    assert.truthy(errorOf(function() nn.Padding(1, -1, nil, 0, 5):forward(torch.randn(3)) end)
      :find('index 5 is out of range for size 3 along dimension 1 (1 to 4)', 1, true))
    local m = nn.Padding(1, 2)
    m:forward(torch.randn(3))
    assert.truthy(errorOf(function() m:backward(torch.randn(3), torch.randn(4)) end)
      :find('nn.Padding:updateGradInput: gradOutput must be 5, got 1D 4', 1, true))
  end)
end)

describe('nn.Constant', function()
  mc.module(it, {make = function() return nn.Constant(torch.Tensor{{1, 2}, {3, 4}}) end,
                 input = function() return torch.randn(3, 4) end, tostring = 'nn.Constant'})
  mc.module(it, {name = 'nn.Constant (batch)', make = function() return nn.Constant(torch.Tensor{5, 6, 7}, 1) end,
                 input = function() return torch.randn(2, 4) end,
                 input2 = function() return torch.randn(6, 4) end})

  it('gives the value, repeated over a batch, and a zero gradient', function()
    near(nn.Constant(3):forward(torch.randn(4)), torch.Tensor{3})
    local m = nn.Constant(torch.Tensor{1, 2}, 1)
    near(m:forward(torch.randn(3, 5)), torch.Tensor{{1, 2}, {1, 2}, {1, 2}})
    near(m:forward(torch.randn(5)), torch.Tensor{1, 2})
    near(m:backward(torch.randn(5), torch.randn(2)), torch.zeros(5))
    local g = nn.Constant(1):backward({torch.randn(2), torch.randn(3)}, torch.randn(1))
    near(g[2], torch.zeros(3))
  end)

  it('says what is wrong', function()
    assert.truthy(errorOf(function() nn.Constant('a') end)
      :find('nn.Constant: value must be a number or a tensor, got string', 1, true))
  end)
end)

describe('the view modules under optnet with in-place neighbours', function()
  local optnet = require 'optnet'
  local function build()
    return nn.Sequential():add(nn.Linear(4, 6)):add(nn.Unsqueeze(2, 1)):add(nn.ReLU()):add(nn.Collapse(2))
      :add(nn.Contiguous()):add(nn.ReLU()):add(nn.Padding(1, -1, 1)):add(nn.ELU())
      :add(nn.ConcatTable():add(nn.Identity()):add(nn.Constant(torch.ones(7), 1))):add(nn.CAddTable())
      :add(nn.ReLU()):add(nn.Linear(7, 2))
  end
  for _, mode in ipairs{'training', 'inference'} do
    it('gives the unoptimized numbers (' .. mode .. '), ReLUs switched in place', function()
      torch.manualSeed(5)
      local net = build()
      local ref = net:clone()
      if mode == 'inference' then net:evaluate(); ref:evaluate() end
      local x = torch.randn(3, 4)
      optnet.optimizeMemory(net, x, {mode = mode, verify = true})
      local switched = 0
      net:apply(function(m) if m.inplace then switched = switched + 1 end end)
      assert(switched >= 2, 'modules switched in place: ' .. switched)
      for _, xx in ipairs{x, torch.randn(5, 4), x} do
        near(net:forward(xx), ref:forward(xx), 0)
        if mode == 'training' then
          local go = torch.randn(xx:size(1), 2)
          near(net:backward(xx, go), ref:backward(xx, go), 0)
        end
      end
    end)
  end
end)
