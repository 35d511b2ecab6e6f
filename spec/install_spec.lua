-- make install PREFIX=dir: the Lua files in dir/share/lua/5.4, the C module
-- in dir/lib/lua/5.4, and dir/bin/th running scripts and -e from there,
-- with no LUA_PATH help and from another directory; with DESTDIR, models/,
-- the tools and the docs, and make uninstall removing exactly that; and
-- luarocks make --tree dir with the rockspec.
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/install_spec%.lua$') or ''
if root == '' then root = './' end
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(cmd)
  local p = io.popen(cmd .. ' 2>&1')
  local out = p:read('a')
  local ok, _, status = p:close()
  return out, ok and 0 or status
end

describe('make install', function()
  -- the sanitizer build needs its runtime preloaded: the plain build only
  local it_plain = (build and not build:find('asan', 1, true)) and it or pending

  it_plain('installs a tree whose bin/th runs -e and scripts', function()
    local prefix = os.tmpname()
    os.remove(prefix)
    local out, status = run(string.format('make -s -C %s install PREFIX=%s BUILD=%s', sh(root), sh(prefix), sh(build)))
    assert.are.equal(0, status, out)
    for _, f in ipairs{'/share/lua/5.4/torch/init.lua', '/share/lua/5.4/nn/init.lua',
                       '/lib/lua/5.4/torch/core.so', '/bin/th'} do
      assert.is_truthy(io.open(prefix .. f), 'missing ' .. f)
    end
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write("require 'nn'\nlocal m = nn.Linear(2, 3)\nprint(torch.type(m.weight), m:forward(torch.ones(2)):size(1), arg[1])\n")
    f:close()
    local env = 'cd / && env -u LUA_PATH -u LUA_CPATH '
    local o1, s1 = run(env .. sh(prefix .. '/bin/th') .. " -e 'io.write(torch.ones(2, 3):sum())'")
    assert.are.equal(0, s1, o1)
    assert.are.equal('6', o1:match('[^\n]*$'))
    local o2, s2 = run(env .. sh(prefix .. '/bin/th') .. ' ' .. sh(script) .. ' hello')
    assert.are.equal(0, s2, o2)
    assert.is_truthy(o2:find('torch.DoubleTensor\t3\thello', 1, true), o2)
    -- the installed th is not the tree's: it finds the installed files
    local o3 = run(env .. sh(prefix .. '/bin/th') .. " -e 'io.write(package.searchpath(\"torch\", package.path))'")
    assert.is_truthy(o3:find(prefix .. '/share/lua/5.4/torch/init.lua', 1, true), o3)
    -- the script helpers come along, and paths knows where they are
    local o4, s4 = run(env .. sh(prefix .. '/bin/th') .. " -e 'io.write(paths.install_prefix, \" \", sys.OS, \" \", "
                       .. "#(\"a,b\"):split(\",\"), \" \", paths.install_bin)'")
    assert.are.equal(0, s4, o4)
    assert.are.equal(prefix .. ' linux 2 ' .. prefix .. '/bin', o4:match('[^\n]*$'))
    os.remove(script)
    run('rm -rf ' .. sh(prefix))
  end)

  -- every file under dir, relative, sorted
  local function tree(dir)
    local out = run('cd ' .. sh(dir) .. ' && find . | sort')
    return out
  end

  it_plain('stages with DESTDIR models, tools and docs, and uninstall removes exactly that', function()
    local dest = os.tmpname()
    os.remove(dest)
    assert(os.execute('mkdir -p ' .. sh(dest .. '/opt/keep') .. ' && touch ' .. sh(dest .. '/opt/keep/mine')))
    local before = tree(dest)
    local mk = string.format('make -s -C %s BUILD=%s DESTDIR=%s PREFIX=/opt/th ', sh(root), sh(build), sh(dest))
    local out, status = run(mk .. 'install')
    assert.are.equal(0, status, out)
    local p = dest .. '/opt/th'
    for _, f in ipairs{'/share/lua/5.4/models/resnet.lua', '/share/lua/5.4/torch/repl.lua',
                       '/share/torch-optnet/tools/memreport.lua', '/share/doc/torch-optnet/README.md',
                       '/share/doc/torch-optnet/tensor.md', '/share/doc/torch-optnet/reference/tensor.md',
                       '/share/torch-optnet/install-manifest.txt'} do
      assert.is_truthy(io.open(p .. f), 'missing ' .. f)
    end
    -- the staged th works from elsewhere: models found by require, help from the installed docs
    local o, s = run('cd / && env -u LUA_PATH -u LUA_CPATH TH_DOCS= ' .. sh(p .. '/bin/th') ..
                     [[ -e "local m = require('models.lenet'); io.write(torch.type(m()), ' ', ]] ..
                     [[require('torch.help').text('torch.cat'):match('%(docs/reference/%S+%)'))"]])
    assert.are.equal(0, s, o)
    assert.are.equal('nn.Sequential (docs/reference/tensor.md)', o:match('[^\n]*$'))
    -- a file of the user's in an installed directory stays, with its directory
    assert(os.execute('touch ' .. sh(p .. '/share/lua/5.4/nn/user_added.lua')))
    out, status = run(mk .. 'uninstall')
    assert.are.equal(0, status, out)
    assert.are.equal(before .. './opt/th\n./opt/th/share\n./opt/th/share/lua\n./opt/th/share/lua/5.4\n' ..
                     './opt/th/share/lua/5.4/nn\n./opt/th/share/lua/5.4/nn/user_added.lua\n',
                     tree(dest):gsub('\n%./opt/th', '\n./opt/th'))
    os.remove(p .. '/share/lua/5.4/nn/user_added.lua')
    -- a second uninstall has no list to work from
    out, status = run(mk .. 'uninstall')
    assert.are_not.equal(0, status)
    assert.is_truthy(out:find('no ' .. dest .. '/opt/th/share/torch-optnet/install-manifest.txt', 1, true), out)
    run('rm -rf ' .. sh(dest))
  end)

  -- the README's luarocks command, as written there
  local function readmeLuarocks()
    for line in io.lines(root .. 'README.md') do
      local cmd = line:match('^%s+(luarocks .-)%s*$')
      if cmd then return cmd end
    end
  end

  it('the README gives a luarocks command for Lua 5.4, with the Debian packages as dependencies', function()
    local cmd = readmeLuarocks()
    assert.is_truthy(cmd, 'no indented luarocks line in README.md')
    assert.is_truthy(cmd:find('--lua-version=5.4', 1, true), cmd)
    assert.is_truthy(cmd:find('--deps-mode=none', 1, true), cmd)
  end)

  -- every module the code requires from outside the tree is a dependency of
  -- the rockspec (and a Debian package tools/deps.sh installs)
  it('the rockspec declares every module the code requires from outside the tree', function()
    local rocks = {lfs = 'luafilesystem', pl = 'penlight'}
    local debs = {lfs = 'lua-filesystem', pl = 'lua-penlight'}
    local provided = {bit = true}   -- torch.compat preloads LuaJIT's bit
    local out = run('cd ' .. sh(root) .. [[ && grep -rhoE "require *\(? *['\"][A-Za-z0-9_.]+['\"]" lua models bin]])
    local names = {pl = true}       -- the session loads penlight through a list (torch/repl.lua)
    for m in out:gmatch("['\"]([%w_]+)[%w_.]*['\"]") do names[m] = true end
    local spec = assert(io.open(root .. 'torch-optnet-scm-1.rockspec')):read('a')
    local deps = assert(io.open(root .. 'tools/deps.sh')):read('a')
    local outside = {}
    for m in pairs(names) do
      local here = io.open(root .. 'lua/' .. m) or io.open(root .. 'lua/' .. m .. '.lua') or io.open(root .. m)
      if here then here:close() elseif not provided[m] then outside[#outside + 1] = m end
    end
    table.sort(outside)
    assert.are.same({'lfs', 'pl'}, outside)
    for _, m in ipairs(outside) do
      assert.is_truthy(spec:find('"' .. rocks[m] .. ' ', 1, true), 'rockspec lacks ' .. rocks[m])
      assert.is_truthy(deps:find(' ' .. debs[m] .. ' ', 1, true), 'tools/deps.sh lacks ' .. debs[m])
    end
  end)

  local has_luarocks = os.execute('command -v luarocks >/dev/null 2>&1')
  local it_rocks = (has_luarocks and build and not build:find('asan', 1, true)) and it or pending
  it_rocks("the README's luarocks make --tree dir installs a th that runs from any directory", function()
    local dir = os.tmpname()
    os.remove(dir)
    local out, status = run(string.format('cd %s && BUILD=%s %s --tree %s',
                                          sh(root), sh(build), readmeLuarocks(), sh(dir)))
    assert.are.equal(0, status, out)
    local o, s = run('cd / && env -u LUA_PATH -u LUA_CPATH ' .. sh(dir .. '/bin/th') ..
                     [[ -e "require 'nn'; io.write(nn.Linear(2, 3):forward(torch.ones(2)):size(1), ' ', ]] ..
                     [[package.searchpath('torch', package.path), ' ', tostring(require('torch.help').text('nn.Linear') ~= nil))"]])
    assert.are.equal(0, s, o)
    assert.are.equal('3 ' .. dir .. '/share/lua/5.4/torch/init.lua true', o:match('[^\n]*$'))
    out, status = run(string.format('luarocks --lua-version=5.4 remove --tree %s torch-optnet', sh(dir)))
    assert.are.equal(0, status, out)
    assert.is_nil(io.open(dir .. '/bin/th'))
    run('rm -rf ' .. sh(dir))
  end)
end)
