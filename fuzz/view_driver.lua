-- view_driver.lua: fuzz_view.c's program, replayed through the Lua API.
-- spec/fuzz_regression_spec.lua runs the inputs fuzz_view found (in
-- fuzz/regressions/view/) through this: the same bytes decode to the same
-- storage, set() and view operations (dims and indices shifted to Lua's
-- 1-based convention), and after every operation that succeeds the view
-- must lie inside its storage and its elements must read back (clone()).
-- Returns function(bytes) -> number of operations that succeeded; raises
-- on a broken invariant. Failures of the operations themselves are the
-- expected outcome for most inputs and must be Lua errors with a message.
require 'torch'

local edges = {0, 1, 2, 3, -1, -2, math.maxinteger, math.mininteger, 1 << 31, 1 << 32, 1 << 62,
               (1 << 62) + 1, math.maxinteger // 2, math.maxinteger // 3, 3037000500, 4096}

local function reader(bytes)
  local pos = 1
  local r = {}
  function r.u8()
    local b = bytes:byte(pos)
    if b == nil then return 0 end
    pos = pos + 1
    return b
  end
  function r.left() return #bytes - pos + 1 end
  function r.int()
    local tag = r.u8()
    if tag < 64 then return tag % 8 end
    if tag < 160 then return tag - 64 - 16 end
    if tag < 240 then return edges[tag % #edges + 1] end
    local v = 0
    for _ = 1, 8 do v = (v << 8) | r.u8() end
    return v
  end
  return r
end

-- the elements the view reaches, as floats (exact enough to compare with small storages)
local function check(t, op)
  if t:dim() == 0 or t:nElement() == 0 then return end
  local lo, hi = t:storageOffset() - 1.0, t:storageOffset() - 1.0
  for d = 1, t:dim() do
    local span = (t:size(d) - 1.0) * t:stride(d)
    if span < 0 then lo = lo + span else hi = hi + span end
  end
  local n = t:storage() and t:storage():size() or -1
  if lo < 0 or hi >= n then
    error(string.format('%s: view reaches [%.0f, %.0f] outside its storage of %d elements', op, lo, hi, n))
  end
  if t:nElement() <= 4096 then assert(t:clone():nElement() == t:nElement()) end
end

local function longs(list)
  local s = torch.LongStorage(#list)
  for i, v in ipairs(list) do s[i] = v end
  return s
end

local function run(bytes)
  local in_ = reader(bytes)
  local ok_count = 0
  local s = torch.FloatStorage(in_.u8() * 16 + in_.u8()):fill(0)
  local t = torch.FloatTensor()
  local nd = in_.u8() % 6
  local sz, st = {}, {}
  for d = 1, nd do sz[d], st[d] = in_.int(), in_.int() end
  local off = in_.int()
  local withStride = in_.u8() & 1 == 1
  -- Lua's set takes a 1-based offset; math.maxinteger + 1 wraps, as any bad offset must fail
  local ok, err = pcall(t.set, t, s, off + 1, longs(sz), withStride and longs(st) or nil)
  if ok then check(t, 'set'); ok_count = ok_count + 1 else assert(type(err) == 'string' and #err > 0) end
  for _ = 1, 16 do
    if in_.left() <= 0 then break end
    local op = in_.u8() % 11
    local dim = in_.u8() % 8          -- C's dim + 1: 0 is out of range in both
    local name, f, args
    if op == 0 then
      local first, len = in_.int(), in_.int()
      name, f, args = 'narrow', t.narrow, {dim, first + 1, len}
    elseif op == 1 then
      name, f, args = 'select', t.select, {dim, in_.int() + 1}
    elseif op == 2 then
      name, f, args = 'transpose', t.transpose, {dim, in_.u8() % 8}
    elseif op == 3 then
      local perm = {}
      for d = 1, t:dim() do perm[d] = in_.u8() % (t:dim() + 1) + 1 end
      name, f, args = 'permute', t.permute, perm
    elseif op == 4 then
      local size, step = in_.int(), in_.int()
      name, f, args = 'unfold', t.unfold, {dim, size, step}
    elseif op == 5 then
      name, f, args = 'squeeze', t.squeeze, {}
    elseif op == 6 then
      name, f, args = 'unsqueeze', t.unsqueeze, {dim}
    elseif op == 7 or op == 8 then
      local n, sizes = in_.u8() % 7, {}
      for d = 1, n do sizes[d] = in_.int() end
      name, f, args = op == 7 and 'expand' or 'view', op == 7 and t.expand or t.view, {longs(sizes)}
    elseif op == 9 then
      local n, sizes = in_.u8() % 5, {}
      for d = 1, n do sizes[d] = in_.int() & 0xff end
      local r = torch.FloatTensor():set(t)
      name, f, args = 'resize', function(_, ...) return r:resize(...) end, {longs(sizes)}
    else
      local o = in_.int()
      local n, sizes, strides = in_.u8() % 5, {}, {}
      for d = 1, n do sizes[d], strides[d] = in_.int(), in_.int() end
      local r = torch.FloatTensor():set(t)
      local storage = t:storage() or torch.FloatStorage()
      name, f, args = 'set', function() return r:set(storage, o + 1, longs(sizes), longs(strides)) end, {}
    end
    local okop, res = pcall(f, t, table.unpack(args))
    if okop then
      -- select of a 1D tensor gives a number (Torch7); keep the tensor then
      if torch.isTensor(res) then
        check(res, name)
        t = res
      end
      ok_count = ok_count + 1
    else
      assert(type(res) == 'string' and #res > 0, name .. ' failed without a message')
    end
  end
  return ok_count
end

return function(bytes)
  -- views over 2^40 elements are fine requests; granting them is not the point here
  local old = torch._C.allocLimit(64 << 20)
  local ok, res = pcall(run, bytes)
  torch._C.allocLimit(old)
  if not ok then error(res, 0) end
  return res
end
