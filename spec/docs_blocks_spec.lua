-- Every ```lua block of README.md, docs/*.md, docs/reference/*.md and
-- docs/dev/*.md runs as written: a bin/th process per file
-- (spec/support/docblocks.lua) runs its blocks in order in one
-- environment, in a fresh temporary directory (blocks that write files
-- write there). A process per file: a page that loads nngraph, turns on
-- the CUDA stand-in or logs print() through CmdLine changes the process
-- for the pages after it. A block that cannot run in CI carries a
-- '<!-- norun: reason -->' line before its fence: counted and printed here.
-- And every example's header says how to run it with bin/th.
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/docs_blocks_spec%.lua$') or ''
if root == '' then root = './' end
if root:sub(1, 1) ~= '/' then root = os.getenv('PWD') .. '/' .. root end
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function exec(cmd)
  local p = io.popen(cmd .. ' 2>&1')
  local out = p:read('a')
  local ok, _, status = p:close()
  return out, ok and 0 or status
end

local function mdfiles()
  local list = {root .. 'README.md'}
  for _, dir in ipairs{'docs/', 'docs/reference/', 'docs/dev/'} do
    local out = exec('ls ' .. sh(root .. dir) .. ' 2>/dev/null')
    for f in out:gmatch('[^\n]+') do
      if f:match('%.md$') then list[#list + 1] = root .. dir .. f end
    end
  end
  return list
end

-- the sanitizer build needs its runtime preloaded: the plain build only
local it_plain = (build and not build:find('asan', 1, true)) and it or pending

describe('documentation code blocks', function()
  it_plain('run as written (norun blocks counted)', function()
    local results, outs = {}, {}
    for _, file in ipairs(mdfiles()) do
      local dir = exec('mktemp -d'):gsub('%s+$', '')
      local out, status = exec(string.format('cd %s && TH_BUILD=%s %s %s %s %s >%s/output.txt',
        sh(dir), sh(build), sh(root .. 'bin/th'), sh(root .. 'spec/support/docblocks.lua'),
        sh(dir .. '/results.txt'), sh(file), sh(dir)))
      local f = io.open(dir .. '/results.txt')
      results[#results + 1] = f and f:read('a') or ''
      if f then f:close() end
      exec('rm -rf ' .. sh(dir))
      assert.are.equal(0, status, file .. ': ' .. out)
      outs[#outs + 1] = out
    end
    results = table.concat(results)
    local ok, failed, norun = 0, {}, {}
    for line in results:gmatch('[^\n]+') do
      local kind, rest = line:match('^(%S+) (.*)$')
      if kind == 'ok' then ok = ok + 1
      elseif kind == 'norun' then norun[#norun + 1] = rest
      else failed[#failed + 1] = rest end
    end
    io.stderr:write(string.format('\ndocs blocks: %d ran, %d not run (norun)\n', ok, #norun))
    for _, n in ipairs(norun) do io.stderr:write('  norun ', (n:gsub('^' .. root:gsub('%p', '%%%0'), '')), '\n') end
    assert.are.same({}, failed)
    -- the files hold dozens of blocks: the driver saw them
    assert.is_true(ok >= 30, results)
  end)

  -- the runner's results file for a markdown text, and the file's name
  local function runText(...)
    local md = os.tmpname()
    local f = assert(io.open(md, 'w'))
    f:write(...)
    f:close()
    local res = os.tmpname()
    local out, status = exec(string.format('TH_BUILD=%s %s %s %s %s', sh(build), sh(root .. 'bin/th'),
                             sh(root .. 'spec/support/docblocks.lua'), sh(res), sh(md)))
    assert.are.equal(0, status, out)
    local r = io.open(res):read('a')
    os.remove(md)
    os.remove(res)
    return r, md
  end

  it('are not taken from inside a longer fence (a ````markdown example)', function()
    local r = runText('````markdown\n### `x`\n```lua\nerror("an example of an example")\n```\n````\n',
                      '```lua\nassert(true)\n```\n')
    assert.are.equal('ok', r:match('^(%S+)'))
    assert.are.equal(1, select(2, r:gsub('\n', '\n')))
  end)

  it('are found in indented fences and after norun markers only right before them', function()
    local r, md = runText('text\n\n```lua\nx = 1\n```\n\n<!-- norun: needs a download -->\n\n```lua\nerror("not run")\n```\n',
                          '<!-- norun: far away -->\ntext between\n```lua\nx = x + 1\n```\n',
                          '1. item\n   ```lua\n   assert(x == 2)\n   ```\n```th\nth> this is not run\n```\n',
                          '```lua\nerror("fails here")\n```\n')
    local kinds = {}
    for line in r:gmatch('[^\n]+') do kinds[#kinds + 1] = line:match('^%S+') .. ':' .. line:match(':(%d+)') end
    assert.are.same({'ok:3', 'norun:9', 'ok:14', 'ok:18', 'fail:24'}, kinds)
    assert.is_truthy(r:find('norun ' .. md .. ':9 needs a download', 1, true), r)
    assert.is_truthy(r:find(md .. ':25: fails here', 1, true), r)
  end)
end)

describe('examples', function()
  it('say in their header how to run them with bin/th', function()
    local out = exec('ls ' .. sh(root .. 'examples'))
    local n = 0
    for name in out:gmatch('[^\n]+') do
      if name:match('%.lua$') then
        n = n + 1
        local f = assert(io.open(root .. 'examples/' .. name))
        local head = {}
        for _ = 1, 20 do head[#head + 1] = f:read('l') end
        f:close()
        head = table.concat(head, '\n')
        assert.is_truthy(head:find('bin/th examples/' .. name, 1, true), name .. ' has no "bin/th examples/' .. name .. '" line')
        assert.is_nil(head:find('lua5.4 examples/', 1, true), name)
      end
    end
    assert.is_true(n >= 5)
  end)
end)
