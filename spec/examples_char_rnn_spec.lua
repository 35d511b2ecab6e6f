-- examples/char_rnn.lua, run through bin/th in a subprocess for a short
-- training: the loss falls well below its start (log of the vocabulary),
-- a sample of the requested length is printed, and a missing text file is
-- a clear error.
require 'torch'

local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/examples_char_rnn_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')
local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(args)
  local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th examples/char_rnn.lua %s 2>&1',
                                   sh(root ~= '' and root or '.'), sh(build), args))
  local out = p:read('a')
  local _, _, status = p:close()
  return out, status
end

describe('examples/char_rnn.lua', function()
  it('learns its generated text and samples from it', function()
    local out, status = run('-iters 120 -rnn_size 48 -print_every 40 -sample_length 80')
    assert.are.equal(0, status, out)
    local first, last = out:match('loss (%d+%.%d+) %-> (%d+%.%d+)')
    first, last = tonumber(first), tonumber(last)
    assert(first and last, out)
    assert(last < first / 2, string.format('loss %g -> %g', first, last))
    local sample = out:match('sample: ([^\n]*)')
    assert(sample and #sample == 81, out)
  end)

  it('says so when the text file is missing', function()
    local out, status = run('-text /no/such/file.txt')
    assert.are_not.equal(0, status)
    assert.truthy(out:find('char_rnn: cannot read /no/such/file.txt', 1, true), out)
  end)
end)
