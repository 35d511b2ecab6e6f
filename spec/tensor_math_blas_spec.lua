-- Matrix products through OpenBLAS: mm, mv, ger, bmm, addmm, addmv, addr,
-- baddbmm, addbmm with Torch7's beta/alpha forms, on transposed, narrowed
-- and strided operands and results (src/tensor/th_math_blas.c).
require 'torch'

local errors = require('spec.support.helpers').errors

local flat = require('spec.support.helpers').flat

local function near(expected, t, tol)
  local e, g = flat(expected), flat(t:totable())
  assert.are.equal(#e, #g, 'element count')
  assert.are.same(torch.DoubleTensor(expected):size():totable(), t:size():totable())
  for i = 1, #e do
    assert(math.abs(e[i] - g[i]) <= (tol or 0) * math.max(1, math.abs(e[i])),
           string.format('element %d: expected %s, got %s', i, tostring(e[i]), tostring(g[i])))
  end
end

-- reference product of nested tables
local function matmul(a, b)
  local r = {}
  for i = 1, #a do
    r[i] = {}
    for j = 1, #b[1] do
      local s = 0
      for k = 1, #b do s = s + a[i][k] * b[k][j] end
      r[i][j] = s
    end
  end
  return r
end

for _, tname in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
  local T = function(...) return torch[tname:match('torch%.(%a+)')](...) end
  local tol = tname == 'torch.FloatTensor' and 1e-6 or 1e-12

  describe('BLAS (' .. tname .. ')', function()
    local A, B, At, Bt
    before_each(function()
      At = {{1, 2, 3}, {4, 5, 6}}                      -- 2x3
      Bt = {{1, -1}, {2, 0}, {0.5, 3}}                 -- 3x2
      A, B = T(At), T(Bt)
    end)

    it('mm: new result, given result, transposed operands', function()
      near(matmul(At, Bt), torch.mm(A, B), tol)
      local r = T()
      assert.are.equal(r, torch.mm(r, A, B))
      near(matmul(At, Bt), r, tol)
      r:mm(B, A)
      near(matmul(Bt, At), r, tol)
      -- A^T (3x2, columns contiguous) times B^T (2x3): no copies, transpose flags
      near(matmul(Bt, At), torch.mm(B:t():t(), A), tol)
      near(matmul({{1, 4}, {2, 5}, {3, 6}}, {{1, 2, 0.5}, {-1, 0, 3}}), torch.mm(A:t(), B:t()), tol)
    end)

    it('mm on operands BLAS cannot read directly (copied first)', function()
      local base = torch.range(1, 24):type(tname):view(2, 3, 4)
      local odd = base:select(3, 1)                      -- 2x3 with strides 12, 4
      assert.are.same({12, 4}, odd:stride():totable())
      near(matmul({{1, 5, 9}, {13, 17, 21}}, Bt), torch.mm(odd, B), tol)
      local exp = T(3, 1):fill(2):expand(3, 2)           -- stride 0 columns
      near(matmul(At, {{2, 2}, {2, 2}, {2, 2}}), torch.mm(A, exp), tol)
      local wide = T(2, 6):zero()
      wide:narrow(2, 2, 3):copy(A)                       -- a narrowed view: leading dimension 6
      near(matmul(At, Bt), torch.mm(wide:narrow(2, 2, 3), B), tol)
    end)

    it('mm into transposed, strided and overlapping results', function()
      local rt = T(2, 2):t()                             -- columns contiguous: column-major gemm
      rt:mm(A, B)
      near(matmul(At, Bt), rt, tol)
      local big = T(3, 6):fill(7)
      local odd = big:narrow(1, 1, 2):unfold(2, 1, 3):select(3, 1)   -- 2x2, strides 6, 3
      odd:mm(A, B)
      near(matmul(At, Bt), odd, tol)
      near({{7, 7, 7, 7, 7, 7}}, big:narrow(1, 3, 1))   -- nothing outside the view written
      local sq = T{{1, 2}, {3, 4}}
      sq:mm(sq, sq)                                      -- the result is an input
      near({{7, 10}, {15, 22}}, sq, tol)
      local v = T{{1, 2}, {3, 4}}
      v:addmm(v, v:t())
      near({{6, 13}, {14, 29}}, v, tol)
    end)

    it('addmm: every Torch7 form of beta, M, alpha', function()
      local P = matmul(At, Bt)
      local M = T{{1, 1}, {1, 1}}
      local function lin(b, a) return {{b + a * P[1][1], b + a * P[1][2]}, {b + a * P[2][1], b + a * P[2][2]}} end
      near(lin(1, 1), torch.addmm(M, A, B), tol)
      near(lin(2, 3), torch.addmm(2, M, 3, A, B), tol)
      near(lin(1, 3), torch.addmm(M, 3, A, B), tol)
      local r = T()
      torch.addmm(r, M, A, B)
      near(lin(1, 1), r, tol)
      torch.addmm(r, 0.5, M, 2, A, B)
      near(lin(0.5, 2), r, tol)
      near({{1, 1}, {1, 1}}, M)                          -- M untouched
      local x = M:clone()
      assert.are.equal(x, x:addmm(A, B))                 -- M defaults to self
      near(lin(1, 1), x, tol)
      x = M:clone():addmm(2, A, B)                       -- one number: alpha
      near(lin(1, 2), x, tol)
      x = M:clone():addmm(0, 1, A, B)                    -- two numbers: beta, alpha
      near(lin(0, 1), x, tol)
      x = T(2, 2):fill(0 / 0):addmm(0, 1, A, B)          -- beta = 0 ignores NaN garbage
      near(lin(0, 1), x, tol)
      x = T():addmm(0, T(2, 2), 1, A, B)
      near(lin(0, 1), x, tol)
      x = T(2, 2)
      x:addmm(3, M, A, B)                                -- a number before M: beta
      near(lin(3, 1), x, tol)
    end)

    it('mv and addmv', function()
      local v = T{1, 2, 3}
      near({14, 32}, torch.mv(A, v), tol)
      near({14, 32}, A * v, tol)
      near({5, 7, 9}, torch.mv(A:t(), T{1, 1}), tol)      -- transposed matrix
      local y = T{1, 1}
      near({15, 33}, torch.addmv(y, A, v), tol)
      near({2 + 28, 2 + 64}, torch.addmv(2, y, 2, A, v), tol)
      assert.are.equal(y, y:addmv(A, v))
      near({15, 33}, y, tol)
      local x = T(3):fill(0)
      x:addmv(T(3, 2):fill(3), T(2):fill(2))              -- Torch7's doc example
      near({12, 12, 12}, x, tol)
      local strided = T(6):fill(9)
      strided:narrow(1, 1, 5):unfold(1, 1, 2):select(2, 1):mv(A:t(), T{1, 1})   -- result stride 2
      near({5, 9, 7, 9, 9, 9}, strided, tol)
      local sv = T{1, 0, 2, 0, 3, 0}:unfold(1, 1, 2):select(2, 1)               -- vector stride 2
      near({14, 32}, torch.mv(A, sv:narrow(1, 1, 3)), tol)
    end)

    it('addr and ger (Torch7 doc example)', function()
      local x, y = torch.range(1, 3):type(tname), torch.range(1, 2):type(tname)
      local M = T(3, 2):zero()
      M:addr(x, y)
      near({{1, 2}, {2, 4}, {3, 6}}, M, tol)
      M:addr(2, 1, x, y)
      near({{3, 6}, {6, 12}, {9, 18}}, M, tol)
      local A32 = torch.range(1, 6):type(tname):resize(3, 2)
      M:addr(2, A32, 1, x, y)
      near({{3, 6}, {8, 12}, {13, 18}}, M, tol)
      near({{1, 2}, {2, 4}, {3, 6}}, torch.ger(x, y), tol)
      near({{2, 3}, {3, 5}, {4, 7}}, torch.addr(T(3, 2):fill(1), x, y), tol)
      local rt = T(2, 3):t()                             -- a column-major result
      rt:ger(x, y)
      near({{1, 2}, {2, 4}, {3, 6}}, rt, tol)
    end)

    it('bmm, baddbmm and addbmm', function()
      local b1 = T{{{1, 2}, {3, 4}}, {{0, 1}, {1, 0}}}   -- 2 x 2x2
      local b2 = T{{{1, 0}, {0, 1}}, {{5, 6}, {7, 8}}}
      near({{{1, 2}, {3, 4}}, {{7, 8}, {5, 6}}}, torch.bmm(b1, b2), tol)
      near({{{1, 3}, {2, 4}}, {{7, 8}, {5, 6}}}, torch.bmm(b1:transpose(2, 3), b2), tol)
      local M = T(2, 2, 2):fill(1)
      near({{{3, 5}, {7, 9}}, {{15, 17}, {11, 13}}}, torch.baddbmm(M, 2, b1, b2), tol)
      near({{{2.5, 4.5}, {6.5, 8.5}}, {{14.5, 16.5}, {10.5, 12.5}}}, torch.baddbmm(0.5, M, 2, b1, b2), tol)
      local r = M:clone()
      r:baddbmm(b1, b2)
      near({{{2, 3}, {4, 5}}, {{8, 9}, {6, 7}}}, r, tol)
      near({{9, 11}, {9, 11}}, torch.addbmm(T(2, 2):fill(1), b1, b2), tol)
      near({{16, 20}, {16, 20}}, torch.addbmm(0, T(2, 2), 2, b1, b2), tol)
      local s = T(2, 2):fill(1)
      s:addbmm(b1, b2)
      near({{9, 11}, {9, 11}}, s, tol)
    end)

    it('products with empty dimensions', function()
      -- size-0 dimensions come from resize (the constructor, as Torch7's, makes no dimension)
      local function E(a, b) return T():resize(a, b) end
      near({{0, 0}, {0, 0}}, torch.mm(E(2, 0), E(0, 2)))
      near({{2, 2}, {2, 2}}, torch.addmm(2, T(2, 2):fill(1), 1, E(2, 0), E(0, 2)))
      assert.are.same({0, 3}, torch.mm(E(0, 2), T(2, 3)):size():totable())
    end)

    it('operators: * and friends', function()
      local x, y = T{1, 2}, T{3, 4}
      assert.are.equal(11, x * y)                         -- 1D * 1D: dot
      near({{1, 2}, {3, 4}}, T{{1, 0}, {0, 1}} * T{{1, 2}, {3, 4}}, tol)
      near({5, 11}, T{{1, 2}, {3, 4}} * x, tol)
      errors(function() return T(2, 2, 2) * T(2, 2) end,
             '__mul: tensor products are 1D*1D (dot), 2D*1D (mv) and 2D*2D (mm), got 3D*2D')
    end)

    it('errors: sizes, dimensions and types', function()
      errors(function() torch.mm(T(2, 3), T(4, 5)) end, 'mm: size mismatch, 2x3 and 4x5')
      errors(function() torch.mm(T(2, 3, 1), T(3, 5)) end, 'mm: mat1 must be a 2D tensor, got 3D 2x3x1')
      errors(function() torch.mm(T(2, 3), T(3)) end, 'mm: mat2 must be a 2D tensor, got 1D 3')
      errors(function() torch.mv(T(2, 3), T(4)) end, 'mv: size mismatch, 2x3 and 4')
      errors(function() torch.mv(T(2, 3), T(3, 1)) end, 'mv: vec2 must be a 1D tensor, got 2D 3x1')
      errors(function() torch.addmm(T(3, 3), T(2, 3), T(3, 5)) end,
             'addmm: M has size 3x3, but mat1 @ mat2 has size 2x5')
      errors(function() torch.addmv(T(3), T(2, 3), T(3)) end, 'addmv: vec1 has size 3, but mat @ vec2 has size 2')
      errors(function() T(1, 1):addr(T(2), T(3)) end, 'addr: M has size 1x1, but vec1 x vec2 has size 2x3')
      errors(function() torch.bmm(T(2, 2, 3), T(3, 3, 2)) end,
             'bmm: size mismatch, 2x2x3 and 3x3x2 (batch x n x k and batch x k x p expected)')
      errors(function() torch.baddbmm(T(2, 2), T(2, 2, 3), T(2, 3, 2)) end,
             'baddbmm: M has size 2x2, but batch1 @ batch2 has size 2x2x2')
      errors(function() torch.addmm(A, B) end, 'addmm: the tensor to add (M) is missing')
      errors(function() torch.addmm(T(2, 2), 1, 2, 3, A, B) end, 'addmm: invalid arguments')
      errors(function() torch.addmm(T(2, 2), 'x', A, B) end, 'addmm: invalid arguments')
      local other = tname == 'torch.FloatTensor' and torch.DoubleTensor(3, 2) or torch.FloatTensor(3, 2)
      errors(function() torch.mm(A, other) end, "bad argument #2 to 'mm' (" .. tname .. ' expected, got ' .. torch.type(other) .. ')')
      errors(function() torch.addmm(other:t(), A, B) end, 'addmm: the added tensor must be a ' .. tname:match('torch%.(%a+)') .. ' like the first tensor')
      errors(function() torch.mm(torch.LongTensor(2, 2), torch.LongTensor(2, 2)) end,
             'mm: not available for LongTensor (expects a Float or Double tensor)')
      errors(function() torch.LongTensor(2):addr(torch.LongTensor(2), torch.LongTensor(2)) end,
             'addr: not available for LongTensor')
    end)
  end)
end

describe('BLAS results in float and double agree', function()
  it('the same product in both types', function()
    local a = torch.linspace(-1, 1, 35):view(5, 7)
    local b = torch.linspace(2, -2, 14):view(7, 2)
    local d = torch.mm(a, b)
    local f = torch.mm(a:float(), b:float())
    near(d:totable(), f, 1e-5)
  end)
end)
