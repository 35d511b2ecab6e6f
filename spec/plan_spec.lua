-- torch._C.plan: the memory planner seen from Lua. Random interval sets
-- checked by brute force (tensors alive together never overlap, offsets
-- aligned, arena >= lower bound, the lower bound itself), determinism, pool
-- independence, hand-made cases with known optimal answers, both input
-- forms, the debug log, and the error messages.

require 'torch'

local plan = torch._C.plan
local PLANNERS = {'best', 'greedy_size', 'greedy_conflict', 'greedy_lifetime', 'peak', 'sets'}

local errmsg = require('spec.support.helpers').errmsg

local function roundup(x, a)
  return (x + a - 1) // a * a
end

-- every property of a plan, by brute force
local function verify(iv, r, alignment, planner)
  alignment = alignment or 64
  local n = #iv
  assert.are.equal(n, #r.offsets)
  local lb, top = {}, {}
  for i = 1, n do
    local a = iv[i].align or alignment
    local pool = iv[i].pool or 1
    local o, s = r.offsets[i], r.sizes[i]
    assert.are.equal(roundup(iv[i].bytes, a), s)
    assert.is_true(o >= 0 and o % a == 0, 'offset not aligned')
    assert.is_true(o + s <= r.arena[pool], 'tensor past the arena')
    top[pool] = math.max(top[pool] or 0, o + s)
    local alive = 0
    for j = 1, n do
      local pj = iv[j].pool or 1
      if pj == pool and iv[j].first <= iv[i].first and iv[i].first <= iv[j].last then alive = alive + r.sizes[j] end
      if j < i and pj == pool and iv[i].first <= iv[j].last and iv[j].first <= iv[i].last and s > 0 and r.sizes[j] > 0 then
        local oj, sj = r.offsets[j], r.sizes[j]
        assert.is_true(o + s <= oj or oj + sj <= o,
          ('%s: tensors %d and %d are alive together and overlap'):format(planner or '?', i, j))
        if r.sets then assert.are_not.equal(r.sets[i], r.sets[j]) end
      end
    end
    lb[pool] = math.max(lb[pool] or 0, alive)
  end
  for pool, b in pairs(lb) do
    assert.are.equal(b, r.lower_bound[pool])
    assert.is_true(r.arena[pool] >= b)
    if not r.sets then assert.are.equal(top[pool], r.arena[pool]) end
  end
end

local function random_intervals(n, steps, npools, mixed_align)
  local iv = {}
  for i = 1, n do
    local first = math.random(0, steps - 1)
    local r = math.random(10)
    local len = r <= 5 and math.random(0, 2) or r <= 8 and math.random(0, steps // 3) or math.random(0, steps)
    r = math.random(10)
    local bytes = r == 1 and 0 or r <= 4 and 64 * math.random(8) or r <= 8 and math.random(5000) or math.random(200000)
    iv[i] = {first = first, last = first + len, bytes = bytes, pool = math.random(npools) * 2 - 3}
    if mixed_align and math.random(4) == 1 then iv[i].align = 2 ^ math.random(0, 9) // 1 end
  end
  return iv
end

describe('torch._C.plan', function()
  before_each(function() math.randomseed(1234) end)

  it('gives valid plans on random interval sets, for every planner', function()
    for round = 1, 90 do
      local steps = round % 3 == 0 and math.random(1, 30) or round % 3 == 1 and math.random(30, 300)
                    or math.random(300, 3000)
      local iv = random_intervals(math.random(1, 40), steps, math.random(3), round % 3 == 0)
      for _, planner in ipairs(PLANNERS) do
        local r = plan(iv, {planner = planner, budget_ms = 2})
        verify(iv, r, 64, planner)
        assert.are.equal(planner, r.planner)
      end
    end
  end)

  it('is deterministic: the same input gives the same plan', function()
    for _ = 1, 40 do
      local iv = random_intervals(60, 50, 2)
      for _, planner in ipairs(PLANNERS) do
        local a = plan(iv, {planner = planner})
        local b = plan(iv, {planner = planner})
        assert.are.same(a.offsets, b.offsets)
        assert.are.same(a.arena, b.arena)
        assert.are.same(a.sets, b.sets)
      end
    end
  end)

  it('plans each pool independently of the others', function()
    for _ = 1, 30 do
      local iv = random_intervals(50, 40, 3)
      local mixed = plan(iv)
      for _, pool in ipairs{-1, 1, 3} do
        local sub, map = {}, {}
        for i, t in ipairs(iv) do
          if t.pool == pool then sub[#sub + 1] = t; map[#sub] = i end
        end
        if #sub > 0 then
          local alone = plan(sub)
          assert.are.equal(mixed.arena[pool], alone.arena[pool])
          for k, i in ipairs(map) do assert.are.equal(mixed.offsets[i], alone.offsets[k]) end
        end
      end
    end
  end)

  it('never exceeds the lower bound by much and beats OptNet-style sets on random sets', function()
    local total, sets = 0, 0
    for _ = 1, 20 do
      local iv = random_intervals(200, 100, 1)
      local r = plan(iv)
      local s = plan(iv, {planner = 'sets'})
      total = total + r.arena[-1] / r.lower_bound[-1]
      sets = sets + s.arena[-1] / s.lower_bound[-1]
    end
    assert.is_true(total / 20 < 1.1, 'mean arena / lower bound ' .. total / 20)
    assert.is_true(total < sets)
  end)

  it('keeps a chain of equal tensors in two buffers', function()
    local iv = {}
    for i = 1, 100 do iv[i] = {first = i, last = i + 1, bytes = 1000} end
    for _, planner in ipairs(PLANNERS) do
      local r = plan(iv, {planner = planner})
      assert.are.equal(2048, r.lower_bound[1])
      assert.are.equal(2048, r.arena[1])
      if planner == 'sets' then assert.are.equal(2, #r.set_bytes) end
    end
  end)

  it('stacks tensors that are all alive together', function()
    local iv, sum = {}, 0
    for i = 1, 30 do
      iv[i] = {first = i % 4, last = 50 + i % 3, bytes = 64 * i}
      sum = sum + 64 * i
    end
    for _, planner in ipairs(PLANNERS) do
      local r = plan(iv, {planner = planner})
      assert.are.equal(sum, r.arena[1])
      assert.are.equal(sum, r.lower_bound[1])
    end
  end)

  it('best fit reaches the optimum where first fit does not', function()
    -- longest-lived first; at steps 10..11 the gaps are [0,30) and [40,60):
    -- first fit puts the 20-byte x at 0 and the 30-byte y on top
    local iv = {
      {first = -1, last = 9, bytes = 30}, {first = 3, last = 11, bytes = 10},
      {first = 1, last = 8, bytes = 20}, {first = 5, last = 11, bytes = 10},
      {first = 10, last = 11, bytes = 20}, {first = 11, last = 11, bytes = 30},
    }
    local best = plan(iv, {planner = 'greedy_lifetime', alignment = 1})
    local first = plan(iv, {planner = 'greedy_lifetime', alignment = 1, fit = 'first'})
    verify(iv, best, 1)
    verify(iv, first, 1)
    assert.are.equal(70, best.lower_bound[1])
    assert.are.equal(70, best.arena[1])
    assert.are.same({40, 0}, {best.offsets[5], best.offsets[6]})
    assert.are.equal(100, first.arena[1])
    assert.are.equal(70, plan(iv, {alignment = 1}).arena[1])
  end)

  it('shares bytes across sizes where OptNet sets cannot', function()
    local iv = {
      {first = 0, last = 1, bytes = 1000}, {first = 0, last = 3, bytes = 10},
      {first = 2, last = 3, bytes = 500}, {first = 2, last = 3, bytes = 500},
    }
    local r = plan(iv, {alignment = 1})
    local s = plan(iv, {alignment = 1, planner = 'sets'})
    assert.are.equal(1010, r.arena[1])
    assert.are.equal(1010, r.lower_bound[1])
    assert.are.equal(1510, s.arena[1])
    assert.are.same({1, 2, 1, 3}, s.sets)
    assert.are.same({1000, 10, 500}, s.set_bytes)
  end)

  it('honours per-tensor alignment and the default alignment', function()
    local iv = {
      {first = 0, last = 5, bytes = 3, align = 1}, {first = 0, last = 5, bytes = 100, align = 256},
      {first = 0, last = 5, bytes = 1},
    }
    local r = plan(iv, {alignment = 8})
    verify(iv, r, 8)
    assert.are.same({3, 256, 8}, r.sizes)
    assert.are.equal(0, r.offsets[2] % 256)
  end)

  it('takes parallel arrays as well as records, with the same result', function()
    local iv = random_intervals(300, 100, 2)
    local cols = {first = {}, last = {}, bytes = {}, pool = {}}
    for i, t in ipairs(iv) do
      cols.first[i], cols.last[i], cols.bytes[i], cols.pool[i] = t.first, t.last, t.bytes, t.pool
    end
    local a, b = plan(iv), plan(cols)
    assert.are.same(a.offsets, b.offsets)
    assert.are.same(a.arena, b.arena)
    local one = plan({first = {1, 2}, last = {1, 2}, bytes = {10, 10}, pool = 7})
    assert.are.same({[7] = 64}, one.arena)
  end)

  it('handles empty plans, zero-byte tensors and extreme steps', function()
    local r = plan({})
    assert.are.same({}, r.offsets)
    assert.are.same({}, r.arena)
    r = plan({{first = 0, last = 9, bytes = 0}, {first = 0, last = 9, bytes = 0}})
    assert.are.same({0, 0}, r.offsets)
    assert.are.equal(0, r.arena[1])
    r = plan({{first = math.mininteger, last = math.maxinteger, bytes = 64},
              {first = math.maxinteger, last = math.maxinteger, bytes = 64}})
    assert.are.equal(128, r.arena[1])
  end)

  it('says why each tensor went where it did when asked', function()
    local r = plan({{first = 1, last = 2, bytes = 100}, {first = 2, last = 3, bytes = 100},
                    {first = 3, last = 4, bytes = 100}}, {debug = true})
    assert.are.equal(3, #r.log)
    local text = table.concat(r.log, '\n')
    assert.is_truthy(text:find('#2 (128 bytes, steps 2..3): offset 128 on top, cannot share', 1, true))
    assert.is_truthy(text:find('#3 (128 bytes, steps 3..4): offset 0', 1, true))
    assert.is_nil(plan({}).log)
    local s = plan({{first = 1, last = 2, bytes = 100}, {first = 2, last = 3, bytes = 100}},
                   {debug = true, planner = 'sets'})
    assert.is_truthy(table.concat(s.log, '\n'):find('new set 1, cannot share: every set has a member alive at step 2', 1, true))
  end)

  it('plans 100,000 tensors quickly', function()
    -- a training-shaped trace: activations kept for backward, short-lived gradients
    local n = 50000
    local cols = {first = {}, last = {}, bytes = {}}
    for i = 1, n do
      local b = 4096 * (1 + (i * 7) % 5)
      cols.first[2 * i - 1], cols.last[2 * i - 1], cols.bytes[2 * i - 1] = i, 2 * n + 1 - i, b
      cols.first[2 * i], cols.last[2 * i], cols.bytes[2 * i] = 2 * n - i, 2 * n + 1 - i, b
    end
    local t0 = os.clock()
    local r = plan(cols)
    local dt = os.clock() - t0
    io.stderr:write(('\nplan_spec: 100,000 tensors planned in %.0f ms, arena / lower bound = %.4f\n')
                    :format(dt * 1e3, r.arena[1] / r.lower_bound[1]))
    assert.are.equal(2 * n, #r.offsets)
    assert.is_true(r.arena[1] >= r.lower_bound[1])
  end)

  describe('errors', function()
    it('names the bad interval and field', function()
      assert.are.equal("torch._C.plan: interval 2: 'last' (0) is before 'first' (1)",
        errmsg(plan, {{first = 0, last = 0, bytes = 1}, {first = 1, last = 0, bytes = 1}}))
      assert.are.equal("torch._C.plan: interval 1: 'bytes' must be >= 0, got -1",
        errmsg(plan, {{first = 1, last = 2, bytes = -1}}))
      assert.are.equal("torch._C.plan: interval 1: 'first' must be an integer, got 1.5",
        errmsg(plan, {{first = 1.5, last = 2, bytes = 1}}))
      assert.are.equal("torch._C.plan: interval 1: 'bytes' must be an integer, got nil",
        errmsg(plan, {{first = 1, last = 2}}))
      assert.are.equal("torch._C.plan: interval 1: 'bytes' must be an integer, got string",
        errmsg(plan, {{first = 1, last = 2, bytes = '8'}}))
      assert.are.equal("torch._C.plan: interval 1: 'pool' must be an integer, got 0.5",
        errmsg(plan, {{first = 1, last = 2, bytes = 8, pool = 0.5}}))
      assert.are.equal("torch._C.plan: interval 1: 'align' must be a power of two, got 3",
        errmsg(plan, {{first = 1, last = 2, bytes = 8, align = 3}}))
      assert.are.equal("torch._C.plan: interval 1 must be a table {first=, last=, bytes=[, pool=, align=]}, got number",
        errmsg(plan, {5}))
      assert.are.equal("torch._C.plan: interval 2: 'bytes' must be >= 0, got -3",
        errmsg(plan, {first = {1, 2}, last = {1, 2}, bytes = {1, -3}}))
    end)

    it('rejects malformed inputs and options', function()
      assert.are.equal("bad argument #1 to 'torch._C.plan' (table of intervals expected, got nil)", errmsg(plan, nil))
      assert.are.equal("bad argument #2 to 'torch._C.plan' (table of options expected, got number)",
        errmsg(plan, {}, 5))
      assert.is_truthy(errmsg(plan, {first = 1, last = 2, bytes = 3}):find('one interval? wrap it in {}', 1, true))
      assert.are.equal('torch._C.plan: intervals.last has 1 entries, intervals.first has 2',
        errmsg(plan, {first = {1, 2}, last = {2}, bytes = {1, 1}}))
      assert.are.equal('torch._C.plan: intervals.bytes must be an array, got nil',
        errmsg(plan, {first = {1}, last = {2}}))
      assert.are.equal("torch._C.plan: opts.planner must be 'best', 'greedy_size', 'greedy_conflict', "
        .. "'greedy_lifetime', 'peak' or 'sets', got 'fast'", errmsg(plan, {}, {planner = 'fast'}))
      assert.are.equal("torch._C.plan: opts.fit must be 'best' or 'first', got 'worst'",
        errmsg(plan, {}, {fit = 'worst'}))
      assert.are.equal('torch._C.plan: opts.alignment must be a power of two, got 48',
        errmsg(plan, {}, {alignment = 48}))
      assert.are.equal('torch._C.plan: opts.budget_ms must be a number >= 0, got -1',
        errmsg(plan, {}, {budget_ms = -1}))
      assert.are.equal('torch._C.plan: opts.iterations must be >= 0, got -2',
        errmsg(plan, {}, {iterations = -2}))
      assert.are.equal('torch._C.plan: opts.seed must be an integer, got 0.5',
        errmsg(plan, {}, {seed = 0.5}))
    end)
  end)
end)
