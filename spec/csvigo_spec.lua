-- csvigo (lua/csvigo), from Torch7's csvigo: the four load modes, save in
-- raw, tidy and query form, quoting, headers, separators, and errors.
require 'torch'
require 'csvigo'
local H = require 'spec.support.helpers'

local function write(text)
  local p = os.tmpname()
  local f = assert(io.open(p, 'w'))
  f:write(text)
  f:close()
  return p
end

local function read(p)
  local f = assert(io.open(p))
  local s = f:read('a')
  f:close()
  return s
end

local CSV = 'name,age,city\r\nbob,32,"New York, NY"\nalice,28,Paris\n"say ""hi""",1,\n'

describe('csvigo.load', function()
  it("'raw' gives the rows as lists of strings (quotes, doubled quotes, CRLF, empty last field)", function()
    local p = write(CSV)
    local raw = csvigo.load{path = p, mode = 'raw', verbose = false}
    assert.are.same({{'name', 'age', 'city'}, {'bob', '32', 'New York, NY'}, {'alice', '28', 'Paris'},
                     {'say "hi"', '1', ''}}, raw)
    os.remove(p)
  end)

  it("'tidy' keys columns by the header, or var_1.. without one ('auto' looks at the first field)", function()
    local p = write(CSV)
    local t = csvigo.load{path = p, verbose = false}
    assert.are.same({'bob', 'alice', 'say "hi"'}, t.name)
    assert.are.same({'32', '28', '1'}, t.age)
    local order, t2 = csvigo.load{path = p, verbose = false, column_order = true}
    assert.are.same({'name', 'age', 'city'}, order)
    assert.are.same(t, t2)
    os.remove(p)
    local q = write('1,2\n3,4\n')
    assert.are.same({var_1 = {'1', '3'}, var_2 = {'2', '4'}}, csvigo.load{path = q, verbose = false})
    assert.are.same({['1'] = {'3'}, ['2'] = {'4'}}, csvigo.load{path = q, verbose = false, header = true})
    assert.are.same({var_1 = {'3'}, var_2 = {'4'}}, csvigo.load{path = q, verbose = false, header = false, skip = 1})
    -- positional arguments, as dok.unpack took them
    assert.are.same({var_1 = {'1', '3'}, var_2 = {'2', '4'}}, csvigo.load(q, ',', 'tidy', 'auto', false))
    os.remove(q)
  end)

  it("'query' answers all, vars, union and inter", function()
    local p = write('k,v\na,1\nb,2\na,3\nc,1\n')
    local query = csvigo.load{path = p, mode = 'query', verbose = false}
    assert.are.same({'k', 'v'}, query('vars'))
    assert.are.same({'a', 'b', 'a', 'c'}, query('all').k)
    assert.are.same({'a', 'a', 'c'}, query('union', {k = 'a', v = 1}).k)
    assert.are.same({'1', '3', '1'}, query('union', {k = 'a', v = {1}}).v)
    assert.are.same({'a'}, query('inter', {k = 'a', v = {1, 2}}).k)
    assert.are.same({}, query('inter', {k = 'b', v = 1}).k)
    assert.truthy(H.errmsg(query, 'nope'):find("'union', 'inter'", 1, true))
    os.remove(p)
  end)

  it("'large' decodes rows when indexed; a read-only table with # and ipairs/pairs", function()
    local lines = {}
    for i = 1, 40 do lines[i] = i .. ',x' .. i end
    local p = write(table.concat(lines, '\n') .. '\n')
    local m = csvigo.load{path = p, mode = 'large', verbose = false}
    assert.are.equal(40, #m)
    assert.are.same({'32', 'x32'}, m[32])
    local n = 0
    for i, row in ipairs(m) do n = n + 1; assert.are.equal(tostring(i), row[1]) end
    assert.are.equal(40, n)
    n = 0
    for _ in pairs(m) do n = n + 1 end
    assert.are.equal(40, n)
    assert.truthy(tostring(m):find('.. .. ..', 1, true))
    assert.truthy(H.errmsg(function() m[3] = 1 end):find('read-only', 1, true))
    assert.truthy(H.errmsg(function() return m[41 + 1] end):find('out of bounds', 1, true))
    os.remove(p)
  end)

  it('reads other separators (a space reads runs of blanks as one)', function()
    local p = write('a;b\n1;2\n')
    assert.are.same({a = {'1'}, b = {'2'}}, csvigo.load{path = p, separator = ';', verbose = false})
    os.remove(p)
    local q = write('a  b\n1 2\n')
    assert.are.same({a = {'1'}, b = {'2'}}, csvigo.load{path = q, separator = ' ', verbose = false})
    os.remove(q)
  end)

  it('names the problem on bad input', function()
    assert.truthy(H.errmsg(csvigo.load, {}):find('csvigo.load: argument path (string) is required', 1, true))
    assert.truthy(H.errmsg(csvigo.load, {path = '/no/such/file.csv', verbose = false}):find('No such file', 1, true))
    local p = write('a\n"open\n')
    assert.truthy(H.errmsg(csvigo.load, {path = p, verbose = false}):find('unmatched quote', 1, true))
    os.remove(p)
    assert.truthy(H.errmsg(csvigo.load, {path = 'x', mode = 'bad'}):find("mode must be", 1, true))
  end)
end)

describe('csvigo.save', function()
  it('writes raw rows, quoting what needs it; numbers as Torch7 wrote them', function()
    local p = os.tmpname()
    csvigo.save{path = p, data = {{1, 2.0, 0.5}, {'a', 'b,c', 'say "x"'}, {0 / 0, 1 / 0, -3}}, verbose = false}
    assert.are.equal('1,2,0.5\na,"b,c","say ""x"""\nnan,inf,-3\n', read(p))
    csvigo.save{path = p, data = {{0 / 0, 1}}, verbose = false, nan_as_missing = true}
    assert.are.equal(',1\n', read(p))
    os.remove(p)
  end)

  it('writes tidy tables and queries with a header, in column_order or by name', function()
    local p = os.tmpname()
    local t = {b = {'1', '2'}, a = {'x', 'y'}}
    csvigo.save{path = p, data = t, verbose = false}
    assert.are.equal('a,b\nx,1\ny,2\n', read(p))
    csvigo.save{path = p, data = t, verbose = false, column_order = {'b', 'a'}}
    assert.are.equal('b,a\n1,x\n2,y\n', read(p))
    csvigo.save{path = p, data = t, verbose = false, header = false}
    assert.are.equal('x,1\ny,2\n', read(p))
    -- round trip through query mode
    local query = csvigo.load{path = write('k,v\na,1\nb,2\n'), mode = 'query', verbose = false}
    csvigo.save{path = p, data = query, verbose = false}
    assert.are.same({k = {'a', 'b'}, v = {'1', '2'}}, csvigo.load{path = p, verbose = false})
    os.remove(p)
  end)

  it('names the problem on bad input', function()
    assert.truthy(H.errmsg(csvigo.save, {path = 'x'}):find('argument data (table|function) is required', 1, true))
    assert.truthy(H.errmsg(csvigo.save, {path = os.tmpname(), data = {}, mode = 'bad', verbose = false})
                  :find('mode must be', 1, true))
    assert.truthy(H.errmsg(csvigo.save, {path = os.tmpname(), data = {a = 3}, verbose = false})
                  :find("column 'a' must be a list", 1, true))
  end)
end)
