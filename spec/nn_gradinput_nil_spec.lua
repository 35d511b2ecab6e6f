-- gradInput = nil: Torch7's modules checked `if self.gradInput then` and
-- computed none (fb.resnet.torch sets it on its first layer to save the
-- work and memory). The same modules here: updateGradInput and backward
-- return nil, accGradParameters gives the weight gradients bit for bit as
-- with gradInput kept, and the module saves and loads so. Containers take a
-- child without one; containers and table modules without their own
-- output or gradInput make it again instead of indexing nil.
require 'nn'

local function gradLike(o)
  if torch.isTensor(o) then return o:clone():fill(0.5) end
  local g = {}
  for k, v in pairs(o) do g[k] = gradLike(v) end
  return g
end

local function rand(...) return torch.randn(...) end

-- the classes whose Torch7 counterpart honours gradInput = nil (and
-- LookupTable, whose gradInput is zeros anyway), with an input each
local honouring = {
  {'Linear', function() return nn.Linear(3, 2) end, function() return rand(4, 3) end},
  {'Add', function() return nn.Add(3) end, function() return rand(4, 3) end},
  {'CAdd', function() return nn.CAdd(3) end, function() return rand(4, 3) end},
  {'CMul', function() return nn.CMul(3) end, function() return rand(4, 3) end},
  {'Bilinear', function() return nn.Bilinear(2, 3, 4) end, function() return {rand(2, 2), rand(2, 3)} end},
  {'Cosine', function() return nn.Cosine(3, 2) end, function() return rand(4, 3) end},
  {'Euclidean', function() return nn.Euclidean(3, 2) end, function() return rand(4, 3) end},
  {'WeightedEuclidean', function() return nn.WeightedEuclidean(3, 2) end, function() return rand(4, 3) end},
  {'MulConstant', function() return nn.MulConstant(2) end, function() return rand(4, 3) end},
  {'PartialLinear', function() return nn.PartialLinear(3, 4) end, function() return rand(2, 3) end},
  {'LookupTable', function() return nn.LookupTable(10, 3) end, function() return torch.LongTensor({1, 2, 3, 2}) end},
  {'SpatialAveragePooling', function() return nn.SpatialAveragePooling(2, 2) end, function() return rand(2, 2, 4, 4) end},
  {'SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1) end,
   function() return rand(2, 2, 5, 5) end},
  {'SpatialConvolution without bias', function() return nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1):noBias() end,
   function() return rand(2, 2, 5, 5) end},
  {'SpatialConvolutionMM', function() return nn.SpatialConvolutionMM(2, 3, 3, 3) end, function() return rand(2, 2, 5, 5) end},
  {'SpatialConvolutionLocal', function() return nn.SpatialConvolutionLocal(2, 3, 5, 5, 3, 3) end,
   function() return rand(2, 2, 5, 5) end},
  {'SpatialDepthWiseConvolution', function() return nn.SpatialDepthWiseConvolution(2, 2, 3, 3) end,
   function() return rand(2, 2, 5, 5) end},
  {'SpatialDilatedConvolution', function() return nn.SpatialDilatedConvolution(2, 3, 3, 3, 1, 1, 1, 1, 2, 2) end,
   function() return rand(2, 2, 7, 7) end},
  {'SpatialFullConvolution', function() return nn.SpatialFullConvolution(2, 3, 3, 3) end,
   function() return rand(2, 2, 4, 4) end},
  {'SpatialSubSampling', function() return nn.SpatialSubSampling(2, 2, 2) end, function() return rand(2, 2, 4, 4) end},
  {'SpatialConvolutionMap', function() return nn.SpatialConvolutionMap(nn.tables.full(2, 3), 3, 3) end,
   function() return rand(2, 5, 5) end},
  {'SpatialFullConvolutionMap', function() return nn.SpatialFullConvolutionMap(nn.tables.full(2, 3), 3, 3) end,
   function() return rand(2, 5, 5) end},
  {'TemporalConvolution', function() return nn.TemporalConvolution(3, 4, 2) end, function() return rand(5, 3) end},
  {'TemporalSubSampling', function() return nn.TemporalSubSampling(3, 2) end, function() return rand(5, 3) end},
  {'TemporalRowConvolution', function() return nn.TemporalRowConvolution(3, 2) end, function() return rand(5, 3) end},
  {'TemporalMaxPooling', function() return nn.TemporalMaxPooling(2) end, function() return rand(5, 3) end},
  {'TemporalDynamicKMaxPooling', function() return nn.TemporalDynamicKMaxPooling(2) end, function() return rand(5, 3) end},
  {'VolumetricConvolution', function() return nn.VolumetricConvolution(1, 2, 2, 2, 2) end,
   function() return rand(1, 3, 3, 3) end},
  {'VolumetricDilatedConvolution', function() return nn.VolumetricDilatedConvolution(1, 2, 2, 2, 2) end,
   function() return rand(1, 3, 3, 3) end},
  {'VolumetricFullConvolution', function() return nn.VolumetricFullConvolution(1, 2, 2, 2, 2) end,
   function() return rand(1, 3, 3, 3) end},
  {'BatchNormalization', function() return nn.BatchNormalization(3) end, function() return rand(4, 3) end},
  {'SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(2) end,
   function() return rand(2, 2, 3, 3) end},
  {'VolumetricBatchNormalization', function() return nn.VolumetricBatchNormalization(2) end,
   function() return rand(2, 2, 2, 3, 3) end},
  {'SplitTable', function() return nn.SplitTable(1) end, function() return rand(2, 3) end},
}

describe('gradInput = nil', function()
  for _, c in ipairs(honouring) do
    it(c[1] .. ': computes none, the same weight gradients, saved and loaded so', function()
      torch.manualSeed(3)
      local a = c[2]()
      local b = a:clone()
      b.gradInput = nil
      local x = c[3]()
      local ya = a:forward(x)
      local yb = b:forward(x)
      a:zeroGradParameters()
      b:zeroGradParameters()
      local ga = a:backward(x, gradLike(ya))
      assert.is_not_nil(ga)
      assert.is_nil(b:updateGradInput(x, gradLike(yb)))
      assert.is_nil(b:backward(x, gradLike(yb)))
      assert.is_nil(b.gradInput)
      -- backward ran accGradParameters once on each side of the comparison
      a:zeroGradParameters()
      b:zeroGradParameters()
      a:backward(x, gradLike(ya))
      b:backward(x, gradLike(yb))
      local wa, gwa = a:parameters()
      local _, gwb = b:parameters()
      for i = 1, #(gwa or {}) do
        assert.is_true(gwa[i]:equal(gwb[i]), 'gradient ' .. i .. ' differs')
      end
      for _, mode in ipairs({'binary', 'ascii'}) do
        local l = torch.deserialize(torch.serialize(b, mode), mode)
        assert.is_nil(l.gradInput)
        l:forward(x)
        l:zeroGradParameters()
        assert.is_nil(l:backward(x, gradLike(yb)))
        local _, gwl = l:parameters()
        for i = 1, #(gwa or {}) do
          -- ascii keeps 17 significant digits: the same doubles
          assert.is_true(gwa[i]:equal(gwl[i]), mode .. ': gradient ' .. i .. ' differs')
        end
      end
      assert.is_true(wa == nil or #wa >= 0)
    end)
  end

  it('a Sequential whose first module has none: backward returns nil, the weight gradients are the same', function()
    torch.manualSeed(4)
    local a = nn.Sequential():add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(4))
      :add(nn.ReLU(true)):add(nn.View(-1):setNumInputDims(3)):add(nn.Linear(4 * 25, 2))
    local b = a:clone()
    b:get(1).gradInput = nil
    local x = rand(3, 3, 5, 5)
    local go = rand(3, 2)
    a:forward(x)
    b:forward(x)
    a:zeroGradParameters()
    b:zeroGradParameters()
    assert.is_not_nil(a:backward(x, go))
    assert.is_nil(b:backward(x, go))
    assert.is_nil(b.gradInput)
    local _, ga = a:getParameters()
    local _, gb = b:getParameters()
    assert.is_true(ga:equal(gb))
    assert.is_true(torch.abs(ga):sum() > 0)
    -- updateGradInput + accGradParameters as separate calls too
    b:zeroGradParameters()
    assert.is_nil(b:updateGradInput(x, go))
    b:accGradParameters(x, go)
    local _, gb2 = b:getParameters()
    assert.is_true(ga:equal(gb2))
  end)

  it('an nngraph gModule whose first module has none: backward returns nil, the same weight gradients', function()
    require 'nngraph'
    torch.manualSeed(5)
    local i1 = nn.Identity()()
    local l1 = nn.Linear(3, 3)
    local g = nn.gModule({i1}, {nn.Linear(3, 2)(nn.Tanh()(l1(i1)))})
    local ref = g:clone()
    l1.gradInput = nil
    local x, go = rand(4, 3), rand(4, 2)
    g:forward(x)
    ref:forward(x)
    g:zeroGradParameters()
    ref:zeroGradParameters()
    assert.is_nil(g:backward(x, go))
    assert.is_not_nil(ref:backward(x, go))
    local _, a = g:getParameters()
    local _, b = ref:getParameters()
    assert.is_true(a:equal(b))
    local back = torch.deserialize(torch.serialize(g))
    back:forward(x)
    assert.is_nil(back:backward(x, go))
  end)

  it('a module inside a Sequential that returns none gives the next module a clear error', function()
    local s = nn.Sequential():add(nn.Linear(3, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
    s:get(3).gradInput = nil
    local x = rand(2, 3)
    s:forward(x)
    local ok, err = pcall(s.backward, s, x, rand(2, 2))
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find('In 2 module of nn.Sequential:\nnn.ReLU:updateGradInput: gradOutput must be a tensor, got nil',
                                        1, true), tostring(err))
  end)

  it('branching containers take a child that computes none', function()
    torch.manualSeed(6)
    local x = rand(2, 3)
    -- Concat sums the others' gradInputs; Parallel zeroes the slice of that child
    local c = nn.Concat(2):add(nn.Linear(3, 3)):add(nn.Linear(3, 2))
    local cref = c:clone()
    c:get(1).gradInput = nil
    local go = rand(2, 5)
    c:forward(x)
    cref:forward(x)
    assert.is_true(c:backward(x, go):equal(cref:get(2):backward(x, go:narrow(2, 4, 2))))
    local p = nn.Parallel(1, 1):add(nn.Linear(3, 2)):add(nn.Linear(3, 1)):keepGradInputs(true)  -- (read below)
    p:get(1).gradInput = nil
    p:forward(x)
    local gi = p:backward(x, rand(3))
    assert.are.same({0, 0, 0}, gi[1]:totable())
    assert.is_true(gi[2]:equal(p:get(2).gradInput))
    -- ParallelTable and MapTable keep a hole; ConcatTable names the module
    local pt = nn.ParallelTable():add(nn.Linear(3, 3)):add(nn.Linear(3, 2))
    pt:get(1).gradInput = nil
    local xs = {rand(2, 3), rand(2, 3)}
    local gis = pt:backward(xs, gradLike(pt:forward(xs)))
    assert.is_nil(gis[1])
    assert.are.same({2, 3}, gis[2]:size():totable())
    local ct = nn.ConcatTable():add(nn.Linear(3, 3)):add(nn.Identity())
    ct:get(1).gradInput = nil
    local ok, err = pcall(ct.backward, ct, x, gradLike(ct:forward(x)))
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find('nn.ConcatTable:backward: gradInput of module 1 must be a tensor like the input, got nil',
                                        1, true), tostring(err))
  end)

  -- containers and table modules whose own output or gradInput is gone
  -- (set to nil, or read from a file without it) make it again
  local t2 = function() return {rand(2, 3), rand(2, 3)} end
  local own = {
    {'ParallelTable', function() return nn.ParallelTable():add(nn.Linear(3, 2)):add(nn.Identity()) end, t2},
    {'ConcatTable', function() return nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()) end,
     function() return rand(2, 3) end},
    {'ConcatTable of tables', function() return nn.ConcatTable():add(nn.SelectTable(1)):add(nn.Identity()) end, t2},
    {'MapTable', function() return nn.MapTable(nn.Linear(3, 2)) end, t2},
    {'JoinTable', function() return nn.JoinTable(2) end, t2},
    {'CAddTable', function() return nn.CAddTable() end, t2},
    {'CMulTable', function() return nn.CMulTable() end, t2},
    {'SelectTable', function() return nn.SelectTable(2) end, t2},
    {'NarrowTable', function() return nn.NarrowTable(1, 2) end, t2},
    {'Concat', function() return nn.Concat(2):add(nn.Linear(3, 2)):add(nn.Tanh()) end, function() return rand(2, 3) end},
    {'DepthConcat', function() return nn.DepthConcat(2):add(nn.Linear(3, 2)):add(nn.Tanh()) end,
     function() return rand(2, 3) end},
    {'Parallel', function() return nn.Parallel(1, 1):add(nn.Linear(3, 2)):add(nn.Linear(3, 1)) end,
     function() return rand(2, 3) end},
    {'Sequential', function() return nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh()) end,
     function() return rand(2, 3) end},
    {'Bottle', function() return nn.Bottle(nn.Linear(3, 2)) end, function() return rand(2, 4, 3) end},
  }
  for _, c in ipairs(own) do
    it(c[1] .. ' without its own output and gradInput runs as a fresh one', function()
      torch.manualSeed(8)
      local ref = c[2]()
      local m = ref:clone()
      m.output, m.gradInput = nil, nil
      local x = c[3]()
      local ya, yb = ref:forward(x), m:forward(x)
      assert.are.same(torch.isTensor(ya) and ya:totable() or #ya, torch.isTensor(yb) and yb:totable() or #yb)
      local ga, gb = ref:backward(x, gradLike(ya)), m:backward(x, gradLike(yb))
      if torch.isTensor(ga) then
        assert.is_true(ga:equal(gb))
      else
        assert.are.equal(#ga, #gb)
        for i = 1, #ga do assert.is_true(ga[i]:equal(gb[i])) end
      end
    end)
  end
end)
