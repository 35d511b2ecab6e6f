-- sys: clocks, sleeping, commands, file times, names, colours.
require 'torch'
local sys = require 'sys'
local paths = require 'paths'
local H = require 'spec.support.helpers'

describe('sys', function()
  it('is the global sys', function()
    assert.are.equal(sys, _G.sys)
  end)

  it('clock is the epoch time to the microsecond', function()
    local t = sys.clock()
    assert.is_true(math.abs(t - os.time()) <= 1)
    assert.are.equal('float', math.type(t))
    local t2 = sys.clock()
    assert.is_true(t2 >= t and t2 - t < 0.5)
  end)

  it('sleep and usleep sleep that long; tic/toc measure it', function()
    sys.tic()
    sys.sleep(0.05)
    local dt = sys.toc()
    assert.is_true(dt >= 0.05 and dt < 1, 'slept ' .. dt)
    sys.tic()
    sys.usleep(20000)
    dt = sys.toc()
    assert.is_true(dt >= 0.02 and dt < 1, 'slept ' .. dt)
    sys.usleep(0)
    H.fails('sys.sleep: seconds (number) expected, got string', function() sys.sleep('1') end)
    H.fails('sys.usleep: microseconds (number) expected, got nil', function() sys.usleep() end)
    H.fails("bad argument #1 to 'sys.usleep' (microseconds must be 0..1e15, got -1.000000)",
            function() sys.usleep(-1) end)
    -- sys.sleep names itself and its unit, not the usleep it calls
    H.fails('sys.sleep: seconds must be 0..1e9, got -1', function() sys.sleep(-1) end)
    H.fails('sys.sleep: seconds must be 0..1e9, got', function() sys.sleep(0 / 0) end)
  end)

  it('toc(true) prints the time', function()
    local printed
    local p = print
    _G.print = function(x) printed = x end
    sys.tic()
    local dt = sys.toc(true)
    _G.print = p
    assert.are.equal(dt, printed)
  end)

  it('execute and fexecute return the output, trimmed, stderr included', function()
    assert.are.equal('hello world', sys.execute("printf '  hello world\\n\\n'"))
    assert.are.equal('out\nerr', sys.execute('echo out; echo err >&2'))
    assert.are.equal('hello', sys.fexecute('echo "  hello  "'))
    assert.are.equal('a', sys.fexecute('printf "a\\nb\\n"', 'l'))
    assert.are.equal('out\nerr', sys.fexecute('echo out; echo err >&2'))
    assert.are.equal('', sys.execute('true'))
    H.fails('sys.execute: command (string) expected, got nil', function() sys.execute() end)
  end)

  it('fstat gives modification, access and change times', function()
    local name = os.tmpname()
    local m, a, c = sys.fstat(name)
    assert.is_true(math.abs(m - os.time()) <= 2)
    assert.is_number(a)
    assert.is_number(c)
    os.remove(name)
    assert.are.equal(0, select('#', sys.fstat(name)))
    H.fails('sys.fstat: file name (string) expected, got number', function() sys.fstat(1) end)
  end)

  it('uname and OS name the system as Torch7 did', function()
    assert.are.equal('linux', sys.uname())
    assert.are.equal('linux', sys.OS)
  end)

  it('ls, ll, la, lla list a directory', function()
    local d = os.tmpname()
    os.remove(d)
    paths.mkdir(d)
    io.open(d .. '/one', 'w'):close()
    assert.are.equal('one', sys.ls(d))
    assert.truthy(sys.ll(d):find('one', 1, true))
    assert.truthy(sys.la(d):find('%.%.'))
    assert.truthy(sys.lla(d):find('one', 1, true))
    paths.rmall(d, 'yes')
  end)

  it('fpath gives the directory and name of the calling file', function()
    local dir, name = sys.fpath()
    assert.are.equal('sys_spec.lua', name)
    assert.truthy(dir:match('/spec$'))
  end)

  it('split, isNaN', function()
    assert.are.same({'a', 'b', '', 'c'}, sys.split('a,b,,c', ','))
    assert.are.same({'a', 'b'}, sys.split(',a,b,', ','))
    assert.are.same({'1', '2', '3'}, sys.split('1  2 3', ' +'))
    H.fails("sys.split: separator pattern ' *' matches the empty string", function() sys.split('a b', ' *') end)
    assert.is_true(sys.isNaN(0 / 0))
    assert.is_false(sys.isNaN(1))
  end)

  it('COLORS holds the ANSI escapes by Torch7 names', function()
    assert.are.equal('\27[0m', sys.COLORS.none)
    assert.are.equal('\27[0;31m', sys.COLORS.red)
    assert.are.equal('\27[1;31m', sys.COLORS.Red)
    assert.are.equal('\27[44m', sys.COLORS._blue)
    local n = 0
    for _ in pairs(sys.COLORS) do n = n + 1 end
    assert.are.equal(25, n)
  end)

  it("prefix, and the path functions Torch7's sys kept", function()
    assert.are.equal(paths.install_prefix, sys.prefix)
    assert.are.equal(paths.dirname, sys.dirname)
    assert.are.equal(paths.concat, sys.concat)
    assert.is_true(sys.dirp('/'))
    assert.is_false(sys.filep('/'))
  end)
end)
