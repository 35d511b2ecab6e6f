-- The 1x1 paths of nn.SpatialConvolution (src/nn/th_nn_conv.c,
-- src/nn/generic/conv.c; docs/dev/conv1x1.md): products per image on large
-- images, images grouped into one product on small ones (7x7, from enough
-- output planes, per phase), gradInput of an unpadded 1x1 written row by
-- row from the product (any stride, no col2im), gradBias summed per thread
-- beside gradWeight; and th_sgemm's choice between dot products and
-- packing for A times B^T. Every result against a reference computed here
-- in double precision from its definition (strided sampling, one matrix
-- product per image), for float and double modules, odd sizes, strides 2
-- and 3, batch 1, a single 3D image, 1 and 2 threads, gradients
-- accumulated with a scale. nn.SpatialConvolution has no groups.
require 'torch'
require 'nn'

-- the input positions a 1x1 window of stride d reads: 1, 1 + d, ...
local function sampled(x, dH, dW)
  local H, W = x:size(x:dim() - 1), x:size(x:dim())
  local rows, cols = {}, {}
  for i = 1, H, dH do rows[#rows + 1] = i end
  for j = 1, W, dW do cols[#cols + 1] = j end
  return x:index(x:dim() - 1, torch.LongTensor(rows)):index(x:dim(), torch.LongTensor(cols)),
    rows, cols
end

-- output, gradInput, gradWeight and gradBias of a 1x1 convolution by
-- definition, double: y_b = W xs_b + bias, gi_b at the sampled positions
-- = W^T dy_b (zero elsewhere), gw0 + scale sum_b dy_b xs_b^T, gb0 + scale
-- sum of dy
local function reference(w, bias, x, go, dH, dW, scale, gw0, gb0)
  local batch = x:dim() == 4
  local X = batch and x:double() or x:double():view(1, x:size(1), x:size(2), x:size(3))
  local G = batch and go:double() or go:double():view(1, go:size(1), go:size(2), go:size(3))
  local B, Cin, H, W = X:size(1), X:size(2), X:size(3), X:size(4)
  local Wm = w:double():view(w:size(1), Cin)
  local xs, rows, cols = sampled(X, dH, dW)
  local oH, oW, O = #rows, #cols, Wm:size(1)
  local y = torch.DoubleTensor(B, O, oH, oW)
  local gi = torch.DoubleTensor(B, Cin, H, W):zero()
  local gw = gw0:double():view(O, Cin):clone()
  local gb = gb0 and gb0:double():clone()
  for b = 1, B do
    local xb = xs[b]:contiguous():view(Cin, oH * oW)
    local gb_ = G[b]:contiguous():view(O, oH * oW)
    local yb = Wm * xb
    if bias then yb:add(bias:double():view(O, 1):expand(O, oH * oW)) end
    y[b]:copy(yb:view(O, oH, oW))
    local gis = (Wm:t() * gb_):view(Cin, oH, oW)
    for i, r in ipairs(rows) do
      for j, c in ipairs(cols) do gi[b]:select(2, r):select(2, c):copy(gis:select(2, i):select(2, j)) end
    end
    gw:add(scale, gb_ * xb:t())
    if gb then gb:add(scale, gb_:sum(2):view(O)) end
  end
  if not batch then y, gi = y[1], gi[1] end
  return {y, gi, gw:viewAs(gw0), gb}
end

local function relerr(a, b)
  local d = (a:double() - b:double()):abs():max()
  return d / math.max(torch.abs(b:double()):max(), 1e-300)
end

-- the module's forward, gradInput and gradWeight/gradBias accumulated with
-- 'scale' into non-zero gradients
local function run(m, x, go, scale)
  m.gradWeight:copy(torch.linspace(-1, 1, m.gradWeight:nElement()):viewAs(m.gradWeight))
  if m.gradBias then m.gradBias:fill(-0.25) end
  local gw0, gb0 = m.gradWeight:clone(), m.gradBias and m.gradBias:clone()
  local y = m:forward(x):clone()
  local gi = m:updateGradInput(x, go):clone()
  m:accGradParameters(x, go, scale)
  return {y, gi, m.gradWeight:clone(), m.gradBias and m.gradBias:clone()}, gw0, gb0
end

local function check(m, x, go, scale, bound, what)
  local r, gw0, gb0 = run(m, x, go, scale)
  local ref = reference(m.weight, m.bias, x, go, m.dH, m.dW, scale, gw0, gb0)
  for i = 1, 4 do
    if ref[i] then
      assert.are.same(ref[i]:size():totable(), r[i]:size():totable())
      local e = relerr(r[i], ref[i])
      assert.is_true(e < bound, what .. ' result ' .. i .. ': relative error ' .. e)
    end
  end
  return r
end

-- name, batch (0: one 3D image), planes in, planes out, H, W, stride,
-- bias; every batch above th_nn_threads_for's 2 MFLOP, so that 2 threads
-- split it
local SHAPES = {
  -- large images: one product per image, in place
  {'26x30, stride 1', 3, 17, 29, 26, 30, 1, true},
  -- 5x7 images: grouped in every phase (512 planes out), a last partial group
  {'5x7, 512 out, grouped', 5, 13, 512, 5, 7, 1, true},
  -- grouped for gradInput only (128 out), per image otherwise
  {'7x7, 128 out', 9, 19, 128, 7, 7, 1, false},
  -- few planes out: never grouped
  {'7x7, 16 out', 9, 150, 16, 7, 7, 1, true},
  {'batch of 1, 7x7', 1, 6, 300, 7, 7, 1, true},
  {'one 3D image', 0, 4, 6, 9, 11, 1, true},
  -- strided: columns gathered, gradInput written with zeros between
  {'9x11, stride 2', 5, 41, 200, 9, 11, 2, true},
  {'11x10, stride 3', 4, 61, 260, 11, 10, 3, true},
  {'one 3D image, stride 2', 0, 3, 4, 8, 7, 2, false},
  -- 61x62 stride 2: 31x31 outputs (961 columns, up to two tiles' worth),
  -- the subsampled image whole in one product, a last odd input row
  {'61x62, stride 2, whole image', 2, 20, 60, 61, 62, 2, true},
  -- 81x82 stride 2: 41x41 outputs, more than two tiles' columns: the
  -- gradInput in three tiles of rows, a last odd row
  {'81x82, stride 2, tiles of rows', 2, 20, 60, 81, 82, 2, true},
  {'13x13, stride 2, grouped', 7, 9, 512, 13, 13, 2, true},
}

describe('nn.SpatialConvolution 1x1 paths', function()
  local oldThreads
  before_each(function() oldThreads = torch.getnumthreads() end)
  after_each(function() torch.setnumthreads(oldThreads) end)

  for _, s in ipairs(SHAPES) do
    local name, B, nIn, nOut, H, W, d, bias = table.unpack(s)
    it('matches the definition: ' .. name .. ', float and double, 1 and 2 threads', function()
      torch.manualSeed(37)
      local m = nn.SpatialConvolution(nIn, nOut, 1, 1, d, d)
      if not bias then m:noBias() end
      local x = B == 0 and torch.DoubleTensor(nIn, H, W):uniform(-1, 1)
                        or torch.DoubleTensor(B, nIn, H, W):uniform(-1, 1)
      local oH, oW = math.floor((H - 1) / d) + 1, math.floor((W - 1) / d) + 1
      local go = B == 0 and torch.DoubleTensor(nOut, oH, oW):uniform(-1, 1)
                         or torch.DoubleTensor(B, nOut, oH, oW):uniform(-1, 1)
      for _, nt in ipairs{1, 2} do
        torch.setnumthreads(nt)
        check(m:clone():double(), x, go, 0.5, 1e-12, name .. ' double, ' .. nt .. ' threads')
        local mf = m:clone():float()
        local r = check(mf, x:float(), go:float(), 0.5, 2e-5, name .. ' float, ' .. nt .. ' threads')
        -- the split over threads is fixed: a second run repeats every bit
        local again = run(mf, x:float(), go:float(), 0.5)
        for i = 1, 4 do
          if r[i] then assert.are.equal(0, (r[i] - again[i]):abs():max()) end
        end
      end
    end)
  end

  it('writes every gradInput element of a strided 1x1, over stale values', function()
    -- the rows and columns a stride skips are zero in gradInput, whatever
    -- the tensor held before (it is written, not accumulated)
    torch.setnumthreads(2)
    for _, B in ipairs{2, 9} do
      local m = nn.SpatialConvolution(30, 256, 1, 1, 2, 2):float()
      local x = torch.FloatTensor(B, 30, 7, 9):uniform(-1, 1)
      local go = torch.FloatTensor(B, 256, 4, 5):uniform(-1, 1)
      m.gradInput = torch.FloatTensor(B, 30, 7, 9):fill(7)
      local gi = m:updateGradInput(x, go)
      for r = 2, 7, 2 do assert.are.equal(0, gi:select(3, r):abs():max()) end
      for c = 2, 9, 2 do assert.are.equal(0, gi:select(4, c):abs():max()) end
      local ref = reference(m.weight, nil, x, go, 2, 2, 1, m.gradWeight)[2]
      assert.is_true(relerr(gi, ref) < 2e-5)
    end
  end)

  it('sums gradBias beside gradWeight for 3x3 kernels too, with a scale, over two calls', function()
    torch.manualSeed(5)
    for _, nt in ipairs{1, 2} do
      torch.setnumthreads(nt)
      for _, B in ipairs{1, 3, 8} do
        local m = nn.SpatialConvolution(16, 40, 3, 3, 2, 2, 1, 1):float()
        local x = torch.FloatTensor(B, 16, 15, 13):uniform(-1, 1)
        local go = torch.FloatTensor(B, 40, 8, 7):uniform(-1, 1)
        m:forward(x)
        m.gradBias:fill(0.125)
        m:accGradParameters(x, go, 0.5)
        m:accGradParameters(x, go, -2)
        local want = go:double():sum(1):sum(3):sum(4):view(40):mul(0.5 - 2):add(0.125)
        assert.is_true(relerr(m.gradBias, want) < 1e-5, 'batch ' .. B .. ', ' .. nt .. ' threads')
      end
    end
  end)

  it('keeps the products of A times B^T right on both sides of the dot-product bound', function()
    -- gradWeight-like products (K long): dot products while B^T is small,
    -- the packed or flipped product once B^T outgrows torch.gemmInfo().dotBT
    torch.manualSeed(3)
    local bt = torch.gemmInfo().dotBT
    for _, s in ipairs{{16, 16, 1024}, {64, 64, 256}, {64, 64, 3136}, {256, 64, 3136},
                       {20, 33, math.floor(bt / 33) + 5}, {8, 256, 4096}} do
      local M, N, K = table.unpack(s)
      local a = torch.FloatTensor(M, K):uniform(-1, 1)
      local b = torch.FloatTensor(N, K):uniform(-1, 1)
      local c = torch.FloatTensor(M, N):mm(a, b:t())
      local ref = torch.DoubleTensor(M, N):mm(a:double(), b:double():t())
      assert.is_true(relerr(c, ref) < 1e-5, table.concat(s, 'x'))
    end
  end)
end)
