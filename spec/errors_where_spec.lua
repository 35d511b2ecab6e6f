-- Error messages that pointed inside the library or named an internal
-- function (issue 36): each asserted whole, position included.
require 'torch'
require 'image'

local SPEC = debug.getinfo(1, 'S').short_src

-- the message of f's error, and the line of this file f raised it on
local function caught(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return tostring(err)
end

local function here() return debug.getinfo(2, 'l').currentline end

describe('errors point at the caller', function()
  it('tensor and storage constructors: the line of the call, not lua/torch/init.lua', function()
    local line
    local msg = caught(function() line = here(); local t = torch.Tensor(2, 'a'); return t end)
    assert.are.equal(SPEC .. ':' .. line .. ": bad argument #2 to 'torch.DoubleTensor' (size must be a number, got string)",
                     msg)
    msg = caught(function() line = here(); local s = torch.FloatStorage('a', 'b'); return s end)
    assert.are.equal(SPEC .. ':' .. line .. ": bad argument #3 to 'torch.FloatStorage' (shared flag (boolean) expected, "
                     .. 'got string)', msg)
    msg = caught(function() line = here(); local s = torch.LongStorage(-1); return s end)
    assert.are.equal(SPEC .. ':' .. line .. ': torch.LongStorage: size must be non-negative, got -1', msg)
    local x = torch.FloatTensor(2)
    msg = caught(function() line = here(); local t = x.new(2, 'a'); return t end)
    assert.are.equal(SPEC .. ':' .. line .. ": bad argument #2 to 'torch.FloatTensor' (size must be a number, got string)",
                     msg)
    assert.are.equal('torch.FloatTensor', torch.type(x.new(3)))
    assert.are.same({2, 3}, torch.FloatTensor.new(2, 3):size():totable())
    assert.are.equal(3, #torch.ByteStorage.new(3))
    -- the constructors still work, and torch.Tensor is still the default type's
    assert.are.same({2, 3}, torch.Tensor(2, 3):size():totable())
    assert.are.equal('torch.FloatTensor', torch.type(torch.FloatTensor({1})))
    assert.are.equal(3, torch.ByteStorage({1, 2, 3}):size())
  end)

  it('image functions: the caller, also when a helper (readfile, checkquality) raises', function()
    local line
    local msg = caught(function() line = here(); local r = image.load('/nonexistent/a.png'); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ': image.load: cannot open /nonexistent/a.png: No such file or directory', msg)
    msg = caught(function() line = here(); local r = image.save(os.tmpname() .. '.jpg', torch.rand(3, 2, 2), 500); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ': image.save: quality must be a number in 1..100, got 500', msg)
    msg = caught(function() line = here(); local r = image.compressJPG(torch.rand(3, 2, 2), 0); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ': image.compressJPG: quality must be a number in 1..100, got 0', msg)
    msg = caught(function() line = here(); local r = image.decompress(5); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ': image.decompress: a 1D torch.ByteTensor expected, got number', msg)
  end)
end)

describe('errors name the function called', function()
  it('torch.setMemoryCategory and torch.getMemoryCategory, not _setMemoryCategory and _memoryCategory', function()
    local line
    local msg = caught(function() line = here(); local r = torch.setMemoryCategory(torch.ones(2), 'bogus'); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ": bad argument #2 to 'torch.setMemoryCategory' (memory category 'free', "
                     .. "'module' or 'scoped' expected, got 'bogus')", msg)
    msg = caught(function() line = here(); local r = torch.getMemoryCategory(5); return r end)
    assert.are.equal(SPEC .. ':' .. line .. ": bad argument #1 to 'torch.getMemoryCategory' (tensor or storage expected, "
                     .. 'got number)', msg)
    -- the methods keep their own names, and both still work
    assert.is_truthy(caught(function() torch.ones(2):_setMemoryCategory('x') end)
                     :find("bad argument #2 to '_setMemoryCategory'", 1, true))
    local t = torch.ones(2)
    torch.setMemoryCategory(t, 'module')
    assert.are.equal('module', torch.getMemoryCategory(t))
    assert.are.equal('module', t:_memoryCategory())
  end)

  it('Tensor:equal with another type names equal, not eq', function()
    assert.are.equal("bad argument #2 to 'equal' (torch.DoubleTensor expected, got torch.FloatTensor)",
                     caught(function() return torch.DoubleTensor{1}:equal(torch.FloatTensor{1}) end)
                       :gsub('^[^:]*:%d+: ', ''))
    assert.is_true(torch.DoubleTensor{1, 2}:equal(torch.DoubleTensor{1, 2}))
    assert.is_false(torch.DoubleTensor{1, 2}:equal(torch.DoubleTensor{1, 3}))
  end)

  it('writeLong of a storage with longSize 4: the method and the element, no dangling "at"', function()
    local f = torch.MemoryFile():binary():longSize(4)
    assert.are.equal('torch.MemoryFile:writeLong: LongStorage element 2 (1099511627776) does not fit in 4 bytes '
                     .. '(longSize 4)', caught(function() f:writeLong(torch.LongStorage({1, 2 ^ 40})) end))
    -- inside writeObject the path of the object is said
    local g = torch.MemoryFile():binary():longSize(4)
    assert.are.equal('<memory>: LongStorage element 1 (1099511627776) does not fit in 4 bytes (longSize 4) '
                     .. 'at <?>.a.storage', caught(function() g:writeObject({a = torch.LongTensor({2 ^ 40})}) end))
  end)
end)
