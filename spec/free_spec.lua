-- The first two techniques of issue 7 (docs/memory.md): the garbage
-- collector, and explicit release with t:free() / t:dispose() or Lua 5.4's
-- to-be-closed variables. (GC under memory pressure: memory_gc_spec.lua;
-- dispose scopes: scope_spec.lua.)
require 'torch'

local function live() return torch.memoryStats().live_bytes end

local function fresh()
  collectgarbage()
  collectgarbage()
  return live()
end

local errmsg = require('spec.support.helpers').errmsg

local has = require('spec.support.helpers').has

describe('the garbage collector', function()
  it('frees a tensor nothing refers to', function()
    local base = fresh()
    do local _ = torch.DoubleTensor(1000):fill(1) end
    collectgarbage()
    collectgarbage()
    assert.are.equal(base, live())
  end)

  it('keeps memory while any view or storage handle lives', function()
    local base = fresh()
    local v, st
    do
      local t = torch.FloatTensor(100):fill(2)
      v = t:narrow(1, 1, 5)
      st = t:storage()
    end
    collectgarbage(); collectgarbage()
    assert.are.equal(400, live() - base)
    v = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(400, live() - base)     -- the storage handle still holds it
    assert.are.equal(2, st[100])
    st = nil
    collectgarbage(); collectgarbage()
    assert.are.equal(base, live())
  end)
end)

describe('t:free() / t:dispose()', function()
  it('releases the memory now, without the collector', function()
    local base = fresh()
    collectgarbage('stop')
    local t = torch.DoubleTensor(1000)
    local grown = live() - base
    t:free()
    local after = live() - base
    collectgarbage('restart')
    assert.are.equal(8000, grown)
    assert.are.equal(0, after)
    assert.is_true(t:isFreed())
  end)

  it('dispose is the same as free', function()
    local t = torch.FloatTensor(10)
    t:dispose()
    assert.is_true(t:isFreed())
  end)

  it("drops only this view's reference: the storage goes with its last view", function()
    local base = fresh()
    local t = torch.FloatTensor(100):fill(3)
    local v = t:narrow(1, 10, 5)
    t:free()
    assert.are.equal(400, live() - base)
    assert.are.equal(3, v[1])
    v:free()
    assert.are.equal(base, live())
  end)

  it('is harmless twice', function()
    local t = torch.FloatTensor(3)
    t:free()
    t:free()
    t:dispose()
    assert.is_true(t:isFreed())
  end)

  it('makes any later use a clear error', function()
    local t = torch.FloatTensor(3):fill(1)
    local other = torch.FloatTensor(3):fill(1)
    t:free()
    has(errmsg(function() return t:size() end),
        "bad argument #1 to 'size' (tensor was freed (used after :free()/:dispose()))")
    has(errmsg(function() return t:sum() end), "bad argument #1 to 'sum' (tensor was freed")
    has(errmsg(function() return torch.add(other, t) end), "bad argument #2 to 'add' (tensor was freed")
    has(errmsg(function() return t + 1 end), 'tensor was freed')
    has(errmsg(function() return t[1] end), 'tensor index: tensor was freed')
    has(errmsg(function() t[1] = 2 end), 'tensor was freed')
  end)

  it('checks its argument', function()
    has(errmsg(torch.FloatTensor().free, 42), "bad argument #1 to 'free' (tensor expected, got number)")
  end)
end)

describe('to-be-closed tensors and storages', function()
  it('frees a <close> tensor when its block ends', function()
    local base = fresh()
    local a = torch.FloatTensor(250):fill(1)
    local escaped
    do
      local x <close> = torch.add(a, a)         -- a new tensor: freed at 'end'
      escaped = x
      assert.are.equal(2, x[1])
      assert.are.equal(2000, live() - base)
    end
    assert.is_true(escaped:isFreed())
    assert.is_false(a:isFreed())
    assert.are.equal(1000, live() - base)
  end)

  it('frees it also when an error leaves the block', function()
    local base = fresh()
    local escaped
    local ok, err = pcall(function()
      local x <close> = torch.DoubleTensor(1000)
      escaped = x
      error('boom')
    end)
    assert.is_false(ok)
    has(tostring(err), 'boom')
    assert.is_true(escaped:isFreed())
    assert.are.equal(base, live())
  end)

  it('closes storages too', function()
    local base = fresh()
    local escaped
    do
      local s <close> = torch.DoubleStorage(100)
      escaped = s
      assert.are.equal(800, live() - base)
    end
    assert.are.equal(base, live())
    has(errmsg(function() return escaped:size() end), "bad argument #1 to 'size' (storage was freed)")
  end)

  it('a closed storage handle leaves the tensors viewing it intact', function()
    local t = torch.FloatTensor(4):fill(7)
    do
      local _ <close> = t:storage()
    end
    assert.are.equal(7, t[4])
    assert.are.equal(7, t:storage()[1])         -- a new handle to the same storage
  end)

  it('works inside a dispose scope: closing first, then the scope, is harmless', function()
    local base = fresh()
    local x
    do
      local _ <close> = torch.DisposeScope()
      do
        local y <close> = torch.FloatTensor(10)
        x = y
      end
      assert.is_true(x:isFreed())
    end
    assert.are.equal(base, live())
  end)
end)
