-- make install PREFIX=dir: the Lua files in dir/share/lua/5.4, the C module
-- in dir/lib/lua/5.4, and dir/bin/th running scripts and -e from there,
-- with no LUA_PATH help and from another directory.
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
end)
