-- bin/th: scripts with arguments, piped input, the interactive session.
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/th_spec%.lua$') or ''
local th = root .. 'bin/th'
-- the build the specs run against (make test BUILD=...), so bin/th neither
-- builds nor picks another one
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function tmpfile(text)
  local name = os.tmpname()
  local f = assert(io.open(name, 'w'))
  f:write(text)
  f:close()
  return name
end

-- runs a shell command line with bin/th's environment; returns stdout,
-- stderr and the exit status
local function run(cmdline, env)
  local errname = os.tmpname()
  local p = io.popen(string.format('TH_BUILD=%s %s %s 2>%s', sh(build), env or '', cmdline, errname))
  local out = p:read('a')
  local _, _, status = p:close()
  local f = io.open(errname)
  local err = f:read('a')
  f:close()
  os.remove(errname)
  return out, err, status
end

-- output lines that are not nn/optnet load warnings (those depend on the tree)
local function errors(err)
  local keep = {}
  for line in err:gmatch('[^\n]+') do
    if not line:find('^th: warning: ') then keep[#keep + 1] = line end
  end
  return table.concat(keep, '\n')
end

describe('bin/th', function()
  it('found the build to run against', function()
    assert.is_string(build)
  end)

  it('runs a script with arg set and torch loaded', function()
    local script = tmpfile([[
print(arg[0] == ...  and 'same' or 'varargs', select('#', ...))
print(#arg, arg[1], arg[2])
print(torch.Tensor({{1, 2}, {3, 4}}))
print(unpack({'compat', 'on'}))
]])
    local out, err, status = run(sh(th) .. ' ' .. sh(script) .. " first 'second arg'")
    os.remove(script)
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.are.equal(table.concat({
      'varargs\t2', '2\tfirst\tsecond arg',
      ' 1  2', ' 3  4', '[torch.DoubleTensor of size 2x2]', '',
      'compat\ton', ''}, '\n'), out)
  end)

  it('gives arg[0] the script name', function()
    local script = tmpfile('print(arg[0])\n')
    local out = run(sh(th) .. ' ' .. sh(script))
    os.remove(script)
    assert.are.equal(script .. '\n', out)
  end)

  it('fails with the error and a non-zero status when a script fails', function()
    local script = tmpfile('error("script failed here")\n')
    local out, err, status = run(sh(th) .. ' ' .. sh(script))
    os.remove(script)
    assert.are.equal('', out)
    assert.are_not.equal(0, status)
    assert.is_truthy(err:find('script failed here', 1, true))
  end)

  it('reads piped stdin as the session would, printing expression values', function()
    local input = tmpfile(table.concat({
      'x = torch.Tensor({1.5, 2})',
      'x',
      '1 + 1, "two"',
      'for i = 1, 2 do',
      '  print("line", i)',
      'end',
      '= x:nElement()',
      'print(torch.FloatTensor({{1, 2}, {3, 4}}):t())',
      ''}, '\n'))
    local out, err, status = run(sh(th) .. ' < ' .. sh(input))
    os.remove(input)
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.are.equal(table.concat({
      ' 1.5000', ' 2.0000', '[torch.DoubleTensor of size 2]', '',
      '2\ttwo',
      'line\t1', 'line\t2',
      '2',
      ' 1  3', ' 2  4', '[torch.FloatTensor of size 2x2]', '',
      ''}, '\n'), out)
  end)

  it('reports a failing line with its line number, goes on, and exits 1', function()
    local input = tmpfile('print("before")\nerror("bad line")\nprint("after")\nlocal x = \n')
    local out, err, status = run(sh(th) .. ' < ' .. sh(input))
    os.remove(input)
    assert.are.equal('before\nafter\n', out)
    assert.are.equal(1, status)
    err = errors(err)
    assert.is_truthy(err:find('th: stdin:2: bad line', 1, true))
    assert.is_truthy(err:find('th: stdin:4: incomplete statement at end of input', 1, true))
  end)

  it('passes lua5.4 options through', function()
    local out, err, status = run(sh(th) .. [[ -e 'print(torch.type(torch.Tensor()))']])
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.are.equal('torch.DoubleTensor\n', out)
  end)

  it('keeps the interactive history across sessions', function()
    -- 'script' gives the session a terminal, so the readline REPL runs
    if not os.execute('command -v script >/dev/null 2>&1') then
      pending('script(1) is not installed')
      return
    end
    local hist = os.tmpname()
    os.remove(hist)
    local input = tmpfile('y = torch.Tensor({7, 8})\ny\n')
    local out, _, status = run('timeout 30 script -qec ' .. sh(sh(th)) .. ' /dev/null < ' .. sh(input),
                               'TH_HISTORY=' .. sh(hist))
    os.remove(input)
    assert.are.equal(0, status)
    assert.is_truthy(out:find('th> ', 1, true))
    assert.is_truthy(out:find(' 7\r?\n 8\r?\n%[torch.DoubleTensor of size 2%]'))
    local f = assert(io.open(hist))
    local saved = f:read('a')
    f:close()
    os.remove(hist)
    assert.are.equal('y = torch.Tensor({7, 8})\ny\n', saved)
  end)

  it('has help in -e, scripts and piped input, ?name included', function()
    local out, err, status = run(sh(th) .. [[ -e 'help(torch.cat)']])
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.is_truthy(out:find('torch.cat', 1, true), out)
    local script = tmpfile('help("nn.Linear")\n')
    out, err, status = run(sh(th) .. ' ' .. sh(script))
    os.remove(script)
    assert.are.equal(0, status, err)
    assert.is_truthy(out:find('nn.Linear', 1, true), out)
    local input = tmpfile('x = 41\n?torch.cat\nprint(x + 1)\n')
    out, err, status = run(sh(th) .. ' < ' .. sh(input))
    os.remove(input)
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.is_truthy(out:find('torch.cat', 1, true), out)
    assert.is_truthy(out:find('\n42\n$'), out)
  end)

  it('prints its usage for -h and its version for -v', function()
    local out, err, status = run(sh(th) .. ' -h')
    assert.are.equal(0, status)
    assert.is_truthy(out:find('^Usage: th %[options%] %[script.lua %[arguments%]%]\n'), out)
    for _, opt in ipairs{'-e statement', '-l name', '-i,--interactive', '-h,--help', '-v,--version'} do
      assert.is_truthy(out:find(opt, 1, true), opt)
    end
    out, err, status = run(sh(th) .. ' -v')
    assert.are.equal(0, status)
    assert.are.equal('th (torch-optnet scm-1) on Lua 5.4\n', out)
    out, err, status = run(sh(th) .. ' -x')
    assert.are.equal(1, status)
    assert.is_truthy(err:find("th: unrecognized option '-x'\nUsage: th", 1, true), err)
    out, err, status = run(sh(th) .. ' -e')
    assert.are.equal(1, status)
    assert.is_truthy(err:find("th: '-e' needs an argument", 1, true), err)
  end)

  it('runs -e and -l in order, then the script; - reads the script from stdin', function()
    local out, err, status = run(sh(th) .. [[ -e 'a = 1' -l string -e 'print(a + 1, type(string))']])
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.are.equal('2\ttable\n', out)
    local script = tmpfile('print("script", a, ...)\n')
    out = run(sh(th) .. " -e 'a = 5' " .. sh(script) .. ' x')
    os.remove(script)
    assert.are.equal('script\t5\tx\n', out)
    out, err, status = run('echo \'print("from stdin", arg[0], ...)\' | ' .. sh(th) .. ' - p q')
    assert.are.equal(0, status, err)
    assert.are.equal('from stdin\t-\tp\tq\n', out)
    -- a failing -e stops with status 1
    out, err, status = run(sh(th) .. [[ -e 'error("e failed")' -e 'print("not run")']])
    assert.are.equal(1, status)
    assert.are.equal('', out)
    assert.is_truthy(err:find('e failed', 1, true))
  end)

  it('-i runs the script, then reads the session (stdin not a terminal: line by line)', function()
    local script = tmpfile('v = 21\n')
    local input = tmpfile('v * 2\n')
    local out, err, status = run(sh(th) .. ' -i ' .. sh(script) .. ' < ' .. sh(input))
    os.remove(script)
    os.remove(input)
    assert.are.equal('', errors(err))
    assert.are.equal(0, status)
    assert.are.equal('42\n', out)
  end)
end)
