-- Module:clone(...) as Torch7's: writeObject then readObject through a
-- MemoryFile, so that a class's own write/read (dpnn's nn.Serial) runs;
-- nets without such a class take the direct copy, with the same result.
require 'nn'
require 'nngraph'

local calls = {}

-- a Linear that saves itself like dpnn's nn.Serial: a state table without
-- its output and gradInput contents, read back field by field
local Light = torch.class('nn.SpecCloneLight', 'nn.Linear')
function Light:write(file)
  calls[#calls + 1] = 'write ' .. torch.type(self)
  local state = {}
  for k, v in pairs(self) do state[k] = v end
  state.output, state.gradInput = self.output.new(), self.gradInput.new()
  state.writtenBy = 'Light:write'
  file:writeObject(state)
end
function Light:read(file, version)
  calls[#calls + 1] = 'read ' .. torch.type(self) .. ' v' .. version
  for k, v in pairs(file:readObject()) do self[k] = v end
end

-- inherits write/read from its parent class
torch.class('nn.SpecCloneLighter', 'nn.SpecCloneLight')

-- Torch7's other hook names
local Hooked = torch.class('nn.SpecCloneHooked', 'nn.Module')
function Hooked:__init() nn.Module.__init(self); self.n = 5 end
Hooked.__write = function(self, file)
  calls[#calls + 1] = '__write'
  local state = {}
  for k, v in pairs(self) do state[k] = v end
  state.n = self.n * 2
  file:writeObject(state)
end
Hooked.__read = function(self, file)
  calls[#calls + 1] = '__read'
  for k, v in pairs(file:readObject()) do self[k] = v end
  self.n = self.n + 1
end

-- counts the MemoryFiles made while f runs
local function memoryFiles(f)
  local MF = torch.MemoryFile
  local n = 0
  torch.MemoryFile = setmetatable({}, {__call = function(_, ...) n = n + 1; return MF(...) end, __index = MF})
  local ok, r = pcall(f)
  torch.MemoryFile = MF
  assert(ok, r)
  return n, r
end

describe('Module:clone through write/read', function()
  before_each(function() calls = {} end)

  it("calls a nested module's own write and read, once each", function()
    torch.manualSeed(33)
    local net = nn.Sequential():add(nn.SpecCloneLight(3, 2)):add(nn.Tanh())
    local x = torch.randn(4, 3)
    local y = net:forward(x):clone()
    local n, c = memoryFiles(function() return net:clone() end)
    assert.are.equal(1, n)
    assert.are.same({'write nn.SpecCloneLight', 'read nn.SpecCloneLight v1'}, calls)
    local l = c.modules[1]
    assert.are.equal('nn.SpecCloneLight', torch.type(l))
    assert.are.equal('Light:write', l.writtenBy)
    assert.are.equal(0, l.output:nElement())          -- what write left out
    assert.are.equal(8, net.modules[1].output:nElement())
    assert.are.same(net.modules[1].weight:totable(), l.weight:totable())
    assert.are_not.equal(torch.pointer(net.modules[1].weight:storage()), torch.pointer(l.weight:storage()))
    assert.are.same(y:totable(), c:forward(x):totable())
  end)

  it('shares the named fields afterwards', function()
    torch.manualSeed(1)
    local net = nn.Sequential():add(nn.SpecCloneLight(3, 2))
    local c = net:clone('weight', 'bias')
    c.modules[1].weight:fill(0.25)
    c.modules[1].bias:fill(-1)
    assert.are.same({{0.25, 0.25, 0.25}, {0.25, 0.25, 0.25}}, net.modules[1].weight:totable())
    assert.are.same({-1, -1}, net.modules[1].bias:totable())
    assert.are.same({'write nn.SpecCloneLight', 'read nn.SpecCloneLight v1'}, calls)
  end)

  it("calls write/read inherited from an ancestor class, and __write/__read", function()
    local net = nn.Sequential():add(nn.SpecCloneLighter(2, 2)):add(nn.SpecCloneHooked())
    local c = net:clone()
    assert.are.same({'write nn.SpecCloneLighter', '__write', 'read nn.SpecCloneLighter v1', '__read'}, calls)
    assert.are.equal('Light:write', c.modules[1].writtenBy)
    assert.are.equal(11, c.modules[2].n)
    calls = {}
    local h = nn.SpecCloneHooked():clone()        -- the root itself
    assert.are.same({'__write', '__read'}, calls)
    assert.are.equal(11, h.n)
  end)

  it('a module holding one (a table field, a gModule node) goes through the file too', function()
    local inner = nn.SpecCloneLight(2, 2)
    local m = nn.Identity()
    m.extra = {deep = {inner}}
    local c = m:clone()
    assert.are.same({'write nn.SpecCloneLight', 'read nn.SpecCloneLight v1'}, calls)
    assert.are.equal('Light:write', c.extra.deep[1].writtenBy)
    calls = {}
    local x = nn.Identity()()
    local g = nn.gModule({x}, {nn.SpecCloneLight(2, 3)(x)})
    local gc = g:clone()
    assert.are.same({'write nn.SpecCloneLight', 'read nn.SpecCloneLight v1'}, calls)
    local input = torch.Tensor{{1, 2}}
    assert.are.same(g:forward(input):totable(), gc:forward(input):totable())
  end)

  it('takes the direct copy for nets without such a class, with sharing and cycles kept', function()
    torch.manualSeed(2)
    local lin = nn.Linear(3, 3)
    local net = nn.Sequential():add(lin):add(nn.ReLU()):add(lin)
    net.self = net
    net.view = lin.weight:narrow(1, 2, 1)
    local n, c = memoryFiles(function() return net:clone() end)
    assert.are.equal(0, n)
    assert.are.same({}, calls)
    assert.are.equal(c.modules[1], c.modules[3])
    assert.are.equal(c, c.self)
    assert.are.equal(torch.pointer(c.modules[1].weight:storage()), torch.pointer(c.view:storage()))
    assert.are_not.equal(torch.pointer(lin.weight:storage()), torch.pointer(c.modules[1].weight:storage()))
    local x = torch.randn(2, 3)
    assert.are.same(net:forward(x):totable(), c:forward(x):totable())
    local gx = nn.Identity()()
    local g = nn.gModule({gx}, {nn.Tanh()(nn.Linear(2, 2)(gx))})
    assert.are.equal(0, (memoryFiles(function() return g:clone('weight', 'bias') end)))
  end)

  it('nn.WeightNorm (it reads itself) clones to the same function', function()
    torch.manualSeed(5)
    local w = nn.WeightNorm(nn.Linear(4, 3))
    local x = torch.randn(2, 4)
    local n, c = memoryFiles(function() return w:clone() end)
    assert.are.equal(1, n)
    assert.are.same(w:forward(x):totable(), c:forward(x):totable())
  end)
end)
