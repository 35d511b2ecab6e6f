-- optnet and views: a module's output may be a view of its own buffer
-- (nn.Contiguous, nn.View of a non-contiguous input), of its input
-- (Narrow, Select, Transpose, View, Squeeze, SplitTable) or a stride-0
-- expansion (Replicate). The trace follows storages, so such a view keeps
-- its base alive while it is used; a buffer another tensor views is not
-- released after its step; no module is switched to in place over
-- elements that alias one another, nor where its backward writes its
-- input back before another module reads it (a gModule). Each net is
-- compared exactly (double) with its unoptimized clone.
require 'torch'
require 'nn'
require 'nngraph'
local optnet = require 'optnet'
local walk = require 'optnet.walk'
local helpers = require 'spec.support.helpers'
local clone, identical, gradFor = helpers.clone, helpers.identical, helpers.gradFor

-- optimizes a clone of build() with opts and checks output (and in
-- training gradInput and gradParameters) against the net itself over two
-- passes, each on a fresh input like x; returns the optimized net
local function check(build, x, opts)
  opts = opts or {}
  local mode = opts.mode or 'inference'
  torch.manualSeed(3)
  local a = build():double()
  if mode == 'training' then a:training() else a:evaluate() end
  local b = a:clone()
  optnet.optimizeMemory(b, clone(x), opts)
  local _, ga = a:parameters()
  local _, gb = b:parameters()
  for pass = 1, 2 do
    torch.manualSeed(10 + pass)
    local input = x:clone():normal()
    local oa = clone(a:forward(clone(input)))
    identical(oa, b:forward(clone(input)), 'pass ' .. pass .. ' output')
    if mode == 'training' then
      local g = gradFor(oa, 20 + pass)
      a:zeroGradParameters(); b:zeroGradParameters()
      local gia = clone(a:backward(clone(input), clone(g)))
      identical(gia, b:backward(clone(input), clone(g)), 'pass ' .. pass .. ' gradInput')
      for i = 1, #(ga or {}) do identical(ga[i], gb[i], 'pass ' .. pass .. ' gradParameter ' .. i) end
    end
  end
  return b
end

-- what optimizeMemory writes on stderr with verbose = true
local function verboseNotes(build, x, opts)
  local notes, saved = {}, io.stderr
  io.stderr = {write = function(_, s) notes[#notes + 1] = s end}
  local ok, err = pcall(function()
    local o = {verbose = true}
    for k, v in pairs(opts or {}) do o[k] = v end
    local net = build():double()
    if o.mode == 'training' then net:training() else net:evaluate() end
    optnet.optimizeMemory(net, x, o)
  end)
  io.stderr = saved
  assert(ok, err)
  return table.concat(notes)
end

local function seq(...)
  local s = nn.Sequential()
  for _, m in ipairs{...} do s:add(m) end
  return s
end

local OPTIONS = {{}, {inplace = false}, {reuseBuffers = false}, {verify = true}}

describe('optnet: a buffer viewed by the output', function()
  it('Parallel with a Contiguous branch (non-contiguous input copied into a forward-only buffer)', function()
    check(function()
      return nn.Parallel(2, 2):add(nn.Identity()):add(nn.Identity()):add(nn.Contiguous()):add(nn.Identity())
    end, torch.randn(2, 4, 5))
  end)

  it('Concat of Contiguous and Identity in training, verify = true (NaN-filled dead slots)', function()
    check(function() return nn.Concat(2):add(nn.Contiguous()):add(nn.Identity()) end,
          torch.randn(4, 5), {mode = 'training', verify = true})
  end)

  it('Replicate then Contiguous then Threshold: the copy outlives its step', function()
    check(function() return seq(nn.Replicate(3, 1, 1), nn.Contiguous(), nn.Threshold()) end, torch.randn(4, 5))
  end)

  -- a module whose output is its forward-only buffer itself
  local BufOut = torch.class('nn.OptnetAliasSpecBufOut', 'nn.Module')
  function BufOut:__init()
    nn.Module.__init(self)
    self._buf = torch.Tensor()
  end
  function BufOut:updateOutput(x)
    self._buf:resizeAs(x):copy(x):mul(2)
    self.output = self._buf
    return self.output
  end
  function BufOut:updateGradInput(_, g)
    self.gradInput:resizeAs(g):copy(g):mul(2)
    return self.gradInput
  end
  function BufOut:memoryTraits() return {buffers = {_buf = 'forward'}, needsInput = false, needsOutput = false} end

  it('a buffer that is the output tensor itself is kept after its step', function()
    local function build() return seq(nn.Linear(5, 5), nn.OptnetAliasSpecBufOut(), nn.Tanh()) end
    check(build, torch.randn(3, 5), {mode = 'training', verify = true})
    check(build, torch.randn(3, 5))
  end)

  -- the issue's first net (at 32x32): per-channel Contiguous + View +
  -- convolution in a Parallel; batch 12 also goes through the small traces
  local function convNet()
    local conv = seq(nn.Contiguous(), nn.View(-1, 1, 32, 32), nn.SpatialConvolution(1, 8, 7, 7, 2, 2, 3, 3))
    local p = nn.Parallel(2, 2):add(conv):add(conv:clone()):add(conv:clone())
    return seq(p, nn.ReLU(true), nn.SpatialConvolution(24, 16, 1, 1), nn.ReLU(true))
  end
  for _, B in ipairs{2, 12} do
    it('Parallel of Contiguous + View + convolution, batch ' .. B .. ', inference and training', function()
      check(convNet, torch.randn(B, 3, 32, 32))
      check(convNet, torch.randn(B, 3, 32, 32), {mode = 'training'})
    end)
  end
end)

describe('optnet: in place over overlapping elements', function()
  it('walk.nonOverlapping tells views whose elements alias one another', function()
    local t = torch.randn(4, 5)
    assert.is_true(walk.nonOverlapping(t))
    assert.is_true(walk.nonOverlapping(t:t()))
    assert.is_true(walk.nonOverlapping(t:narrow(2, 2, 3)))
    assert.is_true(walk.nonOverlapping(t:view(4, 1, 5):expand(4, 1, 5)))
    assert.is_true(walk.nonOverlapping(torch.randn(1):expand(1)))
    assert.is_false(walk.nonOverlapping(t:view(1, 4, 5):expand(3, 4, 5)))
    assert.is_false(walk.nonOverlapping(torch.randn(6):unfold(1, 3, 1)))
    assert.is_true(walk.nonOverlapping(torch.randn(6):unfold(1, 3, 3)))
    assert.is_true(walk.nonOverlapping(torch.Tensor()))
  end)

  for _, name in ipairs{'MulConstant', 'LeakyReLU', 'ReLU', 'AddConstant'} do
    it(name .. ' after Replicate (a stride-0 view) stays out of place, inference and training', function()
      local function build()
        local act = name == 'MulConstant' and nn.MulConstant(2) or name == 'AddConstant' and nn.AddConstant(1)
                    or name == 'LeakyReLU' and nn.LeakyReLU(0.1) or nn.ReLU()
        return seq(nn.Linear(5, 5), nn.Replicate(3, 1, 1), act)
      end
      local b = check(build, torch.randn(4, 5))
      assert.is_false(b:get(3).inplace)
      check(build, torch.randn(4, 5), {mode = 'training'})
      assert.truthy(verboseNotes(build, torch.randn(4, 5)):find(
        'stays out of place (forward: its input is a view whose elements overlap', 1, true))
    end)
  end

  -- a module whose gradInput is a stride-0 expansion of its gradOutput
  local SumRows = torch.class('nn.OptnetAliasSpecSumRows', 'nn.Module')
  function SumRows:updateOutput(input)
    self.output:resize(input:size(1), 1):sum(input, 2)
    return self.output
  end
  function SumRows:updateGradInput(input, gradOutput)
    self.gradInput:set(gradOutput:expand(input:size(1), input:size(2)))
    return self.gradInput
  end
  function SumRows:memoryTraits() return {buffers = {}, needsInput = false, needsOutput = false} end

  it('a gradOutput with overlapping elements (an expanded gradInput) keeps the module out of place', function()
    local function build() return seq(nn.Linear(5, 5), nn.MulConstant(3), nn.OptnetAliasSpecSumRows()) end
    local b = check(build, torch.randn(4, 5), {mode = 'training'})
    assert.is_false(b:get(2).inplace)
    assert.truthy(verboseNotes(build, torch.randn(4, 5), {mode = 'training'}):find(
      'stays out of place (backward: its gradOutput is a view whose elements overlap', 1, true))
  end)
end)

describe('optnet: in place where backward writes the input back', function()
  -- x -> Linear -> AddConstant -> Linear: in a gModule the second Linear
  -- takes its gradWeight after AddConstant's backward has written its input back
  local function graph(first, act)
    return function()
      local x = nn.Identity()()
      local h = act()(first()(x))
      return nn.gModule({x}, {nn.Linear(3, 2)(h)})
    end
  end
  local linear = function() return nn.Linear(3, 3) end

  it('gModule Linear -> AddConstant -> Linear, training: AddConstant in place, the gradient steps refused apart', function()
    -- gModule:backward takes each node's gradient step with its derivative
    -- step, as Sequential: the Linear has its gradWeight before the
    -- AddConstant writes its input back, so the switch is safe (check
    -- compares every number with the plain net's); a whole-net
    -- updateGradInput then accGradParameters, which would read the restored
    -- input, is refused on the optimized net
    local b = check(graph(linear, function() return nn.AddConstant(1) end), torch.randn(2, 3), {mode = 'training'})
    local n = 0
    for _, m in ipairs(b:listModules()) do
      if torch.type(m) == 'nn.AddConstant' then assert.is_true(m.inplace); n = n + 1 end
    end
    assert.are.equal(1, n)
  end)

  it('a module that writes its input back stays out of place when a later step reads the storage', function()
    -- the same hazard in forward order: the AddConstant's input is also an
    -- output of the graph, read after the AddConstant's backward put it back
    local function build()
      local x = nn.Identity()()
      local h = nn.Linear(3, 3)(x)
      return nn.gModule({x}, {nn.Linear(3, 2)(nn.AddConstant(1)(h)), nn.Tanh()(h)})
    end
    local b = check(build, torch.randn(2, 3), {mode = 'training'})
    for _, m in ipairs(b:listModules()) do
      if torch.type(m) == 'nn.AddConstant' then assert.is_false(m.inplace) end
    end
  end)

  it('gModule batch norm -> AddConstant -> convolution, training', function()
    check(function()
      local x = nn.Identity()()
      local h = nn.AddConstant(1)(nn.SpatialBatchNormalization(3)(x))
      return nn.gModule({x}, {nn.SpatialConvolution(3, 2, 1, 1)(h)})
    end, torch.randn(2, 3, 4, 4), {mode = 'training'})
  end)

  it('the same chain in a Sequential still runs AddConstant in place', function()
    local b = check(function() return seq(nn.Linear(3, 3), nn.AddConstant(1), nn.Linear(3, 2)) end,
                    torch.randn(2, 3), {mode = 'training'})
    assert.is_true(b:get(2).inplace)
  end)
end)

describe("optnet: the caller's input written through a view", function()
  -- the user's own in-place module writes into the input through
  -- SplitTable's views: each trace must leave the input as it found it
  local function build()
    return seq(nn.SplitTable(2), nn.SelectTable(1), nn.MulConstant(2, true), nn.Linear(5, 2))
  end

  it('optimizeMemory leaves the input as it was', function()
    torch.manualSeed(1)
    local x = torch.randn(4, 3, 5)
    local x0 = x:clone()
    optnet.optimizeMemory(build():double(), x)
    identical(x0, x, 'input after optimizeMemory')
  end)

  it('a re-plan (new batch size, :float()) runs the forward on the input as given', function()
    torch.manualSeed(1)
    local a = build():double()
    local b = a:clone()
    optnet.optimizeMemory(b, torch.randn(4, 3, 5))
    local x = torch.randn(6, 3, 5)
    identical(a:forward(x:clone()), b:forward(x:clone()), 'output after re-planning for batch 6')
    a, b = a:float(), b:float()
    identical(a:forward(x:float()), b:forward(x:float()), 'output after :float()')
  end)
end)

describe('optnet: a view of its own output kept in a state field', function()
  -- a module keeping a view of its output in a field of its own: the
  -- storage stays where it is (the field may carry data across passes)
  local KeepView = torch.class('nn.OptnetAliasSpecKeepView', 'nn.Module')
  function KeepView:updateOutput(x)
    self.output:resizeAs(x):copy(x):mul(2)
    self.last = self.output:view(-1)
    return self.output
  end
  function KeepView:updateGradInput(_, g)
    self.gradInput:resizeAs(g):copy(g):mul(2)
    return self.gradInput
  end

  it('is not planned, exact, and the verbose report says why', function()
    local function build() return seq(nn.Linear(5, 5), nn.OptnetAliasSpecKeepView(), nn.Tanh()) end
    local b = check(build, torch.randn(3, 5))
    local kv = b:get(2)
    assert.are.equal(kv.output:_storageId(), kv.last:_storageId())
    check(build, torch.randn(3, 5), {mode = 'training'})
    assert.truthy(verboseNotes(build, torch.randn(3, 5)):find(
      'nn.OptnetAliasSpecKeepView.last views its own output (120 bytes): not shared', 1, true))
  end)
end)

describe('optnet: views inside containers', function()
  local C, L = 4, 5
  local NETS = {
    ['Concat of Narrow branches'] = function()
      return nn.Concat(2):add(seq(nn.Narrow(2, 1, 1), nn.Contiguous(), nn.ReLU()))
                         :add(seq(nn.Narrow(2, 2, C - 1), nn.MulConstant(2)))
    end,
    ['ConcatTable of Select + Unsqueeze, JoinTable'] = function()
      local ct = nn.ConcatTable()
      for i = 1, C do ct:add(seq(nn.Select(2, i), nn.LeakyReLU(0.1), nn.Unsqueeze(2))) end
      return seq(ct, nn.JoinTable(2))
    end,
    ['SplitTable + ParallelTable'] = function()
      local pt = nn.ParallelTable()
      for _ = 1, C do pt:add(seq(nn.AddConstant(1), nn.Unsqueeze(2))) end
      return seq(nn.SplitTable(2), pt, nn.JoinTable(2))
    end,
    ['Transpose + Reshape + View'] = function()
      return seq(nn.Transpose({2, 3}), nn.Reshape(C * L, true), nn.Threshold(0.1, 0),
                 nn.View(L, C):setNumInputDims(1), nn.Transpose({2, 3}), nn.Tanh())
    end,
    ['Replicate + Sum in a residual'] = function()
      return seq(nn.ConcatTable():add(nn.Identity()):add(seq(nn.Replicate(2, 2), nn.ReLU(), nn.Sum(2))),
                 nn.CAddTable())
    end,
    ['Parallel of Contiguous + Squeeze'] = function()
      local p = nn.Parallel(2, 2)
      for _ = 1, C do p:add(seq(nn.MulConstant(3), nn.Contiguous(), nn.Unsqueeze(2), nn.Squeeze(2), nn.Unsqueeze(2))) end
      return seq(nn.Transpose({2, 3}), nn.Transpose({2, 3}), p)
    end,
    ['gModule of views'] = function()
      local x = nn.Identity()()
      local t = nn.Contiguous()(nn.Transpose({2, 3})(x))
      local a = nn.Transpose({2, 3})(nn.ReLU()(t))
      local v = nn.View(C, L, 1):setNumInputDims(2)(a)
      local c = nn.View(C, L):setNumInputDims(3)(nn.SpatialConvolution(C, C, 1, 1)(nn.AddConstant(1)(v)))
      return nn.gModule({x}, {nn.CAddTable()({c, nn.Narrow(2, 1, C)(x)})})
    end,
  }
  local names = {}
  for name in pairs(NETS) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    it(name .. ': inference and training, with each option', function()
      for _, mode in ipairs{'inference', 'training'} do
        for _, o in ipairs(OPTIONS) do
          local opts = {mode = mode}
          for k, v in pairs(o) do opts[k] = v end
          check(NETS[name], torch.randn(3, C, L), opts)
        end
      end
    end)
  end
end)

describe('optnet in place where the gradOutput has another size than the input', function()
  -- a CAddTable of a 6x4 and a 4x6 tensor hands the second branch a 6x4
  -- gradOutput; out of place ELU's gradInput takes its input's 4x6, in
  -- place it would be the 6x4 gradOutput itself, and the Transpose before
  -- it reorders the elements otherwise (gradInput off by 3.03)
  it('stays out of place and the net is exact', function()
    torch.setdefaulttensortype('torch.DoubleTensor')
    torch.manualSeed(1)
    local net = nn.Sequential():add(nn.Transpose({1, 2}))
      :add(nn.ConcatTable():add(nn.Sequential():add(nn.Tanh()))
        :add(nn.Sequential():add(nn.Transpose({1, 2})):add(nn.ELU())))
      :add(nn.CAddTable(true)):add(nn.BatchNormalization(4))
    local ref = net:clone()
    local x, go = torch.randn(4, 6), torch.randn(6, 4)
    require('optnet').optimizeMemory(net, x:clone(), {mode = 'training'})
    assert.is_false(net:get(2):get(2):get(2).inplace)
    local function run(m)
      m:zeroGradParameters()
      local y = m:forward(x:clone()):clone()
      return y, m:backward(x:clone(), go:clone()):clone(), m:get(4).gradWeight:clone()
    end
    local y1, g1, w1 = run(net)
    local y2, g2, w2 = run(ref)
    assert.are.equal(0, (y1 - y2):abs():max())
    assert.are.equal(0, (g1 - g2):abs():max())
    assert.are.equal(0, (w1 - w2):abs():max())
  end)
end)
