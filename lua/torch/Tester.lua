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

local torch = torch

-- a table of test functions that refuses two tests of one name, a
-- copy-and-paste slip that would silently drop a test (the tests live
-- behind a proxy, so that a redefinition reaches __newindex)
function torch.TestSuite()
  local tests = {}
  return setmetatable({}, {
    __newindex = function(_, name, f)
      if tests[name] ~= nil then
        error(string.format("torch.TestSuite: test '%s' defined twice", tostring(name)), 2)
      end
      tests[name] = f
    end,
    __index = tests,
    __pairs = function() return next, tests, nil end})
end

local Tester = torch.class('torch.Tester')

function Tester:__init()
  self.tests, self.testnames = {}, {}
  self.errors = {}          -- {name=, kind='FAIL'|'ERROR', message=}
  self.countasserts = 0
  self.earlyAbort, self.rethrow, self.summaryOnly = false, false, false
end

function Tester:setEarlyAbort(v) self.earlyAbort = v and true or false; return self end
function Tester:setRethrowErrors(v) self.rethrow = v and true or false; return self end
function Tester:setSummaryOnly(v) self.summaryOnly = v and true or false; return self end

-- Tester:add(f, name) | add(table of functions) | add(TestSuite)
function Tester:add(f, name)
  if type(f) == 'table' then
    local names = {}
    for k, v in pairs(f) do
      if type(v) ~= 'function' then
        error(string.format("torch.Tester:add: test '%s' must be a function, got %s", tostring(k), type(v)), 2)
      end
      names[#names + 1] = k
    end
    table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(names) do self:add(f[k], tostring(k)) end
  elseif type(f) == 'function' then
    self.tests[#self.tests + 1] = f
    self.testnames[#self.tests] = name or ('test ' .. #self.tests)
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

function Tester:assert(cond, message) return self:_check(cond, message, 'BOOL violation: condition=%s', tostring(cond)) end
function Tester:assertlt(a, b, message) return self:_check(a < b, message, 'LT(<) violation: %s, %s', str(a), str(b)) end
function Tester:assertgt(a, b, message) return self:_check(a > b, message, 'GT(>) violation: %s, %s', str(a), str(b)) end
function Tester:assertle(a, b, message) return self:_check(a <= b, message, 'LE(<=) violation: %s, %s', str(a), str(b)) end
function Tester:assertge(a, b, message) return self:_check(a >= b, message, 'GE(>=) violation: %s, %s', str(a), str(b)) end
function Tester:asserteq(a, b, message) return self:_check(a == b, message, 'EQ(==) violation: %s, %s', str(a), str(b)) end
function Tester:assertne(a, b, message) return self:_check(a ~= b, message, 'NE(~=) violation: %s, %s', str(a), str(b)) end

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
  local out = self.summaryOnly and function() end or io.write
  out(string.format('Running %d test%s\n', #run, #run == 1 and '' or 's'))
  local failed = 0
  for i, t in ipairs(run) do
    self.curtestname = t.name
    local nerr = #self.errors
    local ok, err = xpcall(t.f, function(e)
      if type(e) == 'table' and e.tester_abort then return e end
      return debug.traceback(tostring(e), 2)
    end)
    if not ok and not (type(err) == 'table' and err.tester_abort) then
      self.errors[#self.errors + 1] = {name = t.name, kind = 'ERROR', message = err}
      if self.rethrow then error(err, 0) end
    end
    local status = #self.errors == nerr and 'PASS' or self.errors[#self.errors].kind
    if status ~= 'PASS' then failed = failed + 1 end
    local head = string.format('%d/%d %s ', i, #run, t.name)
    out(head .. string.rep('.', math.max(3, 70 - #head)) .. ' [' .. status .. ']\n')
    if status ~= 'PASS' and self.earlyAbort then break end
  end
  local nfail, nerror = 0, 0
  for _, e in ipairs(self.errors) do
    if e.kind == 'FAIL' then nfail = nfail + 1 else nerror = nerror + 1 end
  end
  io.write(string.format('Completed %d assert%s in %d test%s with %d failure%s and %d error%s\n',
    self.countasserts, self.countasserts == 1 and '' or 's', #run, #run == 1 and '' or 's',
    nfail, nfail == 1 and '' or 's', nerror, nerror == 1 and '' or 's'))
  for _, e in ipairs(self.errors) do
    io.write(string.rep('-', 80), '\n', e.name, ' [', e.kind, ']\n', e.message, '\n')
  end
  if #self.errors > 0 then
    io.write(string.rep('-', 80), '\n')
    error(string.format('torch.Tester: %d of %d tests failed', failed, #run), 2)
  end
  return self
end

return Tester
