-- nn stands alone: requiring it loads no package above nn (optnet, nngraph,
-- thrnn, models), and a package above nn that leaves records on modules
-- plugs in through nn.utils.onDerived (optnet: the plan of a cloned,
-- retyped or loaded net is put back in force). See docs/nn.md.
require 'nn'
local H = require 'spec.support.helpers'

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- a plain Lua with this tree's paths: bin/th loads optnet itself (as
-- Torch7's th loaded its libraries), a plain interpreter only what is required
local function lua(src)
  local p = io.popen(string.format('LUA_PATH=%s LUA_CPATH=%s lua5.4 -e %s 2>&1',
    sh(package.path), sh(package.cpath), sh(src)))
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status
end

describe('require nn', function()
  it('loads nothing above nn', function()
    local out, status = lua([[
require 'nn'
local above = {}
for _, name in ipairs{'optnet', 'nngraph', 'models', 'thrnn', 'dataparallel', 'optim'} do
  if package.loaded[name] ~= nil or rawget(_G, name) ~= nil then above[#above + 1] = name end
end
for name in pairs(package.loaded) do
  if name:find('^thrnn%.') or name:find('^optnet%.') or name:find('^nngraph%.') then above[#above + 1] = name end
end
local m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.ReLU())
m = torch.deserialize(torch.serialize(m:clone():float()))
io.write(table.concat(above, ' '), '|', m:forward(torch.FloatTensor(4, 3):fill(1)):size(1))]])
    assert.are.equal(0, status, out)
    assert.are.equal('|4', out)
  end)
end)

describe('nn.utils.onDerived', function()
  local seen
  local function reset() seen = {} end
  after_each(function() nn.utils.onDerived('spec', {'_specRecord'}, nil) end)

  it('hands a registered package the modules made anew that carry its fields', function()
    reset()
    nn.utils.onDerived('spec', {'_specRecord'}, function(m, how, deep)
      seen[#seen + 1] = torch.type(m) .. ' ' .. how .. ' ' .. tostring(deep)
    end)
    local plain = nn.Sequential():add(nn.Linear(2, 2))
    plain:clone(); plain:float(); torch.deserialize(torch.serialize(plain))
    assert.are.same({}, seen)
    local net = nn.Sequential():add(nn.Linear(2, 2))
    net.modules[1]._specRecord = {n = 1}
    net:clone()
    assert.are.same({'nn.Sequential clone true'}, seen)
    reset()
    torch.deserialize(torch.serialize(net))   -- each module as it is read
    assert.are.same({'nn.Linear load nil'}, seen)
  end)

  it('replaces a registration made under the same name; nil removes it', function()
    reset()
    local m = nn.Linear(2, 2)
    m._specRecord = true
    nn.utils.onDerived('spec', {'_specRecord'}, function() seen[#seen + 1] = 'first' end)
    nn.utils.onDerived('spec', {'_specRecord'}, function() seen[#seen + 1] = 'second' end)
    m:clone()
    assert.are.same({'second'}, seen)
    nn.utils.onDerived('spec', {'_specRecord'}, nil)
    m:clone()
    assert.are.same({'second'}, seen)
  end)

  it('checks its arguments', function()
    H.has(H.errmsg(nn.utils.onDerived, 1), 'nn.utils.onDerived: name (a string) expected as argument 1, got number')
    H.has(H.errmsg(nn.utils.onDerived, 'x', {}), 'field names (a list of strings) expected as argument 2, got table')
    H.has(H.errmsg(nn.utils.onDerived, 'x', {'_a'}, 3), 'function or nil expected as argument 3, got number')
  end)

  it('is how optnet puts a plan back in force on a copy', function()
    local optnet = require 'optnet'
    local net = nn.Sequential():add(nn.Linear(6, 5)):add(nn.ReLU()):add(nn.Linear(5, 3))
    optnet.optimizeMemory(net, torch.randn(4, 6))
    for _, copy in ipairs{net:clone(), net:clone():float(), torch.deserialize(torch.serialize(net))} do
      assert.is_true(optnet.isOptimized(copy))
    end
  end)
end)
