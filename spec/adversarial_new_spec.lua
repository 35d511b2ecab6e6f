-- Adversarial arguments to the functions merged with the LAPACK, conv,
-- bit-op, histogram, alias-method, mapped-storage, File-position,
-- Generator and printing work: each case is a fault found by a driver that
-- called them with wrong types, sizes, freed, aliased and non-finite
-- arguments (fixed since), or a sample of the cases that already gave a
-- clear error. Every error must name the function and what came.
require 'torch'
local H = require 'spec.support.helpers'

local NaN, inf = 0 / 0, math.huge

local function freed(t) t:free(); return t end

describe('adversarial: histc, bhistc', function()
  it('refuses an infinite or NaN number of bins, bounds and data range by name', function()
    local x = torch.Tensor{1, 2, 3}
    H.fails({'histc', 'number of bins', 'inf'}, torch.histc, x, inf)
    H.fails({'histc', 'number of bins', 'nan'}, torch.histc, x, NaN)
    H.fails({'bhistc', 'number of bins', 'inf'}, torch.bhistc, x, inf)
    H.fails({'histc', 'number of bins', '0'}, torch.histc, x, 0)
    H.fails({'histc', 'min and max must be finite', '-inf and inf'}, torch.histc, x, 3, -inf, inf)
    H.fails({'histc', 'min (5) must not exceed max (1)'}, torch.histc, x, 3, 5, 1)
    H.fails({'histc', "data's range", 'not finite'}, torch.histc, torch.Tensor{1, NaN, 2}, 3)
    H.fails({'histc', "data's range", 'inf'}, torch.histc, torch.Tensor{1, inf}, 3)
    H.fails({'histc', 'too wide'}, torch.histc, torch.Tensor{-1e308, 1e308}, 3)
    -- a NaN outside an explicit range is not counted, as any value outside
    assert.are.same({0, 1, 1}, torch.histc(torch.Tensor{1, NaN, 2}, 3, 0, 3):totable())
  end)

  it('refuses a giant bin count under its own name, without allocating', function()
    H.fails({'histc', 'too large'}, torch.histc, torch.Tensor{1, 2}, 2 ^ 62)
    H.fails({'bhistc', 'too large'}, torch.bhistc, torch.Tensor(3, 2):zero(), 2 ^ 61)
  end)

  it('counts right when the result is the input or a view of it', function()
    local x = torch.Tensor{1, 2, 2, 3, 3, 3}
    assert.are.same({1, 2, 3}, torch.histc(x, x, 3):totable())
    local m = torch.Tensor{{1, 2, 2}, {3, 3, 3}}
    assert.are.same({{1, 2, 0}, {0, 0, 3}}, torch.bhistc(m, m, 3):totable())
    m = torch.Tensor{{1, 2, 2}, {3, 3, 3}}
    local row = m[1]
    assert.are.same({{1, 2, 0}, {0, 0, 3}}, torch.bhistc(row, m, 3):totable())
  end)

  it('names the function for a freed input or result', function()
    H.fails({'histc', 'the input was freed'}, torch.histc, freed(torch.Tensor{1, 2}))
    H.fails({'histc', 'the result was freed'}, torch.histc, freed(torch.Tensor(2)), torch.Tensor{1, 2})
    H.fails({'bhistc', 'the input was freed'}, torch.bhistc, freed(torch.Tensor{1, 2}))
  end)
end)

describe('adversarial: cross, renorm, mode', function()
  it('names the function for dimensions that are inf, NaN or huge', function()
    local x = torch.rand(2, 3)
    H.fails({'renorm', 'dimension inf out of range'}, torch.renorm, x, 2, inf, 1)
    H.fails({'mode', 'dimension inf out of range'}, torch.mode, x, inf)
    H.fails({'mode', 'dimension must be an integer', 'nan'}, torch.mode, x, NaN)
    H.fails({'cross', 'dimension must be an integer'}, torch.cross, torch.rand(3), torch.rand(3), NaN)
    H.fails({'cross', 'dimension 1e+20 out of range'}, torch.cross, torch.rand(3), torch.rand(3), 1e20)
  end)

  it('names the function for freed tensors', function()
    H.fails({'cross', 'the first vector tensor was freed'}, torch.cross, freed(torch.rand(3)), torch.rand(3))
    H.fails({'cross', 'the result was freed'}, torch.cross, freed(torch.rand(3)), torch.rand(3), torch.rand(3))
    H.fails({'mode', 'the input was freed'}, torch.mode, freed(torch.rand(3)))
    H.fails({'mode', 'the values result was freed'}, torch.mode, freed(torch.rand(1)), torch.LongTensor(), torch.rand(3))
    H.fails({'renorm', 'the input was freed'}, torch.renorm, freed(torch.rand(2, 2)), 2, 1, 1)
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'cross', 'no dimension of size 3', '2x2'}, torch.cross, torch.rand(2, 2), torch.rand(2, 2))
    H.fails({'renorm', 'norm power must be a positive number', '0'}, torch.renorm, torch.rand(2, 2), 0, 1, 1)
    H.fails({'renorm', 'norm power', 'nan'}, torch.renorm, torch.rand(2, 2), NaN, 1, 1)
    H.fails({'renorm', 'maximum norm', 'nan'}, torch.renorm, torch.rand(2, 2), 2, 1, NaN)
    H.fails({'renorm', 'not available for torch.IntTensor'}, torch.renorm, torch.IntTensor(2, 2), 2, 1, 1)
    H.fails({'mode', 'NaN in the input'}, torch.mode, torch.Tensor{1, NaN})
  end)
end)

describe('adversarial: multinomialAlias', function()
  it('names the function for freed probabilities, states and outputs', function()
    H.fails({'multinomialAliasSetup', 'probs was freed'}, torch.multinomialAliasSetup, freed(torch.Tensor{1, 1}))
    H.fails({'multinomialAliasSetup', 'state[1] was freed'}, torch.multinomialAliasSetup, torch.Tensor{1, 2},
            {freed(torch.LongTensor(2))})
    local s = torch.multinomialAliasSetup(torch.Tensor{1, 1})
    H.fails({'multinomialAlias', 'output was freed'}, torch.multinomialAlias, freed(torch.LongTensor(3)), s)
    s[2]:free()
    H.fails({'multinomialAlias', 'state[2] was freed'}, torch.multinomialAlias, torch.LongTensor(3), s)
  end)

  it('refuses a state whose bucket probabilities are NaN or outside [0, 1]', function()
    H.fails({'multinomialAlias', 'outside [0, 1]'}, torch.multinomialAlias, torch.LongTensor(3),
            {torch.LongTensor{1, 2}, torch.Tensor{NaN, 1}})
    H.fails({'multinomialAlias', 'outside [0, 1]'}, torch.multinomialAlias, torch.LongTensor(3),
            {torch.LongTensor{1, 2}, torch.Tensor{2, 1}})
  end)

  it('builds the right table for weights whose sum overflows', function()
    -- weights 1e308 and 1e307: probabilities 10/11 and 1/11; with K = 2
    -- bucket 2 keeps 2/11 of its draws and aliases the rest to 1
    local s = torch.multinomialAliasSetup(torch.Tensor{1e308, 1e307})
    assert.are.same({1, 1}, s[1]:totable())
    assert.is_true(math.abs(s[2][2] - 2 / 11) < 1e-12)
    assert.are.equal(1, s[2][1])
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'multinomialAliasSetup', 'invalid probability -1 at 1'}, torch.multinomialAliasSetup, torch.Tensor{-1, 2})
    H.fails({'multinomialAliasSetup', 'invalid probability', 'nan'}, torch.multinomialAliasSetup, torch.Tensor{NaN, 2})
    H.fails({'multinomialAliasSetup', 'sum to 0'}, torch.multinomialAliasSetup, torch.Tensor{0, 0})
    H.fails({'multinomialAliasSetup', 'invalid probability inf'}, torch.multinomialAliasSetup, torch.Tensor{inf, 1})
    H.fails({'multinomialAliasSetup', 'Float or Double', 'IntTensor'}, torch.multinomialAliasSetup, torch.IntTensor{1, 2})
    H.fails({'multinomialAlias', 'LongTensor output expected'}, torch.multinomialAlias, torch.IntTensor(2), {})
  end)
end)

describe('adversarial: Generator and RNG state', function()
  it('refuses arguments that are not a generator instead of dropping them', function()
    H.fails({'getRNGState', 'nothing or a torch.Generator expected, got string'}, torch.getRNGState, 'abc')
    H.fails({'getRNGState', 'nothing or a torch.Generator expected, got torch.DoubleTensor'}, torch.getRNGState,
            torch.rand(2))
    H.fails({'getRNGState', 'nothing more expected, got number'}, torch.getRNGState, torch.Generator(), 3)
    H.fails({'seed', 'nothing or a torch.Generator expected, got table'}, torch.seed, {})
    H.fails({'initialSeed', 'got boolean'}, torch.initialSeed, true)
    H.fails({'Generator', 'no argument expected, got number'}, torch.Generator, 1)
    -- an unset optional generator (nil) is no argument
    assert.are.equal(torch.getRNGState():nElement(), torch.getRNGState(nil):nElement())
  end)

  it('refuses draws with a non-finite location or a scale that is not positive (negative exponential draws before)', function()
    H.fails({"'exponential'", 'lambda must be strictly positive, got -1'}, torch.exponential, -1)
    H.fails({"'exponential'", 'lambda must be strictly positive'}, function() torch.Tensor(2):exponential(NaN) end)
    H.fails({"'cauchy'", 'sigma must be strictly positive, got -1'}, torch.cauchy, 0, -1)
    H.fails({"'cauchy'", 'median must be finite, got inf'}, torch.cauchy, inf, 1)
    H.fails({"'uniform'", 'lower bound must be finite, got inf'}, torch.uniform, inf, 1)
    H.fails({"'uniform'", 'upper bound must be finite'}, function() torch.Tensor(2):uniform(0, NaN) end)
    H.fails({"'normal'", 'standard deviation must be finite, got inf'}, torch.normal, 0, inf)
    H.fails({"'logNormal'", 'mean must be finite'}, function() torch.Tensor(2):logNormal(NaN, 1) end)
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'setRNGState', 'ByteTensor'}, torch.setRNGState, torch.rand(3))
    H.fails({'setRNGState'}, torch.setRNGState, torch.ByteTensor(3))
    H.fails({'manualSeed', 'seed'}, torch.manualSeed, 'abc')
  end)
end)

describe('adversarial: File positions', function()
  it('names seek, seekEnd and position on a closed file', function()
    local f = torch.MemoryFile('rw')
    f:close()
    H.fails({'seek: file is closed'}, function() f:seek(1) end)
    H.fails({'seekEnd: file is closed'}, function() f:seekEnd() end)
    H.fails({'position: file is closed'}, function() f:position() end)
    local name = os.tmpname()
    local d = torch.DiskFile(name, 'w')
    d:close()
    H.fails({'seek: file is closed'}, function() d:seek(1) end)
    H.fails({'position: file is closed'}, function() d:position() end)
    os.remove(name)
  end)

  it('refuses inf, NaN and non-numbers by type, accepts integral floats', function()
    local name = os.tmpname()
    local w = torch.DiskFile(name, 'w'):binary()
    w:writeInt(5)
    w:close()
    local r = torch.DiskFile(name, 'r'):binary()
    H.fails({'seek: a position >= 1 expected, got inf'}, function() r:seek(inf) end)
    H.fails({'seek: a position >= 1 expected, got ', 'nan'}, function() r:seek(NaN) end)
    H.fails({'seek: a position >= 1 expected, got torch.DoubleTensor'}, function() r:seek(torch.rand(1000)) end)
    H.fails({'seek: position 6 is past the end (4 bytes)'}, function() r:seek(6) end)
    H.fails({'seek: position 4611686018427387904 is past the end'}, function() r:seek(2 ^ 62) end)
    r:seek(1.0)
    assert.are.equal(5, r:readInt())
    r:close()
    os.remove(name)
    local m = torch.MemoryFile('rw'):binary()
    m:writeInt(7)
    H.fails({'MemoryFile:seek: a position >= 1 expected, got torch.DoubleTensor'}, function() m:seek(torch.rand(1000)) end)
    H.fails({'MemoryFile:seek: a position >= 1 expected, got inf'}, function() m:seek(inf) end)
    H.fails({'MemoryFile:seek: a position >= 1 expected, got -1'}, function() m:seek(-1) end)
    H.fails({'MemoryFile:seek: position 9223372036854775807 is past the end'}, function() m:seek(math.maxinteger) end)
    m:seek(1.0)
    assert.are.equal(7, m:readInt())
  end)

  it('refuses a file name with a zero byte (the C name stopped there and opened another file)', function()
    H.fails({'torch.DiskFile', 'without zero bytes', 'byte 2'}, torch.DiskFile, 'a\0b')
    H.fails({'torch.save', 'without zero bytes'}, torch.save, 'a\0b', 1)
    H.fails({'torch.DoubleStorage', 'without zero bytes', 'byte 10'}, torch.DoubleStorage, '/dev/null\0x', false)
  end)

  it('refuses to open a directory for reading (its size came out 2^63 - 1)', function()
    H.fails({'/tmp: cannot open for reading: Is a directory'}, torch.DiskFile, '/tmp')
    H.fails({'torch.load', 'Is a directory'}, torch.load, '/tmp')
    assert.is_false(torch.DiskFile('/tmp', 'r', true):isOpened())
  end)

  it('MemoryFile: a write after seek goes at the position, and nothing written before is lost', function()
    local f = torch.MemoryFile('rw'):binary()
    f:writeInt(1)
    f:writeInt(2)
    f:seek(5)
    f:writeInt(3)      -- over the 2
    -- the first int was dropped from f:string() before
    assert.are.same({1, 0, 0, 0, 3, 0, 0, 0}, {f:string():byte(1, -1)})
    f:seek(1)
    assert.are.same({1, 3}, {f:readInt(), f:readInt()})
    local w = torch.MemoryFile('w'):binary()
    w:seek(1)          -- an empty file (the length of nil was taken)
    w:writeInt(7)
    w:seek(3)
    assert.are.equal(3, w:position())
    w:writeInt(-1)     -- over the last two bytes and past them
    assert.are.equal(7, w:position())
    assert.are.same({7, 0, 255, 255, 255, 255}, {w:string():byte(1, -1)})
  end)
end)

describe('adversarial: print options', function()
  after_each(function() torch.setprintoptions{profile = 'default'} end)

  it('prints a summary with edgeitems = math.maxinteger (2 * edgeitems wrapped)', function()
    torch.setprintoptions{threshold = 0, edgeitems = math.maxinteger}
    -- no summary possible: every element prints
    local s = tostring(torch.range(1, 5))
    assert.is_truthy(s:find(' 5\n', 1, true))
    assert.is_falsy(s:find('...', 1, true))
    torch.setprintoptions{threshold = 0, edgeitems = 2}
    s = tostring(torch.range(1, 5))
    assert.is_truthy(s:find('...', 1, true))
    assert.is_falsy(s:find(' 3\n', 1, true))
  end)

  it('refuses to print gigabytes (threshold = inf on an expanded 2^40-element tensor) by name', function()
    local big = torch.DoubleTensor(1):fill(1):expand(2 ^ 40)
    assert.is_truthy(tostring(big):find('...', 1, true))     -- default: a summary
    torch.setprintoptions{profile = 'full'}
    H.fails({'tostring', 'would print 1099511627776 elements', 'setprintoptions'}, tostring, big)
    torch.setprintoptions{profile = 'default', edgeitems = 2 ^ 62}
    H.fails({'tostring', 'would print'}, tostring, big)
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'setprintoptions', 'threshold must be an integer >= 0', '-1'}, torch.setprintoptions, {threshold = -1})
    H.fails({'setprintoptions', 'precision', '100'}, torch.setprintoptions, {precision = 100})
    H.fails({'setprintoptions', 'linewidth must be an integer >= 1', '0'}, torch.setprintoptions, {linewidth = 0})
    H.fails({'setprintoptions', 'edgeitems', 'nan'}, torch.setprintoptions, {edgeitems = NaN})
    H.fails({'setprintoptions', 'linewidth', 'inf'}, torch.setprintoptions, {linewidth = inf})
    H.fails({'setprintoptions', 'unknown option foo'}, torch.setprintoptions, {foo = 1})
    H.fails({'setprintoptions', 'table of options expected'}, torch.setprintoptions, 3)
  end)
end)

describe('adversarial: expanded results', function()
  -- stride 0: every answer would land in one element (silently wrong before)
  local function expanded(...) return torch.Tensor(1):fill(0):view(1, 1):expand(...) end

  it('LAPACK and conv refuse an expanded result by name', function()
    local A = torch.Tensor{{4, 1}, {1, 3}}
    H.fails({'inverse', 'result 1 is expanded'}, torch.inverse, expanded(2, 2), A)
    H.fails({'gesv', 'result 2 is expanded'}, torch.gesv, torch.Tensor(), expanded(2, 2), torch.Tensor{{1}, {2}}, A)
    H.fails({'svd', 'result 1 is expanded'}, torch.svd, expanded(2, 2), torch.Tensor(), torch.Tensor(), A)
    H.fails({'conv2', 'result is expanded'}, torch.conv2, expanded(2, 2), torch.rand(3, 3), torch.rand(2, 2))
    H.fails({'xcorr3', 'result is expanded'}, torch.xcorr3, torch.Tensor(1, 1, 1):expand(2, 2, 2), torch.rand(3, 3, 3),
            torch.rand(2, 2, 2))
    -- an expanded input is read as what it shows: [[2, 2], [2, 2]] is singular
    H.fails({'inverse', 'singular'}, torch.inverse, torch.Tensor(1, 1):fill(2):expand(2, 2))
  end)

  it('cross, renorm, histc, mode, multinomialAlias refuse an expanded result by name', function()
    H.fails({'cross', 'the result is expanded'}, torch.cross, torch.Tensor(1):expand(3), torch.Tensor{1, 0, 0},
            torch.Tensor{0, 1, 0})
    H.fails({'renorm', 'the result is expanded'}, torch.renorm, expanded(2, 2), torch.ones(2, 2), 2, 1, 1)
    H.fails({'histc', 'the result is expanded'}, torch.histc, torch.Tensor(1):expand(3), torch.Tensor{1, 2, 3}, 3)
    H.fails({'mode', 'the values result is expanded'}, torch.mode, torch.Tensor(1):expand(2), torch.LongTensor(),
            torch.Tensor{{1, 1}, {2, 2}}, 2)
    H.fails({'multinomialAlias', 'output is expanded'}, torch.multinomialAlias, torch.LongTensor(1):expand(3),
            torch.multinomialAliasSetup(torch.Tensor{1, 1}))
  end)
end)

describe('adversarial: bit operations', function()
  it('refuse a fractional mask (it was cast: 1.5 became 1)', function()
    H.fails({'bitand', 'mask must be an integer, got 1.5'}, torch.bitand, torch.IntTensor{7}, 1.5)
    H.fails({'bitor', 'mask must be an integer'}, function() return torch.ByteTensor{7}:bitor(0.5) end)
    -- a mask wider than the element: 2^62 on an IntTensor was cast to 0
    H.fails({'bitand', 'mask 4611686018427387904 does not fit the 32 bits of a IntTensor'}, torch.bitand,
            torch.IntTensor{7}, 2 ^ 62)
    H.fails({'bitor', 'does not fit the 8 bits of a ByteTensor'}, function() return torch.ByteTensor{7}:bitor(256) end)
    assert.are.same({7}, torch.ByteTensor{7}:bitand(-1):totable())   -- all bits, signed or unsigned
    assert.are.same({7}, torch.ByteTensor{7}:bitand(255):totable())
    assert.are.same({5}, torch.IntTensor{7}:bitxor(2):totable())
    assert.are.same({15}, torch.IntTensor{7}:bitor(8.0):totable())
  end)

  it('refuse an expanded result (every answer landed in one element)', function()
    H.fails({'cbitand', 'result is expanded'}, torch.cbitand, torch.IntTensor(1):expand(2), torch.IntTensor{1, 2},
            torch.IntTensor{3, 3})
    H.fails({'lshift', 'result is expanded'}, function() return torch.IntTensor{1}:expand(3):lshift(1) end)
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'bitand', 'not available for DoubleTensor'}, torch.bitand, torch.DoubleTensor{3}, 1)
    H.fails({'rshift', 'shift count must be a non-negative integer, got -1'}, torch.rshift, torch.IntTensor{3}, -1)
    H.fails({'lshift', 'nan'}, torch.lshift, torch.IntTensor{3}, NaN)
    H.fails({'crshift', 'negative'}, torch.crshift, torch.IntTensor{3}, torch.IntTensor{-1})
  end)
end)

describe('adversarial: REPL helpers', function()
  local pretty = require 'torch.pretty'
  local complete = require 'torch.complete'
  local help = require 'torch.help'
  local bad = setmetatable({}, {__tostring = function() error('boom') end})

  it('pretty prints an object whose __tostring raises (the error escaped before)', function()
    H.has(pretty.format(bad), '__tostring failed')
    H.has(pretty.format({bad, [bad] = 1}), '__tostring failed')
    local _, err = help.text(bad)
    H.has(err, 'help: no documentation found for table')
  end)

  it('checks the arguments of pretty.format and complete.candidates by name', function()
    H.fails({'pretty.format', 'options table', 'got string'}, pretty.format, {1}, 'x')
    H.fails({'complete.candidates', 'word (string) expected, got nil'}, complete.candidates, nil)
    H.fails({'complete.candidates', 'word (string) expected, got number'}, complete.candidates, 123)
    H.fails({'complete.candidates', 'text before the word', 'got number'}, complete.candidates, 'tor', 5)
    H.fails({'complete.candidates', 'environment', 'got string'}, complete.candidates, 'tor', '', 'abc')
    -- a cyclic environment completes (no endless walk)
    local cyc = {}
    cyc.a = cyc
    assert.are.same({'cyc.a.a'}, complete.candidates('cyc.a.a', '', {cyc = cyc}))
  end)
end)

describe('adversarial: torch.Tester', function()
  local function outcome(body)
    local t = torch.Tester()
    t:setSummaryOnly(true)
    t:add(function() body(t) end, 'case')
    local write = io.write
    io.write = function() end   -- the report is not what is checked here
    local ok = pcall(t.run, t)
    io.write = write
    return ok, t.errors[1] and t.errors[1].message or ''
  end

  it('compares cyclic tables (a stack overflow before)', function()
    local a, b = {}, {}
    a.a, b.a = a, b
    a.v, b.v = 1, 1
    assert.is_true((outcome(function(t) t:assertTableEq(a, b) end)))
    b.v = 2
    assert.is_false((outcome(function(t) t:eq(a, b) end)))
  end)

  it('refuses wrong arguments by name instead of passing or failing on them', function()
    local _, msg = outcome(function(t) t:assertError(3) end)   -- calling 3 raised: it passed
    H.has(msg, 'assertError: function expected, got number')
    _, msg = outcome(function(t) t:assertNoError(nil) end)
    H.has(msg, 'assertNoError: function expected, got nil')
    _, msg = outcome(function(t) t:assertalmosteq('a', 1) end)
    H.has(msg, 'assertalmosteq: two numbers expected, got string and number')
    _, msg = outcome(function(t) t:assertErrorPattern(function() error('x') end, '[') end)
    H.has(msg, 'assertErrorPattern: malformed pattern')
    _, msg = outcome(function(t) t:assertTensorEq(torch.Tensor{1}, torch.Tensor{1}, 0 / 0) end)
    H.has(msg, 'tolerance cannot be NaN')
    local f = torch.rand(2)
    f:free()
    _, msg = outcome(function(t) t:assertTensorEq(f, torch.rand(2), 1e-5) end)
    H.has(msg, 'First argument is a freed tensor')
    H.fails({'torch.Tester:run', 'got number'}, function() torch.Tester():run(3) end)
  end)
end)

describe('adversarial: serialization', function()
  it('names a freed tensor and where it is when saving', function()
    H.fails({'torch.serializeToStorage', 'cannot save a freed torch.DoubleTensor (at <?>)'}, torch.serializeToStorage,
            freed(torch.rand(2)))
    H.fails({'torch.serialize', 'at <?>.a.1'}, torch.serialize, {a = {freed(torch.rand(2))}})
  end)

  it('keeps the sample of clear errors', function()
    H.fails({'torch.deserializeFromStorage', 'CharStorage or CharTensor expected, got string'}, torch.deserializeFromStorage, 'abc')
    H.fails({'torch.deserializeFromStorage', 'corrupt'}, torch.deserializeFromStorage, torch.CharStorage(10):fill(65))
    H.fails({'torch.deserializeFromStorage', 'truncated'}, torch.deserializeFromStorage, torch.CharStorage())
    H.fails({'torch.serializeToStorage', "mode 'binary' or 'ascii' expected, got xx"}, torch.serializeToStorage, {}, 'xx')
    H.fails({'torch.serializeToStorage', 'cannot save a C function'}, torch.serializeToStorage, print)
    local st = torch.serializeToStorage(torch.rand(100))
    H.fails({'torch.deserializeFromStorage', 'truncated'}, torch.deserializeFromStorage, torch.CharStorage(st, 1, 50))
  end)
end)

describe('adversarial: storage views and mappings', function()
  it('keeps the sample of clear errors', function()
    local s = torch.DoubleStorage(5)
    local v = torch.DoubleStorage(s, 2, 3)
    H.fails({'resize', 'cannot resize a storage that views another'}, function() v:resize(10) end)
    H.fails({'resize', 'viewed by 1 other storage'}, function() s:resize(1) end)
    H.fails({'torch.DoubleStorage', 'offset in 1..6 expected, got 0'}, torch.DoubleStorage, s, 0)
    H.fails({'torch.DoubleStorage', '-1 elements from position 2 do not fit'}, torch.DoubleStorage, s, 2, -1)
    H.fails({'torch.DoubleStorage', '4611686018427387904 elements'}, torch.DoubleStorage, s, 2, 2 ^ 62)
    H.fails({'torch.DoubleStorage', 'offset in 1..6 expected, got 9223372036854775807'}, torch.DoubleStorage, s,
            math.maxinteger, 1)
    H.fails({'torch.FloatStorage', 'torch.FloatStorage expected, got torch.DoubleStorage'}, torch.FloatStorage, s, 1)
    H.fails({'torch.DoubleStorage', 'cannot open', 'No such file'}, torch.DoubleStorage, '/nonexistent/adv.bin', false)
    H.fails({'torch.DoubleStorage', 'cannot map'}, torch.DoubleStorage, '/tmp', false)
    H.fails({'torch.DoubleStorage', 'size must be non-negative, got -1'}, torch.DoubleStorage, '/dev/null', false, -1)
    H.fails({'torch.DoubleStorage', 'size must be an integer', 'nan'}, torch.DoubleStorage, '/dev/null', false, NaN)
    local name = os.tmpname()
    local f = io.open(name, 'wb')
    f:write('abc')
    f:close()
    H.fails({'torch.DoubleStorage', 'holds 3 bytes, fewer than the 10 elements asked'}, torch.DoubleStorage, name,
            false, 10)
    assert.are.equal(0, torch.DoubleStorage(name, false):size())   -- 3 bytes: no whole double
    -- shared = false reads the file: a storage of its own (issue 36); a shared mapping cannot move
    assert.are.equal(9, torch.ByteStorage(name, false):resize(9):size())
    H.fails({'resize', 'cannot resize a storage mapped from a file'}, function() torch.ByteStorage(name, true):resize(9) end)
    os.remove(name)
  end)
end)

describe('adversarial: extreme values in histc, renorm, mode, multinomial', function()
  it('histc counts ranges whose width or bin width overflows its arithmetic', function()
    -- 3 / 5e-324 is inf: the bins were NaN
    assert.are.same({1, 0, 1}, torch.histc(torch.Tensor{0, 5e-324}, 3):totable())
    -- v - lo overflows a float
    assert.are.same({1, 0, 1}, torch.histc(torch.FloatTensor{-3e38, 3e38}, 3):totable())
  end)

  it('renorm takes the p-norm of {3, 4} as 4 for p = 1e308 (the sum of powers overflowed to a zero row)', function()
    local r = torch.renorm(torch.Tensor{{3, 4}, {0.5, 0.5}}, 1e308, 1, 1)
    -- norm 4 > 1: the row is scaled by 1 / (4 + 1e-7)
    assert.is_true(math.abs(r[1][1] - 3 / (4 + 1e-7)) < 1e-12)
    assert.is_true(math.abs(r[1][2] - 4 / (4 + 1e-7)) < 1e-12)
    assert.are.same({0.5, 0.5}, r[2]:totable())
    assert.are.same({3, 0}, torch.renorm(torch.Tensor(3, 0), 2, 1, 1):size():totable())
  end)

  it('mode and cross name an empty dimension', function()
    H.fails({'mode', 'dimension 2 is empty'}, torch.mode, torch.Tensor(3, 0))
    H.fails({'cross', 'no dimension of size 3', 'empty'}, torch.cross, torch.Tensor(0, 3), torch.Tensor(0, 3))
  end)

  it('multinomial draws from weights whose sum overflows (every draw fell in one category)', function()
    torch.manualSeed(1)
    local r = torch.multinomial(torch.Tensor{1e308, 1e308, 1e308}, 3000, true)
    local counts = torch.histc(r:double(), 3, 1, 3)
    for i = 1, 3 do assert.is_true(counts[i] > 850 and counts[i] < 1150, 'count ' .. counts[i]) end
  end)

  it('multinomial names freed, expanded and giant results', function()
    H.fails({'torch.multinomial', 'probabilities were freed'}, torch.multinomial, freed(torch.Tensor{1, 2}), 1)
    H.fails({'torch.multinomial', 'the result was freed'}, torch.multinomial, freed(torch.LongTensor(1)),
            torch.Tensor{1, 2}, 1)
    H.fails({'torch.multinomial', 'the result is expanded'}, torch.multinomial, torch.LongTensor(1):expand(3),
            torch.Tensor{1, 2}, 3, true)
    H.fails({'torch.multinomial', 'too large'}, torch.multinomial, torch.Tensor{1, 2}, 2 ^ 62, true)
    H.fails({'torch.multinomial', 'invalid weight', 'nan'}, torch.multinomial, torch.Tensor{NaN, 2}, 1)
    H.fails({'torch.multinomial', 'sum of probabilities <= 0'}, torch.multinomial, torch.Tensor{0, 0}, 1)
  end)
end)

describe('adversarial: th launcher', function()
  it('reports a non-string error object as lua.c does (the traceback handler failed on it)', function()
    local p = io.popen([[bin/th -e 'error({})' 2>&1; bin/th -e 'error(setmetatable({}, {__tostring = function() return "custom" end}))' 2>&1]])
    local out = p:read('a')
    p:close()
    H.has(out, 'th: (error object is a table value)')
    H.has(out, 'th: custom')
    assert.is_falsy(out:find("method 'find'", 1, true))
  end)
end)
