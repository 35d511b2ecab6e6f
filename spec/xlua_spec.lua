-- xlua: the progress bar (its text as Torch7 writes it, what a terminal
-- shows, quiet off a terminal and under CI), formatTime, print, errors,
-- loading, envparams, the usage and argument helpers, and the string and
-- table helpers it installs.
require 'torch'
local xlua = require 'xlua'
local H = require 'spec.support.helpers'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/xlua_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function captured(f)
  local write, out = io.write, {}
  io.write = function(...)
    for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end
  end
  local ok, err = pcall(f)
  io.write = write
  if not ok then error(err, 0) end
  return table.concat(out)
end

-- runs a Lua chunk in bin/th under 'env'; stdout, status
local function th(code, env, wrap)
  local cmd = string.format('%s TH_BUILD=%s %sbin/th -e %s', env or '', sh(build), root, sh(code))
  if wrap then cmd = wrap(cmd) end
  local p = io.popen(cmd .. ' 2>/dev/null')
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status
end

-- the screen line Torch7's bar shows at width 80 (a 46-column bar) for
-- step i of n, with the time text after it
local function expected(i, n, tm)
  local barLength = 46
  local percent = math.floor(i * barLength / n)
  local cells = {}
  for k = 1, barLength do cells[k] = k < percent and '=' or (k == percent and '>' or '.') end
  local line = ' [' .. table.concat(cells) .. '] ' .. tm
  local label = string.format(' %d/%d ', i, n)
  local at = barLength + 4 - 5 - barLength // 2 + 1   -- the column the label starts at
  return ((line:sub(1, at - 1) .. label .. line:sub(at + #label)):gsub('%s+$', ''))
end

describe('xlua', function()
  local saved
  before_each(function()
    saved = {}
    for k, v in pairs(xlua._progress) do saved[k] = v end
  end)
  after_each(function()
    for k in pairs(xlua._progress) do xlua._progress[k] = nil end
    for k, v in pairs(saved) do xlua._progress[k] = v end
  end)

  it('is the global xlua and sets xprint, xerror, xrequire', function()
    assert.are.equal(xlua, _G.xlua)
    assert.are.equal(xlua.print, xprint)
    assert.are.equal(xlua.error, xerror)
    assert.are.equal(xlua.require, xrequire)
  end)

  describe('formatTime', function()
    it('shows the two largest units, as Torch7', function()
      local cases = {{0, '0ms'}, {0.0004, '0ms'}, {0.25, '250ms'}, {1, '1s'}, {3.5, '3s500ms'},
                     {59.999, '59s999ms'}, {60, '1m'}, {61.5, '1m1s'}, {3600, '1h'}, {3725.5, '1h2m'},
                     {86400, '1D'}, {90061, '1D1h'}, {200000, '2D7h'}}
      for _, c in ipairs(cases) do assert.are.equal(c[2], xlua.formatTime(c[1]), tostring(c[1])) end
      H.fails('xlua.formatTime: argument 1: seconds (number) expected, got string',
              function() xlua.formatTime('1') end)
    end)
  end)

  describe('progress', function()
    it("writes Torch7's text: bar, time, then i/n over the middle", function()
      local text = xlua._progresstext(23, 46, 80, ' ETA: 1s | Step: 43ms', true)
      assert.are.equal('\r [' .. ('='):rep(22) .. '>' .. ('.'):rep(23) .. '] ' .. (' '):rep(30) .. ('\b'):rep(30)
                       .. ' ETA: 1s | Step: 43ms' .. ('\b'):rep(5 + 21 + 23) .. ' 23/46 \r', text)
      assert.are.same({' [' .. ('='):rep(20) .. ' 23/46 ' .. ('.'):rep(19) .. ']  ETA: 1s | Step: 43ms'},
                      xlua._progressscreen(text))
      assert.are.same({expected(23, 46, ' ETA: 1s | Step: 43ms')}, xlua._progressscreen(text))
      -- the last step ends the line
      text = xlua._progresstext(46, 46, 80, ' Tot: 2s | Step: 43ms', true)
      assert.are.equal('\n\r', text:sub(-2))
    end)

    it('draws a whole bar with ETA, then the total, on a terminal', function()
      local out, t = {}, 0
      xlua._progress.enabled, xlua._progress.width, xlua._progress.bar = true, 80, nil
      xlua._progress.clock = function() return t end
      xlua._progress.write = function(s) out[#out + 1] = s end
      for i = 1, 4 do
        t = 2 * i
        xlua.progress(i, 4)
      end
      local screen = xlua._progressscreen(table.concat(out))
      assert.are.same({expected(4, 4, ' Tot: 6s | Step: 2s')}, screen)
      assert.are.same({expected(1, 4, ' ETA: 0ms | Step: 0ms')}, xlua._progressscreen(out[1]))
      assert.are.same({expected(2, 4, ' ETA: 4s | Step: 2s')}, xlua._progressscreen(out[2]))
      assert.are.equal(' [', out[1]:sub(1, 2))   -- a new bar starts without '\r'
      assert.are.equal('\r [', out[2]:sub(1, 3))
      -- a new bar starts when the count goes back
      out = {}
      xlua.progress(1, 2)
      xlua.progress(2, 2)
      assert.are.same({expected(2, 2, ' Tot: 0ms | Step: 0ms')}, xlua._progressscreen(table.concat(out)))
      -- calls after the end of a bar draw nothing until a new one starts
      out = {}
      xlua.progress(2, 2)
      assert.are.same({}, out)
    end)

    it('redraws an unmoved bar at most 10 times a second', function()
      local out, t = {}, 0
      xlua._progress.enabled, xlua._progress.width, xlua._progress.bar = true, 80, nil
      xlua._progress.clock = function() return t end
      xlua._progress.write = function(s) out[#out + 1] = s end
      for i = 1, 1000 do
        t = i * 1e-3
        xlua.progress(i, 1000)
      end
      assert.is_true(#out >= 46 and #out < 200, #out .. ' draws')
      assert.truthy(out[#out]:find(' 1000/1000 ', 1, true))
    end)

    it('checks its arguments', function()
      H.fails('xlua.progress: argument 1: current step (number) expected, got nil', function() xlua.progress() end)
      H.fails('xlua.progress: argument 2: goal (positive number) expected, got 0', function() xlua.progress(1, 0) end)
      H.fails('xlua.progress: argument 2: goal (positive number) expected, got string',
              function() xlua.progress(1, '5') end)
    end)

    it("shows optnet's verbose walk over a big net, its notes after the bar", function()
      require 'nn'
      local optnet = require 'optnet'
      local events = {}
      xlua._progress.enabled, xlua._progress.width, xlua._progress.bar = true, 80, nil
      xlua._progress.write = function(s) events[#events + 1] = {'bar', s} end
      local net = nn.Sequential()
      for _ = 1, 120 do net:add(nn.Linear(4, 4)):add(nn.ReLU()) end
      local stderr = io.stderr
      local print_ = print
      io.stderr = {write = function(_, s) events[#events + 1] = {'note', s} end}
      _G.print = function() end   -- optnet's summary line
      local ok, err = pcall(optnet.optimizeMemory, net, torch.randn(3, 4), {mode = 'inference', verbose = true})
      io.stderr, _G.print = stderr, print_
      assert(ok, err)
      local firstNote, lastBar
      for i, e in ipairs(events) do
        if e[1] == 'note' and not firstNote then firstNote = i end
        if e[1] == 'bar' then lastBar = i end
      end
      assert.truthy(lastBar and firstNote and lastBar < firstNote)
      local text = {}
      for i = 1, lastBar do text[#text + 1] = events[i][2] end
      local screen = xlua._progressscreen(table.concat(text))
      assert.truthy(screen[1]:find(' 241/241 ', 1, true), screen[1])
      assert.truthy(events[firstNote][2]:find('optnet: 2 nn.ReLU runs in place', 1, true))
    end)

    local code = 'for i = 1, 5 do xlua.progress(i, 5) end io.write("done")'

    it('is quiet when stdout is not a terminal', function()
      local out, status = th(code, 'env -u CI')
      assert.are.equal(0, status)
      assert.are.equal('done', out)
    end)

    local hasScript = os.execute('command -v script >/dev/null 2>&1')
    local function underTerminal(cmd)
      return 'script -qec ' .. sh(cmd) .. ' /dev/null'
    end

    if hasScript then
      it('draws on a real terminal (script), and not under CI', function()
        local out = th(code, 'env -u CI COLUMNS=80', underTerminal)
        local screen = xlua._progressscreen(out)
        assert.are.equal(2, #screen)
        assert.truthy(screen[1]:match('^ %[=+ 5/5 =+>%]  Tot: [%dm]+s? | Step: %d+m?s'), screen[1])
        assert.are.equal(80 - 34 + 4, #screen[1]:match('^ %[.*%] '))
        assert.are.equal('done', screen[2])
        out = th(code, 'CI=true COLUMNS=80', underTerminal)
        assert.are.same({'done'}, xlua._progressscreen(out))
      end)
    else
      pending('draws on a real terminal (no script program here)')
    end
  end)

  describe('print', function()
    it('prints plain values and tables one field a line', function()
      assert.are.equal('5\n', captured(function() xlua.print(5) end))
      assert.are.equal('{[1] = a}\n', captured(function() xlua.print({'a'}) end))
      local out = captured(function() xlua.print({x = 1, y = 'two'}) end)
      assert.truthy(out == '{[x] = 1,\n [y] = two}\n' or out == '{[y] = two,\n [x] = 1}\n', out)
      assert.are.equal('{[s] = ' .. ('a'):rep(40) .. ' ... }\n', captured(function() xlua.print({s = ('a'):rep(50)}) end))
      assert.are.equal('{[s] = a\\nb}\n', captured(function() xlua.print({s = 'a\nb'}) end))
      assert.are.equal('{}\n', captured(function() xlua.print({}) end))
      assert.are.equal('{[w] = <userdata>}\n', captured(function() xlua.print({w = torch.zeros(2)}) end))
    end)

    it('prints objects with their name, __tostring__, and more values after', function()
      local obj = setmetatable({}, {__tostring = function() return 'Obj' end})
      assert.are.equal('Obj:\n{}\n', captured(function() xlua.print(obj) end))
      local obj2 = setmetatable({}, {__tostring__ = function() return 'custom' end})
      assert.are.equal('custom\n', captured(function() xlua.print(obj2) end))
      local p = print
      local rest
      _G.print = function(...) rest = {...} end
      local out = captured(function() xlua.print('a', 'b', 3) end)
      _G.print = p
      assert.are.equal('a    ', out)
      assert.are.same({'b', 3}, rest)
    end)
  end)

  describe('errors and loading', function()
    it("error raises '<domain> message' with the usage after it", function()
      H.fails('<mylib> bad thing', function() xlua.error('bad thing', 'mylib') end)
      local msg = H.errmsg(function() xlua.error('oops', nil, 'usage: f(x)') end)
      assert.truthy(msg:find('oops\nusage: f(x)', 1, true))
      assert.is_nil(msg:find('\27', 1, true))   -- no escapes when stderr is no terminal
    end)

    it('trycatch runs catch with the error', function()
      local caught
      xlua.trycatch(function() error('boom', 0) end, function(e) caught = e end)
      assert.are.equal('boom', caught)
      xlua.trycatch(function() end, function() error('not called') end)
      H.fails('xlua.trycatch: argument 1: function expected, got nil', function() xlua.trycatch() end)
    end)

    it('require returns the module or false with a warning', function()
      assert.are.equal(package.loaded.paths, xlua.require('paths'))
      local printed = {}
      local p = print
      _G.print = function(s) printed[#printed + 1] = tostring(s) end
      local r = xlua.require('no_such_module_here')
      _G.print = p
      assert.is_false(r)
      assert.truthy(printed[1]:find("module 'no_such_module_here' not found", 1, true))
      assert.are.equal('warning: <no_such_module_here> could not be loaded (is it installed?)', printed[2])
    end)

    it('installed finds a module on package.path or cpath', function()
      local ok, file = xlua.installed('xlua')
      assert.is_true(ok)
      assert.truthy(file:match('xlua/init%.lua$'))
      ok, file = xlua.installed('torch.core')
      assert.is_true(ok)
      assert.truthy(file:match('core%.so$'))
      assert.is_false((xlua.installed('no_such_module_here')))
    end)
  end)

  it('envparams takes values from the environment, typed as the defaults', function()
    local out, status = th([[
local p = xlua.envparams{learningRate = 1e-2, nesterov = true, name = 'a', depth = 3}
io.write(p.learningRate, ' ', tostring(p.nesterov), ' ', p.name, ' ', p.depth, ' ', math.type(p.learningRate))]],
      'learningRate=1e-3 nesterov=False name=run2')
    assert.are.equal(0, status)
    assert.are.equal('0.001 false run2 3 float', out)
    out, status = th('xlua.envparams{depth = 3}', 'depth=deep')
    assert.are_not.equal(0, status)
    H.fails('xlua.envparams: argument 1: table of defaults expected, got nil', function() xlua.envparams() end)
  end)

  describe('usage and arguments', function()
    local defs = {
      {arg = 'size', type = 'number', help = 'the size', req = true},
      {arg = 'name', type = 'string', help = 'a name', default = 'x'},
      {arg = 'other', type = 'string', help = 'defaults to name', defaulta = 'name'},
    }

    it('table2string writes Lua table constructors', function()
      assert.are.equal('{1,2,"three"}', xlua.table2string({1, 2, 'three'}))
      assert.are.equal('{1,a=2,b={c=true}}', xlua.table2string({1, a = 2, b = {c = true}}))
      assert.are.equal('{[2]=1,["a b"]=\'x"y\'}', xlua.table2string({[2] = 1, ['a b'] = 'x"y'}))
      assert.are.equal('{"a\'b\\"c"}', xlua.table2string({'a\'b"c'}))
      assert.are.equal('{\n   1\n   a : 2\n}', xlua.table2string({1, a = 2}, true))
      assert.are.equal("{'\"'}", xlua.table2string({'"'}))
    end)

    it('usage lays out named arguments in a 40-column key field', function()
      local u = xlua.usage('f', 'Does f.', 'f{size=1}', {tabled = defs})
      local banner = ('+'):rep(69)
      assert.are.equal(table.concat({
        banner, 'f', '', 'Does f.', '', '> usage:', 'f{',
        '    size = number                       -- the size',
        '    [name = string]                     -- a name  [default = x]',
        '    [other = string]                    -- defaults to name  [default == name]',
        '}', '', 'f{size=1}', banner}, '\n'), u)
    end)

    it('unpack takes named or positional arguments, with defaults', function()
      local a = xlua.unpack({{size = 3}}, 'f', 'Does f.', table.unpack(defs))
      assert.are.equal(3, a.size)
      assert.are.equal('x', a.name)
      assert.are.equal('x', a.other)
      local b, size, name, other = xlua.unpack({4, 'n'}, 'f', nil, table.unpack(defs))
      assert.are.same({4, 'n', 'n'}, {size, name, other})
      assert.are.equal('n', b.other)
      assert.truthy(tostring(b.usage):find('> usage:', 1, true))
      H.fails({'f: missing argument: size', '> usage:'},
              function() xlua.unpack({{name = 'y'}}, 'f', nil, table.unpack(defs)) end)
      local obj = {}
      xlua.unpack_class(obj, {{size = 1}}, 'f', nil, table.unpack(defs))
      assert.are.equal(1, obj.size)
      assert.are.equal('x', obj.name)
      assert.is_nil(obj[1])
    end)

    it('usage_module gives a module its description', function()
      local m = {}
      local s = xlua.usage_module(m, 'mypkg', 'My package.')
      assert.are.equal(s, tostring(m))
      assert.are.equal(('+'):rep(69) .. '\nPACKAGE:\nmypkg\n\nDESC:\nMy package.\n' .. ('+'):rep(70), s)
    end)
  end)

  describe('string and table helpers', function()
    it('string.split splits on a pattern, as Torch7', function()
      assert.are.same({'a', 'b', '', 'c'}, ('a,b,,c'):split(','))
      assert.are.same({'a', 'b'}, (',a,b,'):split(','))
      assert.are.same({'a', 'b', 'c'}, ('a1b22c'):split('%d+'))
      assert.are.same({'abc'}, ('abc'):split(','))
      assert.are.same({}, (''):split(','))
      assert.are.same({'a', 'b'}, ('a.b'):split('%.'))
      H.fails("string.split: separator pattern ' *' matches the empty string", function() ('a b'):split(' *') end)
      H.fails('xlua.string.split: argument 2: separator pattern (string) expected, got nil',
              function() ('a'):split() end)
    end)

    it('string.tosymbol evaluates a name', function()
      assert.are.equal(torch.Tensor, ('torch.Tensor'):tosymbol())
      H.fails('symbol "torch.NoSuch" does not exist', function() ('torch.NoSuch'):tosymbol() end)
      H.fails('string.tosymbol:', function() ('nosuch.field'):tosymbol() end)
    end)

    it('table.splice removes a run of elements; table.prune removes duplicates', function()
      local kept, removed = table.splice({1, 2, 3, 4, 5}, 2, 2)
      assert.are.same({1, 4, 5}, kept)
      assert.are.same({2, 3}, removed)
      assert.are.same({2, 3}, (table.splice({1, 2, 3})))
      assert.are.same({1, 2, 3}, table.prune({1, 2, 1, 3, 2}))
      assert.are.same({'A', 'B'}, table.prune({'a', 'A', 'B'}, string.lower))   -- the last one wins
      local merged = table.prune({{k = 1, n = 1}, {k = 1, n = 2}, {k = 2, n = 5}},
                                 function(v) return v.k end,
                                 function(new, old) return {k = old.k, n = old.n + new.n} end)
      assert.are.same({{k = 1, n = 3}, {k = 2, n = 5}}, merged)
      H.fails('xlua.table.splice: argument 1: table expected, got nil', function() table.splice() end)
    end)

    it("never replaces a program's own helper, and stays out of TH_NO_COMPAT=1 sessions", function()
      local out = th([[
function string.split() return 'mine' end
package.loaded.xlua = nil
require 'xlua'
io.write(('a'):split(','), ' ', tostring(table.prune ~= nil))]], 'TH_NO_COMPAT=1')
      assert.are.equal('mine true', out)
      out = th('io.write(tostring(string.split), " ", tostring(xlua), " ", tostring(sys ~= nil))', 'TH_NO_COMPAT=1')
      assert.are.equal('nil nil true', out)
      out = th('io.write(#("a,b"):split(","), " ", tostring(xprint == xlua.print))')
      assert.are.equal('2 true', out)
    end)
  end)

  describe('OptionParser', function()
    local function parser()
      local op = xlua.OptionParser('%prog [options] file')
      op:option{'-n', '--count', action = 'store', dest = 'count', help = 'how many', default = 1}
      op:option{'-v', action = 'store_true', dest = 'verbose', help = 'say more'}
      op:option{'-o', dest = 'out', help = 'output', req = true}
      function op:fail(msg) error('op: ' .. msg, 0) end
      return op
    end

    it('parses short, long and --long=value options and leaves the other words', function()
      local opt, args = parser():parse(nil, {'--count=3', '-v', 'f.txt', '-o', 'x'})
      assert.are.same({count = '3', verbose = true, out = 'x', __main__ = true}, opt)
      assert.are.same({'f.txt'}, args)
      opt = parser():parse({verbose = false}, {'-o', 'x'})
      assert.are.equal(1, opt.count)
      assert.is_false(opt.verbose)
    end)

    it('fails on unknown options, missing values and missing required options', function()
      H.fails('op: invalid option -q', function() parser():parse(nil, {'-q'}) end)
      H.fails('op: option requires an argument -o', function() parser():parse(nil, {'-o'}) end)
      H.fails('op: option -o requires an argument', function() parser():parse(nil, {}) end)
      H.fails("xlua.OptionParser:option: action of -x must be 'store', 'store_true' or 'store_false', got keep",
              function() parser():option{'-x', dest = 'x', action = 'keep'} end)
    end)

    it('prints the help with aligned flags, defaults and [REQUIRED]', function()
      local op = parser()
      local out = {}
      local stdout = io.stdout
      io.stdout = {write = function(_, ...) for _, v in ipairs({...}) do out[#out + 1] = v end end}
      local ok, err = pcall(op.help, op)
      io.stdout = stdout
      assert(ok, err)
      assert.are.equal(table.concat({
        'Usage: ' .. tostring(arg and arg[0] or 'THISPROG') .. ' [options] file', '', 'Options:',
        '  -h, --help               show this help message and exit',
        '  -n COUNT, --count=COUNT  how many [default = 1]',
        '  -v                       say more',
        '  -o OUT                   output [REQUIRED]', ''}, '\n'), table.concat(out))
    end)

    it('tostring gives the configuration or a file-name string', function()
      local op = parser()
      op:parse(nil, {'-n', '2', '-o', 'a/b c'})
      assert.are.equal('-n=2,-o=a|b_c', op:tostring(true))
      assert.are.equal('-o=a|b_c', op:tostring(true, {'-o'}))
      assert.truthy(op:tostring():find(' + count = 2\n', 1, true))
    end)
  end)

  describe('Profiler', function()
    it('times named events and reports them', function()
      local p = xlua.Profiler()
      p:start('work', 'fps')
      sys.sleep(0.01)
      local real, cpu = p:lap('work')
      assert.is_true(real >= 0.01 and real < 1)
      assert.is_number(cpu)
      assert.truthy(p:format('work'):match('^%$ real | cpu: [%d.]+ | [%d.]+ <work>$'))
      local report = p:formatAll()
      assert.truthy(report:match('^%$ profiler report:\n%$ real [%d.]+ | cpu [%d.]+ <work> = [%d.]+ fps$'), report)
      H.fails("xlua.Profiler:lap: no event 'other' (start it first)", function() p:lap('other') end)
      local printed = false
      local print_ = print
      _G.print = function() printed = true end
      xlua.Profiler('off'):printAll()
      _G.print = print_
      assert.is_false(printed)
    end)
  end)

  describe('globals', function()
    it('who lists the libraries and the user globals; clear and clearall remove them', function()
      local out = th([[
myvar = 42
xlua.clear('myvar')
io.write(tostring(myvar), '\n')
other = 1
xlua.clearall()
io.write(tostring(rawget(_G, 'other')), ' ', tostring(torch ~= nil), '\n')
]])
      assert.are.equal('nil\nnil true\n', out)
      local before = rawget(_G, 'spec_user_global')
      _G.spec_user_global = 7
      local text = captured(function() xlua.who() end)
      _G.spec_user_global = before
      assert.truthy(text:find('Global Libs:', 1, true))
      assert.truthy(text:find('[spec_user_global] = 7', 1, true))
      assert.truthy(text:find('torch', 1, true))
    end)

    it('log copies what is written to a file', function()
      local name = os.tmpname()
      local out = th(string.format([[
xlua.log(%q)
io.write('to both\n')
print({a = 1})
]], name))
      local f = assert(io.open(name))
      local text = f:read('a')
      f:close()
      os.remove(name)
      assert.are.equal('to both\n{[a] = 1}\n', text)
      assert.are.equal(text, out)
    end)
  end)
end)
