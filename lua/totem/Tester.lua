-- totem.Tester: torch.Tester with what totem added on top.
--   * run() reads the script's command line (the global 'arg'), as
--     totem's did:  th test.lua [--list] [--summary] [--early-abort]
--     [--rethrow] [--log-output FILE] [pattern ...]
--     Patterns (Lua patterns, unanchored) select the tests to run, from
--     the command line or from run(pattern | {patterns}); a pattern that
--     matches no test is an error.
--   * eq/ne(got, expected, message, tolerance, ret): ret = true returns
--     the outcome without recording an assertion (totem's old API).
--   * assertStorageEq/Ne(sa, sb, tolerance, message).
--   * add() also takes what older totem scripts pass it: a file name
--     (the file runs now; what it returns is added: a table of tests, a
--     return code, or a tester that has run), a return code (0 = passed),
--     a tester that has run, and a name with a table of tests (ignored)
--   * assertTensorEq no longer takes {{1}} and {1} as equal (the sizes
--     must match, as torch.Tester's :eq).
-- --log-output writes one line per test, "name #passed #failed #errors",
-- then "[total] ..." (totem's format).

local Tester, parent = torch.class('totem.Tester', 'torch.Tester')

function Tester:__init()
  parent.__init(self)
  self._assertTensorEqIgnoresDims = false
end

-- with self._ret set, an assertion only answers: nothing is recorded
function Tester:_assert_sub(condition, message)
  if self._ret then return condition, message end
  return parent._assert_sub(self, condition, message)
end

local function withRet(self, ret, f, ...)
  if not ret then return f(self, ...) end
  self._ret = true
  local ok, a, b = pcall(f, self, ...)
  self._ret = nil
  if not ok then error(a, 3) end
  return a, b
end

function Tester:eq(got, expected, message, tolerance, ret)
  return withRet(self, ret, parent.eq, got, expected, message, tolerance)
end

function Tester:ne(got, expected, message, tolerance, ret)
  return withRet(self, ret, parent.ne, got, expected, message, tolerance)
end

-- tester:assertStorageEq(sa, sb [, tolerance [, message]])
function Tester:assertStorageEq(sa, sb, tolerance, message)
  if not torch.isStorage(sa) then error('totem.Tester:assertStorageEq: first argument should be a Storage', 2) end
  if not torch.isStorage(sb) then error('totem.Tester:assertStorageEq: second argument should be a Storage', 2) end
  return parent.eq(self, sa, sb, tolerance, message)
end

function Tester:assertStorageNe(sa, sb, tolerance, message)
  if not torch.isStorage(sa) then error('totem.Tester:assertStorageNe: first argument should be a Storage', 2) end
  if not torch.isStorage(sb) then error('totem.Tester:assertStorageNe: second argument should be a Storage', 2) end
  return parent.ne(self, sa, sb, tolerance, message)
end

-- a test that passes when a nested run (its code or its tester) passed
local function resultTest(self, name, ok, message)
  return parent.add(self, function() self:assert(ok, message) end, name)
end

function Tester:add(f, name)
  if type(f) == 'string' then
    local ok, result = pcall(dofile, f)
    if not ok then return resultTest(self, f, false, 'running ' .. f .. ' failed: ' .. tostring(result)) end
    if result == nil then return self end
    if type(result) == 'table' and not torch.isTypeOf(result, 'torch.Tester') then return self:add(result) end
    return self:add(result, f)
  elseif type(f) == 'number' then
    return resultTest(self, name or ('test ' .. (#self.testnames + 1)), f == 0,
                      string.format('nested tests returned %s', tostring(f)))
  elseif torch.isTypeOf(f, 'torch.Tester') then
    local n = #(f.errors or {})
    return resultTest(self, name or ('test ' .. (#self.testnames + 1)), n == 0,
                      string.format('nested tester had %d failures and errors', n))
  elseif type(f) == 'table' and name ~= nil then
    return parent.add(self, f)
  end
  local ok, err = pcall(parent.add, self, f, name)
  if not ok then error(err, 2) end
  return self
end

Tester.CLoptions = [[
    --list print the names of the available tests instead of running them.
    --log-output (optional file-out) redirect compact test results to file.
        This contains one line per test in the following format:
        name #passed-assertions #failed-assertions #exceptions
    --summary print only pass/fail status rather than full error messages.
    --early-abort (optional boolean) abort execution on first error.
    --rethrow (optional boolean) errors make the program crash and propagate up
        the stack.
]]

local flags = {['--list'] = 'list', ['--summary'] = 'summary', ['--early-abort'] = 'early_abort',
               ['--rethrow'] = 'rethrow'}

-- the options and test patterns of a command line (a table like 'arg')
function Tester.parseCommandLine(argv)
  local opts, names = {}, {}
  local i = 1
  while argv[i] ~= nil do
    local a = tostring(argv[i])
    local key, value = a:match('^(%-%-[%w%-]+)=(.*)$')
    key = key or a
    if flags[key] then
      opts[flags[key]] = true
    elseif key == '--log-output' then
      if not value then
        i = i + 1
        value = argv[i]
      end
      if value == nil then error('totem.Tester: --log-output needs a file name', 3) end
      opts.log_output = value
    elseif key:sub(1, 1) == '-' and #key > 1 then
      error(string.format('totem.Tester: unknown option %s (known: --list --summary --early-abort '
                          .. '--rethrow --log-output FILE)', key), 3)
    else
      names[#names + 1] = a
    end
    i = i + 1
  end
  return opts, names
end

-- the names of the tests that match any of 'patterns', in run order
function Tester:_matchTests(patterns)
  if patterns == nil then return nil end
  if type(patterns) == 'string' then patterns = {patterns} end
  if type(patterns) ~= 'table' then
    error(string.format('totem.Tester:run: a test name or a table of names expected, got %s', type(patterns)), 3)
  end
  local chosen, names = {}, {}
  for _, pattern in ipairs(patterns) do
    local found = false
    for _, name in ipairs(self.testnames) do
      if self.tests[name] ~= nil and string.match(name, pattern) then
        found = true
        if not chosen[name] then
          chosen[name] = true
          names[#names + 1] = name
        end
      end
    end
    if not found then error(string.format("totem.Tester:run: Couldn't find test '%s'", pattern), 3) end
  end
  return names
end

function Tester:_logExtraOutput(names, path)
  local f, err = io.open(path, 'w')
  if not f then error('totem.Tester: cannot open the log file: ' .. tostring(err), 3) end
  local errorsOf = {}
  for _, e in ipairs(self.errors) do
    if e.kind == 'ERROR' then errorsOf[e.name] = (errorsOf[e.name] or 0) + 1 end
  end
  local tp, tf, te = 0, 0, 0
  for _, name in ipairs(names) do
    local p, q, e = self.assertionPass[name] or 0, self.assertionFail[name] or 0, errorsOf[name] or 0
    tp, tf, te = tp + p, tf + q, te + e
    f:write(string.format('%s %d %d %d\n', name, p, q, e))
  end
  f:write(string.format('[total] %d %d %d\n', tp, tf, te))
  f:close()
end

-- tester:run([pattern | {patterns}]) -> self; raises at the end when a test
-- failed (so that the script exits non-zero), as torch.Tester
function Tester:run(testNames)
  local opts = {}
  local argv = rawget(_G, 'arg')
  if testNames == nil and type(argv) == 'table' then
    local names
    opts, names = Tester.parseCommandLine(argv)
    if #names > 0 then testNames = names end
  end
  local names = self:_matchTests(testNames)
  if opts.list then
    for _, name in ipairs(names or self.testnames) do print(name) end
    return self
  end
  if opts.summary then self:setSummaryOnly(true) end
  if opts.early_abort then self:setEarlyAbort(true) end
  if opts.rethrow then self:setRethrowErrors(true) end
  local ok, err = pcall(parent.run, self, names)
  if opts.log_output then self:_logExtraOutput(names or self.testnames, opts.log_output) end
  if not ok then error(err, 0) end
  return self
end

return Tester
