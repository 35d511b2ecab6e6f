-- totem: the asserts (values and messages), totem.Tester (ret, storages,
-- patterns, command line, log file) and totem.nn's checks, which must pass
-- a correct module and catch a broken one.
require 'torch'
require 'nn'
require 'totem'

local T = torch.DoubleTensor

-- runs tester:run(...) quietly with a given command line; returns ok, err
local function quietRun(tester, argv, ...)
  local savedArg, savedWrite = _G.arg, io.write
  _G.arg = argv or {[0] = 'spec'}
  io.write = function() end
  local ok, err = pcall(tester.run, tester, ...)
  _G.arg, io.write = savedArg, savedWrite
  return ok, err
end

describe('totem asserts', function()
  it('compare tensors within a tolerance, with Torch7 messages', function()
    local a, b = T{1, 2, 3}, T{1, 2, 3.5}
    assert.same({true}, {totem.areTensorsEq(a, a:clone())})
    local ok, msg = totem.areTensorsEq(a, b, 0.1)
    assert.is_false(ok)
    assert.are.equal('TensorEQ(==) violation: max diff=0.5, tolerance=0.1', msg)
    assert.is_true((totem.areTensorsEq(a, b, 0.5)))
    assert.is_true((totem.areTensorsNe(a, b, 0.1)))
    assert.is_false((totem.areTensorsNe(a, b, 0.5)))
    -- the inputs are left alone (a DoubleTensor's :double() is itself)
    assert.are.equal(1, a[1])
  end)

  it('tell sizes, dimensions and types apart', function()
    assert.same({false, 'The tensors have different dimensions'}, {totem.areTensorsEq(T(2), T(1, 2))})
    assert.same({false, 'The tensors have different sizes'}, {totem.areTensorsEq(T(2):zero(), T(3):zero())})
    assert.same({false, 'The tensors have different types'},
                {totem.areTensorsEq(T(2):zero(), torch.FloatTensor(2):zero())})
    assert.same({true, 'Both tensors are empty'}, {totem.areTensorsEq(T(), T())})
    assert.is_true((totem.areTensorsEq(torch.ByteTensor{1, 2}, torch.ByteTensor{1, 2})))
    assert.is_false((totem.areTensorsEq(T{0 / 0}, T{0 / 0}, 1)))
  end)

  it('raise from assert* with the failure message and check their arguments', function()
    local ok, err = pcall(totem.assertTensorEq, T{1}, T{2})
    assert.is_false(ok)
    assert.are.equal('TensorEQ(==) violation: max diff=1.0, tolerance=0', err)
    assert.has_error(function() totem.assertTensorEq(nil, T{1}) end, 'First argument should be a Tensor')
    assert.has_error(function() totem.areTensorsEq(T{1}, 2) end, 'Second argument should be a Tensor')
    assert.has_no.errors(function() totem.assertTensorNe(T{1}, T{2}) end)
  end)

  it('compare storages and nested tables', function()
    assert.is_true((totem.areStoragesEq(torch.IntStorage{1, 2}, torch.IntStorage{1, 2})))
    assert.same({false, 'The storages have different types'},
                {totem.areStoragesEq(torch.IntStorage{1, 2}, torch.LongStorage{1, 2})})
    local t1 = {1, 'a', x = T{1, 2}, sub = {true}}
    local t2 = {1, 'a', x = T{1, 2.001}, sub = {true}}
    assert.is_false((totem.areTablesEq(t1, t2)))
    assert.is_true((totem.areTablesEq(t1, t2, 0.01)))
    local ok, msg = totem.areTablesEq({a = 1}, {a = 1, b = 2})
    assert.is_false(ok)
    assert.are.equal('at key b: Arguments are not of the same type (got: nil, expected: number)', msg)
    assert.has_no.errors(function() totem.assertTableNe({1}, {2}) end)
    assert.has_error(function() totem.assertTableEq({1}, {2}) end,
                     'at key 1: numberEQ(==) violation: max diff=1, tolerance=0')
  end)
end)

describe('totem.Tester', function()
  it('is a torch.Tester whose assertTensorEq checks dimensions', function()
    local tester = totem.Tester()
    assert.is_true(torch.isTypeOf(tester, 'torch.Tester'))
    tester._success = function() return true end
    tester._failure = function(_, m) return false, m end
    assert.is_false((tester:assertTensorEq(T{{1}}, T{1})))
    assert.is_true((torch.Tester():assertTensorEq(T{{1}}, T{1})))
  end)

  it('answers without recording when eq/ne get ret = true', function()
    local tester = totem.Tester()
    assert.is_false((tester:eq({1}, {2}, '', 0, true)))
    assert.is_true((tester:ne({1}, {2}, '', 0, true)))
    assert.are.equal(nil, next(tester.assertionPass))
    assert.are.equal(nil, next(tester.assertionFail))
  end)

  it('runs the tests matching patterns and reports failures', function()
    local tester, ran = totem.Tester(), {}
    local tests = totem.TestSuite()
    function tests.alpha() ran[#ran + 1] = 'alpha'; tester:eq(1, 1) end
    function tests.alps() ran[#ran + 1] = 'alps'; tester:assertStorageEq(torch.IntStorage{1}, torch.IntStorage{1}) end
    function tests.beta() ran[#ran + 1] = 'beta'; tester:eq(1, 2) end
    tester:add(tests)
    assert.is_true((quietRun(tester, nil, '^al')))
    assert.same({'alpha', 'alps'}, ran)
    assert.are.equal(2, tester.countasserts)
    ran = {}
    local ok, err = quietRun(tester, {[0] = 'script.lua', 'beta'})
    assert.is_false(ok)
    assert.same({'beta'}, ran)
    assert.truthy(err:find('1 of 1 tests failed', 1, true))
    ok, err = quietRun(tester, nil, 'gamma')
    assert.is_false(ok)
    assert.truthy(err:find("Couldn't find test 'gamma'", 1, true))
  end)

  it('reads --log-output, --list and rejects unknown options', function()
    local tester = totem.Tester()
    local tests = totem.TestSuite()
    function tests.one() tester:eq(1, 1); tester:eq(1, 1) end
    function tests.two() tester:eq(1, 2); error('boom') end
    tester:add(tests)
    local log = os.tmpname()
    assert.is_false((quietRun(tester, {[0] = 's', '--log-output', log})))
    local f = io.open(log)
    local text = f:read('a')
    f:close()
    os.remove(log)
    assert.are.equal('one 2 0 0\ntwo 0 1 1\n[total] 2 1 1\n', text)
    local savedPrint, listed = _G.print, {}
    _G.print = function(s) listed[#listed + 1] = s end
    local ok = quietRun(tester, {[0] = 's', '--list'})
    _G.print = savedPrint
    assert.is_true(ok)
    assert.same({'one', 'two'}, listed)
    local bad, err = quietRun(tester, {[0] = 's', '--colour'})
    assert.is_false(bad)
    assert.truthy(err:find('unknown option --colour', 1, true))
  end)
end)

describe('totem.Tester:add (older totem forms)', function()
  it('takes files, return codes and testers that have run', function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute('mkdir -p ' .. dir)
    local f = io.open(dir .. '/test_a.lua', 'w')
    f:write("local t = totem.TestSuite()\nfunction t.inner() end\nreturn t\n")
    f:close()
    f = io.open(dir .. '/test_b.lua', 'w')
    f:write("error('broken file')\n")
    f:close()
    local tester = totem.Tester()
    tester:add(dir .. '/test_a.lua'):add(dir .. '/test_b.lua'):add(0, 'zero'):add(1, 'one')
    local done = totem.Tester()
    done.errors = {{name = 'x', kind = 'FAIL', message = 'm'}}
    tester:add(done, 'nested')
    os.remove(dir .. '/test_a.lua')
    os.remove(dir .. '/test_b.lua')
    os.remove(dir)
    assert.same({'inner', dir .. '/test_b.lua', 'zero', 'one', 'nested'}, tester.testnames)
    local ok = quietRun(tester)
    assert.is_false(ok)
    local failed = {}
    for _, e in ipairs(tester.errors) do failed[#failed + 1] = e.name end
    assert.same({dir .. '/test_b.lua', 'one', 'nested'}, failed)
    assert.truthy(tester.errors[1].message:find('broken file', 1, true))
  end)
end)

describe('totem.nn', function()
  -- a tester that keeps its failure messages
  local function recorder()
    local tester, fails = totem.Tester(), {}
    tester._success = function() return true end
    tester._failure = function(_, m) fails[#fails + 1] = m; return false end
    return tester, fails
  end

  it('checkGradients passes nn.Linear and a table module in double', function()
    torch.manualSeed(1)
    local tester, fails = recorder()
    totem.nn.checkGradients(tester, nn.Linear(3, 2), torch.randn(4, 3))
    totem.nn.checkGradients(tester, nn.CAddTable(), {torch.randn(2, 3), torch.randn(2, 3)})
    assert.same({}, fails)
  end)

  it('checkGradients catches a wrong gradInput and an overwriting accGradParameters', function()
    torch.manualSeed(2)
    local tester, fails = recorder()
    local bad = nn.Tanh()
    function bad:updateGradInput(input, gradOutput)
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
      return self.gradInput
    end
    totem.nn.checkGradients(tester, bad, torch.randn(3))
    assert.are.equal(1, #fails)
    assert.truthy(fails[1]:find('wrong grad w.r.t. input', 1, true))
    local lin = nn.Linear(2, 2)
    local acc = lin.accGradParameters
    function lin:accGradParameters(input, gradOutput, scale)
      self.gradWeight:zero(); self.gradBias:zero()
      return acc(self, input, gradOutput, scale)
    end
    fails[1] = nil
    totem.nn.checkGradients(tester, lin, torch.randn(2))
    assert.are.equal(1, #fails)
    assert.truthy(fails[1]:find('wrong grad w.r.t. params', 1, true))
  end)

  it('checkMinibatch, checkTypeCastable and checkSerializable pass nn.Linear', function()
    torch.manualSeed(3)
    local tester, fails = recorder()
    totem.nn.checkMinibatch(tester, nn.Linear(3, 2), torch.randn(4, 3), 1e-12)
    totem.nn.checkTypeCastable(tester, nn.Linear(3, 2), torch.randn(4, 3))
    totem.nn.checkSerializable(tester, nn.Linear(3, 2), torch.randn(4, 3))
    assert.same({}, fails)
  end)

  it('checkTypePreservesSharing catches a :type that reallocates', function()
    local tester, fails = recorder()
    totem.nn.checkTypePreservesSharing(tester, nn.Linear(2, 2))
    assert.same({}, fails)
    local lin = nn.Linear(2, 2)
    function lin:type(t)
      self.weight = self.weight:type(t)
      self.bias = self.bias:type(t)
      return self
    end
    totem.nn.checkTypePreservesSharing(tester, lin)
    assert.are.equal(1, #fails)
    assert.truthy(fails[1]:find('Sharing is broken for parameter #1', 1, true))
  end)
end)
