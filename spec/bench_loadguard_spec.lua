-- bench/loadguard.lua: the one load guard of every bench that writes
-- docs/benchmarks.md (a section is written only when other processes kept
-- at most MAX_OTHER cores busy, or with LOADED_OK=1), and its /proc parsing.
require 'torch'
local guard = require 'bench.loadguard'

local function env(t) return function(k) return t[k] end end

describe('bench.loadguard', function()
  it('counts busy time from /proc/stat: user nice system irq softirq steal, not idle or iowait', function()
    local stat = 'cpu  100 20 30 5000 70 8 9 10 0 0\ncpu0 50 10 15 2500 35 4 4 5 0 0\n'
    assert.are.equal((100 + 20 + 30 + 8 + 9 + 10) / 100, guard.parseStat(stat, 100))
    assert.is_nil(guard.parseStat('nothing', 100))
    assert.is_number(guard.parseStat(assert(io.open('/proc/stat')):read('a')))
  end)

  it("counts a process's own and its waited-for children's CPU, a name with spaces and ')' included", function()
    -- fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    local s = '4242 (th (a) b) R 1 2 3 4 5 6 7 8 9 10 300 40 5 6 20 0 1 0 99'
    assert.are.equal((300 + 40 + 5 + 6) / 100, guard.parseSelfStat(s, 100))
    assert.is_nil(guard.parseSelfStat('garbage', 100))
  end)

  it('takes the load of others as machine busy time less its own, per wall second', function()
    local a = {busy = 10, own = 2, wall = 100}
    assert.are.equal(0.5, guard.otherLoad(a, {busy = 14, own = 4, wall = 104}))
    assert.are.equal(0, guard.otherLoad(a, {busy = 11, own = 4, wall = 104}))   -- never below 0
    assert.are.equal(0, guard.otherLoad(a, a))
    local m = guard.start()
    local x = 0
    for i = 1, 1e6 do x = x + i end   -- our own work does not count
    assert.is_true(m:other() >= 0)
  end)

  it('allows a write at most MAX_OTHER cores of other load, or with LOADED_OK=1', function()
    assert.are.equal(0.2, guard.MAX_OTHER)
    assert.is_true(guard.allowed(0.1, env{}))
    assert.is_true(guard.allowed(0.2, env{}))
    local ok, why = guard.allowed(0.7, env{})
    assert.is_false(ok)
    assert.are.equal('other processes kept 0.7 cores busy (more than 0.2)', why)
    assert.is_true(guard.allowed(0.7, env{LOADED_OK = '1'}))
    assert.is_false(guard.allowed(nil, env{}))
  end)

  it('writes the section only when allowed, leaving the rest of the page', function()
    local path = os.tmpname()
    local f = assert(io.open(path, 'w'))
    f:write('# Benchmarks\n\n## A\n\nold a\n\n## B\n\nold b\n')
    f:close()
    local function read() local h = assert(io.open(path)); local s = h:read('a'); h:close(); return s end
    local before = read()
    assert.is_false(guard.write(path, 'A', '## A\n\nnew a\n\n', 1.5, env{}))
    assert.are.equal(before, read())
    assert.is_true(guard.write(path, 'A', '## A\n\nnew a\n\n', 0.0, env{}))
    assert.are.equal('# Benchmarks\n\n## A\n\nnew a\n\n## B\n\nold b\n', read())
    assert.is_true(guard.write(path, 'B', '## B\n\nnew b\n', 3.0, env{LOADED_OK = '1'}))
    assert.are.equal('# Benchmarks\n\n## A\n\nnew a\n\n## B\n\nnew b\n', read())
    os.remove(path)
  end)

  it('is the only way the benches write docs/benchmarks.md', function()
    local p = io.popen("grep -ln 'mdsection' bench/*.lua")
    local users = {}
    for l in p:lines() do users[#users + 1] = l end
    p:close()
    table.sort(users)
    assert.are.same({'bench/loadguard.lua'}, users)   -- mdsection.write is called from there only
    p = io.popen("grep -l 'benchmarks.md' bench/*.lua")
    for l in p:lines() do
      local src = assert(io.open(l)):read('a')
      if src:find("benchmarks.md'", 1, true) and src:find('.write(', 1, true) then
        assert.is_truthy(src:find('loadguard', 1, true), l .. ' writes docs/benchmarks.md without the load guard')
      end
    end
    p:close()
  end)
end)
