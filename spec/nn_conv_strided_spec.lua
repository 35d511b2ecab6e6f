-- nn.SpatialConvolution's strided im2col path (generic/im2col.c: rows
-- copied with a constant stride 2-4, col2im through split rows, the
-- fallbacks past them) and its gradBias sums: output, gradInput,
-- gradWeight and gradBias against direct loops in double, for strides 1-5,
-- odd sizes, padding, kernels wider than the split rows take, rows wider
-- than they hold, batch 1 and 3, on 1 and 2 threads (bit-identical).
require 'torch'
require 'nn'

-- output, gradInput, gradWeight, gradBias of one batch by direct loops
-- (double), Torch7 semantics
local function reference(x, w, b, go, dW, dH, padW, padH)
  local B, nIn, iH, iW = x:size(1), x:size(2), x:size(3), x:size(4)
  local nOut, kH, kW = w:size(1), w:size(3), w:size(4)
  local oH, oW = go:size(3), go:size(4)
  local X, Wt, G = x:double(), w:double(), go:double()
  local out = torch.DoubleTensor(B, nOut, oH, oW)
  local gi = torch.DoubleTensor(B, nIn, iH, iW):zero()
  local gw = torch.DoubleTensor(nOut, nIn, kH, kW):zero()
  local gb = torch.DoubleTensor(nOut):zero()
  local xs, ws, gs, gis, gws = X:storage(), Wt:storage(), G:storage(), gi:storage(), gw:storage()
  local function xi(n, c, y, xx) return ((n * nIn + c) * iH + y) * iW + xx + 1 end
  local function wi(o, c, i, j) return ((o * nIn + c) * kH + i) * kW + j + 1 end
  for n = 0, B - 1 do for o = 0, nOut - 1 do for y = 0, oH - 1 do for xx = 0, oW - 1 do
    local s, g = b[o + 1], gs[((n * nOut + o) * oH + y) * oW + xx + 1]
    gb[o + 1] = gb[o + 1] + g
    for c = 0, nIn - 1 do for i = 0, kH - 1 do
      local iy = y * dH - padH + i
      if iy >= 0 and iy < iH then
        for j = 0, kW - 1 do
          local ix = xx * dW - padW + j
          if ix >= 0 and ix < iW then
            local p, q = xi(n, c, iy, ix), wi(o, c, i, j)
            s = s + ws[q] * xs[p]
            gis[p] = gis[p] + ws[q] * g
            gws[q] = gws[q] + xs[p] * g
          end
        end
      end
    end end
    out[n + 1][o + 1][y + 1][xx + 1] = s
  end end end end
  return out, gi, gw, gb
end

-- (x:abs() is in place, as in Torch7: torch.abs copies)
local function maxrel(a, b)
  local d = torch.abs(a:double() - b:double()):max()
  return d / math.max(1, torch.abs(b:double()):max())
end

-- one run of the module on 'threads' threads: output, gradInput, gradWeight, gradBias
local function run(m, x, go, threads)
  local old = torch.getnumthreads()
  torch.setnumthreads(threads)
  m:zeroGradParameters()
  local out = m:forward(x):clone()
  local gi = m:backward(x, go):clone()
  torch.setnumthreads(old)
  return out, gi, m.gradWeight:clone(), m.gradBias:clone()
end

-- nIn, nOut, kW, kH, dW, dH, padW, padH, B, iH, iW
local configs = {
  {3, 4, 7, 7, 2, 2, 3, 3, 3, 23, 23},   -- a ResNet stem, odd size
  {3, 5, 11, 11, 4, 4, 2, 2, 1, 31, 35}, -- an AlexNet stem, batch 1
  {2, 3, 3, 3, 2, 2, 1, 1, 3, 17, 16},   -- a stride-2 3x3, odd and even sides
  {3, 2, 3, 3, 2, 2, 1, 1, 2, 6, 15},    -- the same, odd width
  {2, 2, 3, 3, 2, 2, 1, 1, 1, 2, 2},     -- the same on a 2x2 input
  {2, 2, 3, 3, 2, 1, 1, 0, 1, 5, 9},     -- stride 2 along x only, no vertical padding
  {2, 3, 5, 5, 3, 3, 0, 0, 3, 20, 19},   -- stride 3, no padding
  {2, 2, 4, 3, 4, 1, 1, 1, 1, 9, 26},    -- stride 4 along x only, even kernel
  {2, 3, 3, 3, 5, 5, 1, 1, 3, 16, 21},   -- stride 5: the element-by-element path
  {1, 2, 17, 3, 2, 2, 3, 1, 1, 7, 40},   -- 17 wide: wider than the split rows take
  {1, 2, 3, 3, 2, 2, 1, 1, 1, 3, 1100},  -- rows wider than the split rows hold
  {2, 3, 5, 5, 1, 1, 2, 2, 1, 13, 11},   -- stride 1 (row copies), 143 outputs per plane
}

describe('nn.SpatialConvolution strided im2col', function()
  for _, cf in ipairs(configs) do
    local nIn, nOut, kW, kH, dW, dH, padW, padH, B, iH, iW = table.unpack(cf)
    it(string.format('%dx%d stride %d,%d pad %d,%d, %d -> %d planes, %dx%dx%d, 1 and 2 threads',
                     kW, kH, dW, dH, padW, padH, nIn, nOut, B, iH, iW), function()
      torch.manualSeed(37)
      local m = nn.SpatialConvolution(nIn, nOut, kW, kH, dW, dH, padW, padH):float()
      local x = torch.FloatTensor(B, nIn, iH, iW):uniform(-1, 1)
      local oH, oW = (iH + 2 * padH - kH) // dH + 1, (iW + 2 * padW - kW) // dW + 1
      local go = torch.FloatTensor(B, nOut, oH, oW):uniform(-1, 1)
      local rout, rgi, rgw, rgb = reference(x, m.weight, m.bias, go, dW, dH, padW, padH)
      local o1, g1, w1, b1 = run(m, x, go, 1)
      local o2, g2, w2, b2 = run(m, x, go, 2)
      assert.are.same({B, nOut, oH, oW}, o1:size():totable())
      assert.is_true(maxrel(o1, rout) < 1e-5, 'output ' .. maxrel(o1, rout))
      assert.is_true(maxrel(g1, rgi) < 1e-5, 'gradInput ' .. maxrel(g1, rgi))
      assert.is_true(maxrel(w1, rgw) < 1e-5, 'gradWeight ' .. maxrel(w1, rgw))
      assert.is_true(maxrel(b1, rgb) < 1e-5, 'gradBias ' .. maxrel(b1, rgb))
      -- the work is split over images and tiles the same way: equal bit for bit
      assert.are.equal(0, (o1 - o2):abs():max())
      assert.are.equal(0, (g1 - g2):abs():max())
      assert.are.equal(0, (w1 - w2):abs():max())
      assert.are.equal(0, (b1 - b2):abs():max())
      -- a 3D input (one image) gives the batch's first image
      if B > 1 then
        local m1 = m:clone()
        m1:zeroGradParameters()
        local oi = m1:forward(x[1])
        local gii = m1:backward(x[1], go[1])
        assert.are.equal(0, (oi - o1[1]):abs():max())
        assert.is_true(maxrel(gii, rgi[1]) < 1e-5)
      end
    end)
  end

  it('matches the double path on a stride-2 stem of one image with many planes', function()
    torch.manualSeed(5)
    local m = nn.SpatialConvolution(3, 64, 7, 7, 2, 2, 3, 3)
    local md = m:clone():double()
    local mf = m:float()
    local x = torch.DoubleTensor(1, 3, 57, 57):uniform(-1, 1)
    local od = md:forward(x)
    local go = od:clone():uniform(-1, 1)
    local gid = md:backward(x, go)
    local of = mf:forward(x:float())
    local gif = mf:backward(x:float(), go:float())
    assert.is_true(maxrel(of, od) < 1e-5)
    assert.is_true(maxrel(gif, gid) < 1e-5)
    assert.is_true(maxrel(mf.gradWeight, md.gradWeight) < 1e-5)
    assert.is_true(maxrel(mf.gradBias, md.gradBias) < 1e-5)
  end)
end)
