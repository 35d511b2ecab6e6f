-- torch.Tester and torch.TestSuite: Torch7's small unit-test harness, so
-- that Torch7 test scripts (its own test_Tester.lua included) run
-- unchanged. (This project's own tests are busted specs under spec/.)
--   local suite = torch.TestSuite()
--   local tester = torch.Tester()
--   function suite.addition() tester:eq(1 + 1, 2, 'sum') end
--   tester:add(suite):run()     -- an error at the end if anything failed
-- As Torch7's: every assertion goes through tester:_assert_sub(ok, msg),
-- which calls _success() or _failure(msg) and returns what they return;
-- a failed assertion is recorded and the test goes on; an error inside a
-- test is recorded and the next test runs. Tests named _setUp and
-- _tearDown are hooks run before and after every test (given its name);
-- tester:disable(names) skips tests; misuse is a warning (:assert of a
-- non-boolean, :assertne of tables, a plain table of tests, tensors equal
-- but for their dimensions). Tensors are compared elementwise within a
-- tolerance without needing the math kernels (HalfTensor has none).

local torch = torch

local suites = setmetatable({}, {__mode = 'k'})

-- a table of test functions that refuses two tests of one name, a
-- copy-and-paste slip that would silently drop a test (the tests live
-- behind a proxy, so that a redefinition reaches __newindex)
function torch.TestSuite()
  local tests = {}
  local suite = setmetatable({}, {
    __newindex = function(_, name, f)
      if tests[name] ~= nil then
        error(string.format('torch.TestSuite: Test %s is already defined.', tostring(name)), 2)
      end
      tests[name] = f
    end,
    __index = tests,
    __pairs = function() return next, tests, nil end})
  suites[suite] = true
  return suite
end

local Tester = torch.class('torch.Tester')

function Tester:__init()
  self.tests = {}           -- name -> function (Torch7's field)
  self.testnames = {}       -- the names in the order they run
  self.errors = {}          -- {name=, kind='FAIL'|'ERROR', message=}
  self.warnings = {}        -- {name=, message=}
  self.disabledTests = {}   -- name -> true
  self.countasserts = 0
  self.assertionPass, self.assertionFail = {}, {}
  self._currentTestName = ''
  -- Torch7's default: assertTensorEq accepts {{1}} == {1} (with a warning)
  self._assertTensorEqIgnoresDims = true
  self.earlyAbort, self.rethrow, self.summaryOnly = false, false, false
end

function Tester:setEarlyAbort(v) self.earlyAbort = v and true or false; return self end
function Tester:setRethrowErrors(v) self.rethrow = v and true or false; return self end
function Tester:setSummaryOnly(v) self.summaryOnly = v and true or false; return self end

-- --- recording -------------------------------------------------------------

-- the test line that made the assertion: the first caller outside this file
local function caller()
  for level = 3, 30 do
    local info = debug.getinfo(level, 'Sl')
    if info == nil then break end
    if not info.source:find('Tester%.lua$') then return info.short_src .. ':' .. info.currentline end
  end
  return '?'
end

local function bump(counts, name) counts[name] = (counts[name] or 0) + 1 end

function Tester:_success()
  bump(self.assertionPass, self._currentTestName)
  return true
end

function Tester:_failure(message)
  if self.rethrow then error(message, 2) end
  bump(self.assertionFail, self._currentTestName)
  self.errors[#self.errors + 1] = {name = self._currentTestName, kind = 'FAIL',
                                   message = message .. '\n  at ' .. caller()}
  return false
end

function Tester:_warning(message)
  self.warnings[#self.warnings + 1] = {name = self._currentTestName, message = message}
end

function Tester:_assert_sub(condition, message)
  if condition then return self:_success() end
  return self:_failure(message)
end

-- --- arguments -------------------------------------------------------------

-- the optional message, then nothing: extra arguments are an error
local function getMessage(message, ...)
  if select('#', ...) > 0 then error('Unexpected arguments passed to test function', 3) end
  if message ~= nil and type(message) ~= 'string' then
    error(string.format('message parameter must be a string, got %s', type(message)), 3)
  end
  if message and message ~= '' then return message .. '\n' end
  return ''
end

-- a tolerance and a message, in either order (Torch7 accepts both)
local function getToleranceAndMessage(default, ...)
  local tolerance, message
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    if type(a) == 'string' then
      if message then error('Unexpected string argument; already have message', 3) end
      message = a .. '\n'
    elseif type(a) == 'number' then
      if tolerance then error('Unexpected number argument; already have tolerance', 3) end
      if a ~= a then error('tolerance cannot be NaN', 3) end
      if a < 0 then error('tolerance cannot be negative', 3) end
      tolerance = a
    elseif a ~= nil then
      error('Unrecognized argument; should be a tolerance or message', 3)
    end
  end
  return tolerance or default, message or ''
end

-- --- comparisons -------------------------------------------------------------

-- max |a - b| over two tensors (or storages) of the same number of elements;
-- read element by element, so that types without math (Half) compare too
local function maxdiff(x, y)
  if x:nElement() == 0 then return 0 end
  x, y = x:contiguous(), y:contiguous()
  local sx, ox, sy, oy = x:storage(), x:storageOffset() - 1, y:storage(), y:storageOffset() - 1
  local m = 0
  for i = 1, x:nElement() do
    local d = math.abs(sx[ox + i] - sy[oy + i])
    if d ~= d then return math.huge end   -- nan anywhere: never equal
    if d > m then m = d end
  end
  return m
end

local function tensorsEq(ta, tb, tol, negate, ignoreDims, prefix)
  if not ignoreDims and ta:dim() ~= tb:dim() then return negate, 'The tensors have different dimensions' end
  if ta:type() ~= tb:type() then return negate, 'The tensors have different types' end
  if ta:dim() == 0 and tb:dim() == 0 then return not negate, 'Both tensors are empty' end
  local same = ignoreDims and ta:nElement() == tb:nElement() or (not ignoreDims and ta:isSameSizeAs(tb))
  if not same then return negate, 'The tensors have different sizes' end
  local err = maxdiff(ta, tb)
  local ok = err <= tol
  if negate then ok = not ok end
  if ok then return true end
  return false, string.format('%s%s violation: max diff=%s, tolerance=%s', prefix or 'Tensor',
                              negate and 'NE(==)' or 'EQ(==)', tostring(err), tostring(tol))
end

local function storagesEq(sa, sb, tol, negate)
  if sa:size() ~= sb:size() then return negate, 'The storages have different sizes' end
  if torch.type(sa) ~= torch.type(sb) then return negate, 'The storages have different types' end
  local T = torch[torch.type(sa):match('torch%.(%a+)Storage') .. 'Tensor']
  return tensorsEq(T(sa), T(sb), tol, negate, false, 'Storage')
end

-- deep equality (Torch7's check.areEq): types must match, numbers within
-- the tolerance, tensors and storages elementwise, tables key by key
-- seen[a][b]: the pair is being compared further up; a cycle met again is
-- taken as equal there (the rest of the walk decides), not recursed into
-- until the stack overflows
local function areEq(got, expected, tol, negate, seen)
  if type(got) ~= type(expected) then
    return negate, not negate and string.format('EQ failed: values have different types (first: %s, second: %s)',
                                                type(got), type(expected)) or nil
  end
  if type(got) == 'number' then
    local ok = math.abs(got - expected) <= tol
    if negate then ok = not ok end
    if ok then return true end
    return false, string.format('%s failed: %s %s %s with tolerance=%s', negate and 'NE' or 'EQ', tostring(got),
                                negate and '==' or '~=', tostring(expected), tostring(tol))
  end
  if torch.isTensor(got) or torch.isTensor(expected) then
    if not (torch.isTensor(got) and torch.isTensor(expected)) then return negate, 'EQ failed: a tensor and a non-tensor' end
    return tensorsEq(got, expected, tol, negate, false)
  end
  if torch.isStorage(got) and torch.isStorage(expected) then return storagesEq(got, expected, tol, negate) end
  if type(got) == 'table' then
    if negate then
      local eq = areEq(got, expected, tol, false, seen)
      if eq then return false, 'NE failed: the tables are equal' end
      return true
    end
    seen = seen or {}
    seen[got] = seen[got] or {}
    if seen[got][expected] then return true end
    seen[got][expected] = true
    for k, v in pairs(got) do
      local ok, msg = areEq(v, expected[k], tol, false, seen)
      if not ok then return false, string.format('EQ failed at key %s: %s', tostring(k), msg or '') end
    end
    for k in pairs(expected) do
      if got[k] == nil then return false, string.format('EQ failed: key %s missing from the first table', tostring(k)) end
    end
    return true
  end
  local ok = got == expected
  if negate then ok = not ok end
  if ok then return true end
  return false, string.format('%s failed: %s %s %s', negate and 'NE' or 'EQ', tostring(got), negate and '==' or '~=',
                              tostring(expected))
end

-- --- assertions (Torch7's names, arguments and messages) -------------------

function Tester:assert(condition, ...)
  local message = getMessage(...)
  if type(condition) ~= 'boolean' then
    self:_warning(' :assert should only be used for boolean conditions. To check for non-nil variables, '
                  .. 'do this explicitly: Tester:assert(var ~= nil).')
  end
  return self:_assert_sub(condition, string.format('%sBOOL violation condition=%s', message, tostring(condition)))
end

local function compare(name, op, fails)
  Tester[name] = function(self, a, b, ...)
    local message = getMessage(...)
    return self:_assert_sub(op(a, b), string.format('%s%s failed: %s %s %s', message, name:sub(7):upper(),
                                                    tostring(a), fails, tostring(b)))
  end
end
compare('assertlt', function(a, b) return a < b end, '>=')
compare('assertgt', function(a, b) return a > b end, '<=')
compare('assertle', function(a, b) return a <= b end, '>')
compare('assertge', function(a, b) return a >= b end, '<')
compare('asserteq', function(a, b) return a == b end, '~=')

function Tester:assertne(a, b, ...)
  local message = getMessage(...)
  if (type(a) == type(b) and type(a) == 'table') or type(a) == 'userdata' then
    self:_warning(' :assertne should only be used to compare basic lua objects (numbers, booleans, etc). '
                  .. 'Consider using either :assertGeneralNe or :assert(a ~= b).')
  end
  return self:_assert_sub(a ~= b, string.format('%sNE failed: %s == %s', message, tostring(a), tostring(b)))
end

function Tester:assertalmosteq(a, b, ...)
  if type(a) ~= 'number' or type(b) ~= 'number' then
    error(string.format('assertalmosteq: two numbers expected, got %s and %s', type(a), type(b)), 2)
  end
  local tolerance, message = getToleranceAndMessage(1e-16, ...)
  return self:_assert_sub(math.abs(a - b) <= tolerance,
                          string.format('%sALMOST_EQ failed: %s ~= %s with tolerance=%s', message, tostring(a),
                                        tostring(b), tostring(tolerance)))
end

function Tester:_eqOrNeq(got, expected, negate, ...)
  local tolerance, message = getToleranceAndMessage(0, ...)
  local ok, sub = areEq(got, expected, tolerance, negate)
  return self:_assert_sub(ok, message .. (sub or ''))
end
function Tester:assertGeneralEq(got, expected, ...) return self:_eqOrNeq(got, expected, false, ...) end
function Tester:assertGeneralNe(got, expected, ...) return self:_eqOrNeq(got, expected, true, ...) end
function Tester:eq(got, expected, ...) return self:_eqOrNeq(got, expected, false, ...) end
function Tester:ne(got, expected, ...) return self:_eqOrNeq(got, expected, true, ...) end

function Tester:_assertTensorEqOrNeq(ta, tb, negate, ...)
  if not torch.isTensor(ta) then error('First argument should be a Tensor', 3) end
  if not torch.isTensor(tb) then error('Second argument should be a Tensor', 3) end
  if ta:isFreed() or tb:isFreed() then
    error(string.format('%s argument is a freed tensor (used after :free()/:dispose())',
                        ta:isFreed() and 'First' or 'Second'), 3)
  end
  local tolerance, message = getToleranceAndMessage(0, ...)
  local ignore = self._assertTensorEqIgnoresDims
  local ok, sub = tensorsEq(ta, tb, tolerance, negate, ignore)
  if ignore and not negate and ok and not ta:isSameSizeAs(tb) then
    self:_warning('Tensors have the same content but different dimensions. For backwards compatibility, they are '
                  .. 'considered equal, but this may change in the future. Consider using :eq to check for '
                  .. 'equality instead.')
  end
  return self:_assert_sub(ok, message .. (sub or ''))
end
function Tester:assertTensorEq(ta, tb, ...) return self:_assertTensorEqOrNeq(ta, tb, false, ...) end
function Tester:assertTensorNe(ta, tb, ...) return self:_assertTensorEqOrNeq(ta, tb, true, ...) end

function Tester:_assertTableEqOrNeq(ta, tb, negate, ...)
  if type(ta) ~= 'table' then error('First argument should be a Table', 3) end
  if type(tb) ~= 'table' then error('Second argument should be a Table', 3) end
  return self:_eqOrNeq(ta, tb, negate, ...)
end
function Tester:assertTableEq(ta, tb, ...) return self:_assertTableEqOrNeq(ta, tb, false, ...) end
function Tester:assertTableNe(ta, tb, ...) return self:_assertTableEqOrNeq(ta, tb, true, ...) end

-- f must be callable: calling a number raises too, which would pass assertError
local function need_callable(f, fname)
  local mt = getmetatable(f)
  if type(f) ~= 'function' and not (type(mt) == 'table' and mt.__call) then
    error(string.format('%s: function expected, got %s', fname, type(f)), 4)
  end
end

function Tester:assertErrorObj(f, errcomp, ...)
  need_callable(f, 'assertError')
  local message = getMessage(...)
  local ok, err = pcall(f)
  return self:_assert_sub(not ok and errcomp(err), string.format('%sERROR violation: err=%s', message, tostring(err)))
end
function Tester:assertError(f, ...) return self:assertErrorObj(f, function() return true end, ...) end
function Tester:assertErrorMsg(f, errmsg, ...)
  return self:assertErrorObj(f, function(e) return e == errmsg end, ...)
end
function Tester:assertErrorPattern(f, pattern, ...)
  if type(pattern) ~= 'string' then
    error(string.format('assertErrorPattern: pattern (string) expected, got %s', type(pattern)), 2)
  end
  local okp, perr = pcall(string.find, '', pattern)
  if not okp then error('assertErrorPattern: ' .. tostring(perr):gsub('^.-: ', '', 1), 2) end
  return self:assertErrorObj(f, function(e) return type(e) == 'string' and e:find(pattern) ~= nil end, ...)
end
function Tester:assertNoError(f, ...)
  need_callable(f, 'assertNoError')
  local message = getMessage(...)
  local ok, err = pcall(f)
  return self:_assert_sub(ok, string.format('%sERROR violation: err=%s', message, tostring(err)))
end

-- --- tests -----------------------------------------------------------------

-- Tester:add(f, name) | add(table of functions) | add(TestSuite)
function Tester:add(f, name)
  if type(f) == 'table' then
    if name ~= nil then
      error('torch.Tester:add: Name parameter is forbidden for a table of tests, since its use is ambiguous', 2)
    end
    if not suites[f] then self:_warning('Should use TestSuite rather than plain lua table') end
    local names = {}
    for k, v in pairs(f) do
      if type(v) == 'table' then error('torch.Tester:add: Nested sets of tests are not supported', 2) end
      if type(v) ~= 'function' then
        error(string.format("torch.Tester:add: test '%s' must be a function, got %s", tostring(k), type(v)), 2)
      end
      names[#names + 1] = k
    end
    table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(names) do
      local ok, err = pcall(self.add, self, f[k], tostring(k))
      if not ok then error(err, 2) end
    end
  elseif type(f) == 'function' then
    if name == '_setUp' or name == '_tearDown' then
      if self[name] then
        error(string.format('torch.Tester:add: Only one %s function allowed',
                            name == '_setUp' and 'set-up' or 'tear-down'), 2)
      end
      self[name] = f
      return self
    end
    name = name or ('test ' .. (#self.testnames + 1))
    if self.tests[name] ~= nil then
      error(string.format('torch.Tester:add: Test with name %s already exists!', name), 2)
    end
    self.tests[name] = f
    self.testnames[#self.testnames + 1] = name
  else
    error(string.format('torch.Tester:add: function or table of functions expected, got %s', type(f)), 2)
  end
  return self
end

-- tester:disable(name | {names}): those tests are skipped (SKIP) by run
function Tester:disable(names)
  if type(names) == 'string' then names = {names} end
  if type(names) ~= 'table' then
    error(string.format('torch.Tester:disable: test name or list of names expected, got %s', type(names)), 2)
  end
  for _, n in ipairs(names) do
    if self.tests[n] == nil then error(string.format("torch.Tester:disable: unrecognized test '%s'", tostring(n)), 2) end
    self.disabledTests[n] = true
  end
  return self
end

-- run([name | {names}]): runs the tests, prints a line per test and a
-- report; raises an error at the end if any test failed (so a test script
-- exits non-zero). Each report item is one io.write call (Torch7's own
-- tests capture io.write to look for warnings).
function Tester:run(which)
  if type(which) == 'string' then which = {which} end
  if which ~= nil and type(which) ~= 'table' then
    error(string.format('torch.Tester:run: a test name or a table of names expected, got %s', type(which)), 2)
  end
  local run = {}
  if which then
    for _, n in ipairs(which) do
      if self.tests[n] == nil then error(string.format("torch.Tester:run: no test named '%s'", tostring(n)), 2) end
    end
  end
  for _, n in ipairs(self.testnames) do
    local keep = which == nil
    for _, m in ipairs(which or {}) do keep = keep or m == n end
    if keep then run[#run + 1] = n end
  end
  -- warnings from add() (outside any test) are kept
  local kept = {}
  for _, w in ipairs(self.warnings) do if w.name == '' then kept[#kept + 1] = w end end
  self.errors, self.warnings = {}, kept
  self.assertionPass, self.assertionFail = {}, {}
  local out = self.summaryOnly and function() end or io.write
  out(string.format('Running %d test%s\n', #run, #run == 1 and '' or 's'))
  local function handler(e) return debug.traceback(tostring(e), 2) end
  -- f(...) for test 'name'; an error is recorded as the test's ERROR
  local function guarded(name, f, ...)
    if self.rethrow then return f(...) end
    local ok, err = xpcall(f, handler, ...)
    if not ok then self.errors[#self.errors + 1] = {name = name, kind = 'ERROR', message = err} end
  end
  local failed, skipped = 0, 0
  for i, name in ipairs(run) do
    self._currentTestName = name
    local nerr, nwarn = #self.errors, #self.warnings
    local status = 'SKIP'
    if not self.disabledTests[name] then
      if self._setUp then guarded(name, self._setUp, name) end
      if #self.errors == nerr then guarded(name, self.tests[name]) end
      if self._tearDown then guarded(name, self._tearDown, name) end
      status = 'PASS'
      for k = nerr + 1, #self.errors do
        if self.errors[k].kind == 'ERROR' then status = 'ERROR' elseif status == 'PASS' then status = 'FAIL' end
      end
      if status ~= 'PASS' then failed = failed + 1 end
    else
      skipped = skipped + 1
    end
    local head = string.format('%d/%d %s ', i, #run, name)
    out(head .. string.rep('.', math.max(3, 70 - #head)) .. ' [' .. status .. ']'
        .. (status == 'PASS' and #self.warnings > nwarn and ' [+warning]' or '') .. '\n')
    if status ~= 'PASS' and status ~= 'SKIP' and self.earlyAbort then
      if i < #run then out('Aborting on first error, not all tests have been executed\n') end
      break
    end
  end
  self._currentTestName = ''
  local npass, nfailcount = 0, 0
  for _, v in pairs(self.assertionPass) do npass = npass + v end
  for _, v in pairs(self.assertionFail) do nfailcount = nfailcount + v end
  self.countasserts = npass + nfailcount
  local nfail, nerror = 0, 0
  for _, e in ipairs(self.errors) do
    if e.kind == 'FAIL' then nfail = nfail + 1 else nerror = nerror + 1 end
  end
  local nwarn = #self.warnings
  io.write(string.format('Completed %d assert%s in %d test%s with %d failure%s and %d error%s%s%s\n',
    self.countasserts, self.countasserts == 1 and '' or 's', #run, #run == 1 and '' or 's',
    nfail, nfail == 1 and '' or 's', nerror, nerror == 1 and '' or 's',
    nwarn > 0 and string.format(' and %d warning%s', nwarn, nwarn == 1 and '' or 's') or '',
    skipped > 0 and string.format(' and %d disabled', skipped) or ''))
  for _, e in ipairs(self.errors) do
    io.write(string.rep('-', 80) .. '\n' .. e.name .. ' [' .. e.kind .. ']\n' .. tostring(e.message) .. '\n')
  end
  if not self.summaryOnly then
    for _, w in ipairs(self.warnings) do
      io.write(string.rep('-', 80) .. '\n' .. (w.name ~= '' and (w.name .. ' ') or '') .. '[WARNING]\n' .. w.message .. '\n')
    end
  end
  if #self.errors > 0 then
    io.write(string.rep('-', 80) .. '\n')
    error(string.format('torch.Tester: %d of %d tests failed', failed, #run), 2)
  end
  return self
end

return Tester
