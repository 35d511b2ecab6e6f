-- the volumetric modules' numbers against Torch7's formulas (direct loops
-- over small volumes, or 2D convolutions slice by slice) and against values
-- computed by hand: output sizes, padding, ceil mode, dilation, adj, the
-- {input, target} form, indices, count_include_pad, fractional regions,
-- replication, batch statistics and dropout masks.
require 'torch'
require 'nn'

local function near(a, b, tol, what)
  assert.are.same(a:size():totable(), b:size():totable(), what)
  local d = (a:double() - b:double()):abs():max()
  assert(d <= (tol or 1e-10), string.format('%s: differs by %g', what or 'tensors', d))
end

-- Torch7's 3D convolution, by its definition (x: C x T x H x W)
local function conv3d(x, w, b, d, pad, dil)
  local O, C, kT, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4), w:size(5)
  local T, H, W = x:size(2), x:size(3), x:size(4)
  local function osz(i, k, s, p, l) return math.floor((i + 2 * p - (l * (k - 1) + 1)) / s) + 1 end
  local oT, oH, oW = osz(T, kT, d[1], pad[1], dil[1]), osz(H, kH, d[2], pad[2], dil[2]), osz(W, kW, d[3], pad[3], dil[3])
  local y = torch.zeros(O, oT, oH, oW)
  for o = 1, O do for t = 1, oT do for i = 1, oH do for j = 1, oW do
    local s = b and b[o] or 0
    for c = 1, C do for a = 1, kT do for p = 1, kH do for q = 1, kW do
      local tt = (t - 1) * d[1] - pad[1] + (a - 1) * dil[1] + 1
      local ii = (i - 1) * d[2] - pad[2] + (p - 1) * dil[2] + 1
      local jj = (j - 1) * d[3] - pad[3] + (q - 1) * dil[3] + 1
      if tt >= 1 and tt <= T and ii >= 1 and ii <= H and jj >= 1 and jj <= W then
        s = s + w[o][c][a][p][q] * x[c][tt][ii][jj]
      end
    end end end end
    y[o][t][i][j] = s
  end end end end
  return y
end

-- Torch7's full convolution: every input cell scatters weight * value
local function fullconv3d(x, w, b, d, pad, adj)
  local C, O, kT, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4), w:size(5)
  local T, H, W = x:size(2), x:size(3), x:size(4)
  local oT = (T - 1) * d[1] - 2 * pad[1] + kT + adj[1]
  local oH = (H - 1) * d[2] - 2 * pad[2] + kH + adj[2]
  local oW = (W - 1) * d[3] - 2 * pad[3] + kW + adj[3]
  local y = torch.zeros(O, oT, oH, oW)
  for o = 1, O do y[o]:fill(b and b[o] or 0) end
  for c = 1, C do for t = 1, T do for i = 1, H do for j = 1, W do
    for o = 1, O do for a = 1, kT do for p = 1, kH do for q = 1, kW do
      local tt = (t - 1) * d[1] - pad[1] + a
      local ii = (i - 1) * d[2] - pad[2] + p
      local jj = (j - 1) * d[3] - pad[3] + q
      if tt >= 1 and tt <= oT and ii >= 1 and ii <= oH and jj >= 1 and jj <= oW then
        y[o][tt][ii][jj] = y[o][tt][ii][jj] + w[c][o][a][p][q] * x[c][t][i][j]
      end
    end end end end
  end end end end
  return y
end

-- Torch7's pooling output size (with the rule that drops a last window
-- starting in the padding)
local function poolSize(i, k, d, p, dil, ceil)
  local span = dil * (k - 1) + 1
  local o = (ceil and math.ceil or math.floor)((i + 2 * p - span) / d) + 1
  if (o - 1) * d >= i + p then o = o - 1 end
  return o
end

-- max pooling by definition: value and 1-based flat index in the plane
local function maxpool3d(x, k, d, p, dil, ceil)
  local C, T, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
  local oT, oH, oW = poolSize(T, k[1], d[1], p[1], dil[1], ceil), poolSize(H, k[2], d[2], p[2], dil[2], ceil),
                     poolSize(W, k[3], d[3], p[3], dil[3], ceil)
  local y, ind = torch.zeros(C, oT, oH, oW), torch.LongTensor(C, oT, oH, oW)
  for c = 1, C do for t = 1, oT do for i = 1, oH do for j = 1, oW do
    local best, bi = -math.huge, -1
    for a = 1, k[1] do for b = 1, k[2] do for e = 1, k[3] do
      local tt = (t - 1) * d[1] - p[1] + (a - 1) * dil[1]
      local ii = (i - 1) * d[2] - p[2] + (b - 1) * dil[2]
      local jj = (j - 1) * d[3] - p[3] + (e - 1) * dil[3]
      if tt >= 0 and tt < T and ii >= 0 and ii < H and jj >= 0 and jj < W then
        local v = x[c][tt + 1][ii + 1][jj + 1]
        if v > best then best, bi = v, (tt * H + ii) * W + jj + 1 end
      end
    end end end
    y[c][t][i][j], ind[c][t][i][j] = best, bi
  end end end end
  return y, ind
end

local function avgpool3d(x, k, d, p, ceil, includePad)
  local C, T, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
  local oT, oH, oW = poolSize(T, k[1], d[1], p[1], 1, ceil), poolSize(H, k[2], d[2], p[2], 1, ceil),
                     poolSize(W, k[3], d[3], p[3], 1, ceil)
  local y = torch.zeros(C, oT, oH, oW)
  for c = 1, C do for t = 1, oT do for i = 1, oH do for j = 1, oW do
    local lo, hi = {}, {}
    local idx = {t, i, j}
    local n = {T, H, W}
    local padded, inside = 1, 1
    for q = 1, 3 do
      lo[q] = (idx[q] - 1) * d[q] - p[q]
      hi[q] = math.min(lo[q] + k[q], n[q] + p[q])
      padded = padded * (hi[q] - lo[q])
      lo[q], hi[q] = math.max(lo[q], 0), math.min(hi[q], n[q])
      inside = inside * (hi[q] - lo[q])
    end
    local s = 0
    for tt = lo[1], hi[1] - 1 do for ii = lo[2], hi[2] - 1 do for jj = lo[3], hi[3] - 1 do
      s = s + x[c][tt + 1][ii + 1][jj + 1]
    end end end
    y[c][t][i][j] = s / (includePad and padded or inside)
  end end end end
  return y
end

describe('nn.VolumetricConvolution numbers', function()
  it('all ones: each output is the count of input cells under the kernel, plus the bias', function()
    local m = nn.VolumetricConvolution(2, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1)
    m.weight:fill(1)
    m.bias:fill(0.5)
    local y = m:forward(torch.ones(2, 3, 3, 3))
    assert.are.same({1, 3, 3, 3}, y:size():totable())
    assert.are.equal(2 * 8 + 0.5, y[1][1][1][1])     -- a corner sees 2x2x2 cells per plane
    assert.are.equal(2 * 12 + 0.5, y[1][1][1][2])    -- an edge 2x2x3
    assert.are.equal(2 * 27 + 0.5, y[1][2][2][2])    -- the centre all 27
  end)

  it('matches the definition with stride, padding and dilation, single and batch', function()
    torch.manualSeed(1)
    local m = nn.VolumetricDilatedConvolution(2, 3, 2, 3, 2, 2, 1, 2, 1, 0, 1, 2, 1, 2)
    local x = torch.randn(2, 2, 6, 5, 7)
    local y = m:forward(x):clone()
    for b = 1, 2 do
      near(y[b], conv3d(x[b], m.weight, m.bias, {2, 2, 1}, {1, 1, 0}, {2, 2, 1}), 1e-12, 'sample ' .. b)
    end
    near(m:forward(x[2]), y[2], 0, 'single volume = its batch row')
  end)

  it('gradInput and gradWeight are the adjoints of the forward map', function()
    torch.manualSeed(2)
    local m = nn.VolumetricConvolution(2, 3, 2, 2, 3, 2, 1, 2, 1, 1, 0)
    local x = torch.randn(2, 5, 4, 6)
    local y = m:forward(x)
    local go = torch.randn(y:size())
    m:zeroGradParameters()
    local gi = m:backward(x, go, 0.5)
    -- <conv(x), go> = <x, gradInput>, and the bias-free part is linear in the weight
    local nb = m:clone():noBias()
    assert(math.abs(nb:forward(x):dot(go) - x:dot(gi)) < 1e-10)
    assert(math.abs(0.5 * nb:forward(x):dot(go) - m.weight:dot(m.gradWeight)) < 1e-10)
    assert(math.abs(m.gradBias:sum() - 0.5 * go:sum()) < 1e-10)
  end)

  it('a large volume (columns in several tiles) matches 2D convolutions summed over time', function()
    torch.manualSeed(3)
    local C, O, kT = 8, 3, 3
    local m = nn.VolumetricConvolution(C, O, kT, 3, 3)
    local x = torch.randn(C, 12, 66, 66)
    local y = m:forward(x)
    local ref = torch.zeros(y:size())
    for a = 1, kT do
      local s = nn.SpatialConvolution(C, O, 3, 3):noBias()
      s.weight:copy(m.weight:select(3, a))
      -- time steps a .. a+9 as a batch of images
      local out = s:forward(x:narrow(2, a, 10):transpose(1, 2):contiguous())
      ref:add(out:transpose(1, 2))
    end
    for o = 1, O do ref[o]:add(m.bias[o]) end
    near(y, ref, 1e-10, 'tiled volume')
    -- backward through the tiles, against the adjoint identity
    local go = torch.randn(y:size())
    local gi = m:updateGradInput(x, go)
    local nb = m:clone():noBias()
    local lhs, rhs = nb:forward(x):dot(go), x:dot(gi)
    assert(math.abs(lhs - rhs) < 1e-8 * math.abs(lhs), lhs .. ' vs ' .. rhs)
  end)

  it('non-contiguous input gives the contiguous numbers', function()
    torch.manualSeed(4)
    local m = nn.VolumetricConvolution(2, 2, 2, 2, 2)
    local x = torch.randn(2, 2, 4, 5, 3):transpose(4, 5)
    local y = m:forward(x):clone()
    near(m:forward(x:contiguous()), y, 0, 'output')
  end)
end)

describe('nn.VolumetricFullConvolution numbers', function()
  it("Torch7's simple test: 1s through a 3x3x3 stride-3 kernel of ones", function()
    local m = nn.VolumetricFullConvolution(3, 1, 3, 3, 3, 3, 3, 3)
    m.weight:fill(1)
    m.bias:fill(0.1)
    local x = torch.zeros(1, 3, 2, 2, 2)
    for c = 1, 3 do x[1][c][1][1][1] = 1 end
    local y = m:forward(x)
    assert.are.same({1, 1, 6, 6, 6}, y:size():totable())
    assert(math.abs(y[1][1][3][3][3] - 3.1) < 1e-12 and math.abs(y[1][1][4][4][4] - 0.1) < 1e-12)
    m:zeroGradParameters()
    local gi = m:backward(x, torch.Tensor(1, 1, 6, 6, 6):fill(0.1))
    assert(math.abs(gi[1][2][2][2][2] - 2.7) < 1e-12)
    assert(math.abs(m.gradBias[1] - 21.6) < 1e-12)
    assert(math.abs(m.gradWeight[3][1][2][2][2] - 0.1) < 1e-12)
  end)

  it('matches the definition with stride, padding and adj', function()
    torch.manualSeed(5)
    local m = nn.VolumetricFullConvolution(2, 3, 3, 2, 3, 2, 2, 1, 1, 0, 1, 1, 1, 0)
    local x = torch.randn(2, 2, 3, 4, 2)
    local y = m:forward(x)
    -- kW = 2, kH = 3: sizes and tables in T, H, W order
    for b = 1, 2 do
      near(y[b], fullconv3d(x[b], m.weight, m.bias, {2, 1, 2}, {1, 1, 0}, {1, 0, 1}), 1e-12, 'sample ' .. b)
    end
  end)

  it('{input, target}: adj from the target, gradInput[2] one stored zero', function()
    torch.manualSeed(6)
    local m = nn.VolumetricFullConvolution(2, 2, 3, 3, 3, 2, 2, 2, 1, 1, 1)
    local ref = m:clone()
    ref.adjT, ref.adjW, ref.adjH = 1, 0, 1
    local x, target = torch.randn(2, 3, 2, 3), torch.zeros(6, 4, 5)   -- T 6, H 4, W 5
    local y = m:forward({x, target})
    assert.are.same({2, 6, 4, 5}, y:size():totable())
    near(y, ref:forward(x), 0, 'output')
    local go = torch.randn(y:size())
    local gi = m:backward({x, target}, go)
    near(gi[1], ref:backward(x, go), 0, 'gradInput[1]')
    assert.are.same(target:size():totable(), gi[2]:size():totable())
    assert.are.equal(1, gi[2]:storage():size())
    assert.are.equal(0, gi[2]:storage()[1])
    -- back to a plain tensor input: gradInput is the same tensor object again
    local t = gi[1]
    local y2 = m:forward(x)
    assert.are.equal(t, m:backward(x, torch.randn(y2:size())))
  end)
end)

describe('nn.VolumetricMaxPooling numbers', function()
  it('matches the definition (values and indices), padding, dilation and ceil mode', function()
    torch.manualSeed(7)
    local x = torch.randn(2, 7, 6, 8)
    local cases = {
      {nn.VolumetricMaxPooling(2, 2, 2), {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false},
      {nn.VolumetricMaxPooling(3, 2, 3, 2, 2, 2, 1, 1, 1):ceil(), {3, 3, 2}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true},
      {nn.VolumetricDilatedMaxPooling(2, 3, 2, 2, 2, 1, 1, 1, 0, 2, 2, 1), {2, 2, 3}, {2, 1, 2}, {1, 0, 1}, {2, 1, 2}, false},
      {nn.VolumetricDilatedMaxPooling(2, 2, 2, 3, 3, 3, 1, 0, 1, 2, 1, 3):ceil(), {2, 2, 2}, {3, 3, 3}, {1, 1, 0}, {2, 3, 1}, true},
    }
    for n, c in ipairs(cases) do
      local y = c[1]:forward(x)
      local ry, ri = maxpool3d(x, c[2], c[3], c[4], c[5], c[6])
      near(y, ry, 0, 'case ' .. n)
      assert(c[1].indices:eq(ri):all(), 'indices of case ' .. n)
    end
  end)

  it("Torch7's boundary case: 2x2x2 stride 2 in ceil mode over 2x7x7", function()
    local m = nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2):ceil()
    local x = torch.rand(3, 2, 7, 7)
    local y = m:forward(x)
    assert.are.same({3, 1, 4, 4}, y:size():totable())
    for c = 1, 3 do
      assert.are.equal(x[c]:narrow(2, 7, 1):narrow(3, 1, 2):max(), y[c][1][4][1])
      assert.are.equal(x[c]:narrow(2, 1, 2):narrow(3, 7, 1):max(), y[c][1][1][4])
    end
  end)

  it('backward sends each gradient to its maximum', function()
    local m = nn.VolumetricMaxPooling(2, 2, 2)
    local x = torch.range(1, 16):view(1, 2, 2, 4)
    local y = m:forward(x)
    -- the first window holds t, y, x in {0, 1}: its max 14 at (1, 1, 1)
    assert.are.same({14, 16}, {y[1][1][1][1], y[1][1][1][2]})
    local gi = m:backward(x, torch.Tensor({{{{10, 20}}}}))
    assert.are.equal(10, gi[1][2][2][2])
    assert.are.equal(20, gi[1][2][2][4])
    assert.are.equal(30, gi:sum())
  end)

  it('NaN wins its window', function()
    local x = torch.zeros(1, 2, 2, 2)
    x[1][2][1][2] = 0 / 0
    local y = nn.VolumetricMaxPooling(2, 2, 2):forward(x)
    assert(y[1][1][1][1] ~= y[1][1][1][1])
  end)
end)

describe('nn.VolumetricAveragePooling numbers', function()
  it('matches the definition: plain, padded with ceil, count excluding the padding', function()
    torch.manualSeed(8)
    local x = torch.randn(2, 6, 5, 7)
    near(nn.VolumetricAveragePooling(2, 3, 2, 2, 2, 1):forward(x),
         avgpool3d(x, {2, 2, 3}, {2, 1, 2}, {0, 0, 0}, false, true), 1e-12, 'plain')
    near(nn.VolumetricAveragePooling(3, 2, 2, 2, 2, 2, 1, 1, 1):ceil():forward(x),
         avgpool3d(x, {3, 2, 2}, {2, 2, 2}, {1, 1, 1}, true, true), 1e-12, 'padded, ceil')
    near(nn.VolumetricAveragePooling(3, 2, 2, 2, 2, 2, 1, 1, 1):setCountExcludePad():forward(x),
         avgpool3d(x, {3, 2, 2}, {2, 2, 2}, {1, 1, 1}, false, false), 1e-12, 'exclude pad')
  end)

  it('a 2x2x2 mean and its gradient by hand', function()
    local m = nn.VolumetricAveragePooling(2, 2, 2)
    local x = torch.range(1, 8):view(1, 2, 2, 2)
    assert.are.equal(4.5, m:forward(x)[1][1][1][1])
    local gi = m:backward(x, torch.Tensor(1, 1, 1, 1):fill(8))
    assert(gi:eq(1):all())
  end)
end)

describe('nn.VolumetricMaxUnpooling numbers', function()
  it('puts each maximum back in place, zeros elsewhere; gradient reads those places', function()
    torch.manualSeed(9)
    local pool = nn.VolumetricMaxPooling(2, 2, 2)
    local unpool = nn.VolumetricMaxUnpooling(pool)
    local x = torch.randn(2, 3, 4, 4, 6)
    local y = unpool:forward(pool:forward(x))
    assert.are.same(x:size():totable(), y:size():totable())
    -- every kept cell holds its input value and is the max of its window
    local kept = y:ne(0)
    assert.are.equal(pool.output:nElement(), kept:double():sum())
    near(y:maskedSelect(kept), x:maskedSelect(kept), 0, 'kept values')
    local go = torch.randn(x:size())
    local gi = unpool:backward(pool.output, go)
    -- each pooled cell's gradient is gradOutput at its maximum's place
    local planes = go:view(6, 4 * 4 * 6):gather(2, pool.indices:view(6, 2 * 2 * 3))
    near(gi, planes:viewAs(gi), 0, 'gradInput')
  end)
end)

describe('nn.VolumetricFractionalMaxPooling numbers', function()
  it("regions follow Torch7's formula from the samples (layout planes x H x W x T)", function()
    torch.manualSeed(10)
    local m = nn.VolumetricFractionalMaxPooling(2, 3, 2, 3, 2, 4)
    local x = torch.randn(2, 2, 7, 6, 8)   -- batch 2, 2 planes, H 7, W 6, T 8
    local y = m:forward(x)
    assert.are.same({2, 2, 4, 2, 3}, y:size():totable())
    local function starts(u, inSize, outSize, pool)
      local alpha, s = (inSize - pool) / (outSize - 1), {}
      for i = 0, outSize - 2 do s[i + 1] = math.floor((i + u) * alpha) - math.floor(u * alpha) end
      s[outSize] = inSize - pool
      return s
    end
    for b = 1, 2 do for p = 1, 2 do
      local u = m.randomSamples[b][p]
      local sT, sW, sH = starts(u[1], 8, 3, 2), starts(u[2], 6, 2, 3), starts(u[3], 7, 4, 2)
      for h = 1, 4 do for w = 1, 2 do for t = 1, 3 do
        local region = x[b][p]:narrow(1, sH[h] + 1, 2):narrow(2, sW[w] + 1, 3):narrow(3, sT[t] + 1, 2)
        assert.are.equal(region:max(), y[b][p][h][w][t])
      end end end
    end end
    -- fresh regions at the next forward, unless fixed
    local u1 = m.randomSamples:clone()
    m:forward(x)
    assert.is_false(m.randomSamples:equal(u1))
    m:fixPoolingRegions()
    local u2 = m.randomSamples:clone()
    m:forward(x)
    assert.is_true(m.randomSamples:equal(u2))
  end)

  it('ratios give floor(ratio * size) outputs', function()
    local m = nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.7, 0.6)
    local y = m:forward(torch.randn(3, 9, 10, 11))
    assert.are.same({3, math.floor(9 * 0.6), math.floor(10 * 0.7), math.floor(11 * 0.5)}, y:size():totable())
  end)
end)

describe('nn.VolumetricReplicationPadding numbers', function()
  it('copies the nearest cell (negative pads crop) and sums gradients back', function()
    torch.manualSeed(11)
    local m = nn.VolumetricReplicationPadding(2, -1, 1, 0, -1, 2)
    local x = torch.randn(2, 4, 3, 5)
    local y = m:forward(x)
    assert.are.same({2, 4 - 1 + 2, 3 + 1, 5 + 2 - 1}, y:size():totable())
    local function clamp(i, n) return math.max(1, math.min(n, i)) end
    for c = 1, 2 do for t = 1, 5 do for i = 1, 4 do for j = 1, 6 do
      assert.are.equal(x[c][clamp(t + 1, 4)][clamp(i - 1, 3)][clamp(j - 2, 5)], y[c][t][i][j])
    end end end end
    local gi = m:backward(x, torch.ones(y:size()))
    assert.are.equal(y:nElement(), gi:sum())
    assert.are.equal(0, gi[1][1]:sum())                   -- the cropped front plane
    assert.are.equal(3 * 2 * 3, gi[1][4][1][1])           -- back corner: 3 planes x 2 rows x 3 columns
  end)
end)

describe('nn.VolumetricBatchNormalization numbers', function()
  it('normalizes each feature over batch and positions; running statistics as Torch7', function()
    torch.manualSeed(12)
    local m = nn.VolumetricBatchNormalization(3, 1e-5, 0.1)
    local x = torch.randn(4, 3, 2, 3, 2):mul(3):add(1)
    local y = m:forward(x)
    for f = 1, 3 do
      local xf = x:select(2, f)
      local n = xf:nElement()
      local flat = xf:contiguous():view(n)
      local mean = flat:mean()
      local var = (flat - mean):pow(2):sum() / n   -- biased, as the normalization uses
      local ref = (xf - mean):div(math.sqrt(var + 1e-5)):mul(m.weight[f]):add(m.bias[f])
      near(y:select(2, f), ref, 1e-10, 'feature ' .. f)
      assert(math.abs(m.running_mean[f] - 0.1 * mean) < 1e-12)
      assert(math.abs(m.running_var[f] - (0.9 + 0.1 * var * n / (n - 1))) < 1e-12)
    end
    -- evaluate: a single 4D volume uses the running statistics
    m:evaluate()
    local one = m:forward(x[1])
    local ref = x[1]:clone()
    for f = 1, 3 do
      ref[f]:add(-m.running_mean[f]):div(math.sqrt(m.running_var[f] + 1e-5)):mul(m.weight[f]):add(m.bias[f])
    end
    near(one, ref, 1e-12, 'evaluate, one volume')
  end)
end)

describe('nn.VolumetricDropout numbers', function()
  it('drops whole feature maps without rescaling; evaluate scales by 1 - p', function()
    torch.manualSeed(13)
    local m = nn.VolumetricDropout(0.5)
    local x = torch.rand(4, 20, 2, 2, 3):add(1)
    local y = m:forward(x)
    local dropped = 0
    for b = 1, 4 do for c = 1, 20 do
      local map = y[b][c]
      if map:sum() == 0 then dropped = dropped + 1 else near(map, x[b][c], 0, 'kept map') end
    end end
    assert(dropped > 10 and dropped < 70, 'dropped ' .. dropped .. ' of 80 maps')
    local go = torch.ones(x:size())
    local gi = m:backward(x, go)
    near(gi, m.noise:expandAs(x):clone(), 0, 'gradient mask')
    m:evaluate()
    near(m:forward(x), x * 0.5, 0, 'evaluate')
  end)
end)

describe('volumetric modules from older Torch7 files', function()
  it('a convolution without pad fields runs unpadded and prints as Torch7', function()
    torch.manualSeed(14)
    local m = nn.VolumetricConvolution(2, 2, 2, 2, 2)
    local x = torch.randn(2, 3, 4, 4)
    local ref = m:forward(x):clone()
    m.padT, m.padW, m.padH, m.finput, m.fgradInput = nil, nil, nil, nil, nil
    near(m:forward(x), ref, 0, 'output')
    assert.are.equal('nn.VolumetricConvolution(2 -> 2, 2x2x2, 1,1,1)', tostring(m))
  end)

  it('a full convolution with nOutputPlane x nInputPlane weights and pT/pW/pH pads', function()
    torch.manualSeed(15)
    local m = nn.VolumetricFullConvolution(2, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1)
    local x = torch.randn(2, 3, 3, 3)
    local ref = m:forward(x):clone()
    local old = m:clone()
    old.weight = m.weight:transpose(1, 2):contiguous()
    old.gradWeight = m.gradWeight:transpose(1, 2):contiguous()
    old.adjT, old.adjW, old.adjH = nil, nil, nil
    old.pT, old.pW, old.pH = old.padT, old.padW, old.padH
    old.padT, old.padW, old.padH = nil, nil, nil
    near(old:forward(x), ref, 0, 'output')
    assert.are.same({2, 3, 2, 2, 2}, old.weight:size():totable())
  end)

  it('a max pooling of version 1 (no ceil_mode) pools in floor mode', function()
    local m = nn.VolumetricMaxPooling(2, 2, 2)
    m.ceil_mode = nil
    assert.are.same({1, 1, 1, 1}, m:forward(torch.randn(1, 3, 3, 3)):size():totable())
  end)
end)
