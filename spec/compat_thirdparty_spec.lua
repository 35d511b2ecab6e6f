-- What third-party Torch7 packages' own test suites (Element-Research's
-- dpnn and rnn, torchnet) rely on, found by running those suites unchanged
-- (issue 33). Each case is self-contained: it restates, on small data, the
-- Torch7 behaviour a suite exercised, with exact values.
require 'torch'
require 'nn'
require 'optim'
local H = require 'spec.support.helpers'

describe('third-party packages: luaT registry', function()
  -- torchnet: torch.isclass(o) is debug.getregistry()[o]
  it('maps a class metatable to its name and the name to the metatable', function()
    local REG = debug.getregistry()
    local mt = getmetatable(nn.Linear(2, 2))
    assert.are.equal('nn.Linear', REG[mt])
    assert.are.equal(mt, REG['nn.Linear'])
    assert.are.equal('nn.Linear', REG[getmetatable(nn.Linear)])   -- the constructor's
    assert.are.equal('torch.FloatTensor', REG[getmetatable(torch.FloatTensor())])
    assert.is_nil(REG[{}])
  end)

  it('registers a class made by a script', function()
    local C = torch.class('SpecThirdPartyRegistered')
    local REG = debug.getregistry()
    assert.are.equal('SpecThirdPartyRegistered', REG[getmetatable(C())])
    assert.are.equal(getmetatable(C()), REG['SpecThirdPartyRegistered'])
  end)
end)

describe('third-party packages: a tensor type name as the last argument', function()
  -- torchnet's APMeter: torch.range(1, n, 'torch.DoubleTensor')
  it('picks the type of torch.range, zeros, ones, linspace, eye', function()
    local r = torch.range(1, 3, 'torch.IntTensor')
    assert.are.equal('torch.IntTensor', torch.type(r))
    assert.are.same({1, 2, 3}, r:totable())
    assert.are.equal('torch.LongTensor', torch.type(torch.zeros(2, 3, 'torch.LongTensor')))
    assert.are.same({{1, 1}}, torch.ones(1, 2, 'torch.FloatTensor'):totable())
    assert.are.equal('torch.FloatTensor', torch.type(torch.linspace(0, 1, 3, 'torch.FloatTensor')))
    assert.are.same({{1, 0}, {0, 1}}, torch.eye(2, 'torch.ByteTensor'):totable())
    assert.are.equal(torch.getdefaulttensortype(), torch.type(torch.range(1, 3)))
  end)

  it('picks the type of torch.rand, randn, randperm', function()
    torch.manualSeed(5)
    local a = torch.rand(4, 'torch.FloatTensor')
    torch.manualSeed(5)
    local b = torch.FloatTensor(4):rand(4)
    assert.are.equal('torch.FloatTensor', torch.type(a))
    assert.are.same(b:totable(), a:totable())
    assert.are.equal('torch.FloatTensor', torch.type(torch.randn(2, 2, 'torch.FloatTensor')))
    local p = torch.randperm(5, 'torch.LongTensor')
    assert.are.equal('torch.LongTensor', torch.type(p))
    assert.are.equal(15, p:sum())
  end)
end)

describe('third-party packages: torch.deserializeFromStorage', function()
  -- torchnet's IndexedDataset keeps serialized samples as CharTensors
  it('reads a CharTensor of the bytes as Torch7 did', function()
    local st = torch.serializeToStorage({a = 42, b = 'x'})
    local t = torch.CharTensor(st:size()):copy(torch.CharTensor(st))
    local o = torch.deserializeFromStorage(t)
    assert.are.equal(42, o.a)
    assert.are.equal('x', o.b)
    H.errors(function() torch.deserializeFromStorage(3) end,
             'torch.deserializeFromStorage: CharStorage or CharTensor expected, got number')
  end)
end)

describe('third-party packages: nn', function()
  -- dpnn's sharedClone clones a container whose modules list has holes
  -- (its step modules taken out for the time of the copy)
  it('clones a container whose modules list has a hole', function()
    torch.manualSeed(1)
    local s = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Tanh()):add(nn.Linear(2, 2))
    s.modules[2] = nil
    local c = s:clone()
    assert.is_nil(c.modules[2])
    assert.are.same(s.modules[1].weight:totable(), c.modules[1].weight:totable())
    assert.are.same(s.modules[3].bias:totable(), c.modules[3].bias:totable())
    assert.are_not.equal(s.modules[3].bias, c.modules[3].bias)
  end)

  -- rnn's FastLSTM_issue203: a 1D input with a 2-element target
  it('ClassNLLCriterion reads the first target element of a 1D input', function()
    local c = nn.ClassNLLCriterion()
    local x = torch.Tensor{-1, -2, -3}
    assert.are.equal(2, c:forward(x, torch.IntTensor{2, 3}))
    assert.are.same({0, -1, 0}, c:backward(x, torch.IntTensor{2, 3}):totable())
    assert.are.equal(3, c:forward(x, torch.LongTensor{3}))
  end)

  -- rnn's SequencerCriterion test keeps one split while splitting another
  it('SplitTable gives a new table every call', function()
    local m = nn.SplitTable(1)
    local a = m:forward(torch.Tensor{{1, 2}, {3, 4}})
    local b = m:forward(torch.Tensor{{5, 6}, {7, 8}})
    assert.are.same({1, 2}, a[1]:totable())
    assert.are.same({7, 8}, b[2]:totable())
  end)
end)

describe('third-party packages: optim.checkgrad', function()
  -- rnn's Recurrent_checkgrad, LSTM_checkgrad, NormStabilizer
  local function quad(grad)
    return function(x)
      return x:dot(x), grad and grad(x) or x * 2
    end
  end

  it('gives 0 for a right gradient, with the estimate', function()
    local x = torch.Tensor{1, 2}
    local diff, dC, est = optim.checkgrad(quad(), x, 0.5)
    assert.are.equal(0, diff)
    assert.are.same({2, 4}, dC:totable())
    assert.are.same({2, 4}, est:totable())
    assert.are.same({1, 2}, x:totable())   -- x is put back
  end)

  it('gives |dC - est| / |dC + est| for a wrong one', function()
    local x = torch.Tensor{1, 2}
    local diff = optim.checkgrad(quad(function() return torch.Tensor{2, 0} end), x, 0.5)
    assert.is_true(math.abs(diff - 4 / math.sqrt(32)) < 1e-15)
  end)

  it('names itself in errors', function()
    H.errors(function() optim.checkgrad(3, torch.Tensor(2)) end, 'optim.checkgrad: opfunc must be a function, got number')
    H.errors(function() optim.checkgrad(quad(), torch.Tensor{1}, 'x') end, 'optim.checkgrad: eps must be a number, got string')
  end)
end)
