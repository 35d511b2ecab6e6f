-- The reference (docs/reference/*.md, format in docs/reference/index.md):
-- every public name has an entry with an example, every name an entry
-- gives exists (tools/docnames.lua), and help prints the entry first.
-- The entries' examples run in spec/docs_blocks_spec.lua.
require 'torch'
require 'nn'
require 'optim'
local help = require 'torch.help'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/docs_reference_spec%.lua$') or ''
if root == '' then root = './' end
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

describe('the reference', function()
  it('has an entry with an example for every public name, and no entry for a name that is not one', function()
    local p = io.popen(string.format('TH_BUILD=%s %s %s 2>&1', sh(build), sh(root .. 'bin/th'),
                                     sh(root .. 'tools/docnames.lua')))
    local out = p:read('a')
    local ok = p:close()
    assert.is_true(ok, out)
    local total = tonumber(out:match('docnames: (%d+) public names, 0 problems'))
    assert.is_truthy(total, out)
    -- the libraries hold over a thousand public names
    assert.is_true(total > 1000, out)
  end)

  it('is what help prints first, for names, methods and values', function()
    local cases = {
      {'torch.max', '^torch%.max'}, {'max', '^torch%.max'}, {'x:max', 'Tensor:max'},
      {'torch.FloatTensor.narrow', 'Tensor:narrow'}, {'nn.Linear', '^nn%.Linear'},
      {'optim.sgd', '^optim%.sgd'}, {'optnet.optimizeMemory', '^optnet%.optimizeMemory'},
      {'Module:forward', '^Module:forward'},
    }
    for _, c in ipairs(cases) do
      local text = assert(help.text(c[1]))
      assert.is_truthy(text:find(c[2]), c[1] .. ':\n' .. text)
      assert.is_truthy(text:find('(docs/reference/', 1, true), text)
      assert.is_truthy(text:find('Example:', 1, true), text)
    end
    -- values: a function, a method, a class, an instance
    assert.is_truthy(assert(help.text(torch.cat)):find('^torch%.cat'))
    assert.is_truthy(assert(help.text(torch.Tensor().narrow)):find('Tensor:narrow', 1, true))
    assert.is_truthy(assert(help.text(nn.Linear)):find('^nn%.Linear'))
    assert.is_truthy(assert(help.text(nn.Linear(2, 3))):find('^nn%.Linear'))
    assert.is_truthy(assert(help.text(nn.Module.forward)):find('Module:forward', 1, true))
    -- the entry, then at most a few places in the guides
    local text = help.text('nn.Linear')
    local see = text:match('\nSee also: ([^\n]*)$')
    if see then
      local n = select(2, see:gsub(';', ';')) + 1
      assert.is_true(n <= help.maxsee, see)
    end
  end)

  it('parses headings, names and entry ends as the format says', function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute('mkdir -p ' .. sh(dir .. '/reference'))
    local f = assert(io.open(dir .. '/reference/x.md', 'w'))
    f:write('# Page\n\n## Group\n\n### `a.b` · `C:d`\n\n```sig\n[n] a.b(x)\n```\n\ntext\n\n',
            '```lua\n### not a heading\nassert(true)\n```\n\n### `e.f()`\n\nmore\n\n## Next group\n\nprose\n',
            '````markdown\n### `g.h`\n```sig\nx\n```\n````\n')
    f:close()
    local saved = os.getenv('TH_DOCS')
    -- help.dirs reads TH_DOCS first: a fresh help module sees the folder
    package.loaded['torch.help'] = nil
    local env = setmetatable({}, {__index = os})
    local getenv = os.getenv
    os.getenv = function(k) if k == 'TH_DOCS' then return dir end return getenv(k) end
    local h = require 'torch.help'
    local ok, r = pcall(h.reference)
    os.getenv = getenv
    package.loaded['torch.help'] = help
    os.execute('rm -rf ' .. sh(dir))
    assert.is_true(ok, r)
    local e = r.byname['a.b']
    assert.are.equal(e, r.byname['C:d'])
    assert.are.same({'a.b', 'C:d'}, e.names)
    assert.is_truthy(e.text:find('### not a heading', 1, true))
    assert.are.equal('Group', e.group)
    assert.are.equal('more', r.byname['e.f'].text:match('%S+'))
    assert.are.equal(e, r.bymethod.d[1])
    -- an example entry inside a longer fence is no entry
    assert.is_nil(r.byname['g.h'])
    local _ = saved and env
  end)
end)
