-- moses: a utility belt of table, array, function and object helpers with
-- the API of Moses 1.x (Yonaba/Moses, 1.6), the version nn's rockspec asks
-- for ("moses >= 1.0": nn's NaN and DontCast tests use it). Written here.
--   local _ = require 'moses'
--   _.map({1, 2}, function(k, v) return v * 10 end)  --> {10, 20}
-- Conventions of 1.x kept: iterator callbacks over tables get (key, value,
-- ...); reduce's get (state, value); include/detect/max/min's get the value
-- only. Functions over "tables" walk pairs(), over "arrays" walk 1..#t.
-- _(value) or _.chain(value) wraps a value so the functions chain as
-- methods; :value() unwraps. _.import([context[, noConflict]]) copies the
-- functions into a table (the globals by default). Extras from Moses 2:
-- _.sum and _.product.
local M = {}

local unpack = table.unpack
local huge = math.huge

-- argument checks: the function's name, the position, what came
local function argError(fname, n, expected, got)
  error(string.format('moses.%s: %s expected as argument %d, got %s', fname, expected, n,
    got == nil and 'nil' or (torch and torch.type or type)(got)), 4)
end

local function isCallable(f)
  if type(f) == 'function' then return true end
  local mt = type(f) == 'table' and getmetatable(f)
  return mt and mt.__call ~= nil or false
end

local function needTable(fname, n, t)
  if type(t) ~= 'table' then argError(fname, n, 'table', t) end
end

local function needCallable(fname, n, f)
  if not isCallable(f) then argError(fname, n, 'function', f) end
end

local function needNumber(fname, n, x, optional)
  if x == nil and optional then return end
  if type(x) ~= 'number' then argError(fname, n, 'number', x) end
end

local function countPairs(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

-- Object predicates and comparison come first: the rest use them ----------

function M.isTable(t) return type(t) == 'table' end
M.isCallable = isCallable
function M.isString(x) return type(x) == 'string' end
function M.isFunction(x) return type(x) == 'function' end
function M.isNil(x) return x == nil end
function M.isNumber(x) return type(x) == 'number' end
function M.isBoolean(x) return type(x) == 'boolean' end
function M.isNaN(x) return type(x) == 'number' and x ~= x end
function M.isFinite(x) return type(x) == 'number' and x > -huge and x < huge end
function M.isInteger(x) return type(x) == 'number' and math.floor(x) == x end
-- pairs() walks it: a table, or a value whose metatable has __pairs
function M.isIterable(x)
  if type(x) == 'table' then return true end
  local ok, mt = pcall(getmetatable, x)
  return ok and type(mt) == 'table' and mt.__pairs ~= nil or false
end

-- a sequence: its keys are exactly 1..n (the empty table is one)
function M.isArray(x)
  if type(x) ~= 'table' then return false end
  local n = 0
  for _ in pairs(x) do
    n = n + 1
    if x[n] == nil then return false end
  end
  return true
end

-- nil, '' and {} are empty; so is any value that is neither string nor table
function M.isEmpty(x)
  if type(x) == 'string' then return #x == 0 end
  if type(x) == 'table' then return next(x) == nil end
  return true
end

-- deep equality of values; tables equal when they hold equal values under
-- the same keys. useMt: a metatable's __eq decides first.
function M.isEqual(a, b, useMt)
  if type(a) ~= type(b) then return false end
  if type(a) ~= 'table' then return a == b end
  if rawequal(a, b) then return true end
  if useMt then
    local ma, mb = getmetatable(a), getmetatable(b)
    if (ma and ma.__eq) or (mb and mb.__eq) then return a == b end
  end
  for k, v in pairs(a) do
    local w = b[k]
    if w == nil or not M.isEqual(v, w, useMt) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- Table functions -----------------------------------------------------------

function M.clear(t)
  needTable('clear', 1, t)
  for k in pairs(t) do t[k] = nil end
  return t
end

function M.each(t, f, ...)
  needTable('each', 1, t); needCallable('each', 2, f)
  for k, v in pairs(t) do f(k, v, ...) end
end

-- the integer keys in increasing order (negative and sparse ones too)
function M.eachi(t, f, ...)
  needTable('eachi', 1, t); needCallable('eachi', 2, f)
  local ks = {}
  for k in pairs(t) do if math.type(k) == 'integer' then ks[#ks + 1] = k end end
  table.sort(ks)
  for _, k in ipairs(ks) do f(k, t[k], ...) end
end

function M.at(t, ...)
  needTable('at', 1, t)
  local r = {}
  for _, k in ipairs({...}) do
    if t[k] ~= nil then r[#r + 1] = t[k] end
  end
  return r
end

-- how many values equal value (deeply); without value, the table's size
function M.count(t, value)
  needTable('count', 1, t)
  if value == nil then return countPairs(t) end
  local n = 0
  for _, v in pairs(t) do if M.isEqual(v, value) then n = n + 1 end end
  return n
end

function M.countf(t, f, ...)
  needTable('countf', 1, t); needCallable('countf', 2, f)
  local n = 0
  for k, v in pairs(t) do if f(k, v, ...) then n = n + 1 end end
  return n
end

-- an iterator over the pairs, n rounds (1 by default)
function M.cycle(t, n)
  needTable('cycle', 1, t); needNumber('cycle', 2, n, true)
  n = n or 1
  local round, k = 1, nil
  return function()
    if round > n then return nil end
    k = next(t, k)
    if k == nil then
      round = round + 1
      if round > n then return nil end
      k = next(t)
      if k == nil then return nil end
    end
    return k, t[k]
  end
end

-- f(k, v, ...) -> new value under k; or -> newKey, newValue
function M.map(t, f, ...)
  needTable('map', 1, t); needCallable('map', 2, f)
  local r = {}
  for k, v in pairs(t) do
    local a, b = f(k, v, ...)
    if b ~= nil then r[a] = b else r[k] = a end
  end
  return r
end

-- folds the values with f(state, value); no state: the first value starts
function M.reduce(t, f, state)
  needTable('reduce', 1, t); needCallable('reduce', 2, f)
  for _, v in pairs(t) do
    if state == nil then state = v else state = f(state, v) end
  end
  return state
end

function M.reduceby(t, f, state, pred, ...)
  needCallable('reduceby', 4, pred)
  return M.reduce(M.select(t, pred, ...), f, state)
end

function M.reduceRight(t, f, state)
  needTable('reduceRight', 1, t)
  return M.reduce(M.reverse(t), f, state)
end

-- the intermediate states of reduce, as an array
function M.mapReduce(t, f, state)
  needTable('mapReduce', 1, t); needCallable('mapReduce', 2, f)
  local r = {}
  for _, v in pairs(t) do
    if state == nil then state = v else state = f(state, v) end
    r[#r + 1] = state
  end
  return r
end

function M.mapReduceRight(t, f, state)
  needTable('mapReduceRight', 1, t)
  return M.mapReduce(M.reverse(t), f, state)
end

-- value: equal deeply; or a predicate f(v) when a function (a callable
-- table, an nngraph-style module say, is a value to look for)
local function matcher(value)
  if type(value) == 'function' then return value end
  return function(v) return M.isEqual(v, value) end
end

function M.include(t, value)
  needTable('include', 1, t)
  local test = matcher(value)
  for _, v in pairs(t) do if test(v) then return true end end
  return false
end

function M.detect(t, value)
  needTable('detect', 1, t)
  local test = matcher(value)
  for k, v in pairs(t) do if test(v) then return k end end
  return nil
end

local function matchesProps(v, props)
  if type(v) ~= 'table' then return false end
  for k, p in pairs(props) do if v[k] ~= p then return false end end
  return true
end

-- the values holding all of props' key-value pairs (nil when none)
function M.where(t, props)
  needTable('where', 1, t); needTable('where', 2, props)
  local r = {}
  for _, v in pairs(t) do if matchesProps(v, props) then r[#r + 1] = v end end
  return #r > 0 and r or nil
end

function M.findWhere(t, props)
  needTable('findWhere', 1, t); needTable('findWhere', 2, props)
  for _, v in pairs(t) do if matchesProps(v, props) then return v end end
  return nil
end

function M.select(t, f, ...)
  needTable('select', 1, t); needCallable('select', 2, f)
  local r = {}
  for k, v in pairs(t) do if f(k, v, ...) then r[#r + 1] = v end end
  return r
end

function M.reject(t, f, ...)
  needTable('reject', 1, t); needCallable('reject', 2, f)
  local r = {}
  for k, v in pairs(t) do if not f(k, v, ...) then r[#r + 1] = v end end
  return r
end

function M.all(t, f, ...)
  needTable('all', 1, t); needCallable('all', 2, f)
  for k, v in pairs(t) do if not f(k, v, ...) then return false end end
  return true
end

-- method: a name (the value's own method, or field) or a function f(v, ...)
function M.invoke(t, method, ...)
  needTable('invoke', 1, t)
  local args = table.pack(...)
  return M.map(t, function(_, v)
    if type(v) == 'table' and v[method] ~= nil then
      if isCallable(v[method]) then return v[method](v, unpack(args, 1, args.n)) end
      return v[method]
    elseif isCallable(method) then
      return method(v, unpack(args, 1, args.n))
    end
  end)
end

function M.pluck(t, key)
  needTable('pluck', 1, t)
  local r = {}
  for _, v in pairs(t) do
    if type(v) == 'table' and v[key] ~= nil then r[#r + 1] = v[key] end
  end
  return r
end

local function extreme(fname, t, better, transform, ...)
  needTable(fname, 1, t)
  if transform ~= nil then needCallable(fname, 2, transform) end
  local best
  for _, v in pairs(t) do
    local x = v
    if transform then x = transform(v, ...) end
    if best == nil or better(x, best) then best = x end
  end
  return best
end

function M.max(t, transform, ...)
  return extreme('max', t, function(a, b) return a > b end, transform, ...)
end

function M.min(t, transform, ...)
  return extreme('min', t, function(a, b) return a < b end, transform, ...)
end

-- the values in a random order (math.random; seed: math.randomseed first)
function M.shuffle(t, seed)
  needTable('shuffle', 1, t)
  if seed ~= nil then math.randomseed(seed) end
  local r = {}
  for _, v in pairs(t) do r[#r + 1] = v end
  for i = #r, 2, -1 do
    local j = math.random(i)
    r[i], r[j] = r[j], r[i]
  end
  return r
end

-- every value of each is (deeply) in the other
function M.same(a, b)
  needTable('same', 1, a); needTable('same', 2, b)
  for _, v in pairs(a) do if not M.include(b, v) then return false end end
  for _, v in pairs(b) do if not M.include(a, v) then return false end end
  return true
end

function M.sort(t, comp)
  needTable('sort', 1, t)
  table.sort(t, comp)
  return t
end

-- sorted by transform(v) (a function or a key name; identity by default)
function M.sortBy(t, transform, comp)
  needTable('sortBy', 1, t)
  local f = transform or M.identity
  if type(transform) == 'string' then f = function(v) return v[transform] end end
  comp = comp or function(a, b) return a < b end
  local items = {}
  for _, v in pairs(t) do items[#items + 1] = {v = v, key = f(v)} end
  table.sort(items, function(a, b) return comp(a.key, b.key) end)
  local r = {}
  for i, it in ipairs(items) do r[i] = it.v end
  return r
end

function M.groupBy(t, f, ...)
  needTable('groupBy', 1, t); needCallable('groupBy', 2, f)
  local r = {}
  for k, v in pairs(t) do
    local g = f(k, v, ...)
    r[g] = r[g] or {}
    r[g][#r[g] + 1] = v
  end
  return r
end

function M.countBy(t, f, ...)
  needTable('countBy', 1, t); needCallable('countBy', 2, f)
  local r = {}
  for k, v in pairs(t) do
    local g = f(k, v, ...)
    r[g] = (r[g] or 0) + 1
  end
  return r
end

-- a table's number of entries; or the number of (non-nil) arguments
function M.size(...)
  local first = ...
  if type(first) == 'table' then return countPairs(first) end
  local n = 0
  for i = 1, select('#', ...) do if select(i, ...) ~= nil then n = n + 1 end end
  return n
end

function M.containsKeys(t, other)
  needTable('containsKeys', 1, t); needTable('containsKeys', 2, other)
  for k in pairs(other) do if t[k] == nil then return false end end
  return true
end

function M.sameKeys(a, b)
  needTable('sameKeys', 1, a); needTable('sameKeys', 2, b)
  return M.containsKeys(a, b) and M.containsKeys(b, a)
end

-- Array functions -----------------------------------------------------------

-- n random values (one value, not an array, when n is 1 or nil)
function M.sample(array, n, seed)
  needTable('sample', 1, array); needNumber('sample', 2, n, true)
  n = n or 1
  if n < 1 then return nil end
  if n == 1 then
    if seed ~= nil then math.randomseed(seed) end
    if #array == 0 then return nil end
    return array[math.random(#array)]
  end
  return M.slice(M.shuffle(array, seed), 1, n)
end

function M.sampleProb(array, prob, seed)
  needTable('sampleProb', 1, array); needNumber('sampleProb', 2, prob)
  if seed ~= nil then math.randomseed(seed) end
  local r = {}
  for _, v in ipairs(array) do if math.random() < prob then r[#r + 1] = v end end
  return r
end

function M.toArray(...) return {...} end

-- the first index from `from` holding a value equal (deeply) to value
function M.find(array, value, from)
  needTable('find', 1, array)
  for i = from or 1, #array do
    if M.isEqual(array[i], value) then return i end
  end
  return nil
end

function M.reverse(array)
  needTable('reverse', 1, array)
  local r, n = {}, #array
  for i = n, 1, -1 do r[n - i + 1] = array[i] end
  return r
end

-- array[i..j] = value (i = 1, j = the size by default), in place
function M.fill(array, value, i, j)
  needTable('fill', 1, array)
  for k = i or 1, j or M.size(array) do array[k] = value end
  return array
end

function M.selectWhile(array, f, ...)
  needTable('selectWhile', 1, array); needCallable('selectWhile', 2, f)
  local r = {}
  for i, v in ipairs(array) do
    if not f(i, v, ...) then break end
    r[i] = v
  end
  return r
end

function M.dropWhile(array, f, ...)
  needTable('dropWhile', 1, array); needCallable('dropWhile', 2, f)
  for i, v in ipairs(array) do
    if not f(i, v, ...) then return M.rest(array, i) end
  end
  return {}
end

-- where value would go in a sorted array (sort: sort it first, in place)
function M.sortedIndex(array, value, comp, sort)
  needTable('sortedIndex', 1, array)
  comp = comp or function(a, b) return a < b end
  if sort then table.sort(array, comp) end
  for i = 1, #array do
    if not comp(array[i], value) then return i end
  end
  return #array + 1
end

function M.indexOf(array, value)
  needTable('indexOf', 1, array)
  for i = 1, #array do if array[i] == value then return i end end
  return nil
end

function M.lastIndexOf(array, value)
  needTable('lastIndexOf', 1, array)
  for i = #array, 1, -1 do if array[i] == value then return i end end
  return nil
end

function M.findIndex(array, f, ...)
  needTable('findIndex', 1, array); needCallable('findIndex', 2, f)
  for i = 1, #array do if f(i, array[i], ...) then return i end end
  return nil
end

function M.findLastIndex(array, f, ...)
  needTable('findLastIndex', 1, array); needCallable('findLastIndex', 2, f)
  for i = #array, 1, -1 do if f(i, array[i], ...) then return i end end
  return nil
end

-- each value inserted at the front in turn: the last ends first
function M.addTop(array, ...)
  needTable('addTop', 1, array)
  for _, v in ipairs({...}) do table.insert(array, 1, v) end
  return array
end

function M.push(array, ...)
  needTable('push', 1, array)
  for _, v in ipairs({...}) do array[#array + 1] = v end
  return array
end

-- removes and returns the first n values (1 by default)
function M.pop(array, n)
  needTable('pop', 1, array)
  local r = {}
  for _ = 1, math.min(n or 1, #array) do r[#r + 1] = table.remove(array, 1) end
  return unpack(r)
end

-- removes and returns the last n values (1 by default), the last first
function M.unshift(array, n)
  needTable('unshift', 1, array)
  local r = {}
  for _ = 1, math.min(n or 1, #array) do r[#r + 1] = table.remove(array) end
  return unpack(r)
end

-- removes every value equal (deeply) to one of the arguments, in place
function M.pull(array, ...)
  needTable('pull', 1, array)
  for _, x in ipairs({...}) do
    for i = #array, 1, -1 do
      if M.isEqual(array[i], x) then table.remove(array, i) end
    end
  end
  return array
end

-- a copy without the values at start..finish (clamped to the array)
function M.removeRange(array, start, finish)
  needTable('removeRange', 1, array)
  local r = M.clone(array)
  local n = #r
  if n < 1 then return r end
  start = math.max(1, math.min(start or 1, n))
  finish = math.max(1, math.min(finish or n, n))
  for _ = start, finish do table.remove(r, start) end
  return r
end

-- consecutive values with the same f(k, v, ...) grouped, in order
function M.chunk(array, f, ...)
  needTable('chunk', 1, array); needCallable('chunk', 2, f)
  local r, prev = {}, nil
  for i, v in ipairs(array) do
    local key = f(i, v, ...)
    if #r == 0 or key ~= prev then r[#r + 1] = {} end
    local g = r[#r]
    g[#g + 1] = v
    prev = key
  end
  return r
end

function M.slice(array, start, finish)
  needTable('slice', 1, array)
  local r = {}
  for i = start or 1, finish or #array do
    if array[i] ~= nil then r[#r + 1] = array[i] end
  end
  return r
end

function M.first(array, n)
  needTable('first', 1, array)
  return M.slice(array, 1, math.min(n or 1, #array))
end

-- all but the last n (1 by default)
function M.initial(array, n)
  needTable('initial', 1, array)
  if n and n < 0 then return nil end
  return M.slice(array, 1, #array - math.min(n or 1, #array))
end

-- the last n values; without n, all but the first (as Moses 1.x)
function M.last(array, n)
  needTable('last', 1, array)
  if n and n <= 0 then return nil end
  local start = n and #array - math.min(n - 1, #array - 1) or 2
  return M.slice(array, start, #array)
end

-- from index on (1 by default)
function M.rest(array, index)
  needTable('rest', 1, array)
  if index and index > #array then return {} end
  return M.slice(array, index and math.max(1, index) or 1, #array)
end

function M.nth(array, index)
  needTable('nth', 1, array)
  return array[index]
end

-- without the false and nil values
function M.compact(array)
  needTable('compact', 1, array)
  local r = {}
  for _, v in pairs(array) do if v then r[#r + 1] = v end end
  return r
end

-- the values of nested tables in one array; shallow: one level only
function M.flatten(array, shallow)
  needTable('flatten', 1, array)
  local r = {}
  local function put(t)
    for _, v in pairs(t) do
      if type(v) ~= 'table' then
        r[#r + 1] = v
      elseif shallow then
        for _, w in pairs(v) do r[#r + 1] = w end
      else
        put(v)
      end
    end
  end
  put(array)
  return r
end

function M.difference(array, other)
  needTable('difference', 1, array)
  if other == nil then return M.clone(array) end
  needTable('difference', 2, other)
  return M.select(array, function(_, v) return not M.include(other, v) end)
end

function M.union(...)
  return M.unique(M.flatten({...}))
end

function M.intersection(array, ...)
  needTable('intersection', 1, array)
  local others = {...}
  local r = {}
  for _, v in ipairs(array) do
    local inAll = true
    for _, o in ipairs(others) do
      if not M.include(o, v) then inAll = false; break end
    end
    if inAll then r[#r + 1] = v end
  end
  return r
end

function M.symmetricDifference(array, array2)
  needTable('symmetricDifference', 1, array); needTable('symmetricDifference', 2, array2)
  return M.difference(M.union(array, array2), M.intersection(array, array2))
end

-- the first occurrence of each value (deep equality), in order
function M.unique(array)
  needTable('unique', 1, array)
  local r = {}
  for i = 1, #array do
    if not M.find(r, array[i]) then r[#r + 1] = array[i] end
  end
  return r
end

function M.isunique(array)
  needTable('isunique', 1, array)
  return #M.unique(array) == #array
end

-- {{a1, b1, ...}, {a2, b2, ...}, ...} up to the longest array
function M.zip(...)
  local arrays = {...}
  local n = 0
  for i, a in ipairs(arrays) do
    needTable('zip', i, a)
    n = math.max(n, #a)
  end
  local r = {}
  for i = 1, n do
    local row = {}
    for _, a in ipairs(arrays) do if a[i] ~= nil then row[#row + 1] = a[i] end end
    r[i] = row
  end
  return r
end

function M.append(array, other)
  needTable('append', 1, array); needTable('append', 2, other)
  local r = {}
  for _, v in ipairs(array) do r[#r + 1] = v end
  for _, v in ipairs(other) do r[#r + 1] = v end
  return r
end

function M.interleave(...) return M.flatten(M.zip(...)) end

function M.interpose(value, array)
  needTable('interpose', 2, array)
  local r = {}
  for i, v in ipairs(array) do
    if i > 1 then r[#r + 1] = value end
    r[#r + 1] = v
  end
  return r
end

-- range(stop) from 0, range(start, stop[, step]): start, start + step, ...
-- up to stop, as Moses 1.x (an empty array when stop is not past start)
function M.range(...)
  local nargs = select('#', ...)
  if nargs == 0 then return {} end
  local a, b, c = ...
  local start, stop, step
  if nargs == 1 then start, stop, step = 0, a, 1
  else start, stop, step = a, b, c or 1 end
  needNumber('range', 1, start); needNumber('range', 2, stop); needNumber('range', 3, step)
  if step == 0 then return {} end
  local steps = math.max(math.floor((stop - start) / step), 0)
  local r = {}
  if steps > 0 then
    r[1] = start
    for i = 1, steps do r[i + 1] = start + step * i end
  end
  return r
end

function M.rep(value, n)
  needNumber('rep', 2, n)
  local r = {}
  for i = 1, n do r[i] = value end
  return r
end

-- an iterator over consecutive slices of n values (the last padded with pad)
function M.partition(array, n, pad)
  needTable('partition', 1, array); needNumber('partition', 2, n, true)
  n = n or 1
  if n <= 0 then return nil end
  local i = 0
  return function()
    if i >= #array then return nil end
    local s = M.slice(array, i + 1, math.min(i + n, #array))
    i = i + n
    if pad ~= nil then while #s < n do s[#s + 1] = pad end end
    return s
  end
end

-- an iterator over overlapping slices of n values (consecutive ones share one)
function M.sliding(array, n, pad)
  needTable('sliding', 1, array); needNumber('sliding', 2, n, true)
  n = n or 2
  if n <= 1 then return nil end
  local i = 0
  return function()
    if i + 1 >= #array then return nil end
    local s = M.slice(array, i + 1, math.min(i + n, #array))
    i = i + n - 1
    if pad ~= nil then while #s < n do s[#s + 1] = pad end end
    return s
  end
end

-- an iterator over the permutations of the array (the same table, permuted
-- in place, is given each time)
function M.permutation(array)
  needTable('permutation', 1, array)
  local function gen(n)
    if n <= 1 then coroutine.yield(array); return end
    for i = 1, n do
      array[n], array[i] = array[i], array[n]
      gen(n - 1)
      array[n], array[i] = array[i], array[n]
    end
  end
  return coroutine.wrap(function() gen(#array) end)
end

function M.invert(t)
  needTable('invert', 1, t)
  local r = {}
  for k, v in pairs(t) do r[v] = k end
  return r
end

-- the values (through tostring) joined by sep, from i to j
function M.concat(array, sep, i, j)
  needTable('concat', 1, array)
  local s = {}
  for k, v in pairs(array) do s[k] = tostring(v) end
  return table.concat(s, sep, i or 1, j or #array)
end

-- Moses 2's reductions over an array's values
function M.sum(array)
  needTable('sum', 1, array)
  local s = 0
  for _, v in ipairs(array) do s = s + v end
  return s
end

function M.product(array)
  needTable('product', 1, array)
  local p = 1
  for _, v in ipairs(array) do p = p * v end
  return p
end

-- Utility functions ---------------------------------------------------------

function M.noop() end
function M.identity(v) return v end
function M.constant(v) return function() return v end end

-- f's results cached by hash(...) (the first argument by default)
function M.memoize(f, hash)
  needCallable('memoize', 1, f)
  local cache = setmetatable({}, {__mode = 'kv'})
  hash = hash or M.identity
  return function(...)
    local key = hash(...)
    if key == nil then return f(...) end
    local v = cache[key]
    if v == nil then
      v = f(...)
      cache[key] = v
    end
    return v
  end
end

-- f runs with the arguments of the first count calls; later calls repeat
-- the last of those
function M.before(f, count)
  needCallable('before', 1, f); needNumber('before', 2, count)
  local calls, args = 0, table.pack()
  return function(...)
    calls = calls + 1
    if calls <= count then args = table.pack(...) end
    return f(unpack(args, 1, args.n))
  end
end

function M.once(f)
  needCallable('once', 1, f)
  return M.before(f, 1)
end

-- f runs from the count-th call on
function M.after(f, count)
  needCallable('after', 1, f); needNumber('after', 2, count)
  local calls = 0
  return function(...)
    calls = calls + 1
    if calls >= count then return f(...) end
  end
end

-- compose(f, g, h)(x) = f(g(h(x)))
function M.compose(...)
  local fs = {...}
  for i, f in ipairs(fs) do needCallable('compose', i, f) end
  return function(...)
    local n = #fs
    if n == 0 then return ... end
    local r = fs[n](...)
    for i = n - 1, 1, -1 do r = fs[i](r) end
    return r
  end
end

function M.pipe(value, ...)
  return M.compose(...)(value)
end

function M.complement(f)
  needCallable('complement', 1, f)
  return function(...) return not f(...) end
end

function M.juxtapose(value, ...)
  local r = {}
  for i, f in ipairs({...}) do
    needCallable('juxtapose', i + 1, f)
    r[i] = f(value)
  end
  return unpack(r)
end

function M.wrap(f, wrapper)
  needCallable('wrap', 1, f); needCallable('wrap', 2, wrapper)
  return function(...) return wrapper(f, ...) end
end

function M.times(n, f, ...)
  needNumber('times', 1, n); needCallable('times', 2, f)
  local r = {}
  for i = 1, n do r[i] = f(i, ...) end
  return r
end

function M.bind(f, v)
  needCallable('bind', 1, f)
  return function(...) return f(v, ...) end
end

function M.bind2(f, v)
  needCallable('bind2', 1, f)
  return function(t, ...) return f(t, v, ...) end
end

function M.bindn(f, ...)
  needCallable('bindn', 1, f)
  local bound = table.pack(...)
  return function(...)
    local args = {unpack(bound, 1, bound.n)}
    local n = bound.n
    for i = 1, select('#', ...) do args[n + i] = select(i, ...) end
    return f(unpack(args, 1, n + select('#', ...)))
  end
end

function M.bindAll(obj, ...)
  needTable('bindAll', 1, obj)
  for _, name in ipairs({...}) do
    local m = obj[name]
    if m then obj[name] = M.bind(m, obj) end
  end
  return obj
end

local lastId = -1
-- 0, 1, 2, ...; template: a format string or a function of the id
function M.uniqueId(template, ...)
  lastId = lastId + 1
  if type(template) == 'string' then return template:format(lastId) end
  if isCallable(template) then return template(lastId, ...) end
  return lastId
end

-- an iterator giving f(x), f(f(x)), ...
function M.iterator(f, x)
  needCallable('iterator', 1, f)
  return function()
    x = f(x)
    return x
  end
end

-- the values of a generic for's iterator, as an array
function M.array(...)
  local r = {}
  for v in ... do r[#r + 1] = v end
  return r
end

function M.flip(f)
  needCallable('flip', 1, f)
  return function(...)
    local n = select('#', ...)
    local args = {...}
    local r = {}
    for i = 1, n do r[i] = args[n - i + 1] end
    return f(unpack(r, 1, n))
  end
end

-- a function returning {f1(...), f2(...), ...}
function M.over(...)
  local fs = {...}
  for i, f in ipairs(fs) do needCallable('over', i, f) end
  return function(...)
    local r = {}
    for i, f in ipairs(fs) do r[i] = f(...) end
    return r
  end
end

function M.overEvery(...)
  local all = M.over(...)
  return function(...)
    for _, v in ipairs(all(...)) do if not v then return false end end
    return true
  end
end

function M.overSome(...)
  local all = M.over(...)
  return function(...)
    for _, v in ipairs(all(...)) do if v then return true end end
    return false
  end
end

-- f with its i-th argument passed through the i-th transform
function M.overArgs(f, ...)
  needCallable('overArgs', 1, f)
  local ts = {...}
  return function(...)
    local n = select('#', ...)
    local args = {...}
    for i, t in ipairs(ts) do
      if args[i] ~= nil then args[i] = t(args[i]) end
    end
    return f(unpack(args, 1, n))
  end
end

-- the bound arguments first, '_' marking places filled by the call's first
-- arguments; the call's remaining arguments after them
function M.partial(f, ...)
  needCallable('partial', 1, f)
  local bound = {...}
  return function(...)
    local given = {...}
    local args = {}
    for i, v in ipairs(bound) do
      if v == '_' then args[i] = table.remove(given, 1) else args[i] = v end
    end
    for _, v in ipairs(given) do args[#args + 1] = v end
    return f(unpack(args))
  end
end

-- as partial, but the call's remaining arguments come before the bound ones
function M.partialRight(f, ...)
  needCallable('partialRight', 1, f)
  local bound = {...}
  return function(...)
    local given = {...}
    local tail = {}
    for i, v in ipairs(bound) do
      if v == '_' then tail[i] = table.remove(given, 1) else tail[i] = v end
    end
    for _, v in ipairs(tail) do given[#given + 1] = v end
    return f(unpack(given))
  end
end

-- curry(f, n)(a)(b)...: f called once n arguments have come (2 by default)
function M.curry(f, n)
  needCallable('curry', 1, f); needNumber('curry', 2, n, true)
  n = n or 2
  local args = {}
  local function step(v)
    if n == 1 then return f(v) end
    if v ~= nil then args[#args + 1] = v end
    if #args < n then return step end
    local got = args
    args = {}
    return f(unpack(got))
  end
  return step
end

-- the CPU seconds f(...) took (os.clock), then its results
function M.time(f, ...)
  needCallable('time', 1, f)
  local t0 = os.clock()
  local r = table.pack(f(...))
  return os.clock() - t0, unpack(r, 1, r.n)
end

-- Object functions ----------------------------------------------------------

function M.keys(obj)
  needTable('keys', 1, obj)
  local r = {}
  for k in pairs(obj) do r[#r + 1] = k end
  return r
end

function M.values(obj)
  needTable('values', 1, obj)
  local r = {}
  for _, v in pairs(obj) do r[#r + 1] = v end
  return r
end

function M.kvpairs(obj)
  needTable('kvpairs', 1, obj)
  local r = {}
  for k, v in pairs(obj) do r[#r + 1] = {k, v} end
  return r
end

function M.toObj(kvpairs)
  needTable('toObj', 1, kvpairs)
  local r = {}
  for _, kv in ipairs(kvpairs) do r[kv[1]] = kv[2] end
  return r
end

function M.property(key) return function(obj) return obj[key] end end
function M.propertyOf(obj) return function(key) return obj[key] end end
function M.toBoolean(v) return not not v end

-- copies every source's pairs into dest (non-table sources skipped)
function M.extend(dest, ...)
  needTable('extend', 1, dest)
  for i = 1, select('#', ...) do
    local src = select(i, ...)
    if type(src) == 'table' then
      for k, v in pairs(src) do dest[k] = v end
    end
  end
  return dest
end

-- the sorted names of obj's functions (moses' own by default);
-- recurseMt: also those of its metatable's __index table
function M.functions(obj, recurseMt)
  obj = obj or M
  needTable('functions', 1, obj)
  local r = {}
  for k, v in pairs(obj) do if type(v) == 'function' then r[#r + 1] = k end end
  local mt = recurseMt and getmetatable(obj)
  if mt and type(mt.__index) == 'table' then
    for _, k in ipairs(M.functions(mt.__index)) do r[#r + 1] = k end
  end
  table.sort(r, function(a, b) return tostring(a) < tostring(b) end)
  return r
end

-- a deep copy of a table (shallow: one level); other values as they are.
-- The copy has no metatable.
function M.clone(obj, shallow)
  if type(obj) ~= 'table' then return obj end
  local r = {}
  for k, v in pairs(obj) do
    if type(v) == 'table' and not shallow then r[k] = M.clone(v) else r[k] = v end
  end
  return r
end

function M.tap(obj, f, ...)
  needCallable('tap', 2, f)
  f(obj, ...)
  return obj
end

function M.has(obj, key)
  needTable('has', 1, obj)
  return obj[key] ~= nil
end

-- the given keys' pairs (keys may come in nested arrays)
function M.pick(obj, ...)
  needTable('pick', 1, obj)
  local r = {}
  for _, k in ipairs(M.flatten({...})) do
    if obj[k] ~= nil then r[k] = obj[k] end
  end
  return r
end

function M.omit(obj, ...)
  needTable('omit', 1, obj)
  local drop = {}
  for _, k in ipairs(M.flatten({...})) do drop[k] = true end
  local r = {}
  for k, v in pairs(obj) do if not drop[k] then r[k] = v end end
  return r
end

-- fills obj's missing (nil or false) keys from template, in place
function M.template(obj, template)
  needTable('template', 1, obj)
  for k, v in pairs(template or {}) do
    if not obj[k] then obj[k] = v end
  end
  return obj
end

-- obj[method](obj, ...) (or the field itself), or method(obj, ...)
function M.result(obj, method, ...)
  if obj[method] ~= nil then
    if isCallable(obj[method]) then return obj[method](obj, ...) end
    return obj[method]
  end
  if isCallable(method) then return method(obj, ...) end
end

-- Aliases (Moses 1.x) -------------------------------------------------------

local ALIASES = {
  forEach = 'each', forEachi = 'eachi', loop = 'cycle', collect = 'map',
  inject = 'reduce', foldl = 'reduce', injectr = 'reduceRight', foldr = 'reduceRight',
  mapr = 'mapReduce', maprr = 'mapReduceRight', any = 'include', some = 'include',
  contains = 'include', filter = 'select', discard = 'reject', every = 'all',
  takeWhile = 'selectWhile', rejectWhile = 'dropWhile', shift = 'pop', remove = 'pull',
  rmRange = 'removeRange', chop = 'removeRange', sub = 'slice', head = 'first',
  take = 'first', tail = 'rest', skip = 'last', without = 'difference', diff = 'difference',
  symdiff = 'symmetricDifference', xor = 'symmetricDifference', uniq = 'unique',
  isuniq = 'isunique', transpose = 'zip', part = 'partition', perm = 'permutation',
  mirror = 'invert', join = 'concat', cache = 'memoize', juxt = 'juxtapose',
  uid = 'uniqueId', iter = 'iterator', methods = 'functions', choose = 'pick',
  drop = 'omit', defaults = 'template', compare = 'isEqual',
}
for alias, name in pairs(ALIASES) do M[alias] = M[name] end

-- Chaining and import -------------------------------------------------------

local Wrapped = {}
Wrapped.__index = function(_, name)
  if name == 'value' then return function(self) return self._value end end
  local f = M[name]
  if type(f) ~= 'function' then return nil end
  return function(self, ...) return setmetatable({_value = f(self._value, ...)}, Wrapped) end
end

function M.chain(value) return setmetatable({_value = value}, Wrapped) end

-- copies moses' functions into context (the globals by default);
-- noConflict: keys already there are left as they are
function M.import(context, noConflict)
  context = context or _G
  needTable('import', 1, context)
  for _, name in ipairs(M.functions()) do
    if not (noConflict and rawget(context, name) ~= nil) then context[name] = M[name] end
  end
  return context
end

M._VERSION = 'Moses v1.6.1 (torch-optnet)'

return setmetatable(M, {__call = function(_, value) return M.chain(value) end})
