-- optnet.recompute: trading compute for memory in training mode.
--
-- A segment is a run of consecutive children c_i .. c_j of one
-- nn.Sequential. Forward runs as usual. Backward, on reaching c_j, first
-- re-runs the forward of c_i .. c_(j-1) from the segment's input (kept: it is
-- the previous child's output), then runs the backward of c_j .. c_i. So the
-- activations of c_i .. c_(j-1) (outputs and buffers, with everything below
-- them) die right after the forward pass instead of living until backward.
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
-- random generator is rewound for segments holding a stochastic module
-- (Dropout), so the same noise comes out. A segment never starts with a
-- module that runs in place on its input (the re-run needs that input).
--
-- Segmentations:
--   'cheap': in every Sequential, each run of cheap modules (batch norm,
--     pointwise activations) together with the child that follows it; only
--     the cheap ones are re-run.
--   'sqrt': Chen et al. 2016: in each chain (a Sequential of >= 3 children
--     of comparable size, the outermost such), segments of ceil(sqrt(n))
--     children; all but the last child of a segment are re-run.
local walk = require 'optnet.walk'

local recompute = {}

local CHEAP = {
  ['nn.ReLU'] = true, ['nn.Threshold'] = true, ['nn.LeakyReLU'] = true, ['nn.ELU'] = true,
  ['nn.Sigmoid'] = true, ['nn.Tanh'] = true, ['nn.SoftPlus'] = true,
  ['nn.BatchNormalization'] = true, ['nn.SpatialBatchNormalization'] = true,
  ['nn.MulConstant'] = true, ['nn.AddConstant'] = true, ['nn.Identity'] = true,
}

local function isStochastic(m)
  for _, x in ipairs(m:listModules()) do
    if torch.typename(x):find('Dropout', 1, true) then return true end
  end
  return false
end

local function leaves(m)
  if type(m.modules) ~= 'table' then return 1 end
  local n = 0
  for _, c in ipairs(m.modules) do n = n + leaves(c) end
  return n
end

local function isSequential(m) return torch.typename(m) == 'nn.Sequential' end

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
      for from = 1, n, k do
        local to = math.min(n, from + k - 1)
        if to > from then segs[#segs + 1] = {seq = m, from = from, to = to} end
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
  error("optnet.recompute: segmentation 'cheap' or 'sqrt' expected, got " .. tostring(how), 2)
end

-- the tensors a re-run writes: outputs and buffers of every module below
-- children from .. to-1, minus anything the segment's input or its last
-- child's output refers to (those must keep their forward storage)
local function swapSet(seg)
  local S = seg.seq
  local keep = {}
  walk.tensors(S.modules[seg.to].output, function(t) keep[t] = true end)
  local list, seen = {}, {}
  for k = seg.from, seg.to - 1 do
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

local function stateTensors(seg)
  local list = {}
  for k = seg.from, seg.to - 1 do
    for _, m in ipairs(seg.seq.modules[k]:listModules()) do
      walk.moduleTensors(m, function(t, role)
        if role == 'state' and t:nElement() > 0 then list[#list + 1] = t end
      end, true)
    end
  end
  return list
end

-- moves the re-run modules' tensors onto their shadow storages
local function swapIn(seg, input)
  local items = swapSet(seg)
  for _, m in ipairs(seg.modules) do rawset(m, '_optnetShadow', rawget(m, '_optnetShadow') or {}) end
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

-- seconds spent re-running forward (all nets), for benchmarks
recompute.stats = {seconds = 0, runs = 0}

local function rerun(S, seg, input)
  local t0 = torch._C.clock()
  local saved = {}
  for i, t in ipairs(stateTensors(seg)) do saved[i] = {t, t:clone()} end
  local rng
  if seg.rng then
    rng = torch.getRNGState()
    torch.setRNGState(seg.rng)
  end
  local x = input
  if seg.from > 1 then x = S.modules[seg.from - 1].output end
  local ok, err = pcall(function()
    for k = seg.from, seg.to - 1 do x = S:rethrowErrors(S.modules[k], k, 'updateOutput', x) end
  end)
  for _, s in ipairs(saved) do s[1]:copy(s[2]) end
  if rng then torch.setRNGState(rng) end
  if not ok then error(err, 0) end
  recompute.stats.seconds = recompute.stats.seconds + (torch._C.clock() - t0)
  recompute.stats.runs = recompute.stats.runs + 1
end

local function blocked(S, name)
  return function()
    error(string.format('nn.Sequential:%s: this Sequential re-computes activations during backward '
      .. '(optnet recompute); call backward(input, gradOutput), or optnet.removeOptimization(net) first', name), 2)
  end
end

-- whether module m, given the segment's input, would overwrite it: a leaf
-- running in place, or such a leaf where m's input goes first (the first
-- child of a Sequential, every child of other containers)
local function startsInplace(m)
  if type(m.modules) == 'table' then
    if #m.modules == 0 then return false end
    if isSequential(m) then return startsInplace(m.modules[1]) end
    for _, c in ipairs(m.modules) do if startsInplace(c) then return true end end
    return false
  end
  local flag = walk.traits(m).inplace
  return flag ~= nil and m[flag] == true
end

-- a segment may not start with a module that overwrites its input: the
-- re-run needs that input as it was
local function trimmed(segs)
  local out = {}
  for _, seg in ipairs(segs) do
    while seg.from < seg.to and startsInplace(seg.seq.modules[seg.from]) do seg.from = seg.from + 1 end
    if seg.from < seg.to then out[#out + 1] = seg end
  end
  return out
end

-- installs the segments on their Sequentials; returns the undo state
function recompute.install(net, how)
  local segs = trimmed(recompute.segments(net, how))
  local bySeq, order = {}, {}
  for _, seg in ipairs(segs) do
    local S = seg.seq
    if not bySeq[S] then bySeq[S] = {}; order[#order + 1] = S end
    seg.shadow, seg.home = {}, {}
    seg.modules = {}
    for k = seg.from, seg.to - 1 do
      for _, m in ipairs(S.modules[k]:listModules()) do seg.modules[#seg.modules + 1] = m end
    end
    seg.stochastic = false
    for k = seg.from, seg.to - 1 do seg.stochastic = seg.stochastic or isStochastic(S.modules[k]) end
    table.insert(bySeq[S], seg)
  end
  local undo = {segments = segs, saved = {}}
  for _, S in ipairs(order) do
    local startAt, endAt = {}, {}
    for _, seg in ipairs(bySeq[S]) do startAt[seg.from] = seg; endAt[seg.to] = seg end
    undo.saved[S] = {}
    for _, k in ipairs{'updateOutput', 'backward', 'updateGradInput', 'accGradParameters'} do
      undo.saved[S][k] = rawget(S, k)
    end
    S.updateOutput = function(self, input)
      local current = input
      for i = 1, #self.modules do
        local seg = startAt[i]
        if seg and seg.stochastic then seg.rng = torch.getRNGState() end
        current = self:rethrowErrors(self.modules[i], i, 'updateOutput', current)
      end
      self.output = current
      return current
    end
    S.backward = function(self, input, gradOutput, scale)
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
          current = self:rethrowErrors(self.modules[i], i, 'backward', prev, current, scale)
          local s0 = startAt[i]
          if s0 and s0.swapped then swapOut(s0) end
        end
      end)
      for _, seg in ipairs(open) do swapOut(seg) end
      if not ok then error(err, 0) end
      self.gradInput = current
      return current
    end
    S.updateGradInput = blocked(S, 'updateGradInput')
    S.accGradParameters = blocked(S, 'accGradParameters')
  end
  return undo
end

function recompute.uninstall(undo)
  for S, s in pairs(undo.saved) do
    for _, k in ipairs{'updateOutput', 'backward', 'updateGradInput', 'accGradParameters'} do rawset(S, k, s[k]) end
  end
  for _, seg in ipairs(undo.segments) do
    swapOut(seg)
    for _, m in ipairs(seg.modules) do rawset(m, '_optnetShadow', nil) end
    seg.shadow, seg.home = {}, {}
  end
end

return recompute
