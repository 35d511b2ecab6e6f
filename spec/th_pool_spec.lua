-- th_pool (src/tensor/th_pool.c), the helper threads behind the split
-- products and layers: tests/pool_test.c calls th_pool_run,
-- th_pool_run_slot and th_pool_for from three threads at once, 15000 jobs,
-- and counts chunks not run exactly once or run on a wrong slot. Built and
-- run by `make test-pool` (outside the make that runs the specs: its
-- variables, sanitizer flags included, are not passed down).
describe('th_pool', function()
  it('runs every chunk of concurrent jobs exactly once, on a slot of its own', function()
    local p = assert(io.popen('env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -s test-pool 2>&1'))
    local out = p:read('a')
    local ok = p:close()
    assert(ok, 'make test-pool failed:\n' .. out)
    local callers = 0
    for bad in out:gmatch('caller %d+: 5000 jobs, (%d+) chunks') do
      callers = callers + 1
      assert.are.equal('0', bad, out)
    end
    assert.are.equal(3, callers, out)
  end)
end)
