-- Linear algebra through LAPACK (src/tensor/th_lapack.c): every function in
-- Float and Double, checked by reconstruction (A X = B, Q R = A,
-- U diag(S) V' = A, V diag(e) V' = A, L L' = A, ...) and on small cases
-- solved by hand; Torch7's result-tensor forms; inputs left unchanged;
-- error messages.
require 'torch'

local helpers = require('spec.support.helpers')
local errors = helpers.errors

local function maxdiff(a, b)
  assert.are.same(a:size():totable(), b:size():totable())
  return (a:double() - b:double()):abs():max()
end

-- the largest entry below the diagonal (0 for an upper triangular matrix)
local function below(m)
  local worst = 0
  for i = 1, m:size(1) do
    for j = 1, math.min(i - 1, m:size(2)) do worst = math.max(worst, math.abs(m[i][j])) end
  end
  return worst
end

local SPD = {{4, 1, 2}, {1, 5, 3}, {2, 3, 6}}             -- leading minors 4, 19, 70
local RECT = {{1, 2, 3}, {4, 5, 6}, {7, 8, 10}, {1, 0, 1}}  -- 4x3, full rank

for _, tname in ipairs{'Float', 'Double'} do
  local T = function(...) return torch[tname .. 'Tensor'](...) end
  local tol = tname == 'Float' and 2e-4 or 1e-10

  local function near(expected, got, what)
    if type(expected) == 'table' then expected = T(expected) end
    local d = maxdiff(expected, got)
    assert(d <= tol * math.max(1, torch.abs(expected:double()):max()),
           string.format('%s: off by %g', what or 'value', d))
  end
  local function orthonormal_columns(q, what)
    near(torch.eye(q:size(2)):type(q:type()), q:t() * q, what or 'Q\'Q = I')
  end

  describe('LAPACK (' .. tname .. ')', function()
    it('gesv solves A X = B; LU holds U with |det A| on its diagonal', function()
      local a, b = T{{2, 1}, {1, 3}}, T{{3}, {5}}
      local x, lu = torch.gesv(b, a)
      near({{0.8}, {1.4}}, x, 'X')                  -- by Cramer's rule
      local A, B = T(SPD), T{{1, 0}, {2, 1}, {3, -1}}
      x, lu = torch.gesv(B, A)
      near(B, A * x, 'A X')
      local det = lu[1][1] * lu[2][2] * lu[3][3]
      assert(math.abs(math.abs(det) - 70) < 70 * tol * 10, 'det ' .. det)
      -- 1D right-hand side: an n x 1 solution, as Torch7
      x = torch.gesv(T{1, 2, 3}, A)
      assert.are.same({3, 1}, x:size():totable())
      near(T{{1}, {2}, {3}}, A * x)
    end)

    it('gesv: result forms, inputs unchanged, results may be the inputs', function()
      local A, B = T(SPD), T{{1}, {2}, {3}}
      local A0, B0 = A:clone(), B:clone()
      local x = torch.gesv(B, A)
      assert.are.equal(0, maxdiff(A0, A))
      assert.are.equal(0, maxdiff(B0, B))
      local rb, ra = T(), T()
      local x2, lu2 = torch.gesv(rb, ra, B, A)
      assert.are.equal(rb, x2)
      assert.are.equal(ra, lu2)
      assert.are.equal(0, maxdiff(x, rb))
      -- Torch7's torch.gesv(b, a, b, a): solution into b, factors into a
      torch.gesv(B, A, B, A)
      assert.are.equal(0, maxdiff(x, B))
      -- a reused contiguous result turns column-major, as in Torch7
      local r = T(3, 1):zero()
      torch.gesv(r, T(3, 3), B0, A0)
      assert.are.equal(0, maxdiff(x, r))
      -- the method form: self is the first argument
      assert.are.equal(0, maxdiff(x, B0:gesv(A0)))
      -- non-contiguous inputs: a transposed A, a column of a wider B
      local At = A0:t():clone():t()
      local wide = T(3, 2):zero()
      wide:select(2, 2):copy(B0:select(2, 1))
      assert.is_false(At:isContiguous())
      near(x, torch.gesv(wide:narrow(2, 2, 1), At))
    end)

    it('trtrs solves triangular systems: uplo, trans, diag', function()
      local A = T(SPD)
      local U, L = A:triu(), A:tril()
      local b = T{{1, 2}, {0, 1}, {-1, 3}}
      local x, acopy = torch.trtrs(b, U)
      near(b, U * x, 'U x')
      assert.are.equal(0, maxdiff(U, acopy))
      near(b, L * torch.trtrs(b, L, 'L'), 'L x')
      near(b, U:t() * torch.trtrs(b, U, 'U', 'T'), 'U\' x')
      near(b, U:t() * torch.trtrs(b, U, 'T'), 'U\' x, uplo left out')
      -- unit diagonal: the diagonal is read as ones
      local U1 = U:clone()
      for i = 1, 3 do U1[i][i] = 1 end
      near(b, U1 * torch.trtrs(b, U, 'U', 'N', 'U'), 'unit U x')
      errors(function() torch.trtrs(b, T{{1, 1}, {0, 0}}:narrow(1, 1, 2)) end, 'trtrs: B must have')
      errors(function() torch.trtrs(T{{1}, {1}}, T{{1, 1}, {0, 0}}) end,
             'trtrs: A(2,2) is zero, singular A')
    end)

    it('gels: least squares against the normal equations, minimum norm for wide A', function()
      -- the line through (0,1), (1,3), (2,4): by hand 7/6 + 3/2 t
      local x = torch.gels(T{1, 3, 4}, T{{1, 0}, {1, 1}, {1, 2}})
      near({{7 / 6}, {1.5}}, x, 'line fit')
      local A, B = T(RECT), T{{1, 2}, {0, 1}, {2, 2}, {1, -1}}
      local A0, B0 = A:clone(), B:clone()
      x = torch.gels(B, A)
      assert.are.same({3, 2}, x:size():totable())
      near(A:t() * B, A:t() * A * x, 'A\'A x = A\'b')
      assert.are.equal(0, maxdiff(A0, A))
      assert.are.equal(0, maxdiff(B0, B))
      -- underdetermined: A x = b exactly, x = A'(AA')^-1 b
      local W, b = T{{1, 2, 3}, {0, 1, 4}}, T{{1}, {2}}
      x = torch.gels(b, W)
      near(b, W * x, 'W x')
      near(W:t() * torch.inverse(W * W:t()) * b, x, 'minimum norm')
      -- result forms, reused
      local rb, ra = T(), T()
      torch.gels(rb, ra, B, A)
      torch.gels(rb, ra, B, A)
      near(x:size(1) == 3 and torch.gels(B, A) or x, rb)
      errors(function() torch.gels(T{1, 2, 3}, T{{1, 0}, {1, 0}, {2, 0}}) end,
             'gels: the 2-th diagonal element of the triangular factor of A is zero')
    end)

    it('inverse: by hand, A inv(A) = I, singular matrices', function()
      near({{0.6, -0.7}, {-0.2, 0.4}}, torch.inverse(T{{4, 7}, {2, 6}}), '2x2 by hand')
      local A = T(RECT):narrow(1, 1, 3)
      local inv = torch.inverse(A)
      near(torch.eye(3):type(A:type()), A * inv, 'A inv')
      near(torch.eye(3):type(A:type()), inv * A, 'inv A')
      assert.is_false(inv:isContiguous())  -- column-major, as Torch7 returns it
      local r = T(3, 3)
      assert.are.equal(r, torch.inverse(r, A))
      near(inv, r)
      assert.are.equal(0, maxdiff(inv, A:inverse()))
      errors(function() torch.inverse(T{{1, 2}, {2, 4}}) end, 'inverse: U(2,2) is zero, singular U')
    end)

    it('symeig: eigenvalues by hand, V diag(e) V\' = A, uplo', function()
      local e = torch.symeig(T{{2, 1}, {1, 2}})
      near({1, 3}, e, 'eigenvalues of [2 1; 1 2]')
      local A = T(SPD)
      local v
      e, v = torch.symeig(A, 'V')
      near(A, v * torch.diag(e) * v:t(), 'V diag(e) V\'')
      orthonormal_columns(v)
      assert(e[1] <= e[2] and e[2] <= e[3], 'ascending')
      -- 'L' reads the lower triangle only: garbage above is ignored
      local G = A:clone()
      G[1][3], G[1][2] = 100, -7
      local eL, vL = torch.symeig(G, 'V', 'L')
      near(e, eL, 'lower triangle')
      near(A, vL * torch.diag(eL) * vL:t())
      -- 'N' leaves a given V alone
      local re, rv = T(), T(2, 2):fill(7)
      torch.symeig(re, rv, A, 'N')
      near(e, re)
      assert.are.equal(7, rv:min())
      assert.are.equal(0, maxdiff(A, T(SPD)))
    end)

    it('eig: A v = lambda v, complex pairs as (real, imaginary) rows', function()
      local e = torch.eig(T{{0, -1}, {1, 0}})        -- rotation: +-i
      assert.are.same({2, 2}, e:size():totable())
      near({0, 0}, e:select(2, 1), 'real parts')
      near({1, 1}, e:select(2, 2):clone():abs(), 'imaginary parts')
      assert(math.abs(e[1][2] + e[2][2]) < tol, 'conjugate pair')
      local A = T{{2, -1, 0}, {1, 3, 1}, {0, 2, 4}}
      local ev, V = torch.eig(A, 'V')
      for k = 1, 3 do
        if math.abs(ev[k][2]) < tol then  -- real eigenvalue: its column is the vector
          local v = V:select(2, k)
          near(v * ev[k][1], A * v, 'A v = lambda v')
        end
      end
      local tri = torch.eig(T{{2, 0}, {1, 3}})      -- triangular: the diagonal
      local vals = {tri[1][1], tri[2][1]}
      table.sort(vals)
      near({2, 3}, T(vals))
      -- 'N': no vectors, a given V is left alone
      local re, rv = T(), T()
      torch.eig(re, rv, A)
      assert.are.equal(0, rv:nElement())
    end)

    it('svd: U diag(S) V\' = A, orthonormal U and V, S by hand, S and A jobs', function()
      local u, s, v = torch.svd(T{{3, 0}, {0, -2}})
      near({3, 2}, s, 'singular values of diag(3, -2)')
      for _, A in ipairs{T(RECT), T(RECT):t()} do
        u, s, v = torch.svd(A)
        local k = math.min(A:size(1), A:size(2))
        assert.are.same({A:size(1), k}, u:size():totable())
        assert.are.same({A:size(2), k}, v:size():totable())
        near(A, u * torch.diag(s) * v:t(), 'U S V\'')
        orthonormal_columns(u)
        orthonormal_columns(v)
        for i = 2, k do assert(s[i - 1] >= s[i], 'descending') end
        local uA, sA, vA = torch.svd(A, 'A')
        assert.are.same({A:size(1), A:size(1)}, uA:size():totable())
        assert.are.same({A:size(2), A:size(2)}, vA:size():totable())
        orthonormal_columns(uA)
        orthonormal_columns(vA)
        near(s, sA)
        near(A, uA:narrow(2, 1, k) * torch.diag(sA) * vA:narrow(2, 1, k):t())
        local gu, gs, gv = torch.gesvd(A)
        near(s, gs, 'gesvd is svd')
        near(u * torch.diag(s) * v:t(), gu * torch.diag(gs) * gv:t())
      end
      local ru, rs, rv = T(), T(), T()
      local a, b, c = torch.svd(ru, rs, rv, T(RECT))
      assert.are.equal(ru, a)
      assert.are.equal(rs, b)
      assert.are.equal(rv, c)
    end)

    it('potrf: U\'U = A and L L\' = A, by hand, not positive definite', function()
      near({{2, 1}, {0, 2}}, torch.potrf(T{{4, 2}, {2, 5}}), 'Cholesky by hand')
      local A = T(SPD)
      local U = torch.potrf(A)
      near(A, U:t() * U, 'U\'U')
      assert.are.equal(0, below(U))
      local L = torch.potrf(A, 'L')
      near(A, L * L:t(), 'L L\'')
      assert.are.equal(0, below(L:t()))
      local r = T()
      assert.are.equal(r, torch.potrf(r, A, 'U'))
      near(U, r)
      errors(function() torch.potrf(T{{1, 2}, {2, 1}}) end,
             'potrf: the leading minor of order 2 is not positive definite')
    end)

    it('potrs and potri from the Cholesky factor', function()
      local A, B = T(SPD), T{{1, 2}, {0, 1}, {-1, 3}}
      for _, uplo in ipairs{'U', 'L'} do
        local chol = torch.potrf(A, uplo)
        local x = torch.potrs(B, chol, uplo)
        near(B, A * x, 'A x = b (' .. uplo .. ')')
        local inv = torch.potri(chol, uplo)
        near(inv, inv:t(), 'symmetric')
        near(torch.eye(3):type(A:type()), A * inv, 'A inv (' .. uplo .. ')')
      end
      errors(function() torch.potrs(B, T(3, 3):zero()) end, 'potrs: the Cholesky factor has a zero at (1,1)')
      errors(function() torch.potri(T(3, 3):zero()) end, 'potri: A(1,1) is zero')
    end)

    it('pstrf: P\'A P = U\'U with P[piv[k], k] = 1, IntTensor pivots, tolerance', function()
      local A = T(SPD)
      for _, uplo in ipairs{'U', 'L'} do
        local F, piv = torch.pstrf(A, uplo)
        assert.are.equal('torch.IntTensor', piv:type())
        local P = T(3, 3):zero()
        for k = 1, 3 do P[piv[k]][k] = 1 end
        local PAP = P:t() * A * P
        if uplo == 'U' then near(PAP, F:t() * F) else near(PAP, F * F:t()) end
        -- complete pivoting takes the largest diagonal entry first: 6 at row 3
        assert.are.equal(3, piv[1])
      end
      local r, p = T(), torch.IntTensor()
      local r2, p2 = torch.pstrf(r, p, A, 'U', 1e-3)
      assert.are.equal(r, r2)
      assert.are.equal(p, p2)
      errors(function() torch.pstrf(T(), torch.LongTensor(), A) end, 'torch.IntTensor expected')
      -- rank one: Torch7 raises on a rank-deficient matrix
      errors(function() torch.pstrf(T{{1, 1}, {1, 1}}) end, 'pstrf: matrix is rank deficient')
    end)

    it('Torch7\'s documented examples (doc/maths.md): pstrf and eig give its printed values', function()
      local A = T{{1.2705, 0.9971, 0.4948, 0.1389, 0.2381}, {0.9971, 0.9966, 0.6752, 0.0686, 0.1196},
                  {0.4948, 0.6752, 1.1434, 0.0314, 0.0582}, {0.1389, 0.0686, 0.0314, 0.0270, 0.0526},
                  {0.2381, 0.1196, 0.0582, 0.0526, 0.3957}}
      local U, piv = torch.pstrf(A)
      assert.are.same({1, 3, 5, 2, 4}, piv:totable())
      local printed = T{{1.1272, 0.4390, 0.2112, 0.8846, 0.1232}, {0, 0.9750, -0.0354, 0.2942, -0.0233},
                        {0, 0, 0.5915, -0.0961, 0.0435}, {0, 0, 0, 0.3439, -0.0854}, {0, 0, 0, 0, 0.0456}}
      assert(maxdiff(printed, U) < 1e-4, 'pstrf as printed')
      local a = T{{1.96, -6.49, -0.47, -7.20, -0.65}, {0, 3.80, -6.39, 1.50, -6.34},
                  {0, 0, 4.17, -1.51, 2.67}, {0, 0, 0, 5.70, 1.80}, {0, 0, 0, 0, -7.10}}
      local b = a + torch.triu(a, 1):t()
      local e = torch.eig(b)
      assert(e:select(2, 2):clone():abs():max() == 0, 'real eigenvalues')
      -- the order is LAPACK's own (Torch7 printed 16.0948 first; single precision may differ)
      local sorted = torch.sort(e:select(2, 1))
      assert(maxdiff(T{-11.0656, -6.2287, 0.8640, 8.8655, 16.0948}, sorted) < 1e-4, 'eig as printed')
    end)

    it('qr: Q R = A with orthonormal Q and upper R, R by hand', function()
      local q, r = torch.qr(T{{12, -51, 4}, {6, 167, -68}, {-4, 24, -41}})
      near({14, 175, 35}, torch.diag(r):abs(), '|diag R| by hand')
      near({{12, -51, 4}, {6, 167, -68}, {-4, 24, -41}}, q * r)
      for _, A in ipairs{T(RECT), T(RECT):t()} do
        local A0 = A:clone()
        q, r = torch.qr(A)
        local k = math.min(A:size(1), A:size(2))
        assert.are.same({A:size(1), k}, q:size():totable())
        assert.are.same({k, A:size(2)}, r:size():totable())
        near(A, q * r, 'Q R')
        orthonormal_columns(q)
        assert.are.equal(0, below(r))
        assert.are.equal(0, maxdiff(A0, A))
      end
      local rq, rr = T(), T()
      local q2, r2 = torch.qr(rq, rr, T(RECT))
      assert.are.equal(rq, q2)
      assert.are.equal(rr, r2)
    end)

    it('geqrf, orgqr, ormqr against qr\'s Q', function()
      local A = T(RECT)
      local q, r = torch.qr(A)
      local m, tau = torch.geqrf(A)
      assert.are.same({4, 3}, m:size():totable())
      assert.are.same({3}, tau:size():totable())
      near(r, m:narrow(1, 1, 3):triu(), 'R above the diagonal')
      near(q, torch.orgqr(m, tau), 'orgqr')
      -- the full 4x4 Q: ormqr applied to the identity
      local Q = torch.ormqr(m, tau, torch.eye(4):type(A:type()))
      orthonormal_columns(Q)
      near(q, Q:narrow(2, 1, 3), 'first columns of Q')
      local C, D = T{{1, 2}, {3, 4}, {5, 6}, {7, 8}}, T{{1, 2, 3, 4}, {0, 1, 0, 1}}
      near(Q * C, torch.ormqr(m, tau, C), 'Q C')
      near(Q:t() * C, torch.ormqr(m, tau, C, 'L', 'T'), 'Q\'C')
      near(D * Q, torch.ormqr(m, tau, D, 'R'), 'D Q')
      near(D * Q:t(), torch.ormqr(m, tau, D, 'R', 'T'), 'D Q\'')
      near(Q:t() * C, torch.ormqr(m, tau, C, 'T'), 'side left out')
      local res = T()
      assert.are.equal(res, torch.ormqr(res, m, tau, C))
      errors(function() torch.ormqr(m, tau, D) end, 'ormqr: A must have 2 rows')
      errors(function() torch.orgqr(m, T(4):zero()) end, 'orgqr: tau has 4 reflectors')
    end)

    it('every function: inputs unchanged, method form equal to the function', function()
      local A, B, R = T(SPD), T{{1, 2}, {0, 1}, {-1, 3}}, T(RECT)
      local chol = torch.potrf(A)
      local m, tau = torch.geqrf(R)
      local C = T{{1, 2}, {3, 4}, {5, 6}, {7, 8}}
      local calls = {
        {'gesv', B, A}, {'trtrs', B, A:triu()}, {'gels', C, R}, {'inverse', A},
        {'symeig', A, 'V'}, {'eig', A, 'V'}, {'svd', R}, {'gesvd', R, 'A'}, {'potrf', A, 'L'},
        {'potrs', B, chol}, {'potri', chol}, {'pstrf', A}, {'qr', R}, {'geqrf', R},
        {'orgqr', m, tau}, {'ormqr', m, tau, C, 'L', 'T'},
      }
      for _, c in ipairs(calls) do
        local name, args = c[1], {table.unpack(c, 2)}
        local before = {}
        for i, v in ipairs(args) do before[i] = torch.isTensor(v) and v:clone() or v end
        local f = {torch[name](table.unpack(args))}
        local g = {args[1][name](table.unpack(args))}
        for i, v in ipairs(args) do
          if torch.isTensor(v) then assert.are.equal(0, maxdiff(before[i], v), name .. ' changed input ' .. i) end
        end
        assert.are.equal(#f, #g, name)
        for i = 1, #f do assert.are.equal(0, maxdiff(f[i], g[i]), name .. ' method result ' .. i) end
      end
    end)

    it('result layout: column-major as Torch7, reused without reallocation, views written in place', function()
      local A = T(SPD)
      local inv = torch.inverse(A)
      assert.are.same({1, 3}, inv:stride():totable())
      local r = T(3, 3)
      torch.inverse(r, A)
      assert.are.same({1, 3}, r:stride():totable())
      local storage = r:storage()
      torch.inverse(r, A * 2)
      assert.are.equal(storage, r:storage())
      near(inv / 2, r)
      -- a strided view of the right shape keeps its strides: the columns 2..4 of a 3x6
      local big = T(3, 6):zero()
      torch.inverse(big:narrow(2, 2, 3), A)
      near(inv, big:narrow(2, 2, 3))
      assert.are.equal(0, big:select(2, 1):abs():max() + big:narrow(2, 5, 2):abs():max())
      -- svd's V and eig's values are row-major, as in Torch7
      local _, _, v = torch.svd(T(RECT))
      assert.is_true(v:isContiguous())
    end)

    it('1x1 matrices, one row, one column', function()
      local one = T{{4}}
      near({{0.5}}, torch.gesv(T{{2}}, one))
      near({{0.25}}, torch.inverse(one))
      near({4}, torch.symeig(one))
      near({{2}}, torch.potrf(one))
      for _, A in ipairs{T{{1, 2, 2}}, T{{1}, {2}, {2}}} do
        local u, s, v = torch.svd(A)
        near({3}, s, 'the norm is the one singular value')
        near(A, u * torch.diag(s) * v:t())
        local q, r = torch.qr(A)
        near(A, q * r)
        orthonormal_columns(q)
      end
      -- one column: least squares is the mean
      near({{2}}, torch.gels(T{{1}, {2}, {3}}, T{{1}, {1}, {1}}))
    end)

    it('errors: shapes, types, NaN, options, results', function()
      local A = T(SPD)
      errors(function() torch.gesv(T{1, 2}, A) end, 'gesv: B must have as many rows as A (3), got size 2')
      errors(function() torch.gesv(T(3, 1):zero(), T(RECT)) end, 'gesv: A must be square, got 4x3')
      errors(function() torch.inverse(T()) end, 'inverse: A must be a 2D matrix, got an empty tensor')
      errors(function() torch.symeig(T(2, 2, 2):zero()) end,
             'symeig: A must be a 2D matrix, got a 3D tensor of size 2x2x2')
      errors(function() torch.svd(T(0, 3)) end, 'svd: A must')
      local nan = A:clone()
      nan[2][2] = 0 / 0
      errors(function() torch.svd(nan) end, 'svd: A contains NaN or infinite values')
      errors(function() torch.gesv(T{{1}, {math.huge}, {1}}, A) end, 'gesv: B contains NaN or infinite')
      errors(function() torch.potrf(torch.LongTensor(2, 2):zero()) end,
             'potrf: not available for LongTensor A (expects a Float or Double tensor)')
      errors(function() torch.gesv(T{{1}, {2}, {3}}, A:double():type(tname == 'Float' and 'torch.DoubleTensor' or 'torch.FloatTensor')) end,
             'gesv: B must be a')
      errors(function() torch.symeig(A, 'X') end,
             "symeig: invalid arguments (torch." .. tname .. "Tensor, string 'X'); expected [rese, resv,] A [, 'N' | 'V'] [, 'U' | 'L']")
      errors(function() torch.qr(A, A) end, 'qr: invalid arguments')
      local r = T()
      errors(function() torch.gesv(r, r, T{{1}, {2}, {3}}, A) end, 'gesv: results 1 and 2 share a storage')
      local wrong = tname == 'Float' and torch.DoubleTensor() or torch.FloatTensor()
      errors(function() torch.inverse(wrong, A) end, 'inverse')
      -- overflow inside LAPACK is an error, not inf or NaN handed back
      local huge = tname == 'Float' and 3e38 or 1e308
      local big = T{{huge, -huge, huge}, {1, huge, 1}, {huge, huge, -huge}}
      errors(function() torch.inverse(big) end, 'inverse: the result is not finite: the computation overflowed')
      errors(function() torch.gesv(T{{1}, {1}, {1}}, big) end, 'gesv: the result is not finite')
      -- a failing call leaves its results alone
      local keep = T{{9}}
      pcall(torch.inverse, keep, T{{1, 2}, {2, 4}})
      assert.are.same({{9}}, keep:totable())
    end)
  end)
end
