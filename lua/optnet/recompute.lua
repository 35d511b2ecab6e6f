-- optnet.recompute: trading compute for memory in training mode.
--
-- A segment is a run of consecutive children c_i .. c_j of one
-- nn.Sequential. Forward runs as usual. Backward, on reaching c_j, first
-- re-runs the forward of c_i .. c_(j-1) from the segment's input (kept: it is
-- the previous child's output), then runs the backward of c_j .. c_i. So the
-- activations of c_i .. c_(j-1) (outputs and buffers, with everything below
-- them) die right after the forward pass instead of living until backward.
-- An inclusive segment (seg.inclusive) re-runs c_j too: only its input is
-- kept, Chen et al.'s checkpoint.
--
-- The re-run writes into second storages (the "shadow" home of each tensor):
-- before it, every tensor of the re-run modules is :set() onto its shadow,
-- and after the segment's backward back onto its forward storage. The trace
-- therefore sees two storages with two short lifetimes where there was one
-- long one, and the planner places them independently. Shadows are kept in
-- the module field _optnetShadow (optnet.walk gives them the role of the
-- field they stand for), so trace, plan, apply and count handle them like
-- any other output or buffer.
--
-- Numbers stay identical: the re-run sees the same input and the same
-- parameters; module state (batch norm's running statistics) is saved
-- before the re-run and restored after, so it is updated once per step; the
-- random generator is rewound to where the segment's forward began, so a
-- module drawing numbers (Dropout, RReLU, WhiteNoise, fractional max
-- pooling, a user's module: not told by name) draws the same ones. (Only
-- Dropout was rewound: an RReLU re-run drew other slopes, trainStep's
-- parameters off by 7.5e-6 after 3 adam steps.) A segment never starts with a
-- module that runs in place on its input (the re-run needs that input).
--
-- Segmentations:
--   'cheap': in every Sequential, each run of cheap modules (batch norm,
--     pointwise activations) together with the child that follows it; only
--     the cheap ones are re-run.
--   'sqrt': Chen et al. 2016: in each chain (a Sequential of >= 3 children
--     of comparable size, the outermost such), segments of ceil(sqrt(n))
--     children; all but the last child of a segment are re-run (a last
--     child that writes its input in place, itself or behind pass-throughs,
--     is re-run too, and the segment ends after it: handsOn).
--   a segment list, from recompute.budget (a byte budget: below).
local walk = require 'optnet.walk'

local recompute = {}

local CHEAP = {
  ['nn.ReLU'] = true, ['nn.Threshold'] = true, ['nn.LeakyReLU'] = true, ['nn.ELU'] = true,
  ['nn.Sigmoid'] = true, ['nn.Tanh'] = true, ['nn.SoftPlus'] = true,
  ['nn.BatchNormalization'] = true, ['nn.SpatialBatchNormalization'] = true,
  ['nn.MulConstant'] = true, ['nn.AddConstant'] = true, ['nn.Identity'] = true,
  -- hand their input on (a view, or the tensor itself), or copy it once
  ['nn.Copy'] = true, ['nn.View'] = true, ['nn.Reshape'] = true, ['nn.Contiguous'] = true,
  -- one pass over its input; its output and indices (8 bytes an element)
  -- are the largest buffers of VGG and GoogLeNet
  ['nn.SpatialMaxPooling'] = true,
}

local function leaves(m)
  if type(m.modules) ~= 'table' then return 1 end
  local n = 0
  for _, c in ipairs(m.modules) do n = n + leaves(c) end
  return n
end

local function isSequential(m) return torch.typename(m) == 'nn.Sequential' end

-- modules whose output may be their input or a view of it: an in-place
-- module after them writes what the module before them made
local PASS_THROUGH = {
  ['nn.Identity'] = true, ['nn.Copy'] = true, ['nn.View'] = true, ['nn.Reshape'] = true,
  ['nn.Contiguous'] = true,
}

local startsInplace

-- whether child k of Sequential S is a pass-through that (through more of
-- them) hands its input on to a child that writes it in place: for the
-- segment bounds such a run is one with the writer (Tanh, Identity,
-- LeakyReLU in place: a segment ending at the Identity would re-make the
-- Tanh's output without the LeakyReLU's write, and recompute.unsafe would
-- drop it; one starting at the Identity would re-run from an input the
-- LeakyReLU wrote over)
local function handsOn(S, k)
  local j = k
  while S.modules[j] and PASS_THROUGH[torch.typename(S.modules[j])] do j = j + 1 end
  return j > k and S.modules[j] ~= nil and startsInplace(S.modules[j])
end

-- whether child k writes its input in place, itself or through pass-throughs
local function writesInput(S, k) return startsInplace(S.modules[k]) or handsOn(S, k) end

-- segments as {seq = S, from = i, to = j}
local function cheapSegments(net)
  local segs = {}
  for _, m in ipairs(walk.modules(net)) do
    if isSequential(m) then
      local start = nil
      for k, c in ipairs(m.modules) do
        if CHEAP[torch.typename(c)] then
          start = start or k
        else
          if start then segs[#segs + 1] = {seq = m, from = start, to = k} end
          start = nil
        end
      end
    end
  end
  return segs
end

-- a chain: a Sequential of >= 3 children none of which holds more than three
-- times the mean number of leaf modules (else the work sits in one child and
-- the chain is looked for inside the children)
local function isChain(m)
  if not isSequential(m) or #m.modules < 3 then return false end
  local total, most = 0, 0
  for _, c in ipairs(m.modules) do
    local l = leaves(c)
    total = total + l
    if l > most then most = l end
  end
  return most * #m.modules <= 3 * total
end

local function sqrtSegments(net)
  local segs = {}
  local function visit(m)
    if isChain(m) then
      local n = #m.modules
      local k = math.ceil(math.sqrt(n))
      local from = 1
      while from <= n do
        local to = math.min(n, from + k - 1)
        -- the last child, not re-run, may not write the re-run's output in
        -- place, itself or through pass-throughs (the re-run would lack
        -- the write): the writer goes into the segment
        while to < n and writesInput(m, to) do to = to + 1 end
        if to > from then segs[#segs + 1] = {seq = m, from = from, to = to} end
        from = to + 1
      end
    elseif type(m.modules) == 'table' then
      for _, c in ipairs(m.modules) do visit(c) end
    end
  end
  visit(net)
  return segs
end

function recompute.segments(net, how)
  if how == 'cheap' then return cheapSegments(net) end
  if how == 'sqrt' then return sqrtSegments(net) end
  if type(how) == 'table' then return how end
  error("optnet.recompute: segmentation 'cheap', 'sqrt' or a segment list expected, got " .. tostring(how), 2)
end

-- the last child a segment re-runs: the one before 'to', or with
-- seg.inclusive 'to' itself
local function lastOf(seg) return seg.inclusive and seg.to or seg.to - 1 end

-- the tensors a re-run writes: outputs and buffers of every module below
-- the re-run children. An exclusive segment's last child keeps its output
-- tensors on their forward storage (its backward reads them). An inclusive
-- segment re-computes its output too, into a shadow like everything else:
-- the forward copy's last reader (the next child's backward) is done by
-- then. (Keeping it in place instead would need to know which tensors
-- alias it through in-place modules, and after planning every tensor
-- shares the arena's storage: identity is all there is to go by.)
local function swapSet(seg, keep)
  local S = seg.seq
  keep = keep or {}
  if not seg.inclusive then walk.tensors(S.modules[seg.to].output, function(t) keep[t] = true end) end
  local list, seen = {}, {}
  for k = seg.from, lastOf(seg) do
    for _, m in ipairs(S.modules[k]:listModules()) do
      walk.moduleTensors(m, function(t, role)
        if (role == 'output' or role == 'buffer') and not seen[t] and not keep[t] then
          seen[t] = true
          list[#list + 1] = {t = t, module = m, role = role}
        end
      end, true)
    end
  end
  return list
end

-- (a 'state' field viewing an activation the re-run rewrites, a custom
-- module's kept input, is no state: optnet.walk.holdings)
-- (a batch norm re-made from its coefficients changes no state: skipped)
local function stateTensors(seg, input)
  local found = {}
  local reapply = seg.reapply or {}
  for k = seg.from, lastOf(seg) do
    if not reapply[k] then
      for _, m in ipairs(seg.seq.modules[k]:listModules()) do
        walk.moduleTensors(m, function(t, role)
          if role == 'state' and t:nElement() > 0 then found[#found + 1] = t end
        end, true)
      end
    end
  end
  if #found == 0 then return found end
  local rewritten = walk.storageIds(input)
  for _, it in ipairs(seg.swapped or {}) do
    walk.storageIds({it.t, seg.home[it.t]}, rewritten)
  end
  local list = {}
  for _, t in ipairs(found) do
    if not rewritten[t:_storageId()] then list[#list + 1] = t end
  end
  return list
end

-- an in-place nn.ReLU (Threshold(0, 0)): batch norm's re-run clips for it
local function isInplaceReLU(m)
  return m ~= nil and m._inputClipped ~= nil and m.inplace == true and m.threshold == 0 and m.val == 0
end

-- the batch norms among the segment's re-run children that re-make their
-- output from the coefficients of the step's forward (nn.BatchNormalization's
-- _reapplyNext: one pass, no statistics): k -> 'relu' (fused with the
-- in-place ReLU after it) or 'plain'. Their save_mean and save_std keep
-- the forward's values for backward: not moved onto shadows.
local function reapplySet(seg, input, keep)
  local S, set = seg.seq, nil
  for k = seg.from, lastOf(seg) do
    local m = S.modules[k]
    if m._canReapply and m:_canReapply(k == 1 and input or S.modules[k - 1].output) then
      set = set or {}
      set[k] = (k < lastOf(seg) and isInplaceReLU(S.modules[k + 1])) and 'relu' or 'plain'
      for _, f in ipairs{'save_mean', 'save_std'} do
        if torch.isTensor(m[f]) then keep[m[f]] = true end
      end
    end
  end
  return set
end

-- the modules below the re-run children, as they are now: a module may
-- make children during its forward (thrnn.Recurrence a step clone per time
-- step, at its first forward and at a longer sequence), after install.
-- Those are re-run with their parent and get shadows like the others.
local function segModules(seg)
  local list = {}
  for k = seg.from, lastOf(seg) do
    for _, m in ipairs(seg.seq.modules[k]:listModules()) do list[#list + 1] = m end
  end
  seg.modules = list
  return list
end

-- moves the re-run modules' tensors onto their shadow storages
local function swapIn(seg, input)
  local keep = {}
  seg.reapply = reapplySet(seg, input, keep)
  local items = swapSet(seg, keep)
  for _, m in ipairs(segModules(seg)) do rawset(m, '_optnetShadow', rawget(m, '_optnetShadow') or {}) end
  for _, it in ipairs(items) do
    local holder = it.module._optnetShadow
    holder[it.role] = holder[it.role] or {}
    local sh = seg.shadow[it.t]
    if not sh then
      sh = it.t.new()
      seg.shadow[it.t] = sh
      table.insert(holder[it.role], sh)
    end
    local home = it.t.new():set(it.t)
    seg.home[it.t] = home
    it.t:set(sh)
  end
  seg.swapped = items
end

local function swapOut(seg)
  for _, it in ipairs(seg.swapped or {}) do
    local sh, home = seg.shadow[it.t], seg.home[it.t]
    sh:set(it.t)
    it.t:set(home)
    home:set()
    seg.home[it.t] = nil
  end
  seg.swapped = nil
end

-- seconds spent re-running forward (all nets), for benchmarks; inside: a
-- re-run is under way (profiles tell its forwards from the pass's own)
recompute.stats = {seconds = 0, runs = 0, inside = false}

local function rerun(S, seg, input)
  local t0 = torch._C.clock()
  local saved = {}
  local x = input
  if seg.from > 1 then x = S.modules[seg.from - 1].output end
  for i, t in ipairs(stateTensors(seg, x)) do saved[i] = {t, t:clone()} end
  local rng
  if seg.rng then
    rng = torch.getRNGState()
    torch.setRNGState(seg.rng)
  end
  recompute.stats.inside = true
  local ok, err = pcall(function()
    local reapply = seg.reapply or {}
    for k = seg.from, lastOf(seg) do
      local how = reapply[k]
      local fused = how and S.modules[k]:_reapplyNext(x, how == 'relu') and how == 'relu'
      x = S:rethrowErrors(S.modules[k], k, 'updateOutput', x)
      if fused then S.modules[k + 1]:_inputClipped() end
    end
  end)
  recompute.stats.inside = false
  for _, s in ipairs(saved) do s[1]:copy(s[2]) end
  if rng then torch.setRNGState(rng) end
  if not ok then error(err, 0) end
  recompute.stats.seconds = recompute.stats.seconds + (torch._C.clock() - t0)
  recompute.stats.runs = recompute.stats.runs + 1
end

-- A segmented Sequential re-runs its segments inside backward. A
-- container may instead call its children's updateGradInput and then
-- accGradParameters (an nngraph gModule does, for every node): two
-- methods, between which the activations must stay. Such a Sequential
-- runs as a plain one, its segments left out. Which way it goes is decided
-- by the first call after install, which is optnet's own trace, so the
-- plan (made from that trace) and every later pass agree; a later call the
-- other way (a user calling updateGradInput on a Sequential the trace saw
-- called through backward, whose activations the plan re-used) raises.
local function mismatch(S, name, mode)
  if mode == 'segments' then
    error(string.format('nn.Sequential:%s: this Sequential re-computes activations during backward '
      .. '(optnet recompute); call backward(input, gradOutput), or optnet.removeOptimization(net) first', name), 3)
  end
  error(string.format('nn.Sequential:%s: optnet planned this Sequential as called through updateGradInput and '
    .. 'accGradParameters (its recompute segments left out), got a call to %s; call it as when it was optimized, '
    .. 'or optnet.removeOptimization(net) first', name, name), 3)
end

-- whether module m, given the segment's input, would overwrite it: a leaf
-- running in place, or such a leaf where m's input goes first (the first
-- child of a Sequential, every child of other containers)
function startsInplace(m)
  if type(m.modules) == 'table' then
    if #m.modules == 0 then return false end
    if isSequential(m) then return writesInput(m, 1) end
    for _, c in ipairs(m.modules) do if startsInplace(c) then return true end end
    return false
  end
  local flag = walk.traits(m).inplace
  return flag ~= nil and m[flag] == true
end

-- the tensors on their forward storages (seg.home) for v, a re-run child's
-- output: the last child c_j of an exclusive segment gets them in backward
-- when it runs in place on its input. Its forward wrote over them (an
-- in-place AddConstant shifted them, and its backward shifts them back);
-- the re-run's copy in the shadows was never written over, so its
-- backward would "restore" what the re-run made, and the re-run child's
-- backward would read that (issue #32: Tanh, AddConstant in place, Tanh
-- with 'sqrt': gradInput off by 0.3). They are alive: they are c_j's
-- output, which the segment keeps.
local function forwardTensors(seg, v)
  if torch.isTensor(v) then return seg.home[v] or v end
  if type(v) ~= 'table' then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = forwardTensors(seg, x) end
  return out
end

-- a segment may not start with a module that overwrites its input: the
-- re-run needs that input as it was. (What in-place modules elsewhere do
-- to a segment, recompute.unsafe finds in the trace.)
local function trimmed(segs)
  local out = {}
  for _, seg in ipairs(segs) do
    while seg.from <= lastOf(seg) and writesInput(seg.seq, seg.from) do seg.from = seg.from + 1 end
    if seg.from <= lastOf(seg) then out[#out + 1] = seg end
  end
  return out
end

-- recompute = <bytes>: the segmentation that fits a byte budget at the
-- least re-run work. A unit is a child of a Sequential together with the
-- in-place children right after it (they write into its output, so they
-- must be re-run with it). A unit is marked in one of two ways:
--   'x' drops every activation below it after the forward pass, its output
--     too; marked neighbours form a run, re-run when backward reaches the
--     child after the run (an exclusive segment);
--   'i' keeps only its output: it is re-run from its input when backward
--     reaches it (an inclusive segment; an 'x' run right before it joins
--     it). This is Chen et al.'s checkpoint: the output is the boundary.
--
-- The model, measured on the trace of the net without recompute: an
-- activation is long-lived when forward writes it and backward reads it.
-- The arena's peak is either at the turn from forward to backward (every
-- long-lived byte still kept) or during some segment's re-run, when its
-- re-computed bytes are back while the kept bytes of everything before
-- (and, for an exclusive segment, of the child after it, whose backward
-- comes next) are alive, plus the bytes of the exclusive segments whose
-- last child holds this one; those after it died in backward already. The
-- work of a unit is its forward multiply-adds (a convolution's or linear
-- layer's output size times the multiply-adds per output; one per element
-- otherwise).
--
-- For each cap on a segment's bytes (a fraction of all long-lived bytes),
-- units are marked greedily, most dropped bytes per work first, keeping
-- every segment under the cap; the shortest prefix of those marks whose
-- modelled peak fits the target is found by bisection; the cap whose plan
-- does the least work wins. Weighing bytes against work takes the cheap
-- modules first, and the early, high-resolution layers, which hold the
-- most bytes per multiply-add.

-- the work in multiply-adds of a weighted layer; the memory-bound ones in
-- multiply-add equivalents: a pass over an element costs what about 32
-- multiply-adds of a convolution do (measured in training steps on 2
-- threads: batch norm re-made 0.37 ns an element, ReLU 0.1-0.3, max
-- pooling 2-3 ns an output of a 3x3 window, convolutions 0.008-0.01 ns a
-- multiply-add), a pooling window's element too. (At one unit an element,
-- GoogLeNet's budget plans took every max pooling for free: 8% of its step.)
local PASS = 32

local function leafWork(m, outElements)
  local w = rawget(m, 'weight')
  if torch.isTensor(w) and w:dim() >= 2 then
    local per = w:nElement() / (m.nOutputPlane or m.outputSize or w:size(1))
    return outElements * per
  end
  if m.kW and m.kH then return outElements * m.kW * m.kH * PASS end
  -- cross-map LRN: a power per element (GoogLeNet b32's two: 11 ns an element)
  if torch.type(m) == 'nn.SpatialCrossMapLRN' then return outElements * 40 * PASS end
  return outElements * PASS
end

-- per module: {long-lived bytes, work, first and last forward step, long-
-- lived bytes of its output} of its subtree; the long-lived entries by
-- first step
local function measure(net, rec, p)
  local bytes, work, step, outIds = {}, {}, {}, {}
  local lived, livedById = {}, {}
  for _, e in ipairs(p.entries) do
    if e.first >= 1 and e.first <= rec.nForward and e.last > rec.nForward
        and (e.role == 'output' or e.role == 'buffer') then
      local m = rec.steps[e.first].module
      bytes[m] = (bytes[m] or 0) + e.bytes
      lived[#lived + 1] = {e.first, e.bytes}
      livedById[e.id] = e.bytes
    end
  end
  for i = 1, rec.nForward do
    local st = rec.steps[i]
    if st.kind == 'forward' and not step[st.module] then
      step[st.module] = i
      outIds[st.module] = st.outputIds
      if type(st.module.modules) ~= 'table' then work[st.module] = leafWork(st.module, st.outElements or 0) end
    end
  end
  local sub = {}
  local function total(m)
    if sub[m] then return sub[m] end
    local out = 0
    for id in pairs(outIds[m] or {}) do out = out + (livedById[id] or 0) end
    local t = {bytes[m] or 0, work[m] or 0, step[m] or math.huge, step[m] or 0, out}
    if type(m.modules) == 'table' then
      for _, c in ipairs(m.modules) do
        local ct = total(c)
        t[1], t[2], t[3], t[4] = t[1] + ct[1], t[2] + ct[2], math.min(t[3], ct[3]), math.max(t[4], ct[4])
      end
    end
    sub[m] = t
    return t
  end
  total(net)
  table.sort(lived, function(x, y) return x[1] < y[1] end)
  local firsts, prefix = {}, {0}
  for i, l in ipairs(lived) do firsts[i] = l[1]; prefix[i + 1] = prefix[i] + l[2] end
  return sub, firsts, prefix
end

local function buildUnits(net, sub)
  local list, parent = {}, {}
  for _, S in ipairs(walk.modules(net)) do
    if type(S.modules) == 'table' then
      for _, c in ipairs(S.modules) do parent[c] = parent[c] or S end
    end
    if isSequential(S) then
      local n, k = #S.modules, 1
      while k <= n do
        local j = k
        while j < n and writesInput(S, j + 1) do j = j + 1 end
        -- a segment may not start with a module that overwrites its input
        if not (k == 1 and writesInput(S, 1)) then
          local u = {seq = S, from = k, to = j, bytes = 0, work = 0, pos = math.huge, index = #list + 1,
                     last = j == n, out = math.min(sub[S.modules[j]][5], sub[S.modules[j]][1])}
          for i = k, j do
            local t = sub[S.modules[i]]
            u.bytes, u.work, u.pos = u.bytes + t[1], u.work + t[2], math.min(u.pos, t[3])
          end
          u.stopSelf = sub[S.modules[j]][4] + 1
          -- an exclusive run's bytes stay until the next child's backward is done
          u.stop = j < n and sub[S.modules[j + 1]][4] + 1 or math.huge
          if u.bytes > 0 then list[#list + 1] = u end
        end
        k = j + 1
      end
    end
  end
  return list, parent
end

local function dropped(u, kind) return kind == 'x' and u.bytes or u.bytes - u.out end

-- the segments of a set of marks, in forward order: {seq, from, to,
-- inclusive, bytes (re-computed), stop (model step), last (the child after
-- an exclusive run)}
local function segmentsOf(marked)
  local list = {}
  for u in pairs(marked) do list[#list + 1] = u end
  table.sort(list, function(a, b)
    if a.pos ~= b.pos then return a.pos < b.pos end
    return a.index < b.index
  end)
  local segs, i = {}, 1
  while i <= #list do
    local u, j = list[i], i
    local seg = {seq = u.seq, from = u.from, bytes = dropped(u, marked[u])}
    -- an 'x' run goes on through adjacent 'x' marks and ends at an 'i'
    while marked[list[j]] == 'x' and j < #list and list[j + 1].seq == u.seq
        and list[j + 1].from == list[j].to + 1 do
      j = j + 1
      seg.bytes = seg.bytes + dropped(list[j], marked[list[j]])
    end
    local v = list[j]
    if marked[v] == 'i' then
      -- the output is re-computed into a shadow as well
      seg.to, seg.inclusive, seg.stop = v.to, true, v.stopSelf
      seg.bytes = seg.bytes + v.out
    else
      seg.to, seg.stop = v.to + 1, v.stop
      seg.last = u.seq.modules[v.to + 1]
    end
    segs[#segs + 1] = seg
    i = j + 1
  end
  return segs, list
end

-- whether a unit enclosing u is marked (u is re-run with it then), and
-- whether v lies below u; u.above lists the units enclosing u, innermost
-- first (recompute.budget)
local function covered(u, marked)
  for _, a in ipairs(u.above) do if marked[a] then return true end end
  return false
end

local function below(v, u)
  for _, a in ipairs(v.above) do if a == u then return true end end
  return false
end

-- the marks greedy makes under one cap, as events {u, kind or false, kept,
-- work}: false drops a mark that a later one subsumes
local function greedy(units, order, total, cap)
  local marked, kept, work, events = {}, total, 0, {}
  local inner = {}  -- unit -> number of marks made below it
  local bySeq = {}
  for _, u in ipairs(units) do
    bySeq[u.seq] = bySeq[u.seq] or {byFrom = {}, byTo = {}}
    bySeq[u.seq].byFrom[u.from] = u
    bySeq[u.seq].byTo[u.to] = u
  end
  -- bytes of the segment holding u
  local function segBytes(u)
    local S = bySeq[u.seq]
    local b = dropped(u, marked[u])
    local v = S.byTo[u.from - 1]
    while v and marked[v] == 'x' do b = b + v.bytes; v = S.byTo[v.from - 1] end
    if marked[u] == 'x' then
      v = S.byFrom[u.to + 1]
      while v and marked[v] do
        b = b + dropped(v, marked[v])
        if marked[v] == 'i' then break end
        v = S.byFrom[v.to + 1]
      end
    end
    return b
  end
  for _, c in ipairs(order) do
    local u, kind = c[1], c[2]
    local was = marked[u]
    if was ~= 'x' and was ~= kind and not covered(u, marked) then
      marked[u] = kind
      -- the segment it joins must stay under the cap
      if segBytes(u) > cap then
        marked[u] = was
      else
        if (inner[u] or 0) > 0 then
          -- in unit order, so that plans are the same at every run
          local subsumed = {}
          for v in pairs(marked) do
            if v ~= u and below(v, u) then subsumed[#subsumed + 1] = v end
          end
          table.sort(subsumed, function(a, b) return a.index < b.index end)
          for _, v in ipairs(subsumed) do
            kept, work = kept + dropped(v, marked[v]), work - v.work
            marked[v] = nil
            events[#events + 1] = {v, false, kept, work}
          end
          inner[u] = 0
        end
        kept = kept - dropped(u, kind) + (was and dropped(u, was) or 0)
        if not was then work = work + u.work end
        events[#events + 1] = {u, kind, kept, work}
        for _, a in ipairs(u.above) do inner[a] = (inner[a] or 0) + 1 end
      end
    end
  end
  return events
end

-- the marks after the first k events
local function replay(events, k)
  local marked = {}
  for i = 1, k do marked[events[i][1]] = events[i][2] or nil end
  return marked
end

-- the modelled peak of a set of marks (see above)
local function modelPeak(marked, kept, firsts, prefix, parent)
  local segs, list = segmentsOf(marked)
  local pos, gone = {}, {0}
  for i, u in ipairs(list) do pos[i] = u.pos; gone[i + 1] = gone[i] + dropped(u, marked[u]) end
  local function count(sorted, sums, s)  -- sums over entries with key < s
    local lo, hi = 1, #sorted + 1
    while lo < hi do
      local mid = (lo + hi) // 2
      if sorted[mid] < s then lo = mid + 1 else hi = mid end
    end
    return sums[lo]
  end
  local byLast = {}
  for _, seg in ipairs(segs) do if seg.last then byLast[seg.last] = seg end end
  local peak = kept
  for _, seg in ipairs(segs) do
    local at = count(firsts, prefix, seg.stop) - count(pos, gone, seg.stop) + seg.bytes
    local m = seg.seq
    while m do
      local outer = byLast[m]
      if outer then at = at + outer.bytes end
      m = parent[m]
    end
    if at > peak then peak = at end
  end
  return peak
end

-- hill climbing on the greedy's best plan: one unit at a time is
-- unmarked, switched between 'x' and 'i', or marked (dropping the marks
-- below it); a change is kept when the plan gets under the target, or its
-- modelled peak drops while above it, or its work drops while under.
-- Greedy marks in a fixed order and cannot take a mark back: an 'x' mark
-- that extends a run over a child with big activations, say, which an 'i'
-- mark on the child before would have avoided.
local IMPROVE_PASSES = 4

local function improve(best, units, parent, total, firsts, prefix, target)
  local function evaluate(marked)
    local kept, work = total, 0
    for u, k in pairs(marked) do kept, work = kept - dropped(u, k), work + u.work end
    local peak = modelPeak(marked, kept, firsts, prefix, parent)
    return {marked = marked, kept = kept, work = work, peak = peak, fits = peak <= target}
  end
  local function better(a, b)
    if a.fits ~= b.fits then return a.fits end
    if a.fits then return a.work < b.work or (a.work == b.work and a.peak < b.peak) end
    return a.peak < b.peak
  end
  for _ = 1, IMPROVE_PASSES do
    local changed = false
    for _, u in ipairs(units) do
      local now = best.marked[u]
      local options = {}
      if now then options[#options + 1] = false end
      if now ~= 'x' and not u.last then options[#options + 1] = 'x' end
      if now ~= 'i' and u.bytes > u.out then options[#options + 1] = 'i' end
      if not now and covered(u, best.marked) then options = {} end
      for _, kind in ipairs(options) do
        local marked = {}
        for v, k in pairs(best.marked) do
          if not (kind and not now and below(v, u)) then marked[v] = k end
        end
        marked[u] = kind or nil
        local cand = evaluate(marked)
        if better(cand, best) then best, changed = cand, true; break end
      end
    end
    if not changed then break end
  end
  return best
end

-- the segments of the cheapest plan whose modelled peak fits target bytes
-- (or, if none does, of the plan with the lowest peak); and its figures
function recompute.budget(net, rec, p, target)
  local sub, firsts, prefix = measure(net, rec, p)
  local total = prefix[#prefix]
  local units, parent = buildUnits(net, sub)
  local unitOf = {}
  for _, u in ipairs(units) do
    for k = u.from, u.to do unitOf[u.seq.modules[k]] = u end
  end
  for _, u in ipairs(units) do
    u.above = {}
    local m = u.seq
    while m do
      if unitOf[m] then u.above[#u.above + 1] = unitOf[m] end
      m = parent[m]
    end
  end
  local order = {}
  for _, u in ipairs(units) do
    if not u.last then order[#order + 1] = {u, 'x', u.bytes} end
    if u.bytes > u.out then order[#order + 1] = {u, 'i', u.bytes - u.out} end
  end
  table.sort(order, function(a, b)
    local ra, rb = a[3] * (b[1].work + 1), b[3] * (a[1].work + 1)
    if ra ~= rb then return ra > rb end
    if a[1].index ~= b[1].index then return a[1].index < b[1].index end
    return a[2] < b[2]
  end)
  local best
  local function consider(events, k)
    local marked = replay(events, k)
    local kept = k > 0 and events[k][3] or total
    local work = k > 0 and events[k][4] or 0
    local peak = modelPeak(marked, kept, firsts, prefix, parent)
    local fits = peak <= target
    local better = not best or (fits and not best.fits) or (fits and best.fits and work < best.work)
      or (not fits and not best.fits and peak < best.peak)
    if better then best = {marked = marked, kept = kept, work = work, peak = peak, fits = fits} end
    return fits
  end
  consider({}, 0)
  if not best.fits then
    for _, f in ipairs{1/2, 1/3, 1/4, 1/6, 1/8, 1/12, 1/16, 1/24, 1/32, 1/48, 1/64, 1/96, 1/128} do
      local events = greedy(units, order, total, total * f)
      if #events > 0 and consider(events, #events) then
        -- the shortest prefix that fits
        local lo, hi = 0, #events
        while hi - lo > 1 do
          local mid = (lo + hi) // 2
          if consider(events, mid) then hi = mid else lo = mid end
        end
      end
    end
  end
  if next(best.marked) then best = improve(best, units, parent, total, firsts, prefix, target) end
  local segs = {}
  for _, seg in ipairs((segmentsOf(best.marked))) do
    segs[#segs + 1] = {seq = seg.seq, from = seg.from, to = seg.to, inclusive = seg.inclusive}
  end
  local fwdWork = sub[net][2]
  return segs, {kept = best.kept, peak = best.peak, total = total, work = best.work,
                workFraction = fwdWork > 0 and best.work / fwdWork or 0, fits = best.fits}
end

-- The segments the trace shows unsafe, from the in-place writes of the
-- forward pass (modules whose in-place flag is on: the user's, and those
-- optnet switched) against the re-runs:
--   a re-run reads a storage that its module's forward read too and that
--   an in-place module wrote after that (a sibling branch's, or one that
--   writes the segment's input through an nn.Identity: the re-run would
--   start from what it wrote);
--   a re-run remakes into a shadow an output that an in-place module not
--   re-run with it wrote over after the forward made it. One that optnet
--   switched (chosen: {module = m} entries) is safe only when it is the
--   child ending the segment on its input (forwardTensors hands it the
--   forward's copy; through an Identity it would put back, or read, the
--   re-run's copy, which lacks its write). One of the user's is safe when
--   no backward step reads the re-run's copy: in the net without optnet
--   they read the forward's, written over (and AddConstant's or
--   MulConstant's (y * c) / c put back is not y in the last bit).
-- Returns nil when all are safe; else the safe ones (as a segment list for
-- install) and, per unsafe one, why.
-- whether a step after r reads one of ids, other than the re-run of
-- seg's own modules (they read the copies as their forward read the
-- originals, before the write). A forward step of another module is a
-- re-run too: of a segment nested in the child ending seg, which reads
-- the copy where its forward read what the write left (an in-place
-- AddConstant behind an nn.Copy in one branch of a ConcatTable, a
-- Transpose re-run in the other: gradInput off by 0.19)
local function readAfter(rec, inSeg, r, ids, seg)
  for s = r + 1, rec.nSteps do
    local u = rec.uses[s]
    local st = rec.steps[s]
    if u and not (st.kind == 'forward' and inSeg[seg][st.module]) then
      for id in pairs(ids) do if u[id] then return true end end
    end
  end
  return false
end

-- the in-place writes of the trace's forward pass: {step, module, ids},
-- and each module's first forward step
local function forwardWrites(rec)
  local fwdStep, writes, written = {}, {}, {}
  for s = 1, rec.nForward do
    local st = rec.steps[s]
    local m = st.module
    if st.kind == 'forward' then
      fwdStep[m] = fwdStep[m] or s
      local flag = rec.traits[m].inplace
      if flag and m[flag] == true then
        local ids = {}
        for id in pairs(st.inputIds or {}) do if st.outputIds[id] then ids[id] = true end end
        if next(ids) then
          writes[#writes + 1] = {step = s, module = m, ids = ids}
          written[m] = ids
        end
      end
    end
  end
  -- an in-place backward that reads its input only in place puts it back
  -- (AddConstant, MulConstant): one more write, at its derivative step
  for s = rec.nForward + 1, rec.nSteps do
    local st = rec.steps[s]
    local m = st.module
    if st.kind == 'derivative' and written[m] then
      local flag = rec.traits[m].inplace
      m[flag] = false
      local plain = walk.traits(m).needsInput
      m[flag] = true
      if walk.traits(m).needsInput and not plain then
        writes[#writes + 1] = {step = s, module = m, ids = written[m], restore = true}
      end
    end
  end
  return writes, fwdStep
end

local function endsOnIt(seg, m)
  if seg.inclusive then return false end
  local last = seg.seq.modules[seg.to]
  if not startsInplace(last) then return false end
  for _, x in ipairs(last:listModules()) do if x == m then return true end end
  return false
end

-- an in-place module that its backward puts back (AddConstant,
-- MulConstant), re-run: the put-back goes to the re-run's copy, and the
-- forward's copy stays written over. Unsafe when something reads that
-- copy after: a backward step, or the caller (the net's output: without
-- optnet it is put back after backward, and a trainStep's caller reads
-- it then)
local function putBackSpoils(c, undo)
  local final = walk.storageIds(undo.net and undo.net.output)
  for _, w in ipairs(c.writes) do
    local seg = w.restore and c.segOf[w.module]
    if seg and not c.bad[seg] then
      for id in pairs(w.ids) do
        if final[id] or readAfter(c.rec, c.inSeg, w.step, {[id] = true}, seg) then
          c.bad[seg] = true
          c.why[#c.why + 1] = {seg = seg, module = w.module, writer = w.module, restores = true}
          break
        end
      end
    end
  end
end

-- whether write w (between m's forward step f and its re-run r) spoils the
-- re-run of seg: the re-run reads what w wrote over ('reads'), or w wrote
-- over the forward's output that the re-run's copy stands for; nil if not
local function rerunSpoiled(c, seg, m, f, r, w)
  local rec = c.rec
  local st, fst = rec.steps[r], rec.steps[f]
  for id in pairs(w.ids) do
    if st.inputIds[id] and fst.inputIds[id] then
      return {seg = seg, module = m, writer = w.module, reads = true}
    end
    local spoils = false
    if not w.restore and fst.outputIds[id] and c.segOf[w.module] ~= seg then
      if c.switched[w.module] then spoils = not endsOnIt(seg, w.module)
      else
        -- the re-run's copies: its output storages that are not the forward's
        local made = {}
        for x in pairs(st.outputIds) do if not fst.outputIds[x] then made[x] = true end end
        spoils = readAfter(rec, c.inSeg, r, made, seg)
      end
    end
    if spoils then return {seg = seg, module = m, writer = w.module, reads = false} end
  end
end

function recompute.unsafe(undo, rec, chosen)
  local c = {rec = rec, switched = {}, inSeg = {}, segOf = {}, bad = {}, why = {}}
  for _, x in ipairs(chosen or {}) do c.switched[x.module] = true end
  for _, seg in ipairs(undo.segments) do
    c.inSeg[seg] = {}
    for _, m in ipairs(seg.modules) do c.inSeg[seg][m] = true end
  end
  for _, seg in ipairs(undo.segments) do
    for _, m in ipairs(segModules(seg)) do c.segOf[m] = seg end
  end
  local fwdStep
  c.writes, fwdStep = forwardWrites(rec)
  putBackSpoils(c, undo)
  for r = rec.nForward + 1, rec.nSteps do
    local st = rec.steps[r]
    local m = st.module
    local seg, f = c.segOf[m], fwdStep[m]
    if st.kind == 'forward' and seg and f and not c.bad[seg] then
      for _, w in ipairs(c.writes) do
        if w.step > f and w.step < r and not c.bad[seg] then
          local why = rerunSpoiled(c, seg, m, f, r, w)
          if why then
            c.bad[seg] = true
            c.why[#c.why + 1] = why
          end
        end
      end
    end
  end
  if #c.why == 0 then return nil end
  local keep = {}
  for _, seg in ipairs(undo.segments) do
    if not c.bad[seg] then keep[#keep + 1] = {seq = seg.seq, from = seg.from, to = seg.to, inclusive = seg.inclusive} end
  end
  return keep, c.why
end

-- says on stderr which segments recompute.unsafe left out
function recompute.tellUnsafe(net, why)
  local paths = walk.paths(net)
  local function who(m)
    local p = paths[m] or '?'
    return (p == '' and '' or p .. ' ') .. torch.type(m)
  end
  for _, w in ipairs(why) do
    io.stderr:write(string.format('optnet: recompute: segment %d..%d of %s left out: %s writes in place %s\n',
      w.seg.from, w.seg.to, who(w.seg.seq), who(w.writer),
      w.restores and 'and its backward puts back what the re-run makes, while the forward\'s copy, read after, '
        .. 'stays written over'
        or w.reads and ('what the re-run of ' .. who(w.module) .. ' would read')
        or ('the output of ' .. who(w.module) .. ', which the re-run would make anew without that write')))
  end
end

-- the hooks that run S's segments: they take the place of the Sequential's
-- methods (nextf unused)
local function hookSequential(undo, S, segs, verbose)
  local startAt, endAt = {}, {}
  for _, seg in ipairs(segs) do startAt[seg.from] = seg; endAt[seg.to] = seg end
  local function hook(k, fn) undo.hooks[#undo.hooks + 1] = S:hook(k, fn) end
  hook('updateOutput', function(_, self, input)
    local current = input
    for i = 1, #self.modules do
      local seg = startAt[i]
      if seg then seg.rng = torch.getRNGState() end
      current = self:rethrowErrors(self.modules[i], i, 'updateOutput', current)
    end
    self.output = current
    return current
  end)
  local mode = nil  -- 'segments' or 'plain': see mismatch
  local function decide(name, want)
    if mode == nil then
      mode = want
      if want == 'plain' then
        undo.plain[#undo.plain + 1] = S
        if verbose then
          io.stderr:write(string.format('optnet: recompute: %s is called through updateGradInput and '
            .. 'accGradParameters (by its container: an nngraph node, say): its %d segment(s) are left out\n',
            verbose[S] or torch.type(S), #segs))
        end
      end
    end
    if mode ~= want then mismatch(S, name, mode) end
  end
  hook('backward', function(_, self, input, gradOutput, scale)
    decide('backward', 'segments')
    scale = scale or 1
    local current = gradOutput
    local open = {}
    local ok, err = pcall(function()
      for i = #self.modules, 1, -1 do
        local seg = endAt[i]
        if seg then
          swapIn(seg, input)
          open[#open + 1] = seg
          rerun(self, seg, input)
        end
        local prev = i > 1 and self.modules[i - 1].output or input
        if seg and not seg.inclusive and i > 1 and startsInplace(self.modules[i]) then
          prev = forwardTensors(seg, prev)
        end
        current = self:rethrowErrors(self.modules[i], i, 'backward', prev, current, scale)
        local s0 = startAt[i]
        if s0 and s0.swapped then swapOut(s0) end
      end
    end)
    for _, seg in ipairs(open) do swapOut(seg) end
    if not ok then error(err, 0) end
    self.gradInput = current
    return current
  end)
  hook('updateGradInput', function(_, self, input, gradOutput)
    decide('updateGradInput', 'plain')
    return nn.Sequential.updateGradInput(self, input, gradOutput)
  end)
  hook('accGradParameters', function(_, self, input, gradOutput, scale)
    decide('accGradParameters', 'plain')
    return nn.Sequential.accGradParameters(self, input, gradOutput, scale)
  end)
end

-- installs the segments on their Sequentials; returns the undo state
-- (verbose: say which Sequentials run plain, see mismatch)
function recompute.install(net, how, verbose)
  local segs = trimmed(recompute.segments(net, how))
  if verbose then
    local paths = walk.paths(net)
    verbose = setmetatable({}, {__index = function(_, S)
      return (paths[S] and paths[S] ~= '' and paths[S] .. ' ' or '') .. torch.type(S)
    end})
  end
  local bySeq, order = {}, {}
  for _, seg in ipairs(segs) do
    local S = seg.seq
    if not bySeq[S] then bySeq[S] = {}; order[#order + 1] = S end
    seg.shadow, seg.home = {}, {}
    segModules(seg)
    table.insert(bySeq[S], seg)
  end
  local undo = {net = net, segments = segs, hooks = {}, created = {}, coefficients = {}, plain = {}}
  -- batch norms re-run in backward keep their forward's affine coefficients
  for _, seg in ipairs(segs) do
    for k = seg.from, lastOf(seg) do
      local m = seg.seq.modules[k]
      if m._keepCoefficients then
        m:_keepCoefficients(true)
        undo.coefficients[#undo.coefficients + 1] = m
      end
    end
  end
  -- a buffer that backward creates on first use (batch norm's _gradStats)
  -- would get its shadow only from the second pass on, so the small traces
  -- would disagree: it is created now
  for _, seg in ipairs(segs) do
    for _, m in ipairs(seg.modules) do
      if rawget(m, '_gradStats') == nil and torch.isTensor(rawget(m, 'running_mean'))
          and walk.traits(m).buffers._gradStats then
        m._gradStats = m.running_mean.new()
        undo.created[#undo.created + 1] = m
      end
    end
  end
  for _, S in ipairs(order) do hookSequential(undo, S, bySeq[S], verbose) end
  return undo
end

function recompute.uninstall(undo)
  for i = #undo.hooks, 1, -1 do undo.hooks[i]:remove() end
  for _, seg in ipairs(undo.segments) do
    swapOut(seg)
    for _, m in ipairs(segModules(seg)) do rawset(m, '_optnetShadow', nil) end
    seg.shadow, seg.home = {}, {}
  end
  for _, m in ipairs(undo.created or {}) do rawset(m, '_gradStats', nil) end
  for _, m in ipairs(undo.coefficients or {}) do m:_keepCoefficients(false) end
end

return recompute
