-- torch.Tester / torch.TestSuite (lua/torch/Tester.lua): Torch7's test harness.
require 'torch'

-- runs a tester with io.write captured; returns ok, error, output
local function run(tester, ...)
  local out = {}
  local write = io.write
  io.write = function(...) for _, s in ipairs({...}) do out[#out + 1] = tostring(s) end end
  local ok, err = pcall(tester.run, tester, ...)
  io.write = write
  return ok, err, table.concat(out)
end

describe('torch.Tester', function()
  it('runs a suite and reports passes', function()
    local suite, tester = torch.TestSuite(), torch.Tester()
    function suite.numbers() tester:eq(1 + 1, 2, 'sum'); tester:assertalmosteq(0.1 + 0.2, 0.3, 1e-15) end
    function suite.tensors()
      tester:eq(torch.Tensor({1, 2}), torch.Tensor({1, 2 + 1e-12}), 1e-9)
      tester:assertTensorEq(torch.Tensor({{1, 2}}), torch.Tensor({{1, 2}}), 0)
      tester:assertTensorNe(torch.Tensor({1, 2}), torch.Tensor({1, 3}), 0.5)
      tester:assertTableEq({a = {1, 2}, b = 'x'}, {a = {1, 2}, b = 'x'})
      tester:assertError(function() error('x') end)
      tester:assertErrorPattern(function() torch.Tensor(2):t() end, "bad argument #1 to 't'")
      tester:assertNoError(function() return 1 end)
      tester:assertlt(1, 2); tester:assertge(2, 2); tester:assertne(1, 2)
    end
    local ok, err, out = run(tester:add(suite))
    assert.is_true(ok, err)
    assert.are.equal(table.concat({
      'Running 2 tests\n',
      '1/2 numbers ' .. string.rep('.', 58) .. ' [PASS]\n',
      '2/2 tensors ' .. string.rep('.', 58) .. ' [PASS]\n',
      'Completed 12 asserts in 2 tests with 0 failures and 0 errors\n'}), out)
  end)

  it('records failures and errors, runs every test, then raises', function()
    local suite, tester = torch.TestSuite(), torch.Tester()
    function suite.a_fails()
      tester:eq({1, 2}, {1, 3}, 'tables differ')
      tester:assertTensorEq(torch.Tensor({1, 2}), torch.Tensor({1, 2.5}), 0.1)
    end
    function suite.b_errors() error('boom') end
    function suite.c_passes() tester:assert(true) end
    local ok, err, out = run(tester:add(suite))
    assert.is_false(ok)
    assert.is_truthy(err:find('torch.Tester: 2 of 3 tests failed', 1, true))
    assert.is_truthy(out:find('1/3 a_fails %.+ %[FAIL%]'))
    assert.is_truthy(out:find('2/3 b_errors %.+ %[ERROR%]'))
    assert.is_truthy(out:find('3/3 c_passes %.+ %[PASS%]'))
    assert.is_truthy(out:find('Completed 3 asserts in 3 tests with 2 failures and 1 error', 1, true))
    assert.is_truthy(out:find('tables differ\nEQ failed at key 2: EQ failed: 2 ~= 3 with tolerance=0', 1, true))
    assert.is_truthy(out:find('TensorEQ(==) violation: max diff=0.5, tolerance=0.1', 1, true))
    assert.is_truthy(out:find('at spec/tester_spec.lua:%d+'))
    assert.is_truthy(out:find('boom', 1, true))
  end)

  it('runs only the named tests, and says when a name is unknown', function()
    local tester = torch.Tester()
    local ran = {}
    tester:add(function() ran[#ran + 1] = 'x' end, 'x')
    tester:add(function() ran[#ran + 1] = 'y' end, 'y')
    local ok = run(tester, 'y')
    assert.is_true(ok)
    assert.are.same({'y'}, ran)
    local ok2, err = run(tester, {'z'})
    assert.is_false(ok2)
    assert.is_truthy(err:find("torch.Tester:run: no test named 'z'", 1, true))
  end)

  it('stops after the first failed test with setEarlyAbort (the test itself goes on, as Torch7)', function()
    local tester = torch.Tester():setEarlyAbort(true)
    local ran = {}
    tester:add(function() tester:assert(false, 'first'); ran[#ran + 1] = 'a' end, 'a')
    tester:add(function() ran[#ran + 1] = 'b' end, 'b')
    local ok, _, out = run(tester)
    assert.is_false(ok)
    assert.are.same({'a'}, ran)
    assert.is_truthy(out:find('Aborting on first error', 1, true))
  end)

  it('rejects a test defined twice and a test that is not a function', function()
    local suite = torch.TestSuite()
    function suite.t() end
    assert.has_error(function() suite.t = function() end end, 'torch.TestSuite: Test t is already defined.')
    assert.has_error(function() torch.Tester():add({x = 1}) end,
      "torch.Tester:add: test 'x' must be a function, got number")
  end)
end)

describe('torch.Tester hooks, disable and warnings (as Torch7)', function()
  it('runs _setUp and _tearDown around every test, with its name, also when it fails', function()
    local suite, tester, log = torch.TestSuite(), torch.Tester(), {}
    function suite._setUp(name) log[#log + 1] = 'up ' .. name end
    function suite._tearDown(name) log[#log + 1] = 'down ' .. name end
    function suite.a() log[#log + 1] = 'a' end
    function suite.b() error('boom') end
    tester:add(suite)
    local ok, _, out = run(tester)
    assert.is_false(ok)
    assert.are.same({'up a', 'a', 'down a', 'up b', 'down b'}, log)
    assert.is_truthy(out:find('Running 2 tests', 1, true))
    assert.has_error(function() tester:add(function() end, '_setUp') end,
                     'torch.Tester:add: Only one set-up function allowed')
  end)

  it('skips disabled tests and counts them', function()
    local suite, tester, ran = torch.TestSuite(), torch.Tester(), {}
    function suite.a() ran.a = true end
    function suite.b() ran.b = true; error('not run') end
    tester:add(suite):disable('b')
    local ok, _, out = run(tester)
    assert.is_true(ok)
    assert.are.same({a = true}, ran)
    assert.is_truthy(out:find('[SKIP]', 1, true))
    assert.is_truthy(out:find('and 1 disabled', 1, true))
    assert.has_error(function() tester:disable('zzz') end, "torch.Tester:disable: unrecognized test 'zzz'")
    assert.has_error(function() tester:disable(3) end, 'torch.Tester:disable: test name or list of names expected, got number')
  end)

  it('warns about non-boolean asserts, assertne of tables and plain tables of tests', function()
    local tester = torch.Tester()
    tester:add({t = function() tester:assert(1); tester:assertne({}, {}) end})
    local ok, _, out = run(tester)
    assert.is_true(ok)
    assert.is_truthy(out:find('[+warning]', 1, true))
    assert.is_truthy(out:find('and 3 warnings', 1, true))
    assert.is_truthy(out:find('Should use TestSuite rather than plain lua table', 1, true))
    assert.is_truthy(out:find(':assert should only be used for boolean conditions', 1, true))
    assert.is_truthy(out:find(':assertne should only be used to compare basic lua objects', 1, true))
    assert.has_error(function() torch.Tester():add({x = {}}) end, 'torch.Tester:add: Nested sets of tests are not supported')
    assert.has_error(function() torch.Tester():add({x = function() end}, 'name') end,
                     'torch.Tester:add: Name parameter is forbidden for a table of tests, since its use is ambiguous')
  end)

  it('follows Torch7\'s assertion plumbing: _assert_sub, _success, _failure, argument checks', function()
    local t = torch.Tester()
    t._success = function() return true, 'ok' end
    t._failure = function(_, msg) return false, msg end
    local ok, msg = t:assertlt(2, 1, 'm')
    assert.is_false(ok)
    assert.are.equal('m\nLT failed: 2 >= 1', msg)
    assert.are.same({true, 'ok'}, {t:assertTensorEq(torch.Tensor{1}, torch.Tensor{1.05}, 'm', 0.1)})
    ok, msg = t:assertTensorEq(torch.Tensor{1}, torch.FloatTensor{1})
    assert.are.equal('The tensors have different types', msg)
    ok, msg = t:eq({a = 1}, {a = 1, b = 2})
    assert.are.equal('EQ failed: key b missing from the first table', msg)
    assert.has_error(function() t:assert(true, 'm', 'extra') end, 'Unexpected arguments passed to test function')
    assert.has_error(function() t:assertTensorEq(torch.Tensor{1}, 2) end, 'Second argument should be a Tensor')
    assert.has_error(function() t:eq(1, 1, 0.1, 0.2) end, 'Unexpected number argument; already have tolerance')
  end)
end)
