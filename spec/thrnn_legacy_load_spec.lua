-- Files this project saved when its recurrent layers were nn's (class
-- names nn.LSTM, nn.GRU, nn.Recurrence) load as thrnn's classes when no
-- package defines those names (torch._legacyClass, lua/nn/legacy.lua):
-- the same numbers, in binary and ascii, inside a container, shared
-- objects kept shared, thrnn loaded by the load itself; an object of
-- another layout under the name (torch-rnn's) is an unknown-class error
-- saying why; a package that defines nn.LSTM itself gets its own class.
-- The old files are written here: a thrnn module serialized, the class
-- name's string renamed (the old classes had these very fields: checked
-- against a file of commit 8bb7d81, see docs/thrnn.md).
require 'torch'
require 'nn'
require 'thrnn'
local H = require 'spec.support.helpers'

local spack = string.pack

-- serialization s (mode) with class name 'from' renamed 'to' (a string
-- is its length then its bytes: binary int32, ascii a line)
local function rename(s, mode, from, to)
  local function str(x) return mode == 'ascii' and ('\n' .. #x .. '\n' .. x .. '\n') or (spack('<i4', #x) .. x) end
  local a, b = str(from), str(to)
  local i, j = s:find(a, 1, true)
  assert(i, 'no ' .. from .. ' in the serialization')
  assert(not s:find(a, j + 1, true), 'two objects of class ' .. from)
  return s:sub(1, i - 1) .. b .. s:sub(j + 1)
end

-- m saved under its old name, as this project's nn saved it
local function oldFile(m, mode)
  local new = torch.typename(m)
  return rename(torch.serialize(m, mode), mode, new, (new:gsub('^thrnn%.', 'nn.')))
end

local function same(a, b)
  assert.are.same(a:size():totable(), b:size():totable())
  assert.are.equal(0, (a - b):abs():max())
end

local function recurrence()
  return thrnn.Recurrence(nn.Sequential():add(nn.JoinTable(2)):add(nn.Linear(5, 3)):add(nn.Tanh()), 1, 3)
end

local CASES = {
  {'nn.LSTM', function() return thrnn.LSTM(2, 3) end, 'thrnn.LSTM'},
  {'nn.LSTM (2 layers)', function() return thrnn.LSTM(2, 3, 2) end, 'thrnn.LSTM'},
  {'nn.GRU', function() return thrnn.GRU(2, 3) end, 'thrnn.GRU'},
  {'nn.GRU (2 layers)', function() return thrnn.GRU(2, 3, 2) end, 'thrnn.GRU'},
  {'nn.Recurrence', recurrence, 'thrnn.Recurrence'},
}

describe('files naming nn.LSTM, nn.GRU, nn.Recurrence', function()
  it('have nobody defining those names here', function()
    assert.is_nil(torch.getmetatable('nn.LSTM'))
    assert.is_nil(torch.getmetatable('nn.GRU'))
    assert.is_nil(torch.getmetatable('nn.Recurrence'))
  end)

  for _, c in ipairs(CASES) do
    for _, mode in ipairs{'binary', 'ascii'} do
      it(string.format('%s (%s) loads as %s with the same numbers', c[1], mode, c[3]), function()
        torch.manualSeed(5)
        local m = c[2]():double()
        local x, x2 = torch.randn(2, 4, 2), torch.randn(3, 6, 2)
        m:forward(x)   -- saved after use, with its time-step clones
        local s = oldFile(m, mode)
        assert.truthy(s:find(c[1]:match('^%S+'), 1, true))
        assert.falsy(s:find(c[3], 1, true))
        local back = torch.deserialize(s, mode)
        assert.are.equal(c[3], torch.type(back))
        assert.is_true(torch.isTypeOf(back, 'thrnn.Recurrence'))
        same(m:getParameters(), back:getParameters())
        -- a longer sequence and another batch: new clones from the loaded step
        local y, yb = m:forward(x2):clone(), back:forward(x2)
        same(y, yb)
        local g = torch.randn(y:size())
        m:zeroGradParameters(); back:zeroGradParameters()
        same(m:backward(x2, g), back:backward(x2, g))
        same(select(2, m:getParameters()), select(2, back:getParameters()))
        assert.are.equal(tostring(m), tostring(back))
      end)
    end
  end

  it('load inside a container, an object saved twice once', function()
    torch.manualSeed(6)
    local lstm = thrnn.LSTM(2, 3)
    local net = nn.Sequential():add(lstm):add(nn.Select(2, -1)):add(nn.Linear(3, 2))
    local s = rename(torch.serialize({net, lstm}), 'binary', 'thrnn.LSTM', 'nn.LSTM')
    local back = torch.deserialize(s)
    assert.are.equal('nn.Sequential', torch.type(back[1]))
    assert.are.equal('thrnn.LSTM', torch.type(back[2]))
    assert.is_true(rawequal(back[1].modules[1], back[2]))
    local x = torch.randn(4, 5, 2)
    same(net:forward(x), back[1]:forward(x))
  end)

  it('go through the checks of thrnn modules (a damaged field is named)', function()
    local m = thrnn.LSTM(2, 3)
    m.hiddenSize = 0
    local err = H.errmsg(torch.deserialize, oldFile(m, 'binary'))
    H.has(err, "thrnn.LSTM: field 'hiddenSize' is the number 0, expected a positive integer")
  end)

  it('of another layout (torch-rnn\'s nn.LSTM) are unknown classes, with why', function()
    -- torch-rnn's fields: input_dim, hidden_dim, weight (D + H) x 4H, bias 4H
    local m = nn.Module()
    m.input_dim, m.hidden_dim = 2, 3
    m.weight, m.bias = torch.randn(5, 12), torch.randn(12)
    local s = rename(torch.serialize(m), 'binary', 'nn.Module', 'nn.LSTM')
    local err = H.errmsg(torch.deserialize, s)
    H.has(err, "unknown Torch class 'nn.LSTM' (object #1 at byte 0)")
    H.has(err, "its fields are not those of the nn.LSTM this project saved before it became thrnn.LSTM: "
               .. "field 'nState' is nil, not a positive integer")
    -- a thrnn layout without its step
    local r = recurrence()
    r.modules = {}
    err = H.errmsg(torch.deserialize, oldFile(r, 'ascii'), 'ascii')
    H.has(err, "unknown Torch class 'nn.Recurrence'")
    H.has(err, "field 'modules' does not hold the step module")
    local g = thrnn.GRU(2, 3)
    g.layers = 'two'
    H.has(H.errmsg(torch.deserialize, oldFile(g, 'binary')), "field 'layers' is two, not a positive integer")
  end)
end)

local th = H.th   -- a fresh bin/th running src: its output and exit status

describe('loading an old nn.LSTM file in a fresh process', function()
  local file = os.tmpname()
  setup(function()
    torch.manualSeed(7)
    local m = thrnn.LSTM(2, 3)
    local f = assert(io.open(file, 'wb'))
    f:write(oldFile(m, 'binary'))
    f:close()
  end)
  teardown(function() os.remove(file) end)

  it('loads thrnn then, not before', function()
    local out, status = th(string.format([[
require 'nn'
assert(package.loaded.thrnn == nil and thrnn == nil, 'thrnn loaded by nn')
local m = torch.load(%q)
print(torch.type(m), package.loaded.thrnn ~= nil, nn.LSTM == nil, m:forward(torch.zeros(1, 2, 2)):size(3))
]], file))
    assert.are.equal(0, status, out)
    assert.are.equal('thrnn.LSTM\ttrue\ttrue\t3\n', out)
  end)

  it('gives a package that defines nn.LSTM itself its own class', function()
    local out, status = th(string.format([[
require 'nn'
require 'nngraph'   -- the classes inside the file (its step)
local L = torch.class('nn.LSTM', 'nn.Module')   -- a third party's (torch-rnn's name)
function L:__init() end
local m = torch.load(%q)
print(torch.type(m), m.hiddenSize, package.loaded.thrnn == nil)
]], file))
    assert.are.equal(0, status, out)
    assert.are.equal('nn.LSTM\t3\ttrue\n', out)
  end)
end)
