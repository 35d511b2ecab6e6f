-- argcheck's texts: the usage an invalid call reports (Torch7's markdown,
-- every overload joined by 'or', then what was passed), the doc= strings
-- with @ARGP/@ARGT, argcheck.doc's recording and argcheck.dump's print at
-- exit.
require 'torch'
local argcheck = require 'argcheck'
local doc = require 'argcheck.doc'
local usage = require 'argcheck.usage'

local function failure(f, ...)
  local args = table.pack(...)
  local ok, e = pcall(function() local r = f(table.unpack(args, 1, args.n)); return r end)
  assert.is_false(ok)
  return tostring(e)
end

describe('argcheck error text', function()
  it('is the position and name of the call (here f), the help and arguments, what came, invalid arguments!', function()
    local addfive = argcheck{
      help = 'Adds five.\n@ARGT\n',
      {name = 'x', type = 'number', default = 0, help = 'the age of the captain'},
      {name = 'msg', type = 'string', help = 'a message'},
      call = function(x, msg) return x + 5, msg end}
    local e = failure(addfive, 4)
    assert.are.equal(table.concat({
      'spec/argcheck_usage_spec.lua:12: f: Adds five.',
      '```',
      '({',
      '  [x   = number]  -- the age of the captain [default=0]',
      '   msg = string   -- a message',
      '})',
      '```',
      '',
      '*Got:* **number**',
      '',
      'invalid arguments!'}, '\n'), (e:gsub('^.-(spec/argcheck_usage_spec)', '%1')))
  end)

  it('lists every overload, and the keys of a named call', function()
    local f = argcheck{{name = 'x', type = 'number'}, call = function() end}
    f = argcheck{{name = 'str', type = 'string'}, overload = f, call = function() end}
    local e = failure(f, {y = true})
    local body = e:match('f: (.*)$')
    assert.are.equal(table.concat({
      '',
      '*Arguments:*',
      '```',
      '({',
      '   x = number  -- ',
      '})',
      '```',
      '',
      'or',
      '',
      '',
      '*Arguments:*',
      '```',
      '({',
      '   str = string  -- ',
      '})',
      '```',
      '*Got:* **table**={ **y=boolean** }',
      '',
      'invalid arguments!'}, '\n'), body)
  end)

  it('shows noordered/nonamed in the brackets and defaults of every kind', function()
    local named = argcheck{noordered = true, help = '@ARGT',
      {name = 'a', type = 'number', defaulta = 'b'}, {name = 'b', type = 'number', default = 2},
      {name = 'c', type = 'string', default = 's'}, {name = 'd', type = 'boolean', default = false},
      {name = 'e', type = 'table', default = {}}, {name = 'f', defaultf = function() end},
      {name = 'g', type = 'number', opt = true, doc = 'maybe'}}
    local e = failure(named, {a = 'x'})
    assert.truthy(e:find(table.concat({
      '```',
      '{',
      '  [a = number]   --  [defaulta=b]',
      '  [b = number]   --  [default=2]',
      '  [c = string]   --  [default=s]',
      '  [d = boolean]  --  [default=false]',
      '  [e = table]    --  [has default value]',
      '  [f]            --  [has default]',
      '  [g = number]   -- maybe',
      '}',
      '```'}, '\n'), 1, true), e)
    local ordered = argcheck{nonamed = true, {name = 'x', type = 'number'}}
    assert.truthy(failure(ordered, 'x'):find('```\n(\n   x = number  -- \n)\n```', 1, true))
  end)
end)

describe('argcheck doc', function()
  it('@ARGP lists the arguments, optional ones in brackets', function()
    local rules = {{name = 'self'}, {name = 'x', default = 1}, {name = 'y', defaulta = 'x'},
                   {name = 'z', opt = true}, {name = 'w'}}
    assert.are.equal('self[, x], y[, z], w', usage.argp(rules))
    assert.are.equal('#### f(self[, x], y[, z], w)', usage.usage(true, {doc = '#### f(@ARGP)', table.unpack(rules)}))
  end)

  it('records the doc of every checker made while recording, and doc() strings', function()
    doc.record()
    doc[[
# my package
]]
    argcheck{doc = '#### pkg.f(@ARGP)\n@ARGT\nDoes f.\n', {name = 'n', type = 'number', help = 'how many'}}
    argcheck{{name = 'undocumented', type = 'number'}}
    local text = doc.stop()
    assert.are.equal('# my package\n#### pkg.f(n)\n```\n({\n   n = number  -- how many\n})\n```\nDoes f.\n', text)
    -- nothing is kept once stopped
    doc('ignored')
    assert.are.equal('', doc.stop())
  end)

  it("require 'argcheck.dump' prints the documentation when the program ends", function()
    local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/argcheck_usage_spec%.lua$') or './'
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write([[
require 'argcheck.dump'
local argcheck = require 'argcheck'
local doc = require 'argcheck.doc'
doc'# title\n'
argcheck{doc = 'f(@ARGP)\n', {name = 'a', type = 'number'}, {name = 'b', type = 'string', opt = true}}
io.write('body done\n')
]])
    f:close()
    local p = io.popen((root == '' and './' or root) .. 'bin/th ' .. script .. ' 2>&1')
    local out = p:read('a')
    p:close()
    os.remove(script)
    assert.are.equal('body done\n# title\nf(a[, b])\n\n', out)
  end)
end)
