-- fuzz/optnet/gen.lua: random valid nets for optnet's differential fuzzer.
--
-- A net is first a plain-data description (a tree of tables: the shrinker
-- edits it), then Lua source (gen.source: the builder, and the runnable
-- snippet a report prints), then the net (gen.build loads the source).
--   desc = {seed =, input = {dims}, warm = bool, net = node}
--   node = {t = 'Linear', a = {n = 2, 4, 5}}          a module: nn[t](a...)
--                                                     (thrnn[t] for LSTM, GRU)
--        | {..., id = k}                              registered for sharing
--        | {..., init = 'bn'}                         random running statistics
--        | {t = 'Sequential' | 'Concat' | ..., a = {...}, c = {child nodes}}
--        | {t = 'share', ref = k, fields = {'weight', 'bias', ...}}
--                                        the module with id k, :clone(fields...)
--        | {t = 'gModule', g = {{node =, from = {i, ...}}, ...}}
--              nngraph: g[i] applied to the outputs of g[from] (0 = the input);
--              the last entry is the output
-- Generation keeps nets valid by running each candidate module forward on a
-- zero tensor of the current shape (the real module decides its output shape
-- and rejects bad arguments); a candidate that raises is dropped and another
-- drawn. Deterministic in the seed (Lua's math.random, seeded).
require 'torch'
require 'nn'
require 'nngraph'
require 'thrnn'

local gen = {}

-- ---------------------------------------------------------------- source

local function lit(v)
  if v == nil then return 'nil' end
  if type(v) == 'string' then return string.format('%q', v) end
  if type(v) == 'boolean' then return tostring(v) end
  if math.type(v) == 'integer' then return tostring(v) end
  if type(v) == 'number' then return string.format('%.17g', v) end
  if type(v) == 'table' then
    local p = {}
    for i = 1, #v do p[i] = lit(v[i]) end
    return '{' .. table.concat(p, ', ') .. '}'
  end
  error('gen.lit: cannot write ' .. type(v))
end

local function args(a)
  if not a then return '' end
  local p = {}
  for i = 1, (a.n or #a) do p[i] = lit(a[i]) end
  return table.concat(p, ', ')
end

-- the package of a module that is not nn's (a description names every
-- module by its short name: t = 'LSTM' is thrnn.LSTM)
local PACKAGE = {LSTM = 'thrnn', GRU = 'thrnn', Recurrence = 'thrnn'}

-- emits statements building node into M[k]; returns k
local function emit(node, out, ctx)
  ctx.k = ctx.k + 1
  local k = ctx.k
  local v = 'M[' .. k .. ']'
  if node.t == 'share' then
    local src = ctx.ids[node.ref]
    if not src then error('gen.source: shared module ' .. tostring(node.ref) .. ' is not in the net') end
    local f = {}
    for i, name in ipairs(node.fields) do f[i] = lit(name) end
    out[#out + 1] = string.format('%s = M[%d]:clone(%s)', v, src, table.concat(f, ', '))
  elseif node.t == 'gModule' then
    out[#out + 1] = 'do'
    out[#out + 1] = '  local x = {[0] = nn.Identity()()}'
    for i, e in ipairs(node.g) do
      local ck = emit(e.node, out, ctx)
      local from = {}
      for j, f in ipairs(e.from) do from[j] = 'x[' .. f .. ']' end
      local inp = #from == 1 and from[1] or ('{' .. table.concat(from, ', ') .. '}')
      out[#out + 1] = string.format('  x[%d] = M[%d](%s)', i, ck, inp)
    end
    out[#out + 1] = string.format('  %s = nn.gModule({x[0]}, {x[%d]})', v, #node.g)
    out[#out + 1] = 'end'
  else
    out[#out + 1] = string.format('%s = %s.%s(%s)', v, PACKAGE[node.t] or 'nn', node.t, args(node.a))
    if node.init == 'bn' then
      out[#out + 1] = string.format('%s.running_mean:uniform(-0.5, 0.5); %s.running_var:uniform(0.5, 1.5)', v, v)
    end
    if node.c then
      for _, c in ipairs(node.c) do
        local ck = emit(c, out, ctx)
        out[#out + 1] = string.format('%s:add(M[%d])', v, ck)
      end
    end
  end
  if node.id then ctx.ids[node.id] = k end
  return k
end

-- the Lua source of a function(torch.manualSeed done) returning net, input
function gen.source(desc)
  local out = {}
  emit(desc.net, out, {k = 0, ids = {}})
  local dims = {}
  for i, d in ipairs(desc.input) do dims[i] = tostring(d) end
  return table.concat({
    "require 'nn'; require 'nngraph'; require 'thrnn'",
    "torch.setdefaulttensortype('torch.DoubleTensor')",
    string.format('torch.manualSeed(%d)', desc.seed),
    'local M = {}',
    table.concat(out, '\n'),
    'local net = M[1]',
    string.format('local input = torch.randn(%s)', table.concat(dims, ', ')),
    'return net, input'}, '\n')
end

-- net, input built from the description (fresh objects, same numbers every call)
function gen.build(desc, input)
  local f = assert(load(gen.source(desc), '=fuzznet', 't'))
  local net, x = f()
  return net, input or x
end

-- the description as Lua source (for the shrinker's files)
local function dump(v, ind)
  if type(v) ~= 'table' then return lit(v) end
  local p = {}
  local n = v.n or #v
  for i = 1, n do p[#p + 1] = dump(v[i], ind .. '  ') end
  local keys = {}
  for key in pairs(v) do
    if not (math.type(key) == 'integer' and key >= 1 and key <= n) then keys[#keys + 1] = key end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, key in ipairs(keys) do p[#p + 1] = key .. ' = ' .. dump(v[key], ind .. '  ') end
  return '{' .. table.concat(p, ', ') .. '}'
end
function gen.dump(desc) return 'return ' .. dump(desc, '') end

-- ---------------------------------------------------------------- shapes

local R = math.random
local function chance(p) return R() < p end
local function pick(t) return t[R(#t)] end

local function shapeOf(v)
  if torch.isTensor(v) then
    local s = v:size():totable()
    return s
  end
  local s = {table = true}
  for i, x in ipairs(v) do s[i] = shapeOf(x) end
  return s
end

local function zeros(shape)
  if shape.table then
    local t = {}
    for i, s in ipairs(shape) do t[i] = zeros(s) end
    return t
  end
  return torch.randn(table.unpack(shape))
end

local function sameShape(a, b)
  if (a.table or false) ~= (b.table or false) or #a ~= #b then return false end
  for i = 1, #a do
    if type(a[i]) == 'table' then
      if not sameShape(a[i], b[i]) then return false end
    elseif a[i] ~= b[i] then return false end
  end
  return true
end

local function numel(s) local n = 1 for _, d in ipairs(s) do n = n * d end return n end

-- registry of shareable modules: id -> {node =, inShape =}
local G

-- output shape of node on input shape (nil if the module refuses it)
local function probe(node, shape, mode)
  local d = {seed = 1, input = {1}, net = node}
  local ok, out = pcall(function()
    local saveIds = {}
    -- shares inside containers: prepend the referenced modules' sources
    local function fix(n)
      if n.t == 'share' then return G.byId[n.ref].node end
      if n.c then
        local c = {}
        for i, x in ipairs(n.c) do c[i] = fix(x) end
        local m = {}
        for k, v in pairs(n) do m[k] = v end
        m.c = c
        return m
      end
      if n.g then
        local g = {}
        for i, e in ipairs(n.g) do g[i] = {node = fix(e.node), from = e.from} end
        local m = {}
        for k, v in pairs(n) do m[k] = v end
        m.g = g
        return m
      end
      local m = {}
      for k, v in pairs(n) do m[k] = v end
      m.id = nil
      return m
    end
    d.net = fix(node)
    local net = gen.build(d)
    if mode == 'training' then net:training() else net:evaluate() end
    local y = net:forward(zeros(shape))
    local s = shapeOf(y)
    local bad = false
    local function chk(v)
      if torch.isTensor(v) then
        if v:nElement() == 0 or v:ne(v):sum() > 0 then bad = true end
      else for _, x in ipairs(v) do chk(x) end end
    end
    chk(y)
    if bad then error('empty or NaN output') end
    return s
  end)
  if ok then return out end
  return nil
end

-- ---------------------------------------------------------------- leaves

local function N(t, ...) return {t = t, a = table.pack(...)} end
local function ip() return chance(0.5) end

local ACTS = {
  function() return N('ReLU', ip()) end,
  function() return N('Tanh') end,
  function() return N('Sigmoid') end,
  function() return N('ELU', pick{1.0, 0.5}, ip()) end,
  function() return N('LeakyReLU', pick{0.01, 0.2}, ip()) end,
  function() return N('Threshold', pick{0, 0.1, -0.2}, pick{0, -1, 0.5}, ip()) end,
  function() return N('ReLU6', ip()) end,
  function() return N('HardTanh', -1, 1, ip()) end,
  function() return N('RReLU', 1/8, 1/3, ip()) end,
  function() return N('SoftPlus') end,
}

local function newId(node, shape)
  G.nid = G.nid + 1
  node.id = G.nid
  G.byId[G.nid] = {node = node, inShape = shape}
  return node
end

-- a share of an earlier parametrized module accepting this input, if any
local function maybeShare(shape)
  if not chance(0.25) then return nil end
  local cands = {}
  for id, e in pairs(G.byId) do
    if sameShape(e.inShape, shape) or (#e.inShape == #shape and numel(e.inShape) // e.inShape[1] == numel(shape) // shape[1]
        and e.node.t == 'Linear') then
      cands[#cands + 1] = id
    end
  end
  if #cands == 0 then return nil end
  table.sort(cands)
  local id = pick(cands)
  local fields = pick{{'weight', 'bias'}, {'weight', 'bias', 'gradWeight', 'gradBias'}}
  return {t = 'share', ref = id, fields = fields}
end

-- modules that keep every dimension (shape-preserving): for residual
-- branches, gModule bodies, Parallel children
local function keepLeaf(shape)
  local r = #shape
  local k = R(12)
  if k <= 4 then return pick(ACTS)() end
  if k == 5 then return N(pick{'MulConstant', 'AddConstant'}, pick{0.5, -0.3, 2}, ip()) end
  if k == 6 then return pick{N('Identity'), N('Copy', nil, nil, chance(0.5)), N('Contiguous')} end
  if k == 7 then return N('Dropout', pick{0.2, 0.5}, nil, ip()) end
  if k == 8 and (r == 2 or r == 4) then
    local n = r == 2 and N('BatchNormalization', shape[2], 1e-5, 0.1, chance(0.8))
                      or N('SpatialBatchNormalization', shape[2], 1e-5, 0.1, chance(0.8))
    n.init = 'bn'
    -- batch norm then an in-place ReLU: the pair nn.fuse marks
    if chance(0.4) then return {t = 'Sequential', c = {n, N('ReLU', true)}} end
    return n
  end
  if k == 9 and r == 4 then
    local s = maybeShare(shape)
    if s and G.byId[s.ref].node.t == 'SpatialConvolution' then return s end
    local kk = pick{1, 3, 5}
    return newId(N('SpatialConvolution', shape[2], shape[2], kk, kk, 1, 1, (kk - 1) // 2, (kk - 1) // 2), shape)
  end
  if k == 9 and r == 2 then
    local s = maybeShare(shape)
    if s and G.byId[s.ref].node.t == 'Linear' then return s end
    return newId(N('Linear', shape[2], shape[2]), shape)
  end
  if k == 10 and r >= 2 then
    local sz = {}
    for i = 2, r do sz[#sz + 1] = shape[i] end
    if chance(0.4) and r == 4 then sz = {1, shape[2], 1, 1} end
    return N('CMul', table.unpack(sz))
  end
  if k == 11 and r == 4 then
    return N(pick{'SpatialMaxPooling', 'SpatialAveragePooling'}, 3, 3, 1, 1, 1, 1)
  end
  if k == 12 and r >= 3 then
    -- a transpose there and back (non-contiguous in between)
    local i, j = R(2, r), R(2, r)
    if i == j then return N('Identity') end
    return {t = 'Sequential', c = {N('Transpose', {i, j}), pick{N('Contiguous'), pick(ACTS)(), N('Identity')},
                                   N('Transpose', {i, j})}}
  end
  return pick(ACTS)()
end

-- any single module valid on shape (may change the shape)
local function anyLeaf(shape)
  local r = #shape
  local k = R(22)
  if r == 4 and chance(0.25) then k = 6 end
  if r == 3 and chance(0.2) then k = 19 end
  if r <= 2 and chance(0.2) then k = 8 end
  if k <= 5 then return keepLeaf(shape) end
  if k == 6 and r == 4 then
    local s = maybeShare(shape)
    if s and G.byId[s.ref].node.t == 'SpatialConvolution' then return s end
    local kw, kh = R(1, 5), R(1, 5)
    local dw, dh = R(1, 3), R(1, 3)
    local pw, ph = R(0, (kw - 1) // 2 + 1), R(0, (kh - 1) // 2 + 1)
    if chance(0.5) then kh, dh, ph = kw, dw, pw end
    return newId(N('SpatialConvolution', shape[2], R(1, 8), kw, kh, dw, dh, pw, ph), shape)
  end
  if k == 7 and r == 4 then
    local kk, s = R(2, 3), R(1, 2)
    local p = R(0, kk // 2)
    return N(pick{'SpatialMaxPooling', 'SpatialAveragePooling'}, kk, kk, s, s, p, p)
  end
  if k == 8 and r <= 2 then
    local s = maybeShare(shape)
    if s and G.byId[s.ref].node.t == 'Linear' then return s end
    return newId(N('Linear', shape[r], R(1, 12), chance(0.85) and nil or false), shape)
  end
  if k == 9 and r >= 3 then
    local rest = numel(shape) // shape[1]
    return pick{N('View', -1, rest), N('Reshape', rest, true), N('View', rest), N('View', -1)}
  end
  if k == 9 and r <= 2 then return N('View', -1) end
  if r == 1 and chance(0.5) then
    return pick{N('Replicate', R(2, 3), 1, 1), N('Replicate', R(2, 3)), N('View', 1, -1)}
  end
  if k == 10 and r == 2 then
    local f = shape[2]
    local divs = {}
    for d = 2, f - 1 do if f % d == 0 then divs[#divs + 1] = d end end
    if #divs > 0 then
      local d = pick(divs)
      return pick{N('View', -1, d, f // d), N('Reshape', d, f // d, true)}
    end
    return N('Replicate', R(2, 3), 1, 1)
  end
  if k == 11 then
    return N('Replicate', R(2, 3), R(1, r), r - 1)
  end
  if k == 12 and r >= 2 then
    local d = R(2, r)
    if shape[d] < 2 then return nil end
    local len = R(1, shape[d] - 1)
    return N('Narrow', d, R(1, shape[d] - len + 1), len)
  end
  if k == 13 and r >= 3 then
    local d = R(2, r)
    return N('Select', d, R(1, shape[d]))
  end
  if k == 14 then
    local d = R(2, r + 1)
    return N('Unsqueeze', d, r - 1)
  end
  if k == 15 then
    for d = 2, r do if shape[d] == 1 and r > 2 then return N('Squeeze', d, r) end end
    return N('Contiguous')
  end
  if k == 16 and r >= 3 then
    local d = R(2, r)
    local t = pick{'Mean', 'Sum', 'Max'}
    if t == 'Sum' then return N('Sum', d, nil, chance(0.5)) end
    return N(t, d)
  end
  if k == 17 and r == 2 then return N(pick{'SoftMax', 'LogSoftMax'}) end
  if k == 18 and r >= 2 then
    local i, j = R(1, r), R(2, r)
    if i == j then j = i == r and 1 or r end
    return N('Transpose', {i, j})
  end
  if k == 19 and r == 3 then
    local h = R(1, 6)
    return pick{N('LSTM', shape[3], h), N('GRU', shape[3], h), N('LSTM', shape[3], h, 2)}
  end
  if k == 20 and r >= 2 then
    return {t = 'Sequential', c = {N('Transpose', {R(2, r), 1 + R(r - 1)}), N('Contiguous'), N('View', -1, numel(shape) // shape[1])}}
  end
  if k == 21 then return N('Copy', nil, nil, chance(0.5)) end
  return keepLeaf(shape)
end

-- ---------------------------------------------------------------- structure

local genSeq

-- n branches from shape, outputs checked by ok(shapes) (retries)
local function branches(shape, depth, n, keep, ok, mode)
  for _ = 1, 8 do
    local c, outs = {}, {}
    for i = 1, n do
      c[i], outs[i] = genSeq(shape, depth + 1, R(1, 3), keep, mode)
      if not c[i] then break end
    end
    if #c == n and ok(outs) then return c, outs end
  end
  return nil
end

local function allSame(outs)
  for i = 2, #outs do if not sameShape(outs[i], outs[1]) then return false end end
  return not outs[1].table
end

local function sameBut(dim)
  return function(outs)
    for _, o in ipairs(outs) do if o.table or #o ~= #outs[1] or #o < dim then return false end end
    for i = 2, #outs do
      for d = 1, #outs[1] do
        if d ~= dim and outs[i][d] ~= outs[1][d] then return false end
      end
    end
    return true
  end
end

-- a container block on shape; keep: output shape must equal input shape
local function block(shape, depth, keep, mode)
  local r = #shape
  local k = R(10)
  if k >= 9 then k = 7 end
  if k == 1 then -- residual: ConcatTable(branch, Identity) + CAddTable
    local c = branches(shape, depth, 2, true, allSame, mode)
    if not c then return nil end
    if chance(0.5) then c[2] = N('Identity') end
    -- the ResNet block's end, an in-place add then an in-place ReLU: the
    -- other pair nn.fuse marks
    if chance(0.3) then
      return {t = 'Sequential', c = {{t = 'ConcatTable', c = c}, N('CAddTable', true), N('ReLU', true)}}
    end
    return {t = 'Sequential', c = {{t = 'ConcatTable', c = c}, N('CAddTable', ip())}}
  end
  if k == 2 and (r == 2 or r == 4) and not keep then -- Concat on the features
    local n = R(2, 3)
    local c = branches(shape, depth, n, false, sameBut(2), mode)
    if not c then return nil end
    return {t = 'Concat', a = {2, n = 1}, c = c}
  end
  if k == 3 and r == 4 and not keep then -- DepthConcat
    local n = R(2, 3)
    local c = branches(shape, depth, n, false, function(outs)
      for _, o in ipairs(outs) do if o.table or #o ~= 4 or o[1] ~= shape[1] then return false end end
      return true end, mode)
    if not c then return nil end
    return {t = 'DepthConcat', a = {2, n = 1}, c = c}
  end
  if k == 4 and r >= 3 and not keep then -- Parallel over a small dimension
    local dims = {}
    for d = 2, r do if shape[d] <= 5 then dims[#dims + 1] = d end end
    if #dims == 0 then return nil end
    local d = pick(dims)
    local c = {}
    for i = 1, shape[d] do c[i] = chance(0.5) and pick{N('Identity'), N('Contiguous'), N('Copy', nil, nil, true)}
                                             or pick(ACTS)() end
    return {t = 'Parallel', a = {d, R(2, r - 1), n = 2}, c = c}
  end
  if k == 5 then -- ConcatTable -> ParallelTable -> CAddTable / JoinTable
    local c = branches(shape, depth, 2, keep, keep and allSame or sameBut(2), mode)
    if not c then return nil end
    local p = {t = 'ParallelTable', c = {keepLeaf(shape), N('Identity')}}
    if keep or chance(0.5) then
      if not allSame({shape}) then return nil end
      return {t = 'Sequential', c = {{t = 'ConcatTable', c = c}, N('CAddTable', ip())}}
    end
    return {t = 'Sequential', c = {{t = 'ConcatTable', c = c}, N('JoinTable', 2)}}
  end
  if k == 6 and r == 3 and not keep then -- SplitTable over time -> ParallelTable -> Join
    if shape[2] > 6 then return nil end
    local c = {}
    for i = 1, shape[2] do c[i] = keepLeaf({shape[1], shape[3]}) end
    local join = pick{N('JoinTable', 2), N('CAddTable', ip())}
    return {t = 'Sequential', c = {N('SplitTable', 2), {t = 'ParallelTable', c = c}, join}}
  end
  if k == 7 then -- nngraph
    local g = {}
    local shapes = {[0] = shape}
    local n = R(2, 5)
    for i = 1, n do
      local from = R(0, i - 1)
      local same = {}
      for j = 0, i - 1 do if j ~= from and sameShape(shapes[j], shapes[from]) then same[#same + 1] = j end end
      local node, out
      if #same > 0 and chance(0.35) then
        node = N(pick{'CAddTable', 'CMulTable'})
        if node.t == 'CAddTable' then node.a = table.pack(ip()) end
        g[i] = {node = node, from = {from, pick(same)}}
        out = shapes[from]
      else
        local s = shapes[from]
        node = (keep or chance(0.6)) and keepLeaf(s) or anyLeaf(s)
        if not node then node = N('Identity') end
        out = probe(node, s, mode)
        if not out or out.table then node, out = N('Identity'), s end
        g[i] = {node = node, from = {from}}
      end
      shapes[i] = out
    end
    if keep and not sameShape(shapes[n], shape) then return nil end
    return {t = 'gModule', g = g}
  end
  -- nested Sequential
  local s, out = genSeq(shape, depth + 1, R(2, 4), keep, mode)
  return s
end

-- a Sequential of about len children on shape; returns node, out shape
function genSeq(shape, depth, len, keep, mode)
  local c = {}
  local cur = shape
  local tries = 0
  while #c < len and tries < 40 do
    tries = tries + 1
    local node
    if depth < 3 and chance(0.3) then node = block(cur, depth, keep, mode)
    else node = keep and keepLeaf(cur) or anyLeaf(cur) end
    if node then
      local out = probe(node, cur, mode)
      -- keep the total size bounded and the rank usable
      if out and not out.table and #out >= 1 and #out <= 4 and numel(out) <= 2^18
         and (not keep or sameShape(out, cur)) then
        c[#c + 1] = node
        cur = out
      elseif node.id then
        G.byId[node.id] = nil
      end
    end
  end
  if #c == 0 then return nil end
  return {t = 'Sequential', c = c}, cur
end

local function copy(v)
  if type(v) ~= 'table' then return v end
  local c = {}
  for k, x in pairs(v) do c[k] = copy(x) end
  return c
end
gen.copy = copy

-- a share whose module is not built before it (dropped by a retry, or by
-- the shrinker) becomes a fresh module of the same arguments
function gen.fixShares(net)
  local seen = {}
  local function walk(n)
    if n.t == 'share' and not seen[n.ref] then
      local src
      local function find(x)
        if x.id == n.ref then src = x end
        for _, c in ipairs(x.c or {}) do find(c) end
        for _, e in ipairs(x.g or {}) do find(e.node) end
      end
      find(net)
      src = src or (G and G.byId[n.ref] and G.byId[n.ref].node)
      if not src then return false end
      for k in pairs(n) do n[k] = nil end
      for k, v in pairs(copy(src)) do n[k] = v end
      n.c, n.g = copy(src.c), copy(src.g)
      n.id = nil
    end
    if n.id then seen[n.id] = true end
    for _, c in ipairs(n.c or {}) do if walk(c) == false then return false end end
    for _, e in ipairs(n.g or {}) do if walk(e.node) == false then return false end end
    return true
  end
  return walk(net)
end

-- the description for seed
function gen.generate(seed)
  math.randomseed(seed)
  torch.manualSeed(seed)
  G = {nid = 0, byId = {}}
  local b = pick{1, 2, 2, 3, 4}
  local kind = R(20)
  local input
  if kind <= 11 then
    local hw = pick{1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 12, 16}
    if chance(0.15) then hw = R(32, 64) end
    if chance(0.02) then hw = R(80, 128) end
    local w = chance(0.7) and hw or math.max(1, hw + R(-2, 3))
    input = {b, R(1, 6), hw, w}
  elseif kind <= 13 then
    input = {R(1, 12)}
  elseif kind <= 16 then
    input = {b, R(1, 16)}
  else
    input = {b, R(1, 5), R(1, 8)}
  end
  local net, out = genSeq(input, 1, R(2, 7), false, 'training')
  if not net then net = {t = 'Sequential', c = {N('Identity')}} end
  gen.fixShares(net)
  return {seed = seed, input = input, warm = chance(0.5), net = net}
end

return gen
