-- Torch7's own tensors.t7 / tensors_ascii.t7 fixtures: loading them must give
-- exactly the description Torch7 wrote in tensors.lua-expected.txt (values,
-- geometry, storage sharing, object identity, cycles), and saving what was
-- loaded must give files Torch7 reads the same way.

require 'torch'

local FIX = require 'spec.support.fixtures'

local readfile = require('spec.support.helpers').readfile

local function tmpname()
  local p = os.tmpname()
  return p
end

-- --- the describer: the text format of tensors.lua-expected.txt ----------

local function g17(v) return string.format('%.17g', v) end

local function keyorder(a, b)
  local ta, tb = type(a), type(b)
  local ra = ta == 'boolean' and 0 or ta == 'number' and 1 or 2
  local rb = tb == 'boolean' and 0 or tb == 'number' and 1 or 2
  if ra ~= rb then return ra < rb end
  if ta == 'boolean' then return (a and 1 or 0) < (b and 1 or 0) end
  return a < b
end

local function keyname(k)
  if type(k) == 'string' then return '.' .. k end
  if type(k) == 'number' then return '[' .. g17(k) .. ']' end
  return '[' .. tostring(k) .. ']'
end

-- element i (0-based, row-major) of a tensor, read through its storage
local function rowmajor(t)
  local out = {}
  local nd = t:dim()
  if nd == 0 then return out end
  local s, off = t:storage(), t:storageOffset()
  local idx = {}
  for d = 1, nd do idx[d] = 0 end
  for _ = 1, t:nElement() do
    local p = off
    for d = 1, nd do p = p + idx[d] * t:stride(d) end
    out[#out + 1] = g17(s[p])
    for d = nd, 1, -1 do
      idx[d] = idx[d] + 1
      if idx[d] < t:size(d) then break end
      idx[d] = 0
    end
  end
  return out
end

local function storagevalues(s)
  local out = {}
  for i = 1, #s do out[i] = g17(s[i]) end
  return table.concat(out, ' ')
end

local function render(root)
  local lines = {}
  local seen = {}        -- table/tensor -> path
  local sids, nsid = {}, 0
  local function sid(s)
    if sids[s] then return sids[s], true end
    nsid = nsid + 1
    sids[s] = 'S' .. nsid
    return sids[s], false
  end
  local function walk(v, p)
    local tn = torch.typename(v)
    if torch.isTensor(v) then
      if seen[v] then
        lines[#lines + 1] = p .. ' : ' .. tn .. ' -> same tensor object as ' .. seen[v]
        return
      end
      seen[v] = p
      lines[#lines + 1] = p .. ' : ' .. tn
      local sz, st = {}, {}
      for d = 1, v:dim() do sz[d], st[d] = v:size(d), v:stride(d) end
      lines[#lines + 1] = string.format('  nDimension=%d size={%s} stride={%s} storageOffset=%d (1-based) contiguous=%s',
        v:dim(), table.concat(sz, ','), table.concat(st, ','), v:storageOffset(), tostring(v:isContiguous()))
      local s = v:storage()
      if s == nil then
        lines[#lines + 1] = '  storage=nil'
        return
      end
      local id, old = sid(s)
      lines[#lines + 1] = string.format('  storage=%s (%s, %d elements)%s', id, torch.typename(s), #s,
                                        old and ' [same storage object as above]' or '')
      if not old then lines[#lines + 1] = '  storage values: ' .. storagevalues(s) end
      lines[#lines + 1] = '  tensor values (row-major): ' .. table.concat(rowmajor(v), ' ')
    elseif torch.isStorage(v) then
      local id, old = sid(v)
      lines[#lines + 1] = string.format('%s : %s size=%d id=%s%s', p, tn, #v, id, old and ' [same storage object as above]' or '')
      lines[#lines + 1] = '  values: ' .. storagevalues(v)
    elseif type(v) == 'table' then
      if seen[v] then
        lines[#lines + 1] = p .. ' : table -> same table as ' .. seen[v]
        return
      end
      seen[v] = p
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys, keyorder)
      lines[#lines + 1] = string.format('%s : table (%d keys)', p, #keys)
      for _, k in ipairs(keys) do walk(v[k], p .. keyname(k)) end
    elseif type(v) == 'string' then
      local hex = {}
      for i = 1, #v do hex[i] = string.format('%02x', v:byte(i)) end
      lines[#lines + 1] = string.format('%s : string len=%d bytes(hex)=%s printable=%s', p, #v,
                                        table.concat(hex, ' '), (v:gsub('[^\32-\126]', '?')))
    elseif type(v) == 'number' then
      lines[#lines + 1] = string.format('%s : number value=%s (%%.17g: %s)', p, g17(v), g17(v))
    elseif type(v) == 'boolean' then
      lines[#lines + 1] = string.format('%s : boolean value=%s', p, tostring(v))
    else
      lines[#lines + 1] = p .. ' : ' .. type(v)
    end
  end
  walk(root, 'root')
  return lines
end

local function expected()
  local lines = {}
  for l in readfile(FIX .. 'tensors.lua-expected.txt'):gmatch('[^\n]+') do
    if not l:match('^#') then lines[#lines + 1] = l end
  end
  return lines
end

local function same_lines(got, want)
  for i = 1, math.max(#got, #want) do
    assert.are.equal(want[i], got[i], 'line ' .. i)
  end
end

describe('Torch7 tensors.t7 fixture', function()
  it('loads the binary file exactly as Torch7 describes it', function()
    same_lines(render(torch.load(FIX .. 'tensors.t7')), expected())
  end)

  it('loads the ascii file exactly as Torch7 describes it', function()
    same_lines(render(torch.load(FIX .. 'tensors_ascii.t7', 'ascii')), expected())
  end)

  it('gives Lua integers for integral numbers and keeps 2.5 and true keys', function()
    local o = torch.load(FIX .. 'tensors.t7')
    assert.are.equal('integer', math.type(o.nested.int))
    assert.are.equal(42, o.nested.int)
    assert.are.equal(-7, o.nested.neg)
    assert.are.equal('float', math.type(o.nested.frac))
    assert.are.equal(2 ^ 53, o.nested.big)
    assert.are.equal('one', o.nested[1])
    assert.are.equal('float key', o.nested[2.5])
    assert.are.equal('bool key', o.nested[true])
    assert.are.equal(30, #o.nested.str_special)
  end)

  it('keeps shared storages shared: a write through one view shows in the others', function()
    for _, f in ipairs{{'tensors.t7'}, {'tensors_ascii.t7', 'ascii'}} do
      local o = torch.load(FIX .. f[1], f[2])
      local sh = o.shared
      assert.is_true(sh.rows23:storage() == sh.storage)
      assert.is_true(sh.cols34:storage() == sh.storage)
      sh.rows23[1][3] = -100       -- element 8 of the storage, also cols34[2][1]
      assert.are.equal(-100, sh.cols34[2][1])
      assert.are.equal(-100, sh.storage[8])
      assert.is_true(o.same_tensor_twice[1] == o.same_tensor_twice[2])
      assert.is_true(o.nested.self == o.nested)
      assert.is_true(o.nested.list[4].up == o.nested)
      assert.is_nil(o.empty:storage())
      assert.are.equal(0, o.empty:dim())
    end
  end)

  it('re-saves to a binary file of the same size that loads to the same description', function()
    local o = torch.load(FIX .. 'tensors.t7')
    local p = tmpname()
    torch.save(p, o)
    -- table order differs from LuaJIT's, so bytes differ in order only: same length
    assert.are.equal(#readfile(FIX .. 'tensors.t7'), #readfile(p))
    same_lines(render(torch.load(p)), expected())
    os.remove(p)
  end)

  it('re-saves to an ascii file that loads to the same description', function()
    local o = torch.load(FIX .. 'tensors_ascii.t7', 'ascii')
    local p = tmpname()
    torch.save(p, o, 'ascii')
    same_lines(render(torch.load(p, 'ascii')), expected())
    os.remove(p)
  end)

  it('writes a single tensor byte for byte as Torch7 does', function()
    -- in random.t7 the root table is object 1 and its 'rand' tensor object 2
    -- with storage 3; torch.save of {t} numbers them the same way, so the
    -- tensor's bytes must be the fixture's bytes exactly
    local raw = readfile(FIX .. 'random.t7')
    local r = torch.load(FIX .. 'random.t7')
    local mine = torch.serialize({r.rand})
    local value = mine:sub(1 + 4 + 4 + 4 + 4 + 8)   -- after table tag, index, count, key (tag + double)
    assert.are.equal(string.pack('<i4i4', 4, 2), value:sub(1, 8))
    local at = raw:find(value, 1, true)
    assert.is_truthy(at)
    assert.are.equal(value, raw:sub(at, at + #value - 1))
  end)

  it('writes a storage and strings exactly in the documented layout', function()
    local s = torch.DoubleStorage({0.5, -1.25, 1e100, 3})
    local want = string.pack('<i4i4', 4, 1) .. string.pack('<i4', 3) .. 'V 1' ..
                 string.pack('<i4', 19) .. 'torch.DoubleStorage' .. string.pack('<i8dddd', 4, 0.5, -1.25, 1e100, 3)
    assert.are.equal(want, torch.serialize(s))
    assert.are.equal(string.pack('<i4i4', 2, 5) .. 'a\0b\nc', torch.serialize('a\0b\nc'))
    assert.are.equal(string.pack('<i4d', 1, 42), torch.serialize(42))
    assert.are.equal(string.pack('<i4i4', 5, 0), torch.serialize(false))
    assert.are.equal(string.pack('<i4', 0), torch.serialize(nil))
  end)

  it('writes the ascii layout of the fixture (raw bytes for ByteStorage, no line for empty lists)', function()
    assert.are.equal('4\n1\n3\nV 1\n16\ntorch.ByteTensor\n1\n3\n1\n1\n4\n2\n3\nV 1\n17\ntorch.ByteStorage\n3\n\0\1\1\n',
                     torch.serialize(torch.ByteTensor({0, 1, 1}), 'ascii'))
    assert.are.equal('4\n1\n3\nV 1\n18\ntorch.DoubleTensor\n0\n1\n0\n', torch.serialize(torch.Tensor(), 'ascii'))
    assert.are.equal('1\n0.10000000000000001\n', torch.serialize(0.1, 'ascii'))
    local f = torch.FloatTensor({-0.52144306898117065})
    assert.is_truthy(torch.serialize(f, 'ascii'):find('\n-0.521443069\n', 1, true))
  end)

  it('reads the ascii fixture bytes of the FloatTensor back to exact float32 values', function()
    local o = torch.load(FIX .. 'tensors_ascii.t7', 'ascii')
    local b = torch.load(FIX .. 'tensors.t7')
    for i = 1, 4 do assert.are.equal(b.float_randn4[i], o.float_randn4[i]) end
  end)
end)
