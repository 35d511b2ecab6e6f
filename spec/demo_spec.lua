-- examples/demo.lua (make demo) on every model of the zoo at its small
-- batch, in a bin/th subprocess: it runs to the end, and the optimized net's
-- output (a tensor or a table of them) and, in training, its gradients are
-- identical to the unoptimized net's.
require 'torch'
local models = require 'models'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/demo_spec%.lua$') or ''
-- the build the specs run against (make test BUILD=...), so bin/th neither
-- builds nor picks another one
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- stdout and stderr together, and the exit status
local function demo(name, batch)
  local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th examples/demo.lua %s %d 2>&1',
                                   sh(root ~= '' and root or '.'), sh(build), sh(name), batch))
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status
end

describe('examples/demo.lua', function()
  for _, m in ipairs(models.list()) do
    local batch = m.small.batch or 1
    it(string.format('%s, batch %d: outputs and gradients identical once optimized', m.name, batch), function()
      local out, status = demo(m.name, batch)
      assert.are.equal(0, status, out)
      assert.is_truthy(out:find(string.format('model: %s, batch %d', m.name, batch), 1, true), out)
      assert.is_truthy(out:find('\ninference (output identical to unoptimized: true)\n', 1, true), out)
      assert.is_truthy(out:find('\ntraining (output identical to unoptimized: true, gradients: true)\n', 1, true), out)
      assert.is_nil(out:find('false', 1, true), out)
      -- both tables printed in full
      local _, rows = out:gsub('\n  total_size ', '')
      assert.are.equal(2, rows, out)
    end)
  end
end)
