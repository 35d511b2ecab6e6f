-- th_sgemm (src/tensor/th_gemm.c, th_gemm_avx512.c), the engine's own float
-- GEMM: every layout, transpose, padded leading dimension, alpha and beta of
-- cblas_sgemm against a double-precision product of the same matrices (the
-- definition), and the products of torch.mm / addmm, nn.Linear and
-- nn.SpatialConvolution with each backend (torch._C.gemm_backend). Where the
-- CPU lacks AVX-512 both backends are OpenBLAS and the checks still hold.
require 'torch'
require 'nn'

local errors = require('spec.support.helpers').errors
local C = torch._C
local eps = 2 ^ -23

-- the rows x cols matrix op(X) stored in 'raw' with leading dimension ld,
-- as a double tensor; 'byrows': op(X)'s rows are the stored runs of ld
local function logical(raw, rows, cols, ld, byrows)
  local s = byrows and torch.LongStorage{ld, 1} or torch.LongStorage{1, ld}
  if rows == 0 or cols == 0 then return torch.DoubleTensor(rows, cols) end
  return torch.FloatTensor(raw:storage(), 1, torch.LongStorage{rows, cols}, s):double()
end

-- one sgemm call checked element by element against the double product:
-- |ours - exact| <= 4 eps (k + 2) (|alpha| |A| |B| + |beta| |C|)
local function check(order, ta, tb, m, n, k, alpha, beta, pad, nanC)
  local row = order == 'R'
  -- stored shapes as rows of ld elements (see torch._C.sgemm)
  local ar, ac = (row == (ta == 'N')) and m or k, (row == (ta == 'N')) and k or m
  local br, bc = (row == (tb == 'N')) and k or n, (row == (tb == 'N')) and n or k
  local cr, cc = row and m or n, row and n or m
  local lda, ldb, ldc = math.max(ac, 1) + pad, math.max(bc, 1) + pad, math.max(cc, 1) + pad
  local A = torch.FloatTensor(math.max(ar * lda, 1)):uniform(-1, 1)
  local B = torch.FloatTensor(math.max(br * ldb, 1)):uniform(-1, 1)
  local Cm = torch.FloatTensor(math.max(cr * ldc, 1)):uniform(-1, 1)
  if nanC then Cm:fill(0 / 0) end
  local C0 = Cm:clone()
  -- op(A) (m x k): stored rows are op(A)'s rows when row-major and not transposed
  local opA = logical(A, m, k, lda, row == (ta == 'N'))
  local opB = logical(B, k, n, ldb, row == (tb == 'N'))
  local Cl = logical(C0, m, n, ldc, row)
  C.sgemm(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc)
  local got = logical(Cm, m, n, ldc, row)
  if m == 0 or n == 0 then
    for i = 1, C0:nElement() do
      assert(Cm[i] == C0[i] or (Cm[i] ~= Cm[i] and C0[i] ~= C0[i]), 'C written')
    end
    return
  end
  local exact = torch.DoubleTensor(m, n):zero()
  local bound = torch.DoubleTensor(m, n):zero()
  if k > 0 then
    exact:addmm(0, exact, alpha, opA, opB)
    bound:addmm(0, bound, math.abs(alpha), opA:clone():abs(), opB:clone():abs())
  end
  if beta ~= 0 then
    exact:add(beta, Cl)
    bound:add(math.abs(beta), Cl:clone():abs())
  end
  bound:mul(4 * eps * (k + 2)):add(1e-30)
  local err = (got - exact):abs():cdiv(bound):max()
  assert(err <= 1, string.format('%s%s%s m=%d n=%d k=%d alpha=%g beta=%g pad=%d: error %.3g x bound',
                                 order, ta, tb, m, n, k, alpha, beta, pad, err))
  -- the padding between rows (or columns) of C is never written
  if pad > 0 then
    for r = 0, cr - 1 do
      for j = cc + 1, ldc do
        local v0, v = C0[r * ldc + j], Cm[r * ldc + j]
        assert(v == v0 or (v ~= v and v0 ~= v0), 'padding of C written')
      end
    end
  end
end

describe('th_sgemm', function()
  local old
  before_each(function()
    torch.manualSeed(21)
    old = C.gemm_backend('ours')
  end)
  after_each(function() C.gemm_backend(old) end)

  it('matches the definition on edge sizes, all layouts, alpha and beta', function()
    local sizes = {1, 2, 15, 16, 17, 31, 33, 47, 49, 63, 65, 100, 129}
    local alphas, betas = {1, -1.5, 0.5}, {0, 1, -1.5}
    local n = 0
    for _, order in ipairs{'R', 'C'} do
      for _, ta in ipairs{'N', 'T'} do
        for _, tb in ipairs{'N', 'T'} do
          for i = 1, 14 do
            local m = sizes[torch.random(#sizes)]
            local nn_ = sizes[torch.random(#sizes)]
            local k = sizes[torch.random(#sizes)]
            check(order, ta, tb, m, nn_, k, alphas[i % 3 + 1], betas[(i // 3) % 3 + 1], i % 3, false)
            n = n + 1
          end
        end
      end
    end
    assert.are.equal(112, n)
  end)

  it('A times B^T by dot products (small C, long K), edges of 4 and of 16', function()
    check('R', 'N', 'T', 16, 16, 256, 1, 0, 0, false)
    check('R', 'N', 'T', 7, 13, 67, -1.5, 1, 1, false)
    check('R', 'N', 'T', 33, 65, 300, 1, -1.5, 2, false)
    check('C', 'T', 'N', 18, 5, 129, 0.5, 0, 1, true)
    -- 1, 2, 3 rows (alone or as the bottom block): only those rows computed
    check('R', 'N', 'T', 1, 1000, 100, 1, 0, 0, true)
    check('R', 'N', 'T', 2, 999, 77, -1.5, 1, 1, false)
    check('R', 'N', 'T', 5, 300, 1030, 0.5, -1.5, 0, false)
    check('R', 'N', 'T', 11, 101, 64, 1, 0, 2, true)
  end)

  it('K larger than one block, M and N over several tiles and blocks', function()
    check('R', 'N', 'N', 70, 100, 600, 1, 1, 1, false)
    check('R', 'T', 'T', 33, 1000, 300, -1.5, 0.5, 0, false)
    check('C', 'N', 'T', 130, 50, 520, 1, 0, 2, false)
    check('R', 'N', 'N', 530, 60, 300, -1.5, 1, 1, false)  -- past 512 rows B is packed
  end)

  it('beta = 0 never reads C: a NaN-filled C gives the product', function()
    for _, order in ipairs{'R', 'C'} do
      check(order, 'N', 'N', 17, 33, 15, 1, 0, 1, true)
      check(order, 'T', 'T', 9, 50, 3, -1.5, 0, 0, true)
    end
  end)

  it('B transposed with few rows of C: the flipped product C^T = B^T A^T', function()
    -- up to 144 rows of C, M x N past the dot products' 16384: B^T's rows are
    -- read in place, tiles stored transposed; edges of 8 (B^T rows) and of
    -- 16 and 48 (C rows), K over two blocks of 512, A in all three layouts
    check('R', 'N', 'T', 64, 1024, 784, 1, 1, 0, false)     -- nn.Linear's forward
    check('R', 'N', 'T', 1, 16390, 33, -1.5, 0, 1, true)
    check('R', 'N', 'T', 7, 3001, 70, 0.5, -1.5, 2, false)
    check('R', 'N', 'T', 49, 401, 1030, 1, 0, 1, true)
    check('R', 'T', 'T', 97, 250, 129, -1.5, 1, 0, false)   -- A transposed too
    check('C', 'T', 'N', 333, 144, 65, 1, 0.5, 1, false)    -- column-major: the same product
    check('R', 'N', 'T', 145, 200, 100, 1, 0, 0, true)      -- one past the bound: packed path
    -- 16 rows or more with B^T past 1 MB: flipped rather than dot products
    check('R', 'N', 'T', 16, 600, 500, 1, 1, 1, false)
    check('R', 'N', 'T', 21, 513, 1031, -1.5, 0, 0, true)
    check('R', 'N', 'T', 15, 600, 500, 1, 0.5, 0, false)    -- 15 rows: dot products
  end)

  it('K = 0 and alpha = 0 scale C by beta; M or N = 0 does nothing', function()
    check('R', 'N', 'N', 5, 7, 0, 1, -1.5, 1, false)
    check('C', 'T', 'N', 5, 7, 0, 1, 0, 0, true)
    check('R', 'N', 'T', 6, 4, 9, 0, 0.5, 0, false)
    check('R', 'N', 'N', 0, 7, 3, 1, 1, 0, false)
    check('C', 'N', 'N', 4, 0, 3, 1, 0, 0, true)
  end)

  it('splits a large product over two threads (rows or columns) correctly', function()
    local nt = torch.getnumthreads()
    torch.setnumthreads(2)
    -- from 16 MFLOP (th_gemm.c's par_mflop): bands of columns
    check('R', 'N', 'N', 300, 100, 300, 1, 0, 0, false)
    check('R', 'N', 'T', 64, 701, 200, 1, 1, 1, false)     -- flipped, bands of B^T rows
    check('R', 'N', 'T', 150, 701, 200, 1, 1, 1, false)    -- packed
    check('C', 'T', 'N', 250, 250, 130, -1.5, 0, 0, false)
    check('R', 'N', 'N', 90, 500, 400, 1, 0.5, 1, false)  -- B read in place
    -- bands of rows: a narrow C, and dot products
    check('R', 'N', 'N', 5, 2000, 900, 1, 0, 0, false)
    check('R', 'N', 'T', 100, 100, 1000, -1.5, 1, 0, false)
    torch.setnumthreads(nt)
  end)

  it('runs back-to-back split products on the helper threads, 2, 3 then 2 threads again', function()
    -- th_pool: consecutive jobs reuse the helpers (the first may still be
    -- finishing or watching for work), a larger thread count starts one
    -- more, a smaller one leaves it out; every product must still be exact
    local nt = torch.getnumthreads()
    for _, threads in ipairs{2, 3, 2} do
      torch.setnumthreads(threads)
      for i = 1, 8 do
        check('R', 'N', i % 2 == 0 and 'T' or 'N', 64 + i, 701, 200, 1, i % 3 == 0 and 1 or 0, 0, false)
      end
    end
    torch.setnumthreads(nt)
  end)

  it('agrees with OpenBLAS through torch.mm and addmm on non-contiguous tensors', function()
    local a = torch.FloatTensor(40, 70):uniform(-1, 1)
    local b = torch.FloatTensor(90, 50):uniform(-1, 1)
    local m = torch.FloatTensor(60, 33):uniform(-1, 1)
    local function products()
      return {
        torch.mm(a:narrow(2, 3, 37), b:narrow(1, 2, 37)),          -- padded leading dimensions
        torch.mm(a:t():narrow(1, 1, 50), b:narrow(2, 1, 40):t()),  -- transposed views
        torch.addmm(0.5, m:narrow(2, 2, 31), -1.5, a:narrow(1, 1, 31):t():narrow(1, 1, 60),
                    b:narrow(1, 1, 31):narrow(2, 1, 31)),
        torch.FloatTensor(33, 60):t():addmm(0, 2, a:narrow(2, 1, 60):t(), a:narrow(2, 1, 33)),
      }
    end
    local ours = products()
    C.gemm_backend('openblas')
    local ref = products()
    for i = 1, #ours do
      local tol = 8 * eps * 70 * (math.abs(ref[i]:max()) + 1)
      assert(ours[i]:dist(ref[i], math.huge) <= tol, 'product ' .. i)
    end
  end)

  local function both(f)
    local r = {}
    for _, b in ipairs{'ours', 'openblas'} do
      C.gemm_backend(b)
      torch.manualSeed(5)
      r[b] = f()
    end
    return r.ours, r.openblas
  end

  local function close(x, y, k, what)
    local tol = 8 * eps * k * (y:clone():abs():max() + 1)
    assert(x:dist(y, math.huge) <= tol, what .. string.format(': %.3g > %.3g', x:dist(y, math.huge), tol))
  end

  it('nn.Linear forward and backward agree across backends', function()
    local function run()
      local l = nn.Linear(70, 33):float()
      local x = torch.FloatTensor(17, 70):uniform(-1, 1)
      local go = torch.FloatTensor(17, 33):uniform(-1, 1)
      l:zeroGradParameters()
      local y = l:forward(x):clone()
      local gi = l:backward(x, go):clone()
      return {y, gi, l.gradWeight:clone()}
    end
    local o, r = both(run)
    close(o[1], r[1], 70, 'output')
    close(o[2], r[2], 33, 'gradInput')
    close(o[3], r[3], 17, 'gradWeight')
  end)

  it('nn.SpatialConvolution forward and backward agree across backends', function()
    local function run()
      local c = nn.SpatialConvolution(5, 17, 3, 3, 1, 1, 1, 1):float()
      local x = torch.FloatTensor(3, 5, 13, 11):uniform(-1, 1)
      c:zeroGradParameters()
      local y = c:forward(x):clone()
      local go = y:clone():uniform(-1, 1)
      local gi = c:backward(x, go):clone()
      return {y, gi, c.gradWeight:clone()}
    end
    local o, r = both(run)
    close(o[1], r[1], 45, 'output')
    close(o[2], r[2], 153, 'gradInput')
    close(o[3], r[3], 3 * 13 * 11, 'gradWeight')
  end)

  it('gemm_backend returns the previous backend and rejects other names', function()
    C.gemm_backend('openblas')
    local prev, supported = C.gemm_backend('ours')
    assert.are.equal('openblas', prev)
    assert.are.equal('boolean', type(supported))
    assert.are.equal('ours', (C.gemm_backend()))
    errors(function() C.gemm_backend('mkl') end,
           "bad argument #1 to 'torch._C.gemm_backend' ('ours' or 'openblas' expected, got 'mkl')")
    errors(function() C.gemm_backend(3) end, "('ours' or 'openblas' expected, got number)")
  end)

  it('sgemm checks its extents before the call', function()
    local A, B, Cm = torch.FloatTensor(6), torch.FloatTensor(6), torch.FloatTensor(4)
    errors(function() C.sgemm('R', 'N', 'N', 2, 2, 3, 1, A, 2, B, 2, 0, Cm, 2) end,
           'leading dimension of A must be at least 3, got 2')
    errors(function() C.sgemm('R', 'N', 'N', 2, 2, 4, 1, A, 4, B, 2, 0, Cm, 2) end,
           'A needs 8 elements, got 6')
    errors(function() C.sgemm('X', 'N', 'N', 2, 2, 3, 1, A, 3, B, 2, 0, Cm, 2) end,
           "'C' or 'R' expected, got 'X'")
    errors(function() C.sgemm('R', 'N', 'N', 2, 2, 3, 1, A:double(), 3, B, 2, 0, Cm, 2) end,
           'torch._C.sgemm')
  end)
end)
