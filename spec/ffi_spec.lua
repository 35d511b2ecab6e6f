-- ffi (lua/ffi): the platform facts and C type sizes a Lua 5.4 runtime can
-- give; what needs LuaJIT raises an error naming the call (docs/compat.md).
local ffi = require 'ffi'

describe('ffi', function()
  it('knows the platform', function()
    assert.are.equal('Linux', ffi.os)
    assert.is_truthy(ffi.arch == 'x64' or ffi.arch == 'arm64')
    assert.is_true(ffi.abi('64bit'))
    assert.is_true(ffi.abi('le'))
    assert.is_false(ffi.abi('32bit'))
    assert.is_false(ffi.abi('win'))
  end)

  it('gives the sizes of C scalar, pointer and array types (LP64)', function()
    local want = {char = 1, short = 2, int = 4, long = 8, ['long long'] = 8, float = 4, double = 8,
                  ['unsigned char'] = 1, ['unsigned int'] = 4, size_t = 8, int32_t = 4, uint64_t = 8,
                  ['float*'] = 8, ['const char *'] = 8, ['void *'] = 8, ['int[10]'] = 40,
                  ['double[3]'] = 24, ['const int'] = 4}
    for ct, n in pairs(want) do assert.are.equal(n, ffi.sizeof(ct), ct) end
    assert.are.equal(12, ffi.sizeof('float[?]', 3))
    assert.are.equal(8, ffi.alignof('double'))
    assert.are.equal(4, ffi.alignof('int[4]'))
  end)

  it('refuses what needs LuaJIT with an error naming the call', function()
    for _, name in ipairs({'cdef', 'new', 'cast', 'typeof', 'metatype', 'gc', 'load', 'string', 'copy', 'fill'}) do
      local ok, err = pcall(ffi[name], 'int')
      assert.is_false(ok)
      assert.matches('^ffi%.' .. name .. ': .* need LuaJIT, and this runtime is Lua 5%.4', tostring(err):gsub('^[^:]*:%d+: ', ''))
    end
    local ok, err = pcall(function() return ffi.C.malloc end)
    assert.is_false(ok)
    assert.matches('ffi.C.malloc: calling C functions needs LuaJIT', tostring(err), 1, true)
  end)

  it('refuses unknown types and bad counts clearly', function()
    local ok, err = pcall(ffi.sizeof, 'struct foo')
    assert.is_false(ok)
    assert.matches("ffi.sizeof: 'struct foo' is not a C scalar, pointer or array type known here", tostring(err), 1, true)
    ok, err = pcall(ffi.sizeof, 'int[?]')
    assert.is_false(ok)
    assert.matches("ffi.sizeof: 'int[?]' needs a count", tostring(err), 1, true)
    ok, err = pcall(ffi.sizeof, 3)
    assert.is_false(ok)
    assert.matches('ffi.sizeof: a C type name (string) expected, got number', tostring(err), 1, true)
  end)
end)
