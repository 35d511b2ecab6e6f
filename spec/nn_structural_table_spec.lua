-- nn's table modules of the structural family: CMaxTable, CMinTable,
-- CDivTable, CAddTensorTable, ZipTable, ZipTableOneToMany, Index,
-- MaskedSelect, OneHot, MixtureTable: the module checks of
-- spec/support/modcheck.lua per code path, values by hand or from Torch7's
-- formulas, and the error messages of bad input.
require 'torch'
require 'nn'
local mc = require 'spec.support.modcheck'

local function errorOf(f)
  local ok, err = pcall(f)
  assert(not ok, 'expected an error')
  return tostring(err)
end

local function near(a, b, tol)
  assert.are.same(a:size():totable(), b:size():totable())
  assert((a:double() - b:double()):abs():max() <= (tol or 1e-12), tostring(a) .. ' vs ' .. tostring(b))
end

local function has(msg, text)
  assert(msg:find(text, 1, true), 'message "' .. msg .. '" lacks "' .. text .. '"')
end

-- finite differences in the tensor input[1] only (input[2] holds integers)
local function firstInputJacobianError(m, input)
  m:forward(input)
  m:backward(input, m.output:clone():zero())
  local jf = nn.Jacobian.forward(m, input, input[1])
  local jb = nn.Jacobian.backward(m, input, input[1], m.gradInput[1])
  return (jf - jb):abs():max()
end

describe('nn.CMaxTable and nn.CMinTable', function()
  for _, cls in ipairs{'CMaxTable', 'CMinTable'} do
    mc.module(it, {make = function() return nn[cls]() end,
                   input = function() return {torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4)} end,
                   input2 = function() return {torch.randn(5, 4), torch.randn(5, 4), torch.randn(5, 4)} end,
                   tostring = 'nn.' .. cls})
  end

  it('picks the extreme per element and routes the gradient there', function()
    local input = {torch.Tensor{{1, 3}, {2, 4}}, torch.Tensor{{4, 2}, {3, 1}}, torch.Tensor{{0, 5}, {3, 0}}}
    local go = torch.Tensor{{5, 6}, {7, 8}}
    local mx = nn.CMaxTable()
    near(mx:forward(input), torch.Tensor{{4, 5}, {3, 4}})
    local g = mx:backward(input, go)
    near(g[1], torch.Tensor{{0, 0}, {0, 8}})
    near(g[2], torch.Tensor{{5, 0}, {7, 0}})   -- a tie (3, 3) goes to the first
    near(g[3], torch.Tensor{{0, 6}, {0, 0}})
    local mn = nn.CMinTable()
    near(mn:forward(input), torch.Tensor{{0, 2}, {2, 0}})
    g = mn:backward(input, go)
    near(g[1], torch.Tensor{{0, 0}, {7, 0}})
    near(g[2], torch.Tensor{{0, 6}, {0, 0}})
    near(g[3], torch.Tensor{{5, 0}, {0, 8}})
    -- fewer inputs next time: the extra gradInput goes
    mx:forward({input[1], input[2]})
    assert.are.equal(2, #mx:backward({input[1], input[2]}, go))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.CMaxTable():forward(torch.randn(3)) end),
        'nn.CMaxTable:updateOutput: input must be a table of at least 1 tensors, got 1D 3')
    has(errorOf(function() nn.CMinTable():forward({torch.randn(3), torch.randn(4)}) end),
        'nn.CMinTable:updateOutput: input[2] (4) and input[1] (3) must have the same number of elements')
    local m = nn.CMaxTable()
    m:forward({torch.randn(3), torch.randn(3)})
    has(errorOf(function() m:backward({torch.randn(3), torch.randn(3)}, torch.randn(2)) end),
        'nn.CMaxTable:updateGradInput: gradOutput must have 3 elements like the output, got 1D 2')
  end)
end)

describe('nn.CDivTable', function()
  mc.module(it, {make = function() return nn.CDivTable() end, minval = 0.5, maxval = 2,
                 input = function() return {torch.rand(3, 4) + 0.5, torch.rand(3, 4) + 0.5} end,
                 input2 = function() return {torch.rand(5, 4) + 0.5, torch.rand(5, 4) + 0.5} end,
                 tostring = 'nn.CDivTable'})

  it('divides, with the gradients of x / y', function()
    local m = nn.CDivTable()
    local x, y = torch.Tensor{1, 6, -3}, torch.Tensor{2, 3, 4}
    near(m:forward({x, y}), torch.Tensor{0.5, 2, -0.75})
    local g = m:backward({x, y}, torch.Tensor{1, 2, 4})
    near(g[1], torch.Tensor{0.5, 2 / 3, 1}, 1e-15)
    near(g[2], torch.Tensor{-0.25, -12 / 9, 0.75}, 1e-15)
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.CDivTable():forward({torch.randn(3)}) end),
        'nn.CDivTable:updateOutput: input must be a table of at least 2 tensors, got table of 1 elements')
    has(errorOf(function() nn.CDivTable():forward({torch.randn(3), torch.randn(3), torch.randn(3)}) end),
        'nn.CDivTable:updateOutput: input must be a table of 2 tensors, got 3')
  end)
end)

describe('nn.CAddTensorTable', function()
  mc.module(it, {make = function() return nn.CAddTensorTable() end,
                 input = function() return {torch.randn(3, 4), {torch.randn(3, 4), torch.randn(3, 4)}} end,
                 input2 = function() return {torch.randn(5, 4), {torch.randn(5, 4), torch.randn(5, 4)}} end,
                 tostring = 'nn.CAddTensorTable'})

  it('adds the tensor to each entry; its gradient is the sum', function()
    local m = nn.CAddTensorTable()
    local v = torch.Tensor{1, 2}
    local out = m:forward({v, {torch.Tensor{10, 20}, torch.Tensor{30, 40}, torch.Tensor{0, 0}}})
    assert.are.equal(3, #out)
    near(out[1], torch.Tensor{11, 22})
    near(out[2], torch.Tensor{31, 42})
    near(out[3], torch.Tensor{1, 2})
    local first = out[1]
    local g = m:backward({v, {v, v, v}}, {torch.Tensor{1, 2}, torch.Tensor{3, 4}, torch.Tensor{5, 6}})
    near(g[1], torch.Tensor{9, 12})
    near(g[2][2], torch.Tensor{3, 4})
    -- the output tensors are kept from call to call, extra ones dropped
    out = m:forward({v, {v}})
    assert.are.equal(1, #out)
    assert.are.equal(first, out[1])
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.CAddTensorTable():forward({torch.randn(3), torch.randn(3)}) end),
        'nn.CAddTensorTable:updateOutput: input must be {tensor, {tensors}}, got table of 2 elements')
    has(errorOf(function() nn.CAddTensorTable():forward({torch.randn(3), {torch.randn(2)}}) end),
        'nn.CAddTensorTable:updateOutput: input[2][1] (2) must have the 3 elements of input[1] (3)')
  end)
end)

describe('nn.ZipTable and nn.ZipTableOneToMany', function()
  mc.module(it, {make = function() return nn.ZipTable() end,
                 input = function() return {{torch.randn(2, 3), torch.randn(2, 3)}, {torch.randn(2, 3), torch.randn(4)}} end,
                 input2 = function() return {{torch.randn(5, 3), torch.randn(5, 3)}, {torch.randn(5, 3), torch.randn(4)}} end,
                 tostring = 'nn.ZipTable'})
  mc.module(it, {make = function() return nn.ZipTableOneToMany() end,
                 input = function() return {torch.randn(2, 3), {torch.randn(4), torch.randn(2, 2), torch.randn(1)}} end,
                 input2 = function() return {torch.randn(5, 3), {torch.randn(4), torch.randn(2, 2), torch.randn(1)}} end,
                 tostring = 'nn.ZipTableOneToMany'})

  it('zips without copying', function()
    local a1, a2, b1, b2 = torch.randn(2), torch.randn(3), torch.randn(2), torch.randn(3)
    local z = nn.ZipTable()
    local out = z:forward({{a1, a2}, {b1, b2}})
    assert.are.equal(2, #out)
    assert.is_true(out[1][2]:isSetTo(b1))
    assert.is_true(out[2][1]:isSetTo(a2))
    local g = z:backward({{a1, a2}, {b1, b2}}, out)
    assert.is_true(g[2][2]:isSetTo(b2))
    local o = nn.ZipTableOneToMany()
    local v = torch.Tensor{1, 2}
    out = o:forward({v, {a1, b1, v}})
    assert.are.equal(3, #out)
    assert.is_true(out[3][1]:isSetTo(v) and out[2][2]:isSetTo(b1))
    g = o:backward({v, {a1, b1, v}}, {{torch.Tensor{1, 1}, a1}, {torch.Tensor{2, 3}, b1}, {torch.Tensor{4, 5}, v}})
    near(g[1], torch.Tensor{7, 9})
    assert.are.equal(3, #g[2])
    assert.is_true(g[2][2]:isSetTo(b1))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.ZipTable():forward({torch.randn(2)}) end),
        'nn.ZipTable:updateOutput: input[1] must be a table, got torch.DoubleTensor')
    has(errorOf(function() nn.ZipTableOneToMany():forward({torch.randn(2)}) end),
        'nn.ZipTableOneToMany:updateOutput: input must be {tensor, {elements}}, got table of 1 elements')
  end)
end)

describe('nn.Index', function()
  mc.module(it, {make = function() return nn.Index(1) end, jacobian = false,
                 why = 'input[2] holds indices (checked below in input[1] only)',
                 input = function() return {torch.randn(4, 3), torch.LongTensor{1, 3, 3, 4, 2}} end,
                 tostring = 'nn.Index'})
  mc.module(it, {name = 'nn.Index (dimension 2)', make = function() return nn.Index(2) end, jacobian = false,
                 why = 'input[2] holds indices (checked below in input[1] only)',
                 input = function() return {torch.randn(2, 5), torch.LongTensor{5, 1}} end,
                 input2 = function() return {torch.randn(6, 5), torch.LongTensor{5, 1}} end})

  it('gradient in the data matches finite differences', function()
    local err = firstInputJacobianError(nn.Index(2), {torch.randn(3, 4), torch.LongTensor{4, 1, 1}})
    assert(err < 1e-6, 'error ' .. err)
  end)

  it('indexes and sums the gradient of repeated indices', function()
    local m = nn.Index(1)
    local input = {torch.Tensor{10, 20, 30}, torch.LongTensor{1, 2, 2, 3}}
    near(m:forward(input), torch.Tensor{10, 20, 20, 30})
    local g = m:backward(input, torch.Tensor{1, 1, 1, 3})
    near(g[1], torch.Tensor{1, 2, 3})
    near(g[2], torch.zeros(4))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.Index(1):forward({torch.randn(3), torch.Tensor{1}}) end),
        'nn.Index:updateOutput: input[2] must be a torch.LongTensor of indices, got torch.DoubleTensor')
    has(errorOf(function() nn.Index(1):forward({torch.randn(3), torch.LongTensor{4}}) end),
        'nn.Index:updateOutput: index: index 4 out of range for dimension 1 of size 3')
    has(errorOf(function() nn.Index(3):forward({torch.randn(3), torch.LongTensor{1}}) end),
        'nn.Index:updateOutput: dimension 3 is out of range for input[1] 1D 3')
  end)
end)

describe('nn.MaskedSelect', function()
  mc.module(it, {make = function() return nn.MaskedSelect() end, jacobian = false,
                 why = 'input[2] is a mask (checked below in input[1] only)',
                 input = function() return {torch.randn(3, 4), torch.ByteTensor(3, 4):bernoulli(0.5)} end,
                 tostring = 'nn.MaskedSelect'})

  it('gradient in the data matches finite differences', function()
    local mask = torch.ByteTensor{{1, 0, 1}, {0, 1, 1}}
    local err = firstInputJacobianError(nn.MaskedSelect(), {torch.randn(2, 3), mask})
    assert(err < 1e-6, 'error ' .. err)
  end)

  it('selects and puts the gradient back', function()
    local m = nn.MaskedSelect()
    local input = {torch.Tensor{{10, 20}, {30, 40}}, torch.ByteTensor{{1, 0}, {0, 1}}}
    near(m:forward(input), torch.Tensor{10, 40})
    local g = m:backward(input, torch.Tensor{20, 80})
    near(g[1], torch.Tensor{{20, 0}, {0, 80}})
    assert.are.equal('torch.ByteTensor', torch.type(g[2]))
    assert.are.equal(0, g[2]:sum())
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.MaskedSelect():forward({torch.randn(3), torch.Tensor{1, 0, 1}}) end),
        'nn.MaskedSelect:updateOutput: the mask (input[2]) must be a torch.ByteTensor, got torch.DoubleTensor')
    has(errorOf(function() nn.MaskedSelect():forward({torch.randn(3), torch.ByteTensor{1, 0}}) end),
        'nn.MaskedSelect:updateOutput: the mask (2) must have the 3 elements of input[1] (3)')
    local m = nn.MaskedSelect()
    local input = {torch.randn(3), torch.ByteTensor{1, 0, 1}}
    m:forward(input)
    has(errorOf(function() m:backward(input, torch.randn(3)) end),
        'nn.MaskedSelect:updateGradInput: gradOutput must have 2 elements (the mask selects 2), got 1D 3')
  end)
end)

describe('nn.OneHot', function()
  mc.module(it, {make = function() return nn.OneHot(5) end, jacobian = false, why = 'class numbers are integers',
                 input = function() return torch.LongTensor{3, 1, 5} end,
                 input2 = function() return torch.LongTensor{2, 2, 4, 1, 1} end, tostring = 'nn.OneHot'})
  mc.module(it, {name = 'nn.OneHot (2D, double class numbers)', make = function() return nn.OneHot(4) end,
                 jacobian = false, why = 'class numbers are integers',
                 input = function() return torch.Tensor{{1, 4}, {2, 2}} end})

  it('writes one 1 per class number', function()
    local m = nn.OneHot(4)
    near(m:forward(torch.LongTensor{2, 4}), torch.Tensor{{0, 1, 0, 0}, {0, 0, 0, 1}})
    near(m:forward(3), torch.Tensor{0, 0, 1, 0})
    assert.are.equal(0, m:updateGradInput(3, torch.randn(4)))
    near(m:forward(torch.LongTensor{{1}, {3}}), torch.Tensor{{{1, 0, 0, 0}}, {{0, 0, 1, 0}}})
    near(m:backward(torch.LongTensor{{1}, {3}}, torch.randn(2, 1, 4)), torch.zeros(2, 1))
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.OneHot() end), 'nn.OneHot: outputSize must be a positive integer, got nil')
    has(errorOf(function() nn.OneHot(3):forward(torch.LongTensor{1, 4}) end),
        'nn.OneHot:updateOutput: class numbers must be between 1 and 3, got 4')
    has(errorOf(function() nn.OneHot(3):forward(torch.LongTensor{0}) end),
        'nn.OneHot:updateOutput: class numbers must be between 1 and 3, got 0')
    has(errorOf(function() nn.OneHot(3):forward({}) end),
        'nn.OneHot:updateOutput: input must be a tensor of class numbers or a number, got table')
  end)
end)

describe('nn.MixtureTable', function()
  mc.module(it, {name = 'nn.MixtureTable (table of experts, batch)', make = function() return nn.MixtureTable() end,
                 input = function() return {torch.rand(4, 3), {torch.randn(4, 5), torch.randn(4, 5), torch.randn(4, 5)}} end,
                 input2 = function() return {torch.rand(2, 3), {torch.randn(2, 5), torch.randn(2, 5), torch.randn(2, 5)}} end,
                 tostring = 'nn.MixtureTable'})
  mc.module(it, {name = 'nn.MixtureTable (tensor of experts, batch)', make = function() return nn.MixtureTable(2) end,
                 input = function() return {torch.rand(4, 3), torch.randn(4, 3, 5)} end,
                 input2 = function() return {torch.rand(6, 3), torch.randn(6, 3, 5)} end})
  mc.module(it, {name = 'nn.MixtureTable (tensor of experts, dim 3)', make = function() return nn.MixtureTable(3) end,
                 input = function() return {torch.rand(2, 3), torch.randn(2, 4, 3, 2)} end})
  mc.module(it, {name = 'nn.MixtureTable (one sample, table)', make = function() return nn.MixtureTable() end,
                 input = function() return {torch.rand(3), {torch.randn(5), torch.randn(5), torch.randn(5)}} end})
  mc.module(it, {name = 'nn.MixtureTable (one sample, tensor)', make = function() return nn.MixtureTable(1) end,
                 input = function() return {torch.rand(3), torch.randn(3, 5)} end})

  it('mixes the experts with the gater weights', function()
    local gater = torch.Tensor{{0.5, 2}, {1, 0}}
    local e1, e2 = torch.Tensor{{1, 2}, {3, 4}}, torch.Tensor{{10, 20}, {30, 40}}
    local m = nn.MixtureTable()
    near(m:forward({gater, {e1, e2}}), torch.Tensor{{20.5, 41}, {3, 4}})
    local g = m:backward({gater, {e1, e2}}, torch.Tensor{{1, 1}, {2, 0}})
    near(g[1], torch.Tensor{{3, 30}, {6, 60}})
    near(g[2][1], torch.Tensor{{0.5, 0.5}, {2, 0}})
    near(g[2][2], torch.Tensor{{2, 2}, {0, 0}})
    local t = nn.MixtureTable(2)
    local experts = torch.Tensor(2, 2, 2)
    experts:select(2, 1):copy(e1)
    experts:select(2, 2):copy(e2)
    near(t:forward({gater, experts}), torch.Tensor{{20.5, 41}, {3, 4}})
    g = t:backward({gater, experts}, torch.Tensor{{1, 1}, {2, 0}})
    near(g[1], torch.Tensor{{3, 30}, {6, 60}})
    near(g[2]:select(2, 2), torch.Tensor{{2, 2}, {0, 0}})
  end)

  it('says what is wrong', function()
    has(errorOf(function() nn.MixtureTable():forward({torch.rand(2, 3), {torch.randn(2, 4), torch.randn(2, 4)}}) end),
        'nn.MixtureTable:updateOutput: one gater output per expert expected: 3 gater outputs, 2 experts')
    has(errorOf(function() nn.MixtureTable():forward({torch.rand(2, 2), {torch.randn(2, 4), torch.randn(3, 4)}}) end),
        'nn.MixtureTable:updateOutput: expert 2 must be a tensor of size 2x4 like expert 1, got 2D 3x4')
    has(errorOf(function() nn.MixtureTable(2):forward({torch.rand(2, 3), torch.randn(2, 4, 5)}) end),
        'nn.MixtureTable:updateOutput: experts 3D 2x4x5 must have the 3 experts along dimension 2')
    has(errorOf(function() nn.MixtureTable():forward({torch.rand(2, 3, 1), {}}) end),
        'nn.MixtureTable:updateOutput: the gater (input[1]) must be 1D or 2D, got 3D 2x3x1')
  end)
end)
