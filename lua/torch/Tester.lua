-- torch.Tester and torch.TestSuite: Torch7's small unit-test harness, so
-- that Torch7 test scripts run unchanged. (This project's own tests are
-- busted specs under spec/.)
--   local suite = torch.TestSuite()
--   local tester = torch.Tester()
--   function suite.addition() tester:eq(1 + 1, 2, 'sum') end
--   tester:add(suite):run()     -- an error at the end if anything failed
-- Assertions record a failure and let the test go on; an error inside a
-- test is recorded and the next test runs. Tensors are compared elementwise
-- (within a tolerance) without needing the math kernels.
-- As Torch7's: tests named _setUp and _tearDown are hooks run before and
-- after every test (given its name), tester:disable(names) skips tests, and
-- misuse is reported as a warning (:assert of a non-boolean, :assertne of
-- tables, a plain table of tests instead of a TestSuite).

local torch = torch

-- a table of test functions that refuses two tests of one name, a
-- copy-and-paste slip that would silently drop a test (the tests live
-- behind a proxy, so that a redefinition reaches __newindex)
local suites = setmetatable({}, {__mode = 'k'})

function torch.TestSuite()
  local tests = {}
  local suite = setmetatable({}, {
    __newindex = function(_, name, f)
      if tests[name] ~= nil then
        error(string.format("torch.TestSuite: test '%s' defined twice", tostring(name)), 2)
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
  self.tests, self.testnames = {}, {}
  self.errors = {}          -- {name=, kind='FAIL'|'ERROR', message=}
  self.warnings = {}        -- {name=, message=}
  self.disabledTests = {}   -- name -> true
  self.countasserts = 0
  self.earlyAbort, self.rethrow, self.summaryOnly = false, false, false
end

function Tester:setEarlyAbort(v) self.earlyAbort = v and true or false; return self end
function Tester:setRethrowErrors(v) self.rethrow = v and true or false; return self end
function Tester:setSummaryOnly(v) self.summaryOnly = v and true or false; return self end

-- records a warning for the running test (or for add, outside any test)
function Tester:_warning(message)
  self.warnings[#self.warnings + 1] = {name = self.curtestname or '', message = message}
end

-- Tester:add(f, name) | add(table of functions) | add(TestSuite)
function Tester:add(f, name)
  if type(f) == 'table' then
    if name ~= nil then
      error('torch.Tester:add: a name is not allowed with a table of tests (each test has its own)', 2)
    end
    if not suites[f] then self:_warning('Should use TestSuite rather than plain lua table') end
    local names = {}
    for k, v in pairs(f) do
      if type(v) == 'table' then error('torch.Tester:add: nested sets of tests are not supported', 2) end
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
      if self[name] then error(string.format('torch.Tester:add: only one %s function allowed', name), 2) end
      self[name] = f
      return self
    end
    name = name or ('test ' .. (#self.tests + 1))
    for _, n in ipairs(self.testnames) do
      if n == name then error(string.format("torch.Tester:add: test with name '%s' already exists", name), 2) end
    end
    self.tests[#self.tests + 1] = f
    self.testnames[#self.tests] = name
  else
    error(string.format('torch.Tester:add: function or table of functions expected, got %s', type(f)), 2)
  end
  return self
end

-- the test line that made the assertion: the first caller outside this file
local function caller()
  for level = 3, 20 do
    local info = debug.getinfo(level, 'Sl')
    if info == nil then break end
    if not info.source:find('Tester%.lua$') then return info.short_src .. ':' .. info.currentline end
  end
  return '?'
end

-- records one assertion; 'detail' is built only on failure
function Tester:_check(ok, message, detail, ...)
  self.countasserts = self.countasserts + 1
  if ok then return true end
  local where = caller()
  local msg = (message and message ~= '' and (message .. '\n') or '') ..
              string.format(detail, ...) .. '\n  at ' .. where
  self.errors[#self.errors + 1] = {name = self.curtestname or '?', kind = 'FAIL', message = msg}
  if self.earlyAbort then error({tester_abort = true}, 0) end
  return false
end

local function str(v) return torch.isTensor(v) and (torch.typename(v) .. ' of size ' ..
  table.concat(v:size():totable(), 'x')) or tostring(v) end

-- max |a - b| over two tensors of the same number of elements, or nil, why
local function tensordiff(a, b)
  if not (torch.isTensor(a) and torch.isTensor(b)) then
    return nil, string.format('tensors expected, got %s and %s', torch.type(a), torch.type(b))
  end
  if a:nElement() ~= b:nElement() then
    return nil, string.format('sizes differ: %s and %s', str(a), str(b))
  end
  if a:nElement() == 0 then return 0 end
  local x, y = a:contiguous(), b:contiguous()
  local sx, ox, sy, oy = x:storage(), x:storageOffset() - 1, y:storage(), y:storageOffset() - 1
  local m = 0
  for i = 1, x:nElement() do
    local d = math.abs(sx[ox + i] - sy[oy + i])
    if d ~= d then return math.huge end   -- nan anywhere: never equal
    if d > m then m = d end
  end
  return m
end

-- deep equality with a tolerance for numbers and tensors
local function equal(a, b, tol, seen)
  if torch.isTensor(a) or torch.isTensor(b) then
    local d = tensordiff(a, b)
    return d ~= nil and d <= tol
  end
  if type(a) == 'number' and type(b) == 'number' then return a == b or math.abs(a - b) <= tol end
  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end
  if a == b then return true end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do if not equal(v, b[k], tol, seen) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- tester:disable(name | {names}): those tests are skipped (SKIP) by run
function Tester:disable(names)
  if type(names) == 'string' then names = {names} end
  if type(names) ~= 'table' then
    error(string.format('torch.Tester:disable: test name or list of names expected, got %s', type(names)), 2)
  end
  for _, n in ipairs(names) do
    local known = false
    for _, m in ipairs(self.testnames) do known = known or m == n end
    if not known then error(string.format("torch.Tester:disable: unrecognized test '%s'", tostring(n)), 2) end
    self.disabledTests[n] = true
  end
  return self
end

function Tester:assert(cond, message)
  if type(cond) ~= 'boolean' then
    self:_warning(':assert should only be used for boolean conditions. To check for non-nil variables, '
                  .. 'do this explicitly: Tester:assert(var ~= nil).')
  end
  return self:_check(cond, message, 'BOOL violation: condition=%s', tostring(cond))
end
function Tester:assertlt(a, b, message) return self:_check(a < b, message, 'LT(<) violation: %s, %s', str(a), str(b)) end
function Tester:assertgt(a, b, message) return self:_check(a > b, message, 'GT(>) violation: %s, %s', str(a), str(b)) end
function Tester:assertle(a, b, message) return self:_check(a <= b, message, 'LE(<=) violation: %s, %s', str(a), str(b)) end
function Tester:assertge(a, b, message) return self:_check(a >= b, message, 'GE(>=) violation: %s, %s', str(a), str(b)) end
function Tester:asserteq(a, b, message) return self:_check(a == b, message, 'EQ(==) violation: %s, %s', str(a), str(b)) end
function Tester:assertne(a, b, message)
  if (type(a) == type(b) and type(a) == 'table') or type(a) == 'userdata' then
    self:_warning(':assertne should only be used to compare basic lua objects (numbers, booleans, etc). '
                  .. 'Consider using either :assertGeneralNe or :assert(a ~= b).')
  end
  return self:_check(a ~= b, message, 'NE(~=) violation: %s, %s', str(a), str(b))
end

function Tester:assertalmosteq(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  tol = tol or 1e-16
  return self:_check(math.abs(a - b) <= tol, message, 'ALMOST_EQ violation: |%s - %s| > %s', str(a), str(b), str(tol))
end

function Tester:assertTensorEq(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  tol = tol or 0
  local d, why = tensordiff(a, b)
  if d == nil then return self:_check(false, message, 'TensorEQ violation: %s', why) end
  return self:_check(d <= tol, message, 'TensorEQ violation: max |a - b| = %s > %s', str(d), str(tol))
end

function Tester:assertTensorNe(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  tol = tol or 0
  local d = tensordiff(a, b)
  return self:_check(d == nil or d > tol, message, 'TensorNE violation: max |a - b| = %s <= %s', str(d), str(tol))
end

function Tester:assertTableEq(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  return self:_check(equal(a, b, tol or 0), message, 'TableEQ violation')
end

function Tester:assertTableNe(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  return self:_check(not equal(a, b, tol or 0), message, 'TableNE violation')
end

-- eq(got, expected [, tolerance] [, message]): numbers, strings, tables, tensors
function Tester:eq(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  return self:_check(equal(a, b, tol or 0), message, 'EQ violation: got %s, expected %s', str(a), str(b))
end
Tester.assertGeneralEq = Tester.eq

function Tester:ne(a, b, tol, message)
  if type(tol) == 'string' then tol, message = nil, tol end
  return self:_check(not equal(a, b, tol or 0), message, 'NE violation: both %s', str(a))
end
Tester.assertGeneralNe = Tester.ne

function Tester:assertErrorObj(f, accept, message)
  local ok, err = pcall(f)
  return self:_check(not ok and accept(err), message, 'ERROR violation: %s',
                     ok and 'no error raised' or ('error was ' .. tostring(err)))
end
function Tester:assertError(f, message) return self:assertErrorObj(f, function() return true end, message) end
function Tester:assertErrorMsg(f, errmsg, message)
  return self:assertErrorObj(f, function(e) return e == errmsg end, message)
end
function Tester:assertErrorPattern(f, pattern, message)
  return self:assertErrorObj(f, function(e) return type(e) == 'string' and e:find(pattern) ~= nil end, message)
end
function Tester:assertNoError(f, message)
  local ok, err = pcall(f)
  return self:_check(ok, message, 'NO_ERROR violation: %s', tostring(err))
end

-- run([name | {names}]): runs the tests, prints a line per test and a
-- report; raises an error at the end if any test failed (so a test script
-- exits non-zero), unless rethrow/early-abort raised one before
function Tester:run(which)
  local run = {}
  if type(which) == 'string' then which = {which} end
  for i, f in ipairs(self.tests) do
    local keep = which == nil
    for _, n in ipairs(which or {}) do keep = keep or n == self.testnames[i] or n == i end
    if keep then run[#run + 1] = {f = f, name = self.testnames[i]} end
  end
  if which then
    for _, n in ipairs(which) do
      local found = false
      for _, t in ipairs(run) do found = found or t.name == n end
      if not found and type(n) == 'string' then error(string.format("torch.Tester:run: no test named '%s'", n), 2) end
    end
  end
  self.errors, self.countasserts = {}, 0
  -- warnings from add() (outside any test) are kept
  local kept = {}
  for _, w in ipairs(self.warnings) do if w.name == '' then kept[#kept + 1] = w end end
  self.warnings = kept
  local out = self.summaryOnly and function() end or io.write
  out(string.format('Running %d test%s\n', #run, #run == 1 and '' or 's'))
  local failed, skipped = 0, 0
  local function handler(e)
    if type(e) == 'table' and e.tester_abort then return e end
    return debug.traceback(tostring(e), 2)
  end
  -- runs f(...) for test t; an error is recorded as the test's ERROR
  local function guarded(t, f, ...)
    local ok, err = xpcall(f, handler, ...)
    if not ok and not (type(err) == 'table' and err.tester_abort) then
      self.errors[#self.errors + 1] = {name = t.name, kind = 'ERROR', message = err}
      if self.rethrow then error(err, 0) end
    end
  end
  for i, t in ipairs(run) do
    self.curtestname = t.name
    local nerr, nwarn = #self.errors, #self.warnings
    local status = 'SKIP'
    if not self.disabledTests[t.name] then
      if self._setUp then guarded(t, self._setUp, t.name) end
      if #self.errors == nerr then guarded(t, t.f) end
      if self._tearDown then guarded(t, self._tearDown, t.name) end
      status = #self.errors == nerr and 'PASS' or self.errors[#self.errors].kind
      if status ~= 'PASS' then failed = failed + 1 end
    else
      skipped = skipped + 1
    end
    local head = string.format('%d/%d %s ', i, #run, t.name)
    out(head .. string.rep('.', math.max(3, 70 - #head)) .. ' [' .. status .. ']'
        .. (status == 'PASS' and #self.warnings > nwarn and ' [+warning]' or '') .. '\n')
    if status ~= 'PASS' and status ~= 'SKIP' and self.earlyAbort then
      if i < #run then out('Aborting on first error, not all tests have been executed\n') end
      break
    end
  end
  self.curtestname = nil
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
    io.write(string.rep('-', 80), '\n', e.name, ' [', e.kind, ']\n', e.message, '\n')
  end
  if not self.summaryOnly then
    for _, w in ipairs(self.warnings) do
      io.write(string.rep('-', 80), '\n', w.name ~= '' and (w.name .. ' ') or '', '[WARNING]\n', w.message, '\n')
    end
  end
  if #self.errors > 0 then
    io.write(string.rep('-', 80), '\n')
    error(string.format('torch.Tester: %d of %d tests failed', failed, #run), 2)
  end
  return self
end

return Tester
