-- conv2, xcorr2, conv3, xcorr3 (src/tensor/th_conv.c) against hand-computed
-- values and the definition written as loops: 'V' and 'F', the 2D/3D
-- single, plane-by-plane and kernel-bank forms, result tensors, errors.
require 'torch'
local H = require 'spec.support.helpers'

-- the definition: out[o] = sum_t x[o - pad + t] * k'[t], k' = k flipped for a convolution
local function ref2(x, k, full, flip)
  local xr, xc, kr, kc = x:size(1), x:size(2), k:size(1), k:size(2)
  local pr, pc = full and kr - 1 or 0, full and kc - 1 or 0
  local out = torch.zeros(xr + 2 * pr - kr + 1, xc + 2 * pc - kc + 1)
  for i = 1, out:size(1) do
    for j = 1, out:size(2) do
      local s = 0
      for a = 1, kr do
        for b = 1, kc do
          local xi, xj = i - pr + a - 1, j - pc + b - 1
          if xi >= 1 and xi <= xr and xj >= 1 and xj <= xc then
            local ka, kb = flip and kr - a + 1 or a, flip and kc - b + 1 or b
            s = s + x[xi][xj] * k[ka][kb]
          end
        end
      end
      out[i][j] = s
    end
  end
  return out
end

local function ref3(x, k, full, flip)
  local p = {}
  for d = 1, 3 do p[d] = full and k:size(d) - 1 or 0 end
  local out = torch.zeros(x:size(1) + 2 * p[1] - k:size(1) + 1, x:size(2) + 2 * p[2] - k:size(2) + 1,
                          x:size(3) + 2 * p[3] - k:size(3) + 1)
  for i = 1, out:size(1) do for j = 1, out:size(2) do for l = 1, out:size(3) do
    local s = 0
    for a = 1, k:size(1) do for b = 1, k:size(2) do for c = 1, k:size(3) do
      local xi, xj, xl = i - p[1] + a - 1, j - p[2] + b - 1, l - p[3] + c - 1
      if xi >= 1 and xi <= x:size(1) and xj >= 1 and xj <= x:size(2) and xl >= 1 and xl <= x:size(3) then
        local ka = flip and k:size(1) - a + 1 or a
        local kb = flip and k:size(2) - b + 1 or b
        local kc = flip and k:size(3) - c + 1 or c
        s = s + x[xi][xj][xl] * k[ka][kb][kc]
      end
    end end end
    out[i][j][l] = s
  end end end
  return out
end

local function maxdiff(a, b) return (a - b):abs():max() end

describe('conv2 / xcorr2', function()
  local x = torch.Tensor{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
  local k = torch.Tensor{{1, 0}, {0, -1}}

  it('matches values computed by hand', function()
    -- valid convolution flips k: x[i][j] * -1 + x[i+1][j+1] * 1 = 4 everywhere
    assert.are.same({{4, 4}, {4, 4}}, torch.conv2(x, k):totable())
    assert.are.same({{4, 4}, {4, 4}}, torch.conv2(x, k, 'V'):totable())
    -- cross-correlation: x[i][j] - x[i+1][j+1] = -4
    assert.are.same({{-4, -4}, {-4, -4}}, torch.xcorr2(x, k):totable())
    assert.are.same({{1, 2, 3, 0}, {4, 4, 4, -3}, {7, 4, 4, -6}, {0, -7, -8, -9}},
                    torch.conv2(x, k, 'F'):totable())
    assert.are.same({{-1, -2, -3, 0}, {-4, -4, -4, 3}, {-7, -4, -4, 6}, {0, 7, 8, 9}},
                    torch.xcorr2(x, k, 'F'):totable())
  end)

  it('matches the definition on random inputs, float and double, V and F', function()
    torch.manualSeed(1)
    for _, T in ipairs{torch.DoubleTensor, torch.FloatTensor} do
      local xx = T(7, 9):uniform(-1, 1)
      local kk = T(3, 4):uniform(-1, 1)
      for _, full in ipairs{false, true} do
        local mode = full and 'F' or 'V'
        local tol = T == torch.FloatTensor and 1e-5 or 1e-12
        assert.is_true(maxdiff(torch.conv2(xx, kk, mode):double(), ref2(xx:double(), kk:double(), full, true)) < tol)
        assert.is_true(maxdiff(torch.xcorr2(xx, kk, mode):double(), ref2(xx:double(), kk:double(), full, false)) < tol)
        assert.are.equal(torch.typename(xx), torch.type(torch.conv2(xx, kk, mode)))
      end
    end
  end)

  it('a convolution equals the cross-correlation with the flipped kernel, bit for bit', function()
    torch.manualSeed(2)
    local xx, kk = torch.rand(12, 10), torch.rand(4, 5)
    local flipped = kk:clone()
    local n = kk:nElement()
    for i = 1, n do flipped:storage()[i] = kk:storage()[n - i + 1] end
    assert.are.equal(0, maxdiff(torch.conv2(xx, kk), torch.xcorr2(xx, flipped)))
    assert.are.equal(0, maxdiff(torch.conv2(xx, kk, 'F'), torch.xcorr2(xx, flipped, 'F')))
  end)

  it('3D input with 3D kernel: plane i with kernel i', function()
    torch.manualSeed(3)
    local xx, kk = torch.rand(3, 6, 5), torch.rand(3, 2, 3)
    local o = torch.conv2(xx, kk, 'F')
    assert.are.same({3, 7, 7}, o:size():totable())
    for i = 1, 3 do assert.is_true(maxdiff(o[i], ref2(xx[i], kk[i], true, true)) < 1e-12) end
  end)

  it('3D input with 4D kernel: output plane j sums input planes i with kernel j, i', function()
    torch.manualSeed(4)
    local xx, kk = torch.rand(3, 6, 5), torch.rand(4, 3, 2, 2)
    local o = torch.xcorr2(xx, kk)
    assert.are.same({4, 5, 4}, o:size():totable())
    for j = 1, 4 do
      local r = torch.zeros(5, 4)
      for i = 1, 3 do r:add(ref2(xx[i], kk[j][i], false, false)) end
      assert.is_true(maxdiff(o[j], r) < 1e-12)
    end
  end)

  it('writes into a result, also a non-contiguous one or an input, and takes non-contiguous inputs', function()
    local big = torch.zeros(2, 6)
    local r = big:narrow(2, 2, 2)
    assert.are.equal(r, torch.conv2(r, x, k))
    assert.are.same({{0, 4, 4, 0, 0, 0}, {0, 4, 4, 0, 0, 0}}, big:totable())
    local y = x:clone()
    torch.xcorr2(y, y, k)
    assert.are.same({{-4, -4}, {-4, -4}}, y:totable())
    assert.are.same({{4, 4}, {4, 4}}, torch.conv2(x:t():t(), k:t():contiguous():t()):totable())
    assert.are.same(torch.conv2(x:t():contiguous(), k):totable(), torch.conv2(x:t(), k):totable())
  end)

  it('rejects bad arguments with messages naming the function', function()
    H.errors(function() torch.conv2(torch.rand(2, 2), torch.rand(3, 3)) end,
             "conv2: input (2x2) is smaller than the kernel (3x3) for a 'V' convolution")
    assert.are.same({4, 4}, torch.conv2(torch.rand(2, 2), torch.rand(3, 3), 'F'):size():totable())
    H.errors(function() torch.conv2(x, k, 'Q') end, "bad argument #3 to 'conv2' ('V' or 'F' expected, got Q)")
    H.errors(function() torch.conv2(x, k, 1) end, "('V' or 'F' expected, got number)")
    H.errors(function() torch.conv2(torch.LongTensor(3, 3), torch.LongTensor(2, 2)) end,
             'conv2: not available for LongTensor (expects a Float or Double tensor)')
    H.errors(function() torch.conv2(x, k:float()) end, 'conv2: the kernel must be a DoubleTensor')
    H.errors(function() torch.conv2(torch.rand(3), k) end,
             'conv2: expects input and kernel of 2D and 2D, 3D and 3D, or 3D and 4D, got 1D and 2D')
    H.errors(function() torch.conv2(torch.rand(2, 3, 3), torch.rand(3, 2, 2)) end,
             'conv2: input and kernel must have as many planes, got 2 and 3')
    H.errors(function() torch.conv2(torch.rand(2, 3, 3), torch.rand(4, 3, 2, 2)) end,
             "conv2: kernel's second dimension (3) must be the input's number of planes (2)")
    H.errors(function() torch.conv2(torch.FloatTensor(), x, k) end,
             "bad argument #1 to 'conv2' (torch.DoubleTensor expected, got torch.FloatTensor)")
    -- an inf in the kernel meets only real input terms: no 0 * inf = nan from padding
    local o = torch.conv2(torch.ones(1, 1), torch.Tensor{{math.huge, 1}}, 'F')
    assert.are.same({{math.huge, 1}}, o:totable())
  end)
end)

describe('conv3 / xcorr3', function()
  it('match the definition, V and F, and the 4D forms', function()
    torch.manualSeed(5)
    local x, k = torch.rand(4, 5, 3), torch.rand(2, 3, 2)
    for _, full in ipairs{false, true} do
      local mode = full and 'F' or 'V'
      assert.is_true(maxdiff(torch.conv3(x, k, mode), ref3(x, k, full, true)) < 1e-12)
      assert.is_true(maxdiff(torch.xcorr3(x, k, mode), ref3(x, k, full, false)) < 1e-12)
    end
    local xx = torch.rand(2, 4, 5, 3)
    local kk = torch.rand(2, 2, 3, 2)
    local o = torch.conv3(xx, kk)
    for i = 1, 2 do assert.is_true(maxdiff(o[i], ref3(xx[i], kk[i], false, true)) < 1e-12) end
    local bank = torch.rand(3, 2, 2, 3, 2)
    local ob = torch.xcorr3(xx, bank, 'F')
    assert.are.same({3, 5, 7, 4}, ob:size():totable())
    for j = 1, 3 do
      local r = ref3(xx[1], bank[j][1], true, false):add(ref3(xx[2], bank[j][2], true, false))
      assert.is_true(maxdiff(ob[j], r) < 1e-12)
    end
  end)

  it('a one-deep 3D convolution is the 2D one', function()
    local x, k = torch.rand(1, 5, 4), torch.rand(1, 2, 3)
    assert.are.equal(0, maxdiff(torch.conv3(x, k)[1], torch.conv2(x[1], k[1])))
    assert.are.equal(0, maxdiff(torch.xcorr3(x, k, 'F')[1], torch.xcorr2(x[1], k[1], 'F')))
    H.errors(function() torch.conv3(torch.rand(2, 2), torch.rand(2, 2)) end,
             'conv3: expects input and kernel of 3D and 3D, 4D and 4D, or 4D and 5D, got 2D and 2D')
  end)
end)
