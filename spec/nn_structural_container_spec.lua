-- nn's structural modules that hold other modules: Decorator, Bottle,
-- DontCast, Profile, MapTable, Convert, and PrintSize: the module checks of
-- spec/support/modcheck.lua per code path (parameters, type, clone,
-- save/load and optnet go through to the held module), values against
-- the compositions Torch7's tests use, and error messages.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

local function errorOf(f)
  local ok, err = pcall(f)
  assert(not ok, 'expected an error')
  return tostring(err)
end

local function has(msg, text)
  assert(msg:find(text, 1, true), 'message "' .. msg .. '" lacks "' .. text .. '"')
end

local function near(a, b, tol)
  assert.are.same(a:size():totable(), b:size():totable())
  assert((a:double() - b:double()):abs():max() <= (tol or 1e-12), tostring(a) .. ' vs ' .. tostring(b))
end

-- what f prints (print replaced while it runs)
local function printed(f)
  local lines, saved = {}, _G.print
  _G.print = function(...)
    local parts = {}
    for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, '\t')
  end
  local ok, err = pcall(f)
  _G.print = saved
  assert(ok, err)
  return table.concat(lines, '\n')
end

describe('nn.Decorator', function()
  mc.module(it, {make = function() return nn.Decorator(nn.Linear(4, 3)) end,
                 input = function() return torch.randn(5, 4) end,
                 input2 = function() return torch.randn(7, 4) end, tostring = 'nn.Decorator @ nn.Linear(4 -> 3)'})

  it('runs its module unchanged and is a container for it', function()
    local lin = nn.Linear(3, 2)
    local d = nn.Decorator(lin)
    local x = torch.randn(4, 3)
    assert.are.equal(lin.output, d:forward(x))
    assert.are.equal(lin.gradInput, d:backward(x, torch.randn(4, 2)))
    assert.are.equal(2, #d:parameters())
    d:evaluate()
    assert.is_false(lin.train)
    d:float()
    assert.are.equal('torch.FloatTensor', torch.type(lin.weight))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.Decorator(3) end), 'nn.Decorator: nn.Module expected, got number')
    local msg = errorOf(function() nn.Decorator(nn.Linear(3, 2)):forward(torch.randn(4)) end)
    has(msg, 'In 1 module of nn.Decorator:\n')
    has(msg, 'nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 3 columns, got 1D 4')
  end)
end)

describe('nn.Bottle', function()
  mc.module(it, {make = function() return nn.Bottle(nn.Linear(4, 3)) end,
                 input = function() return torch.randn(2, 3, 4) end,
                 input2 = function() return torch.randn(5, 3, 4) end, tostring = 'nn.Bottle @ nn.Linear(4 -> 3)'})
  mc.module(it, {name = 'nn.Bottle (input the module takes as it is)', make = function() return nn.Bottle(nn.Linear(4, 3)) end,
                 input = function() return torch.randn(5, 4) end})
  mc.module(it, {name = 'nn.Bottle (nInputDim 3, nOutputDim 2)',
                 make = function() return nn.Bottle(nn.Sequential():add(nn.Squeeze(2)):add(nn.Linear(3, 2)), 3, 2) end,
                 input = function() return torch.randn(2, 3, 1, 3) end,
                 input2 = function() return torch.randn(4, 3, 1, 3) end})
  -- a non-contiguous input and gradOutput, from a Transpose around it
  mc.module(it, {name = 'nn.Bottle (non-contiguous input)',
                 make = function()
                   return nn.Sequential():add(nn.Transpose({1, 2})):add(nn.Bottle(nn.Linear(4, 3)))
                 end,
                 input = function() return torch.randn(3, 2, 4) end})

  it('gives what View, the module and View give', function()
    local lin = nn.Linear(4, 5)
    local x = torch.randn(2, 3, 4)
    local b = nn.Bottle(lin)
    local ref = nn.Sequential():add(nn.View(6, 4)):add(lin:clone()):add(nn.View(2, 3, 5))
    near(b:forward(x), ref:forward(x), 1e-14)
    local go = torch.randn(2, 3, 5)
    near(b:backward(x, go), ref:backward(x, go), 1e-14)
    near(lin.gradWeight, ref:get(2).gradWeight, 1e-14)
    local shape = {4, 5, 6, 1, 3}
    local input = torch.randn(table.unpack(shape))
    local m = nn.Sequential():add(nn.Squeeze(2)):add(nn.Linear(3, 3))
    local b2 = nn.Bottle(m, 3, 2)
    local ref2 = nn.Sequential():add(nn.View(4 * 5 * 6, 1, 3)):add(m:clone()):add(nn.View(4, 5, 6, 3))
    near(b2:forward(input), ref2:forward(input), 1e-14)
    assert.are.same({120, 1, 3}, b2.inShape:totable())
    assert.are.same({120, 3}, b2.outShape:totable())
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.Bottle(nn.Linear(3, 3), 0) end), 'nn.Bottle: nInputDim must be a positive integer, got 0')
    has(errorOf(function() nn.Bottle(nn.Linear(3, 3), 2, 3):forward(torch.randn(2, 2, 3)) end),
        "nn.Bottle:updateOutput: the module's output must have nOutputDim = 3 dimensions, got 2D 4x3")
    local msg = errorOf(function() nn.Bottle(nn.Linear(3, 3)):forward(torch.randn(2, 2, 4)) end)
    has(msg, 'In 1 module of nn.Bottle:\n')
    has(msg, 'nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 3 columns, got 2D 4x4')
  end)
end)

describe('nn.DontCast', function()
  mc.module(it, {make = function() return nn.DontCast(nn.Linear(4, 3), true) end,
                 input = function() return torch.randn(5, 4) end,
                 input2 = function() return torch.randn(2, 4) end, tostring = 'nn.DontCast @ nn.Linear(4 -> 3)'})
  mc.module(it, {name = 'nn.DontCast (no casts)', make = function() return nn.DontCast(nn.Linear(4, 3)) end,
                 float = false, why = 'without castin the double module gets the float input: it must refuse it',
                 input = function() return torch.randn(5, 4) end})
  mc.module(it, {name = 'nn.DontCast (tables)',
                 make = function()
                   return nn.DontCast(nn.ParallelTable():add(nn.Linear(4, 2)):add(nn.Linear(4, 2)), true, true,
                                      'torch.DoubleTensor')
                 end,
                 input = function() return {torch.randn(3, 4), torch.randn(3, 4)} end})

  it('keeps its module in its type and converts at the borders', function()
    local lin = nn.Linear(4, 2):float()
    local ref = lin:clone()
    local m = nn.DontCast(lin, true)
    assert.are.equal('torch.FloatTensor', m.moduleType)
    local x, go = torch.randn(3, 4), torch.randn(3, 2)
    local y = m:forward(x)
    assert.are.equal('torch.DoubleTensor', torch.type(y))
    near(y, ref:forward(x:float()), 1e-6)
    local g = m:backward(x, go)
    assert.are.equal('torch.DoubleTensor', torch.type(g))
    near(g, ref:backward(x:float(), go:float()), 1e-6)
    m:double()
    assert.are.equal('torch.FloatTensor', torch.type(lin.weight))
    m:float()
    assert.are.equal('torch.FloatTensor', torch.type(m:forward(x:float())))
    assert.are.equal('torch.FloatTensor', m:type())
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.DontCast(nn.ZipTable(), true) end),
        "nn.DontCast: cannot tell the module's type from its output or parameters")
    has(errorOf(function() nn.DontCast(nn.Linear(2, 2), true, true, 'float') end),
        'nn.DontCast: moduleType must be a tensor type name, got float')
  end)
end)

describe('nn.Profile', function()
  mc.module(it, {make = function() return nn.Profile(nn.Linear(3, 4), 1000000) end,
                 input = function() return torch.randn(2, 3) end,
                 input2 = function() return torch.randn(5, 3) end, tostring = 'nn.Profile @ nn.Linear(3 -> 4)'})

  it('prints the time of every print_interval passes', function()
    local m = nn.Profile(nn.Linear(3, 4), 2, 'fc')
    local x, go = torch.randn(1, 3), torch.randn(1, 4)
    local text = printed(function()
      for _ = 1, 4 do m:forward(x) end
      m:backward(x, go)
      m:backward(x, go)
    end)
    local n = 0
    for _ in text:gmatch('fc took %d+%.%d%d%d seconds for 2 forward passes') do n = n + 1 end
    assert.are.equal(2, n, text)
    assert.truthy(text:find('fc took %d+%.%d%d%d seconds for 2 backward passes'), text)
    near(m.output, m.modules[1].output)
    assert.are.equal(0, m.numFwds)
  end)
end)

describe('nn.MapTable', function()
  mc.module(it, {make = function() return nn.MapTable(nn.Linear(4, 3)) end,
                 input = function() return {torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4)} end,
                 input2 = function() return {torch.randn(5, 4), torch.randn(5, 4), torch.randn(5, 4)} end,
                 tostring = 'nn.MapTable {\n  nn.Linear(4 -> 3)\n}'})
  mc.module(it, {name = 'nn.MapTable (not shared)', make = function() return nn.MapTable(nn.Linear(4, 3), false) end,
                 input = function() return {torch.randn(2, 4), torch.randn(2, 4)} end,
                 input2 = function() return {torch.randn(3, 4), torch.randn(3, 4)} end})

  it('is a ParallelTable of clones sharing the parameters', function()
    local map = nn.MapTable(nn.Linear(10, 5))
    local lin = map:get(1):clone()
    local par = nn.ParallelTable():add(lin):add(lin:clone('weight', 'bias')):add(lin:clone('weight', 'bias'))
    local input = {torch.rand(10), torch.rand(10), torch.rand(10)}
    local go = {torch.ones(5), torch.ones(5), torch.ones(5)}
    local om, op = map:forward(input), par:forward(input)
    for i = 1, 3 do near(om[i], op[i], 1e-14) end
    map:zeroGradParameters()
    par:zeroGradParameters()
    local gm, gp = map:backward(input, go), par:backward(input, go)
    for i = 1, 3 do near(gm[i], gp[i], 1e-14) end
    map:updateParameters(1)
    par:updateParameters(1)
    near(map:get(1).weight, par:get(1).weight, 1e-12)
    assert.are.equal(4, #map:forward({input[1], input[2], input[3], input[3]}))
    assert.are.equal(2, #map:forward({input[1], input[2]}))
    map:resize(4)
    assert.are.equal(4, map:size())
    assert.are.equal(map:get(1).weight:storage(), map:get(4).weight:storage())
    map:clearState()
    assert.are.equal(1, map:size())
    assert.are.equal('nn.MapTable { }', tostring(nn.MapTable()))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.MapTable():forward({torch.randn(2)}) end),
        'nn.MapTable:updateOutput: no module to apply')
    has(errorOf(function() nn.MapTable(nn.Linear(2, 2)):add(nn.Linear(2, 2)) end),
        'nn.MapTable:add: a MapTable holds a single module, it has one already')
    has(errorOf(function() nn.MapTable(nn.Linear(2, 2)):forward(torch.randn(2)) end),
        'nn.MapTable:updateOutput: input must be a table, got torch.DoubleTensor')
    local msg = errorOf(function() nn.MapTable(nn.Linear(2, 2)):forward({torch.randn(2), torch.randn(3)}) end)
    has(msg, 'In 2 module of nn.MapTable:\n')
    has(msg, 'nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 2 columns, got 1D 3')
  end)
end)

describe('nn.Convert', function()
  mc.module(it, {make = function() return nn.Convert('bchw', 'bf') end,
                 input = function() return torch.randn(2, 3, 2, 2) end,
                 input2 = function() return torch.randn(3, 3, 2, 2) end, tostring = 'nn.Convert'})
  mc.module(it, {name = 'nn.Convert (permutation)', make = function() return nn.Convert('bchw', 'chwb') end,
                 input = function() return torch.randn(2, 3, 2, 4) end,
                 input2 = function() return torch.randn(3, 3, 2, 4) end})
  mc.module(it, {name = 'nn.Convert (one sample)', make = function() return nn.Convert('chw', 'hwc') end,
                 input = function() return torch.randn(3, 2, 4) end})
  mc.module(it, {name = 'nn.Convert (one sample to features)', make = function() return nn.Convert('chw', 'f') end,
                 input = function() return torch.randn(3, 2, 4) end})
  mc.module(it, {name = 'nn.Convert (types only)', make = function() return nn.Convert() end,
                 input = function() return torch.randn(3, 2) end})

  it('converts layouts and types as Torch7', function()
    local x = torch.randn(8, 3, 5, 5)
    local c = nn.Convert('bchw', 'chwb')
    near(c:forward(x), x:transpose(1, 4):transpose(1, 3):transpose(1, 2))
    near(c:backward(x, c.output), x)
    c = nn.Convert('bchw', 'bf')
    near(c:forward(x), x:view(8, -1))
    c:float()
    near(c:forward(x:float()), x:view(8, -1):float())
    local y = c:forward(x)
    assert.are.equal('torch.FloatTensor', torch.type(y))
    assert.are.equal('torch.DoubleTensor', torch.type(c:backward(x, y)))
    local s = torch.randn(3, 5, 5)
    c = nn.Convert('chw', 'hwc')
    near(c:forward(s), s:transpose(1, 3):transpose(1, 2))
    near(c:backward(s, c.output), s)
    c = nn.Convert('chw', 'f')
    near(c:forward(s), s:view(-1))
    near(nn.Convert('bf', 'b'):forward(torch.Tensor{{1}, {2}}), torch.Tensor{1, 2})
    near(nn.Convert('b', 'bt'):forward(torch.Tensor{1, 2}), torch.Tensor{{1}, {2}})
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.Convert(nil, 'bf') end), 'nn.Convert: inputShape (argument 1) expected')
    has(errorOf(function() nn.Convert('b*', 'bf') end), 'nn.Convert: both or neither shapes must be b*')
    has(errorOf(function() nn.Convert('bchw', 'bhw'):forward(torch.randn(2, 3, 4, 4)) end),
        'nn.Convert: cannot convert shape bchw to bhw')
    has(errorOf(function() nn.Convert('bf', 'b'):forward(torch.randn(2, 3)) end),
        'nn.Convert: cannot convert shape bf to b when there is more than one feature (3)')
    has(errorOf(function() nn.Convert(3) end), 'nn.Convert: inputShape must be a string of axis letters')
  end)
end)

describe('nn.PrintSize', function()
  local saved
  before_each(function() saved = _G.print; _G.print = function() end end)
  after_each(function() _G.print = saved end)
  mc.module(it, {make = function() return nn.PrintSize('x') end,
                 input = function() return torch.randn(3, 4) end,
                 input2 = function() return torch.randn(5, 4) end, tostring = 'nn.PrintSize'})

  it('prints the sizes and passes the data on', function()
    _G.print = saved
    local m = nn.PrintSize('here')
    local x = torch.randn(2, 3)
    local text = printed(function()
      assert.is_true(m:forward(x):isSetTo(x))
      m:backward(x, x)
    end)
    assert.truthy(text:find('here:input\n', 1, true), text)
    assert.truthy(text:find('here:gradOutput\n', 1, true), text)
    assert.truthy(text:find('2\n 3', 1, true), text)
  end)
end)
