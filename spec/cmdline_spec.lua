-- torch.CmdLine: declaration, parsing of every option type, bad command
-- lines (in process through cmd:error, and as a script's exit status and
-- output), the help text layout, the experiment name, the log.
require 'torch'
local H = require 'spec.support.helpers'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/cmdline_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- everything io.write writes while f runs
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

-- a parser whose errors raise instead of exiting
local function parser()
  local cmd = torch.CmdLine()
  function cmd:error(msg) error('cmdline: ' .. msg, 0) end
  return cmd
end

local function demo()
  local cmd = parser()
  cmd:text()
  cmd:text('Train a net')
  cmd:text()
  cmd:text('Options:')
  cmd:option('-lr', 0.1, 'learning rate')
  cmd:option('-batch', 32, 'batch size')
  cmd:option('-name', 'exp', 'experiment name')
  cmd:option('-cuda', false, 'use the GPU')
  cmd:option('-shuffle', true, 'shuffle the data')
  cmd:option('--longer-name', 1.5)
  cmd:text()
  cmd:argument('-data', 'training file')
  return cmd
end

describe('torch.CmdLine', function()
  it('is a torch class with Torch7 separators', function()
    local cmd = torch.CmdLine()
    assert.are.equal('torch.CmdLine', torch.type(cmd))
    assert.are.equal(',', cmd.argseparator)
    assert.are.equal('=', cmd.keyseparator)
    local c2 = torch.CmdLine('_', ':')
    assert.are.equal('_', c2.argseparator)
    assert.are.equal(':', c2.keyseparator)
  end)

  it('gives the defaults when nothing is passed (and reads arguments)', function()
    local opt = demo():parse({'train.t7'})
    assert.are.same({lr = 0.1, batch = 32, name = 'exp', cuda = false, shuffle = true,
                     ['longer-name'] = 1.5, data = 'train.t7'}, opt)
  end)

  it('parses numbers, strings and boolean flags, which toggle the default', function()
    local opt = demo():parse({'-lr', '1e-3', '-batch', '-4', '-name', 'run 2', '-cuda', '-shuffle',
                              '--longer-name', '2', 'd.t7'})
    assert.are.equal(1e-3, opt.lr)
    assert.are.equal(-4, opt.batch)
    assert.are.equal(math.type(-4), math.type(opt.batch))
    assert.are.equal('run 2', opt.name)
    assert.is_true(opt.cuda)
    assert.is_false(opt.shuffle)
    assert.are.equal(2, opt['longer-name'])
    assert.are.equal('d.t7', opt.data)
  end)

  it("takes 'key=value' too, booleans as true/false/t/f/1/0", function()
    local opt = demo():parse({'-lr=0.5', '-cuda=true', '-shuffle=f', '-name=a=b', 'x'})
    assert.are.equal(0.5, opt.lr)
    assert.is_true(opt.cuda)
    assert.is_false(opt.shuffle)
    assert.are.equal('a=b', opt.name)
  end)

  it("takes '--name value' and '-name' for any declared dash count, '--no-flag', and 'true'/'false' after a flag", function()
    local opt = demo():parse({'--lr', '0.5', '--batch=8', '-longer-name', '3', '--cuda', 'true',
                              '--no-shuffle', 'x'})
    assert.are.same({lr = 0.5, batch = 8, name = 'exp', cuda = true, shuffle = false,
                     ['longer-name'] = 3, data = 'x'}, opt)
    -- a following true/false sets the flag; any other word is the next argument
    opt = demo():parse({'-shuffle', 'false', '-cuda', 'false', 'y'})
    assert.is_false(opt.shuffle)
    assert.is_false(opt.cuda)
    opt = demo():parse({'-cuda', 'data.t7'})
    assert.is_true(opt.cuda)
    assert.are.equal('data.t7', opt.data)
    -- '--no-' applies to booleans only, and to declared names only
    H.fails('cmdline: unknown option --no-lr', function() demo():parse({'--no-lr', 'x'}) end)
    H.fails('cmdline: unknown option --no-such', function() demo():parse({'--no-such', 'x'}) end)
    H.fails('cmdline: unknown option ---lr', function() demo():parse({'---lr', '1', 'x'}) end)
  end)

  it('reads number arguments and arguments in any position', function()
    local cmd = parser()
    cmd:argument('-n', 'count', 'number')
    cmd:argument('-file', 'input')
    cmd:option('-v', false)
    local opt = cmd:parse({'12', '-v', 'f.txt'})
    assert.are.same({n = 12, file = 'f.txt', v = true}, opt)
  end)

  it('rejects bad command lines with clear messages', function()
    H.fails("cmdline: unknown option -lrr", function() demo():parse({'-lrr', '1', 'x'}) end)
    H.fails("cmdline: invalid type for option -lr (should be number), got 'fast'",
            function() demo():parse({'-lr', 'fast', 'x'}) end)
    H.fails("cmdline: missing argument for option -name", function() demo():parse({'x', '-name'}) end)
    H.fails("cmdline: invalid value for option -cuda (should be true or false), got 'yes'",
            function() demo():parse({'-cuda=yes', 'x'}) end)
    H.fails("cmdline: not enough arguments: missing <data>", function() demo():parse({}) end)
    H.fails("cmdline: invalid argument: y", function() demo():parse({'x', 'y'}) end)
    local cmd = parser()
    cmd:argument('-n', 'count', 'number')
    H.fails("cmdline: invalid argument type for argument -n (should be number), got 'ten'",
            function() cmd:parse({'ten'}) end)
  end)

  it('checks declarations', function()
    local cmd = torch.CmdLine()
    H.fails('torch.CmdLine:option: option -x has no default value', function() cmd:option('-x') end)
    H.fails('torch.CmdLine:option: option -x has wrong default type value (number expected, got string)',
            function() cmd:option('-x', 'a', 'help', 'number') end)
    H.fails('torch.CmdLine:option: option -x: type number, string or boolean expected, got table',
            function() cmd:option('-x', {}) end)
    H.fails("torch.CmdLine:option: option name (string such as '-lr') expected, got number",
            function() cmd:option(3, 1) end)
    cmd:option('-x', 1)
    H.fails('torch.CmdLine:option: option -x is declared twice', function() cmd:option('-x', 2) end)
    H.fails("torch.CmdLine:argument: type of -a must be 'string' or 'number', got boolean",
            function() cmd:argument('-a', 'h', 'boolean') end)
    H.fails('torch.CmdLine:text: text (string) expected, got number', function() cmd:text(5) end)
    H.fails('torch.CmdLine:parse: command line expected (use cmd:parse(...), not cmd.parse(...)), got table',
            function() cmd.parse({}) end)
    H.fails('torch.CmdLine:parse: argument list (table such as arg) expected, got string',
            function() cmd:parse('-x 1') end)
    H.fails('torch.CmdLine:addTime: date format (string) expected as argument 2, got number',
            function() cmd:addTime('x', 5) end)
  end)

  it('default() lists the options by name without dashes', function()
    assert.are.same({lr = 0.1, batch = 32, name = 'exp', cuda = false, shuffle = true, ['longer-name'] = 1.5},
                    demo():default())
  end)

  it("prints the help as Torch7 does", function()
    local text = captured(function() demo():help({[0] = 'train.lua'}) end)
    assert.are.equal(table.concat({
      'Usage: train.lua [options] <data>',
      '',
      'Train a net',
      '',
      'Options:',
      '  -lr           learning rate [0.1]',
      '  -batch        batch size [32]',
      '  -name         experiment name [exp]',
      '  -cuda         use the GPU [false]',
      '  -shuffle      shuffle the data [true]',
      '  --longer-name [1.5]',
      '',
      '  <data>        training file',
      ''}, '\n'), text)
    -- without arg: no program name; numbers as LuaJIT printed them
    local cmd = torch.CmdLine()
    cmd:option('-n', 1.0, 'count')
    assert.are.equal('Usage: [options]\n  -n count [1]\n', captured(function() cmd:help() end))
  end)

  it('builds the experiment name from the arguments and the changed options', function()
    local cmd = demo()
    local opt = cmd:parse({'-lr', '0.01', '-cuda', '-name', 'exp', 'd.t7'})
    assert.are.equal('run,data=d.t7,cuda=t,lr=0.01', cmd:string('run', opt, {}))
    assert.are.equal('run,cuda=t,lr=0.01', cmd:string('run', opt, {data = true}))
    assert.are.equal('run,cuda=t,lr=0.01,name=exp', cmd:string('run', opt, {data = true, name = false}))
    assert.are.equal('run,data=d.t7', cmd:string('run', cmd:parse({'d.t7'})))
    assert.are.equal('run', cmd:string('run', cmd:parse({'d.t7'}), {data = true}))
    local c2 = torch.CmdLine('_', ':')
    c2:option('-a', 1)
    c2:option('-b', false)
    assert.are.equal('p_a:2_b:t', c2:string('p', {a = 2, b = true}))
    H.fails('torch.CmdLine:string: parameters (table from cmd:parse) expected as argument 2, got nil',
            function() cmd:string('run') end)
  end)

  it('logs print() to a file with a header, silently or with time stamps', function()
    local cmd = demo()
    local opt = cmd:parse({'-lr', '0.5', 'd.t7'})
    local name = os.tmpname()
    local oldprint = print
    local echoed = {}
    _G.print = function(...) echoed[#echoed + 1] = table.concat({...}, '\t') end
    local ok, err = pcall(function()
      cmd:log(name, opt)
      print('epoch', 1, 0.25)
      cmd:silent()
      print('quiet')
      cmd:addTime('exp', '%Y')
      print('stamped')
    end)
    _G.print = oldprint
    assert(ok, err)
    local f = assert(io.open(name))
    local text = f:read('a')
    f:close()
    os.remove(name)
    local lines = {}
    for l in text:gmatch('[^\n]*\n') do lines[#lines + 1] = l end
    assert.truthy(lines[1]:match('^%[program started on .+%] \n$'))
    assert.are.equal('[command line arguments] \n', lines[2])
    assert.are.same({'batch 32 \n', 'cuda false \n', 'data d.t7 \n', 'longer-name 1.5 \n', 'lr 0.5 \n',
                     'name exp \n', 'shuffle true \n'}, {table.unpack(lines, 3, 9)})
    assert.are.equal('[----------------------] \n', lines[10])
    assert.are.equal('epoch 1 0.25 \n', lines[11])
    assert.are.equal('quiet \n', lines[12])
    assert.are.equal(os.date('%Y') .. '[exp]:  stamped \n', lines[13])
    assert.are.equal('epoch\t1\t0.25', echoed[#echoed])   -- 'quiet' and 'stamped' not echoed
    H.fails('torch.CmdLine:log: log file (name or open file) expected, got number', function() cmd:log(3) end)
  end)

  describe('in a script', function()
    local script
    setup(function()
      script = os.tmpname()
      local f = assert(io.open(script, 'w'))
      f:write([[
local cmd = torch.CmdLine()
cmd:text('Demo')
cmd:option('-lr', 0.1, 'learning rate')
cmd:option('-cuda', false, 'use the GPU')
local opt = cmd:parse(arg)
print(opt.lr, opt.cuda)
]])
      f:close()
    end)
    teardown(function() os.remove(script) end)

    local function run(args)
      local errname = os.tmpname()
      local p = io.popen(string.format('TH_BUILD=%s %sbin/th %s %s 2>%s', sh(build), root, sh(script), args, errname))
      local out = p:read('a')
      local _, _, status = p:close()
      local f = io.open(errname)
      local err = f:read('a')
      f:close()
      os.remove(errname)
      local keep = {}
      for line in err:gmatch('[^\n]+') do
        if not line:find('^th: warning: ') then keep[#keep + 1] = line end
      end
      return out, table.concat(keep, '\n'), status
    end

    it('parses arg', function()
      local out, err, status = run('-lr 0.5 -cuda')
      assert.are.equal('', err)
      assert.are.equal(0, status)
      assert.are.equal('0.5\ttrue\n', out)
    end)

    it('prints the help and exits 0 on -h, -help and --help', function()
      for _, h in ipairs{'-h', '-help', '--help'} do
        local out, err, status = run(h)
        assert.are.equal(0, status)
        assert.are.equal('', err)
        assert.are.equal('Usage: ' .. script .. ' [options]\nDemo\n  -lr   learning rate [0.1]\n'
                         .. '  -cuda use the GPU [false]\n', out)
      end
    end)

    it('prints the reason on stderr and the help on stdout, and exits 1', function()
      local out, err, status = run('-lr fast')
      assert.are.equal(1, status)
      assert.are.equal("invalid type for option -lr (should be number), got 'fast'", err)
      assert.truthy(out:find('Usage: ' .. script .. ' [options]', 1, true))
      out, err, status = run('-momentum 0.9')
      assert.are.equal(1, status)
      assert.are.equal('unknown option -momentum', err)
    end)
  end)
end)
