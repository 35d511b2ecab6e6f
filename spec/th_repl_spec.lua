-- The th session on a terminal (lua/torch/repl.lua, complete.lua, pretty.lua,
-- help.lua, src/lua/th_lua_readline.c), driven through tmux's pseudo-terminals:
-- completion, printing, help, Ctrl-C, history across sessions, colours.
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/th_repl_spec%.lua$') or ''
if root == '' then root = './' end
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function exec(cmd)
  local p = io.popen(cmd .. ' 2>&1')
  local out = p:read('a')
  local ok = p:close()
  return out, ok
end

local hastmux = exec('command -v tmux') ~= ''
local socket = 'thspec' .. tostring(os.time()) .. tostring(math.random(1e6))

-- a th session in a detached tmux window of 150x50
local Session = {}
Session.__index = Session

local function start(env, args)
  local name = 's' .. tostring(math.random(1e9))
  local cmd = string.format('env TH_BUILD=%s %s %s %s', sh(build), env or '', sh(root .. 'bin/th'), args or '')
  local out, ok = exec(string.format('tmux -L %s new-session -d -s %s -x 150 -y 50 %s', socket, name, sh(cmd)))
  assert(ok, out)
  local s = setmetatable({name = name}, Session)
  s:waitfor('th> ')
  return s
end

function Session:keys(...)
  local args = {}
  for i, k in ipairs({...}) do args[i] = sh(k) end
  exec(string.format('tmux -L %s send-keys -t %s %s', socket, self.name, table.concat(args, ' ')))
end

-- literal text (no key names)
function Session:type(text)
  exec(string.format('tmux -L %s send-keys -l -t %s %s', socket, self.name, sh(text)))
end

function Session:screen(colors)
  return (exec(string.format('tmux -L %s capture-pane -p -N %s -S -200 -t %s', socket, colors and '-e' or '', self.name)))
end

-- waits until the screen holds 'text' (plain find), up to 15 s; returns it
function Session:waitfor(text, colors, count)
  local screen
  for _ = 1, 300 do
    screen = self:screen(colors)
    local n, from = 0, 1
    while true do
      local a, b = screen:find(text, from, true)
      if not a then break end
      n, from = n + 1, b + 1
    end
    if n >= (count or 1) then return screen end
    exec('sleep 0.05')
  end
  error('timed out waiting for ' .. string.format('%q', text) .. ' in:\n' .. screen, 2)
end

-- clears the screen and history of the pane, so waits see new output only
function Session:clear()
  self:keys('C-l')
  exec(string.format('tmux -L %s clear-history -t %s', socket, self.name))
  exec('sleep 0.1')
end

function Session:close()
  exec(string.format('tmux -L %s kill-session -t %s', socket, self.name))
end

local describe_tty = (hastmux and build) and describe or pending

describe_tty('the th session on a terminal', function()
  local hist = os.tmpname()
  local s

  setup(function()
    os.remove(hist)
    s = start('NO_COLOR=1 TH_HISTORY=' .. sh(hist))
  end)

  teardown(function()
    if s then s:close() end
    exec('tmux -L ' .. socket .. ' kill-server')
    os.remove(hist)
  end)

  it('completes fields of a global table', function()
    s:clear()
    s:type('torch.randp')
    s:keys('Tab')
    s:waitfor('th> torch.randperm')
    s:keys('C-u')
    s:type('torch.ran')
    s:keys('Tab', 'Tab')
    local screen = s:waitfor('torch.randn')
    assert.is_truthy(screen:find('torch.range', 1, true), screen)
    s:keys('C-u')
  end)

  it('completes methods of a tensor through its metatable, nn classes and nested fields', function()
    s:clear()
    s:type('x = torch.Tensor(2, 3); a = {b = {cde = 1}}')
    s:keys('Enter')
    s:type('x:nar')
    s:keys('Tab')
    s:waitfor('th> x:narrow')
    s:keys('C-u')
    s:type('nn.SpatialConvolutionM')
    s:keys('Tab', 'Tab')
    s:waitfor('nn.SpatialConvolutionMM')
    s:waitfor('nn.SpatialConvolutionMap')
    s:keys('C-u')
    s:type('print(a.b.c')
    s:keys('Tab')
    s:waitfor('th> print(a.b.cde')
    s:keys('C-u')
  end)

  it('completes file names inside a string', function()
    s:clear()
    s:type("dofile('" .. root .. 'spec/th_repl_sp')
    s:keys('Tab')
    s:waitfor('spec/th_repl_spec.lua')
    s:keys('C-u')
  end)

  it('prints tables nested, tensors inside them by type and size, and several values', function()
    s:clear()
    s:type("{1, 'two', t = torch.FloatTensor(3, 4), n = {m = {}}}")
    s:keys('Enter')
    s:waitfor('  t : FloatTensor - size: 3x4\n}')
    local screen = s:screen()
    assert.is_truthy(screen:find('{\n  1 : 1\n  2 : "two"\n  n : {\n    m : {}\n  }\n', 1, true), screen)
    s:clear()
    s:type("1 + 1, 'three', nil")
    s:keys('Enter')
    s:waitfor('\n2\nthree\nnil\nth> ')
  end)

  it('prints a large tensor in summary', function()
    s:clear()
    s:type('torch.range(1, 1e6):view(1000, 1000)')
    s:keys('Enter')
    local screen = s:waitfor('[torch.DoubleTensor of size 1000x1000]')
    assert.is_truthy(screen:find('   ...      ...      ...      ...      ...      ...      ...\n', 1, true), screen)
    assert.is_truthy(screen:find(' 999001   999002   999003      ...   999998   999999  1000000\n', 1, true), screen)
  end)

  it('answers ?name and help(fn) from the docs', function()
    s:clear()
    s:type('?x:narrow')
    s:keys('Enter')
    s:waitfor('torch.narrow · Tensor:narrow    (docs/reference/tensor.md)')
    s:clear()
    s:type('help(nn.Linear)')
    s:keys('Enter')
    s:waitfor('nn.Linear    (docs/reference/nn-simple.md)')
  end)

  it('cancels the line on Ctrl-C and interrupts a running statement', function()
    s:clear()
    s:type('for i = 1,')
    s:keys('Enter')
    s:waitfor('..> ')
    s:keys('C-c')
    s:type('print("after cancel")')
    s:keys('Enter')
    s:waitfor('\nafter cancel\nth> ')
    s:clear()
    s:type('while true do end')
    s:keys('Enter')
    exec('sleep 0.3')
    s:keys('C-c')
    s:waitfor('interrupted!')
    s:waitfor('th> ', false, 2)
    s:type('print("still here")')
    s:keys('Enter')
    s:waitfor('\nstill here\n')
  end)

  it('prints the time of a statement slower than 0.5 s only', function()
    s:clear()
    s:type('sys.sleep(0.6)')
    s:keys('Enter')
    local screen = s:waitfor('s]')
    local t = tonumber(screen:match('\n +%[(%d+%.%d%d%d%d)s%]\n'))
    assert.is_truthy(t and t >= 0.6 and t < 10, screen)
    s:clear()
    s:type('print("quick")')
    s:keys('Enter')
    assert.is_nil(s:waitfor('quick\nth> '):find('s]', 1, true))
  end)

  it('appends each line to the history file as it is entered', function()
    local c = start('NO_COLOR=1 TH_HISTORY=' .. sh(hist))
    c:type('appended_now = 1')
    c:keys('Enter')
    c:waitfor('th> ', false, 2)
    local f = assert(io.open(hist))
    local saved = f:read('a')
    f:close()
    -- the session is still open: the line is in the file already
    assert.is_truthy(saved:find('appended_now = 1\n', 1, true), saved)
    c:close()
  end)

  it('keeps the history across sessions', function()
    s:type('hist_marker = 42')
    s:keys('Enter')
    s:keys('C-d')
    exec('sleep 0.5')
    local f = assert(io.open(hist))
    local saved = f:read('a')
    f:close()
    assert.is_truthy(saved:find('hist_marker = 42\n', 1, true), saved)
    s = start('NO_COLOR=1 TH_HISTORY=' .. sh(hist))
    s:keys('Up')
    s:waitfor('th> hist_marker = 42')
    s:keys('Enter')
    s:type('print(hist_marker + 1)')
    s:keys('Enter')
    s:waitfor('\n43\n')
  end)

  it('colours values on a terminal unless NO_COLOR is set', function()
    local c = start('TH_HISTORY=')
    c:type('{n = 12}')
    c:keys('Enter')
    local screen = c:waitfor('  n : \27[36m12', true)
    c:close()
    assert.is_truthy(screen:find('th> ', 1, true))
    -- s runs with NO_COLOR
    s:clear()
    s:type('{n = 12}')
    s:keys('Enter')
    assert.is_nil(s:waitfor('  n : 12', true):find('\27[36m', 1, true))
  end)

  it('runs the script of -i, then gives the prompt with the history', function()
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write('from_script = 7 * 6\nprint("script ran", arg[1])\n')
    f:close()
    local c = start('NO_COLOR=1 TH_HISTORY=' .. sh(hist), '-i ' .. sh(script) .. ' first')
    os.remove(script)
    local screen = c:screen()
    assert.is_truthy(screen:find('script ran\tfirst', 1, true) or screen:find('script ran%s+first'), screen)
    c:keys('Up')
    -- the lines of the session still open are there: appended as entered
    c:waitfor('th> {n = 12}')
    c:keys('C-u')
    c:type('from_script')
    c:keys('Enter')
    c:waitfor('\n42\n')
    c:close()
  end)
end)
describe('the session helpers without a terminal', function()
  local complete = require 'torch.complete'
  local pretty = require 'torch.pretty'
  local help = require 'torch.help'
  require 'nn'

  it('complete: fields, methods through metatables, keywords, nothing inside strings', function()
    local env = setmetatable({x = torch.FloatTensor(2), m = nn.Linear(2, 3), a = {b = {cde = 1, cdf = 2}},
                              s = 'text', torch = torch, nn = nn}, {__index = {inherited = 1}})
    assert.are.same({'torch.rand', 'torch.randn', 'torch.random', 'torch.randperm', 'torch.range'},
                    complete.candidates('torch.ran', '', env))
    assert.are.same({'x:narrow'}, complete.candidates('x:narr', '', env))
    assert.are.same({'m:updateGradInput', 'm:updateOutput', 'm:updateParameters'}, complete.candidates('m:upd', '', env))
    assert.are.same({'m.weight:narrow'}, complete.candidates('m.weight:narr', '', env))
    assert.are.same({'a.b.cde', 'a.b.cdf'}, complete.candidates('a.b.c', '', env))
    assert.are.same({'s:upper'}, complete.candidates('s:up', '', env))
    assert.are.same({'function'}, complete.candidates('fu', '', env))
    assert.are.same({'inherited'}, complete.candidates('inh', '', env))
    -- ':' lists functions only; unknown or non-name prefixes give nothing
    assert.are.same({}, complete.candidates('a:b', '', env))
    assert.are.same({}, complete.candidates('nosuch.f', '', env))
    assert.are.same({}, complete.candidates('x[1].f', '', env))
    -- inside a string literal: nil, so readline completes file names
    assert.is_nil(complete.candidates('spec/th', "dofile('", env))
    assert.is_nil(complete.candidates('a', 'print("it\\"s ', env))
    assert.are.same({'a.b.cde', 'a.b.cdf'}, complete.candidates('a.b.c', 'print("done", ', env))
    -- no function is called: an __index function is not run
    local called = false
    env.trap = setmetatable({}, {__index = function() called = true end})
    complete.candidates('trap.x.y', '', env)
    assert.is_false(called)
  end)

  it("complete: names starting with '_' only once '_' is typed", function()
    local env = {t = {_hidden = 1, _other = 2, shown = 3}, _G_internal = 1, visible = 2}
    assert.are.same({'t.shown'}, complete.candidates('t.', '', env))
    assert.are.same({'t._hidden', 't._other'}, complete.candidates('t._', '', env))
    assert.are.same({'visible'}, complete.candidates('v', '', env))
    assert.are.same({'_G_internal'}, complete.candidates('_G', '', env))
    local all = complete.candidates('torch.', '', {torch = torch})
    for _, c in ipairs(all) do assert.is_nil(c:find('^torch%._'), c) end
    assert.is_true(#complete.candidates('torch._', '', {torch = torch}) > 0)
  end)

  it('pretty: nested tables, depth limit, cycles, tensors inside tables, no colour unless asked', function()
    local t = {1, 'two', w = torch.FloatTensor(3, 4), e = torch.Tensor(), s = torch.LongStorage(5),
               deep = {a = {b = {c = {d = {}}}}}, ['not a name'] = true}
    t.self = t
    assert.are.equal(table.concat({
      '{',
      '  1 : 1',
      '  2 : "two"',
      '  deep : {',
      '    a : {',
      '      b : {',
      '        c : {...}',
      '      }',
      '    }',
      '  }',
      '  e : DoubleTensor - empty',
      '  "not a name" : true',
      '  s : LongStorage - size: 5',
      '  self : <cycle: ' .. tostring(t) .. '>',
      '  w : FloatTensor - size: 3x4',
      '}'}, '\n'), pretty.format(t))
    assert.are.equal('plain', pretty.format('plain'))
    assert.are.equal(' 1\n 2\n[torch.DoubleTensor of size 2]', pretty.format(torch.Tensor({1, 2})))
    assert.are.equal('nn.Linear(2 -> 3)', pretty.format(nn.Linear(2, 3)))
    assert.are.equal('{\n  n : \27[36m12\27[0m\n}', pretty.format({n = 12}, {color = true}))
  end)

  it('help: from the docs, by name or by value, and says when it finds nothing', function()
    assert.are.equal(help.text('nn.Linear'), help.text(nn.Linear))
    assert.are.equal(help.text('torch.setprintoptions'), help.text(torch.setprintoptions))
    assert.is_truthy(help.text('x:narrow'):find('narrow', 1, true))
    assert.are.same({nil, 'help: no documentation found for torch.nosuch'}, {help.text('torch.nosuch')})
    local _, err = help.text(function() end)
    assert.is_truthy(err:find('^help: no documentation found for function: 0x'), err)
  end)
end)
