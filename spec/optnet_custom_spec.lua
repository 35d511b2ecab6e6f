-- optnet on users' own modules: an nn.Module subclass written in Lua with
-- only updateOutput/updateGradInput (no memoryTraits), with lazily made
-- undeclared buffers, with parameters, and modules that hold another
-- module's activations in their fields: (a) the very tensor object, (b) a
-- view of it (:set, :view), (c) another module kept in a field whose output
-- or indices it reads, (d) a table of such tensors, (e) a skip connection
-- reading a module's output several steps later. Each net is compared with
-- its unoptimized clone, exactly, in inference and training, with verify
-- on (dead slots filled with NaN), at the traced batch and at another
-- (which re-plans), fresh and after having run. See docs/optnet.md,
-- "Custom modules: what the trace sees".
require 'torch'
require 'nn'
local optnet = require 'optnet'
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'
local walk = require 'optnet.walk'

local function class(name, body)
  if torch.getmetatable(name) then return end
  local M, parent = torch.class(name, 'nn.Module')
  body(M, parent)
end

-- y = x^2: only updateOutput and updateGradInput
class('nn.SpecCustSquare', function(M)
  function M:updateOutput(x) self.output:resizeAs(x):copy(x):cmul(x); return self.output end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(x):copy(x):mul(2):cmul(go); return self.gradInput end
end)

-- y = 4x through a lazily made, undeclared buffer that backward reads
class('nn.SpecCustLazyBuf', function(M)
  function M:updateOutput(x)
    self.buf = self.buf or x.new()
    self.buf:resizeAs(x):copy(x):mul(3)
    self.output:resizeAs(x):copy(self.buf):add(x)
    return self.output
  end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go):cmul(self.buf); return self.gradInput end
end)

-- y = x .* w + b per column, with accGradParameters
class('nn.SpecCustAffine', function(M, parent)
  function M:__init(n)
    parent.__init(self)
    self.weight = torch.Tensor(n):uniform(0.5, 1.5)
    self.bias = torch.Tensor(n):uniform(-0.1, 0.1)
    self.gradWeight = torch.Tensor(n):zero()
    self.gradBias = torch.Tensor(n):zero()
  end
  function M:updateOutput(x)
    self.output:resizeAs(x):copy(x):cmul(self.weight:view(1, -1):expandAs(x)):add(self.bias:view(1, -1):expandAs(x))
    return self.output
  end
  function M:updateGradInput(x, go)
    self.gradInput:resizeAs(go):copy(go):cmul(self.weight:view(1, -1):expandAs(go))
    return self.gradInput
  end
  function M:accGradParameters(x, go, scale)
    self.gradWeight:add(scale or 1, torch.cmul(x, go):sum(1):view(-1))
    self.gradBias:add(scale or 1, go:sum(1):view(-1))
  end
end)

-- (a) keeps its very input tensor (and declares it needs neither input nor
-- output: only the field shows the read); updateGradInput and a later call,
-- accGradParameters, read it
class('nn.SpecCustSaveInput', function(M, parent)
  function M:__init(n)
    parent.__init(self)
    self.weight = torch.Tensor(n):fill(1)
    self.gradWeight = torch.Tensor(n):zero()
  end
  function M:updateOutput(x)
    self.saved = x
    self.output:resizeAs(x):copy(x):mul(0.5)
    return self.output
  end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go):cmul(self.saved); return self.gradInput end
  function M:accGradParameters(x, go, scale)
    self.gradWeight:add(scale or 1, torch.cmul(self.saved, go):sum(1):view(-1))
  end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

-- (b) a field made a view of the input: kind 'set' (self.saved:set(x)) or 'view'
class('nn.SpecCustViewHold', function(M, parent)
  function M:__init(kind)
    parent.__init(self)
    self.kind = kind
    self.saved = torch.Tensor()
  end
  function M:updateOutput(x)
    if self.kind == 'set' then self.saved:set(x) else self.flat = x:view(x:nElement()) end
    self.output:resizeAs(x):copy(x):mul(-1)
    return self.output
  end
  function M:updateGradInput(x, go)
    local s = self.kind == 'set' and self.saved or self.flat:viewAs(go)
    self.gradInput:resizeAs(go):copy(go):cmul(s)
    return self.gradInput
  end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

-- (c), (e) keeps another module and reads its output: y = x + src.output, dx = dy .* src.output
class('nn.SpecCustSkip', function(M, parent)
  function M:__init(src) parent.__init(self); self.src = src end
  function M:updateOutput(x) self.output:resizeAs(x):copy(x):add(self.src.output); return self.output end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go):cmul(self.src.output); return self.gradInput end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

-- (c) nn.SpatialMaxUnpooling reading self.pool.indices at each call (no field of its own)
class('nn.SpecCustUnpool', function(M, parent)
  function M:__init(pool) parent.__init(self); self.pool = pool end
  function M:updateOutput(x)
    torch._C.nn.maxunpool_updateOutput(self, x, self.output, self.pool.indices, self.pool.iwidth, self.pool.iheight)
    return self.output
  end
  function M:updateGradInput(x, go)
    torch._C.nn.maxunpool_updateGradInput(self, x, go, self.gradInput, self.pool.indices, self.pool.iwidth, self.pool.iheight)
    return self.gradInput
  end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

-- (a) read by another module: the tap keeps its input, the reader keeps the
-- tap and reads tap.saved (the declared reader says so: held = {tap = {'saved'}})
class('nn.SpecCustTap', function(M)
  function M:updateOutput(x) self.saved = x; self.output:resizeAs(x):copy(x):mul(2); return self.output end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go):mul(2); return self.gradInput end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)
class('nn.SpecCustTapReader', function(M, parent)
  function M:__init(tap, declared) parent.__init(self); self.tap = tap; self.declared = declared end
  function M:updateOutput(x) self.output:resizeAs(x):copy(x):add(self.tap.saved); return self.output end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go):cmul(self.tap.saved); return self.gradInput end
  function M:memoryTraits()
    return {buffers = {}, needsInput = false, needsOutput = false, held = self.declared and {tap = {'saved'}} or nil}
  end
end)

-- (d) a table field holding tensors
class('nn.SpecCustTableHold', function(M)
  function M:updateOutput(x)
    self.hist = {x, more = {x:view(x:nElement())}}
    self.output:resizeAs(x):copy(x):add(1)
    return self.output
  end
  function M:updateGradInput(x, go)
    self.gradInput:resizeAs(go):copy(go):cmul(self.hist[1]):add(self.hist.more[1]:viewAs(go))
    return self.gradInput
  end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

-- keeps its gradOutput (updateGradInput) and reads it in accGradParameters
class('nn.SpecCustKeepGrad', function(M, parent)
  function M:__init(n)
    parent.__init(self)
    self.weight = torch.Tensor(n):fill(1)
    self.gradWeight = torch.Tensor(n):zero()
  end
  function M:updateOutput(x) self.output:resizeAs(x):copy(x):cmul(self.weight:view(1, -1):expandAs(x)); return self.output end
  function M:updateGradInput(x, go)
    self.g = go
    self.gradInput:resizeAs(go):copy(go):cmul(self.weight:view(1, -1):expandAs(go))
    return self.gradInput
  end
  function M:accGradParameters(x, go, scale) self.gradWeight:add(scale or 1, torch.cmul(x, self.g):sum(1):view(-1)) end
end)

-- a container naming its children in fields too: they are its own, no holding
class('nn.SpecCustPair', function(M, parent)
  function M:__init(a, b)
    parent.__init(self)
    self.first, self.second = a, b
    self.modules = {a, b}
  end
  function M:updateOutput(x)
    self.output = self.second:updateOutput(self.first:updateOutput(x))
    return self.output
  end
  function M:updateGradInput(x, go)
    self.gradInput = self.first:updateGradInput(x, self.second:updateGradInput(self.first.output, go))
    return self.gradInput
  end
  function M:accGradParameters(x, go, scale)
    self.second:accGradParameters(self.first.output, go, scale)
    self.first:accGradParameters(x, self.second.gradInput, scale)
  end
  function M:memoryTraits()
    return {buffers = {}, needsInput = false, needsOutput = false, childOutputs = false, childGradInputs = false}
  end
end)

-- a feedback loop: adds what a later module output in the last pass
class('nn.SpecCustFeedback', function(M, parent)
  function M:__init(src) parent.__init(self); self.src = src end
  function M:updateOutput(x)
    self.output:resizeAs(x):copy(x)
    if self.src.output:nElement() == x:nElement() then self.output:add(0.5, self.src.output) end
    return self.output
  end
  function M:updateGradInput(x, go) self.gradInput:resizeAs(go):copy(go); return self.gradInput end
  function M:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end
end)

local N = 6
local function lin() return nn.Linear(N, N) end
local function seq(...)
  local s = nn.Sequential()
  for _, m in ipairs{...} do s:add(m) end
  return s
end
local function rowInput(B) return torch.Tensor(B, N):uniform(-1, 1) end
local function imageInput(B) return torch.Tensor(B, 3, 8, 8):uniform(-1, 1) end

-- name -> {build = function() -> net, input = function(B) -> tensor}
local NETS = {}
local ORDER = {}
local function net(name, build, input)
  NETS[name] = {build = build, input = input or rowInput}
  ORDER[#ORDER + 1] = name
end

net('plain', function()
  return seq(lin(), nn.SpecCustSquare(), lin(), nn.SpecCustSquare(), lin(), nn.Tanh(), lin())
end)
net('lazy buffer', function()
  return seq(lin(), nn.SpecCustLazyBuf(), lin(), nn.SpecCustLazyBuf(), lin(), nn.Tanh(), lin())
end)
net('parameters', function()
  return seq(lin(), nn.SpecCustAffine(N), nn.Tanh(), lin(), nn.SpecCustAffine(N), nn.Tanh(), lin())
end)
net('(a) the input tensor in a field', function()
  return seq(lin(), nn.SpecCustSaveInput(N), lin(), nn.Tanh(), lin(), nn.SpecCustSaveInput(N), lin(), nn.Tanh(), lin())
end)
net('(a) a tap read by a later module', function()
  local t = nn.SpecCustTap()
  return seq(lin(), nn.ReLU(), t, nn.ReLU(), lin(), nn.Tanh(), lin(), lin(), nn.SpecCustTapReader(t), lin(), lin())
end)
net('(a) a tap read by a later module that declares it', function()
  local t = nn.SpecCustTap()
  return seq(lin(), nn.ReLU(), t, nn.ReLU(), lin(), nn.Tanh(), lin(), lin(), nn.SpecCustTapReader(t, true), lin(), lin())
end)
net('(b) a field :set() to the input', function()
  return seq(lin(), nn.SpecCustViewHold('set'), lin(), nn.Tanh(), lin(), nn.SpecCustViewHold('set'), lin(), lin())
end)
net('(b) a field made input:view()', function()
  return seq(lin(), nn.SpecCustViewHold('view'), lin(), nn.Tanh(), lin(), nn.SpecCustViewHold('view'), lin(), lin())
end)
net('(c) the next module keeps the module before', function()
  local a = lin()
  return seq(a, nn.Tanh(), nn.SpecCustSkip(a), lin(), nn.Tanh(), lin(), lin())
end)
net('(c) an unpooling that keeps its pooling module', function()
  local p = nn.SpatialMaxPooling(2, 2, 2, 2)
  return seq(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1), nn.Tanh(), p,
    nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1), nn.Tanh(), nn.SpatialMaxPooling(2, 2, 2, 2),
    nn.SpatialConvolution(4, 4, 1, 1), nn.SpatialFullConvolution(4, 4, 2, 2, 2, 2), nn.Tanh(),
    nn.SpecCustUnpool(p), nn.SpatialConvolution(4, 3, 3, 3, 1, 1, 1, 1))
end, imageInput)
net('(c) nn.SpatialMaxUnpooling', function()
  local p = nn.SpatialMaxPooling(2, 2, 2, 2)
  return seq(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1), nn.Tanh(), p,
    nn.SpatialConvolution(4, 4, 3, 3, 1, 1, 1, 1), nn.Tanh(), nn.SpatialMaxPooling(2, 2, 2, 2),
    nn.SpatialConvolution(4, 4, 1, 1), nn.SpatialFullConvolution(4, 4, 2, 2, 2, 2), nn.Tanh(),
    nn.SpatialMaxUnpooling(p), nn.SpatialConvolution(4, 3, 3, 3, 1, 1, 1, 1))
end, imageInput)
net('(d) a table of tensors in a field', function()
  return seq(lin(), nn.SpecCustTableHold(), lin(), nn.Tanh(), lin(), nn.SpecCustTableHold(), lin(), lin())
end)
net('(e) a skip connection several steps on', function()
  local a = lin()
  return seq(lin(), a, nn.Tanh(), lin(), nn.Tanh(), lin(), lin(), nn.SpecCustSkip(a), lin(), nn.Tanh(), lin())
end)
net('(e) a skip connection past ReLUs that could run in place', function()
  local a = lin()
  return seq(lin(), a, nn.ReLU(), lin(), nn.ReLU(), lin(), lin(), nn.SpecCustSkip(a), lin(), nn.Tanh(), lin())
end)
net('(e) a skip connection over a whole block', function()
  local blk = seq(lin(), nn.Tanh(), lin())
  return seq(lin(), blk, nn.ReLU(), lin(), nn.ReLU(), lin(), nn.SpecCustSkip(blk), lin(), nn.Tanh(), lin())
end)
net('a kept gradOutput', function()
  return seq(lin(), nn.SpecCustKeepGrad(N), nn.Tanh(), lin(), nn.SpecCustKeepGrad(N), lin(), lin())
end)
net('a container naming its children', function()
  return seq(lin(), nn.SpecCustPair(lin(), nn.Tanh()), lin(), nn.SpecCustPair(lin(), nn.ReLU()), lin())
end)

local function maxDiff(a, b)
  if torch.isTensor(a) then
    assert.are.same(a:size():totable(), b:size():totable())
    if a:nElement() == 0 then return 0 end
    local d = (a - b):abs():max()
    return d == d and d or math.huge   -- NaN (verify) counts as a difference
  end
  local m = 0
  for k, v in pairs(a) do m = math.max(m, maxDiff(v, b[k])) end
  return m
end

-- runs the plain net a and the optimized net b on batches B, B2, B (two
-- passes each) and asserts identical outputs, gradInputs and parameter
-- gradients
local function compare(entry, a, b, mode, B, B2)
  for _, bs in ipairs{B, B2, B} do
    torch.manualSeed(bs)
    local x = entry.input(bs)
    for pass = 1, 2 do
      local what = string.format('batch %d pass %d', bs, pass)
      local oa = a:forward(x):clone()
      assert(maxDiff(oa, b:forward(x)) == 0, what .. ': output differs')
      if mode == 'training' then
        local g = oa:clone():uniform(-1, 1)
        a:zeroGradParameters(); b:zeroGradParameters()
        local ga = a:backward(x, g):clone()
        assert(maxDiff(ga, b:backward(x, g)) == 0, what .. ': gradInput differs')
        local _, pa = a:parameters()
        local _, pb = b:parameters()
        assert(maxDiff(pa or {}, pb or {}) == 0, what .. ': gradParameters differ')
      end
    end
  end
end

local VARIANTS = {
  {what = 'fresh', opts = {}},
  {what = 'fresh, verify', opts = {verify = true}},
  {what = 'after running, verify', opts = {verify = true}, ran = true},
  {what = 'full-size trace, verify', opts = {verify = true, smallTrace = false}},
  {what = "recompute 'cheap', verify", opts = {verify = true, recompute = 'cheap'}, training = true},
  {what = "recompute 'sqrt', verify", opts = {verify = true, recompute = 'sqrt'}, training = true},
}

describe('optnet on custom modules', function()
  for _, name in ipairs(ORDER) do
    local entry = NETS[name]
    for _, mode in ipairs{'inference', 'training'} do
      it(name .. ', ' .. mode .. ': same numbers at the traced batch and at another', function()
        for _, v in ipairs(VARIANTS) do
          if v.training and mode ~= 'training' then goto next end
          torch.manualSeed(7)
          local a = entry.build():double()
          local b = a:clone()
          local x = entry.input(16)
          if v.ran then
            for _, n in ipairs{a, b} do
              local o = n:forward(x)
              if mode == 'training' then n:backward(x, o:clone():fill(0.1)) end
            end
          end
          local opts = {mode = mode}
          for k, o in pairs(v.opts) do opts[k] = o end
          optnet.optimizeMemory(b, x, opts)
          local ok, err = pcall(compare, entry, a, b, mode, 16, 9)
          if not ok then error(v.what .. ': ' .. tostring(err), 0) end
          ::next::
        end
      end)
    end
  end
end)

-- the trace and the plan of one pass (no optimization applied)
local function planOf(net, x, mode)
  local rec = trace.run(net, x, mode)
  local p = plan.intervals(rec, net, x, {mode = mode})
  local byId = {}
  for _, e in ipairs(p.entries) do byId[e.id] = e end
  local stepOf = {}
  for i, st in ipairs(rec.steps) do
    if st.kind == 'forward' then stepOf[st.module] = stepOf[st.module] or i end
  end
  return rec, byId, stepOf
end

describe('optnet custom modules: what is planned', function()
  it("keeps a module's output alive until the module holding it reads it (skip connection)", function()
    torch.manualSeed(1)
    local a = lin()
    local skip = nn.SpecCustSkip(a)
    local net = seq(lin(), a, nn.Tanh(), lin(), nn.Tanh(), lin(), skip, lin()):double()
    local x = rowInput(4)
    for _, mode in ipairs{'inference', 'training'} do
      local rec, byId, stepOf = planOf(net, x, mode)
      local e = byId[a.output:_storageId()]
      assert.is_not_nil(e, mode .. ': the held output is planned')
      assert(e.last >= stepOf[skip], mode .. ': alive until the holder runs')
      if mode == 'training' then
        local last = 0
        for i, st in ipairs(rec.steps) do if st.module == skip then last = i end end
        assert(e.last >= last, "alive until the holder's backward")
      end
    end
  end)

  it('plans a tensor a module holds in a field, in the arena (memory stays optimized)', function()
    torch.manualSeed(2)
    for _, name in ipairs{'(a) the input tensor in a field', '(b) a field :set() to the input',
                          '(d) a table of tensors in a field'} do
      for _, mode in ipairs{'inference', 'training'} do
        local net = NETS[name].build():double()
        optnet.optimizeMemory(net, rowInput(16), {mode = mode})
        net:forward(rowInput(16))
        local arena = net.output:_storageId()
        local h = net.modules[2]
        local t = rawget(h, 'saved') or h.hist[1]
        assert.are.equal(arena, t:_storageId(), name .. ', ' .. mode)
      end
    end
  end)

  it('no later in-place module overwrites a held output before its holder reads it', function()
    for _, mode in ipairs{'inference', 'training'} do
      torch.manualSeed(3)
      local net = NETS['(e) a skip connection past ReLUs that could run in place'].build():double()
      optnet.optimizeMemory(net, rowInput(16), {mode = mode})
      -- the ReLU right after the held Linear stays out of place; the other one is switched
      assert.is_false(net.modules[3].inplace, mode)
      assert.is_true(net.modules[5].inplace, mode)
    end
  end)

  it('memoryTraits().held narrows a held module to the fields read', function()
    for _, mode in ipairs{'inference', 'training'} do
      torch.manualSeed(4)
      local plain = NETS['(a) a tap read by a later module'].build():double()
      local declared = NETS['(a) a tap read by a later module that declares it'].build():double()
      optnet.optimizeMemory(plain, rowInput(16), {mode = mode})
      optnet.optimizeMemory(declared, rowInput(16), {mode = mode})
      -- the tap's output feeds modules[4], a ReLU: undeclared, the reader may
      -- read the tap's output, so the ReLU may not overwrite it
      assert.is_false(plain.modules[4].inplace, mode)
      assert.is_true(declared.modules[4].inplace, mode)
    end
  end)

  it("nn.SpatialMaxUnpooling keeps its pooling's indices, not its output", function()
    torch.manualSeed(5)
    local net, x = require('models').build('unpool', {batch = 4})
    local pool1 = net.modules[3]
    local unpool1 = net.modules[12]
    assert.are.equal('nn.SpatialMaxUnpooling', torch.type(unpool1))
    local _, byId, stepOf = planOf(net, x, 'inference')
    local idx = byId[pool1.indices:_storageId()]
    assert.is_not_nil(idx, 'the indices are planned')
    assert.are.equal(stepOf[unpool1], idx.last)
    assert.are.equal(stepOf[net.modules[4]], byId[pool1.output:_storageId()].last)
  end)

  it('leaves an undeclared buffer where it is', function()
    torch.manualSeed(6)
    local net = NETS['lazy buffer'].build():double()
    optnet.optimizeMemory(net, rowInput(16), {mode = 'training'})
    net:forward(rowInput(16))
    assert.are_not.equal(net.output:_storageId(), net.modules[2].buf:_storageId())
  end)

  it("a container's children in its named fields are no holdings", function()
    local pair = nn.SpecCustPair(lin(), nn.Tanh())
    local n = 0
    walk.holdings(pair, function() n = n + 1 end)
    assert.are.equal(0, n)
  end)

  it("leaves unplanned what a module reads from the last pass (a later module's output)", function()
    local function build()
      torch.manualSeed(8)
      local last = lin()
      return seq(lin(), nn.SpecCustFeedback(last), lin(), nn.Tanh(), lin(), last):double()
    end
    local x = rowInput(16)
    local net = build()
    local rec = trace.run(net, x, 'inference')
    assert.is_true(rec.heldEarly[net.modules[6].output:_storageId()])
    for _, mode in ipairs{'inference', 'training'} do
      local a, b = build(), build()
      optnet.optimizeMemory(b, x, {mode = mode, verify = true, smallTrace = false})
      assert.are_not.equal(b.modules[5].output:_storageId(), b.modules[6].output:_storageId())
      -- each trace runs one pass, which carries the value on as any forward
      -- would (a full-size trace, so at the input's batch): after the same
      -- passes, the numbers are the same
      a:forward(x)
      for _, y in ipairs{x, rowInput(16), rowInput(9), rowInput(9)} do
        if y:size(1) ~= a.output:size(1) then a:forward(y) end  -- b re-plans: its trace's pass
        assert(maxDiff(a:forward(y):clone(), b:forward(y)) == 0, mode)
      end
    end
  end)

  it('opts.reorder keeps module order where a branch holds what another makes', function()
    local function build(kind)
      torch.manualSeed(10)
      local big = seq(nn.Linear(N, 40), nn.Tanh(), nn.Linear(40, N))
      local ct
      if kind == 'skip' then
        local a = lin()
        ct = nn.ConcatTable():add(a):add(seq(big, nn.SpecCustSkip(a)))
      else
        local t = nn.SpecCustTap()
        ct = nn.ConcatTable():add(seq(t, lin())):add(seq(big, nn.SpecCustTapReader(t)))
      end
      return seq(lin(), ct, nn.CAddTable(), lin()):double()
    end
    for _, kind in ipairs{'skip', 'tap'} do
      for _, mode in ipairs{'inference', 'training'} do
        local a = build(kind)
        local b = a:clone()
        local x = rowInput(16)
        optnet.optimizeMemory(b, x, {mode = mode, reorder = true, verify = true})
        for _ = 1, 2 do
          assert(maxDiff(a:forward(x):clone(), b:forward(x)) == 0, kind .. ', ' .. mode)
        end
      end
    end
  end)

  it('the zoo unpool model re-plans at another batch', function()
    torch.manualSeed(9)
    local a, x = require('models').build('unpool', {batch = 8})
    a:evaluate()
    local b = a:clone()
    optnet.optimizeMemory(b, x, {mode = 'inference', verify = true})
    local y = x.new(3, 3, 16, 16):uniform()
    assert(maxDiff(a:forward(y):clone(), b:forward(y)) == 0)
    assert(maxDiff(a:forward(x):clone(), b:forward(x)) == 0)
  end)
end)

-- a container that writes its own buffer before its child runs (the
-- pattern of Decorator-style modules): the buffer lives from the start of
-- the container's method, so no child's tensor may take its memory
if not torch.getmetatable('nn.SpecCustBufFirst') then
  local M, parent = torch.class('nn.SpecCustBufFirst', 'nn.Container')
  function M:__init(child)
    parent.__init(self)
    self.modules = {child}
    self.buf = torch.Tensor()
  end
  function M:updateOutput(x)
    self.buf:resizeAs(x):copy(x):mul(2)
    local y = self.modules[1]:updateOutput(x)
    self.output:resizeAs(y):copy(y):add(self.buf)
    return self.output
  end
  function M:updateGradInput(x, go)
    local gi = self.modules[1]:updateGradInput(x, go)
    self.gradInput:resizeAs(gi):copy(gi):add(2, go)
    return self.gradInput
  end
  function M:accGradParameters(x, go, s) self.modules[1]:accGradParameters(x, go, s) end
  function M:memoryTraits()
    return {buffers = {buf = 'forward'}, needsInput = false, needsOutput = false}
  end
end

describe('optnet custom containers', function()
  local function build()
    torch.manualSeed(3)
    local inner = nn.Sequential():add(nn.Tanh()):add(nn.MulConstant(3)):add(nn.Tanh())
    return nn.Sequential():add(nn.Linear(6, 6)):add(nn.SpecCustBufFirst(inner)):add(nn.Linear(6, 2)):double()
  end

  it("plan a container's buffer from the start of its method, not from its step", function()
    local net = build()
    local x = torch.randn(4, 6)
    for _, mode in ipairs{'inference', 'training'} do
      local rec = trace.run(net, x, mode)
      local s = rec.storages[net.modules[2].buf:_storageId()]
      local firstChild
      for i, st in ipairs(rec.steps) do
        if st.module == net.modules[2].modules[1].modules[1] then firstChild = i; break end
      end
      assert(s.first <= firstChild, mode .. ': buffer from step ' .. s.first .. ', its first child runs at ' .. firstChild)
    end
  end)

  it('give the unoptimized numbers', function()
    for _, mode in ipairs{'inference', 'training'} do
      local ref, net = build(), build()
      local x = torch.randn(4, 6)
      optnet.optimizeMemory(net, x, {mode = mode, verify = true})
      local a = ref:forward(x):clone()
      assert.are.equal(0, (a - net:forward(x)):abs():max(), mode)
    end
  end)
end)

-- a container of the user's that declares no traits and writes its output
-- before its second child runs: its output lives from where its method
-- began (it once shared memory with the second child's tensors)
if not torch.getmetatable('nn.SpecCustEarlyOut') then
  local E, parent = torch.class('nn.SpecCustEarlyOut', 'nn.Container')
  function E:__init(a, b)
    parent.__init(self)
    self.modules = {a, b}
  end
  function E:updateOutput(x)
    local y1 = self.modules[1]:updateOutput(x)
    self.output:resizeAs(y1):copy(y1)
    local y2 = self.modules[2]:updateOutput(y1)
    self.output:add(y2)
    return self.output
  end
  function E:updateGradInput(x, go)
    local g2 = self.modules[2]:updateGradInput(self.modules[1].output, go)
    self._g = (self._g or go.new()):resizeAs(go):copy(go):add(g2)
    self.gradInput = self.modules[1]:updateGradInput(x, self._g)
    return self.gradInput
  end
  function E:accGradParameters(x, go, s)
    self.modules[2]:accGradParameters(self.modules[1].output, go, s)
    self.modules[1]:accGradParameters(x, self._g, s)
  end
end

describe('optnet custom containers that write their output early', function()
  local function build()
    torch.manualSeed(2)
    local deep = nn.Sequential()
    for _ = 1, 6 do deep:add(nn.Linear(8, 8)):add(nn.Tanh()) end
    return nn.Sequential():add(nn.Linear(8, 8)):add(nn.SpecCustEarlyOut(nn.Linear(8, 8), deep))
      :add(nn.Linear(8, 2)):double()
  end
  for _, mode in ipairs{'inference', 'training'} do
    it(mode .. ': give the unoptimized numbers', function()
      local ref, net = build(), build()
      if mode == 'inference' then ref:evaluate(); net:evaluate() end
      local x = torch.randn(4, 8)
      optnet.optimizeMemory(net, x, {mode = mode})
      assert.are.equal(0, (ref:forward(x) - net:forward(x)):abs():max())
      if mode == 'training' then
        local go = torch.randn(4, 2)
        assert.are.equal(0, (ref:backward(x, go) - net:backward(x, go)):abs():max())
      end
    end)
  end
end)
