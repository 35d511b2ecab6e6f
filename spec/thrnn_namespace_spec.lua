-- nn's namespace is Torch7's: the project's recurrent layers are package
-- thrnn's (require 'thrnn'), and nn.LSTM, nn.GRU, nn.Recurrence stay free
-- for the packages that define them. Each check runs in a fresh bin/th
-- (a class, once defined, stays for the process). With the upstream
-- checkouts (/work/upstream; absent on CI, those checks are skipped):
-- torch-rnn's own nn.LSTM and thrnn.LSTM in one script, both working
-- (the same numbers from the same weights: both lay the gates out i, f,
-- o, g), and Element-Research/rnn's first lines run without a collision.
require 'torch'

-- a fresh bin/th running src: its output and exit status
local th = require('spec.support.helpers').th

local UPSTREAM = os.getenv('UPSTREAM') or '/work/upstream'
local function upstream(name)
  local f = io.open(UPSTREAM .. '/' .. name .. '/README.md')
  if f then f:close() return UPSTREAM .. '/' .. name end
end

-- the names, their classes, and thrnn's global, one line
local NAMES = [[
local function names()
  local t = {}
  for _, n in ipairs{'LSTM', 'GRU', 'Recurrence'} do
    t[#t + 1] = tostring(nn[n]) .. '/' .. tostring(torch.getmetatable('nn.' .. n))
  end
  t[#t + 1] = 'thrnn=' .. tostring(thrnn)
  return table.concat(t, ' ')
end
]]

describe("nn's namespace", function()
  it("has no LSTM, GRU or Recurrence after loading nn and the packages beside it", function()
    local out, status = th(NAMES .. [[
require 'nn'
print(names())
require 'optim'; require 'optnet'; require 'nngraph'; require 'models'; require 'dataparallel'
print(names())
]])
    assert.are.equal(0, status, out)
    assert.are.equal(('nil/nil nil/nil nil/nil thrnn=nil\n'):rep(2), out)
  end)

  it("keeps them free after require 'thrnn', whose classes are thrnn.*", function()
    local out, status = th(NAMES .. [[
require 'nn'
local thrnn = require 'thrnn'
print(names():gsub('thrnn=table: 0x%x+', 'thrnn=table'))
local l, g = thrnn.LSTM(3, 4), thrnn.GRU(3, 4)
local r = thrnn.Recurrence(nn.Sequential():add(nn.JoinTable(2)):add(nn.Linear(7, 4)):add(nn.Tanh()), 1, 4)
print(torch.type(l), torch.type(g), torch.type(r), torch.typename(thrnn.LSTM))
print(torch.parentname('thrnn.LSTM'), torch.parentname('thrnn.GRU'), torch.parentname('thrnn.Recurrence'))
print(l:forward(torch.randn(2, 5, 3)):size(3), g:forward(torch.randn(2, 5, 3)):size(3), r:forward(torch.randn(2, 5, 3)):size(3))
print(names():gsub('thrnn=table: 0x%x+', 'thrnn=table'))
-- the classes a package of those names would define
local L = torch.class('nn.LSTM', 'nn.Module')
local G = torch.class('nn.GRU', 'nn.Module')
local R = torch.class('nn.Recurrence', 'nn.Container')
print(torch.type(L()), torch.type(G()), torch.type(R()), torch.type(thrnn.LSTM(2, 2)))
]])
    assert.are.equal(0, status, out)
    assert.are.equal(table.concat({
      'nil/nil nil/nil nil/nil thrnn=table\t1',
      'thrnn.LSTM\tthrnn.GRU\tthrnn.Recurrence\tthrnn.LSTM',
      'thrnn.Recurrence\tthrnn.Recurrence\tnn.Container',
      '4\t4\t4',
      'nil/nil nil/nil nil/nil thrnn=table\t1',
      'nn.LSTM\tnn.GRU\tnn.Recurrence\tthrnn.LSTM', ''}, '\n'), out)
  end)

  it("leaves module calls running forward, until the script requires nngraph", function()
    local out, status = th([[
require 'nn'
require 'thrnn'
local m = thrnn.LSTM(2, 3)
print(torch.type(nn.gModule), torch.type(nn.Tanh()(torch.zeros(2))), torch.type(m.modules[1]))
require 'nngraph'
print(torch.type(nn.Identity()()))
local g = thrnn.GRU(2, 3)             -- building one leaves the syntax on now
print(torch.type(nn.Identity()()), torch.type(g:forward(torch.zeros(1, 2, 2))))
print((require('torch.help').text(thrnn.GRU)):match('thrnn.GRU') ~= nil)
]])
    assert.are.equal(0, status, out)
    assert.are.equal('nn.gModule\ttorch.DoubleTensor\tnn.gModule\nnngraph.Node\nnngraph.Node\ttorch.DoubleTensor\ntrue\n', out)
  end)

  it("lets torch-rnn's nn.LSTM and thrnn.LSTM work in one script", function()
    local dir = upstream('torch-rnn')
    if not dir then pending('no torch-rnn checkout in ' .. UPSTREAM) return end
    local out, status = th(string.format([[
package.path = %q .. '/?.lua;' .. package.path
require 'nn'
require 'LSTM'          -- torch-rnn's: torch.class('nn.LSTM', 'nn.Module')
require 'thrnn'
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(3)
local D, H = 3, 4
local theirs, ours = nn.LSTM(D, H), thrnn.LSTM(D, H)
-- ours from theirs: x W[1..D] + h W[D+1..] + b, gates i, f, o, g in both
local i2h, h2h
for _, m in ipairs(ours.modules[1]:findModules('nn.Linear')) do
  if m.weight:size(2) == D then i2h = m else h2h = m end
end
i2h.weight:copy(theirs.weight:narrow(1, 1, D):t()); i2h.bias:copy(theirs.bias)
h2h.weight:copy(theirs.weight:narrow(1, D + 1, H):t()); h2h.bias:zero()
local x = torch.randn(2, 6, D)
local a, b = theirs:forward(x), ours:forward(x)
print(torch.type(theirs), torch.type(ours), a:size(3), b:size(3), (a - b):abs():max() < 1e-12)
-- and both train: backward runs, its input gradients agree
local g = torch.randn(2, 6, H)
print((theirs:backward(x, g) - ours:backward(x, g)):abs():max() < 1e-12)
]], dir))
    assert.are.equal(0, status, out)
    assert.are.equal('nn.LSTM\tthrnn.LSTM\t4\t4\ttrue\ntrue\n', out)
  end)

  it("lets Element-Research/rnn's first lines define nn.LSTM, nn.GRU, nn.Recurrence", function()
    local dir = upstream('rnn')
    if not dir then pending('no rnn checkout in ' .. UPSTREAM) return end
    -- each file's lines up to its torch.class, as rnn's init runs them
    -- (their parent, nn.AbstractRecurrent, stood in for: rnn needs dpnn)
    local out, status = th(string.format([[
require 'nn'
require 'thrnn'
local R = torch.class('nn.AbstractRecurrent', 'nn.Container')
for _, f in ipairs{'LSTM', 'GRU', 'Recurrence'} do
  local lines = {}
  for l in io.lines(%q .. '/' .. f .. '.lua') do
    if not l:find('moses', 1, true) then lines[#lines + 1] = l end
    if l:find('torch.class(', 1, true) then break end
  end
  assert(load(table.concat(lines, '\n'), '=rnn/' .. f .. '.lua'))()
end
print(torch.parentname('nn.LSTM'), torch.parentname('nn.GRU'), torch.parentname('nn.Recurrence'))
print(torch.type(thrnn.GRU(2, 3)), torch.type(thrnn.Recurrence(nn.Identity(), 1, 2)))
]], dir))
    assert.are.equal(0, status, out)
    assert.are.equal('nn.AbstractRecurrent\tnn.AbstractRecurrent\tnn.AbstractRecurrent\nthrnn.GRU\tthrnn.Recurrence\n', out)
  end)
end)
