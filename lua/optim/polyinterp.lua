-- optim.polyinterp(points [, xminBound, xmaxBound]): the minimiser of the
-- polynomial through points (an n x 3 tensor of {x, f(x), f'(x)} rows),
-- within [xminBound, xmaxBound] (default: the points' range), as Torch7's
-- optim.polyinterp (from Mark Schmidt's minFunc). Two points without
-- bounds: the cubic's minimiser in closed form. Otherwise the polynomial
-- of degree 2n-1 matching every value and slope is solved for, and the
-- candidates (the bounds, the points, the real roots of its derivative
-- inside the bounds) are compared. Returns the position and the value
-- there (the value only in the general case, as Torch7).

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

-- p(x) for coefficients c[1] x^(m-1) + ... + c[m]
local function polyval(c, x)
  local v = 0
  for i = 1, #c do v = v * x + c[i] end
  return v
end

-- solves the square system A y = b (tables of rows) by Gaussian
-- elimination with partial pivoting; nil when singular
local function solve(A, b)
  local n = #A
  for k = 1, n do
    local p = k
    for i = k + 1, n do if math.abs(A[i][k]) > math.abs(A[p][k]) then p = i end end
    if A[p][k] == 0 then return nil end
    A[k], A[p], b[k], b[p] = A[p], A[k], b[p], b[k]
    for i = k + 1, n do
      local m = A[i][k] / A[k][k]
      for j = k, n do A[i][j] = A[i][j] - m * A[k][j] end
      b[i] = b[i] - m * b[k]
    end
  end
  local y = {}
  for i = n, 1, -1 do
    local s = b[i]
    for j = i + 1, n do s = s - A[i][j] * y[j] end
    y[i] = s / A[i][i]
  end
  return y
end

-- the real roots of c[1] x^m + ... (leading and trailing zeros dropped as
-- Torch7's roots() does: trailing zeros are roots at 0)
local function realRoots(c)
  local first = 1
  while first <= #c and c[first] == 0 do first = first + 1 end
  local last = #c
  local zeros = 0
  while last >= first and c[last] == 0 do last = last - 1; zeros = zeros + 1 end
  local roots = {}
  for _ = 1, zeros do roots[#roots + 1] = 0 end
  local p = {}
  for i = first, last do p[#p + 1] = c[i] end
  local deg = #p - 1
  if deg == 1 then
    roots[#roots + 1] = -p[2] / p[1]
  elseif deg == 2 then
    local disc = p[2] * p[2] - 4 * p[1] * p[3]
    if disc >= 0 then
      local q = -0.5 * (p[2] + (p[2] >= 0 and 1 or -1) * math.sqrt(disc))
      roots[#roots + 1] = q / p[1]
      if q ~= 0 then roots[#roots + 1] = p[3] / q end
    end
  elseif deg > 2 then
    -- Durand-Kerner on the monic polynomial; real roots are those whose
    -- imaginary part vanishes
    local re, im = {}, {}
    for i = 1, deg do
      local a = 2 * math.pi * (i - 1) / deg + 0.4
      re[i], im[i] = math.cos(a) * 0.9, math.sin(a) * 0.9
    end
    for _ = 1, 500 do
      local moved = 0
      for i = 1, deg do
        -- p(z) / prod(z - zj), complex arithmetic
        local vr, vi = 0, 0
        for k = 1, #p do
          vr, vi = vr * re[i] - vi * im[i] + p[k] / p[1], vr * im[i] + vi * re[i]
        end
        local dr, di = 1, 0
        for j = 1, deg do
          if j ~= i then
            local ar, ai = re[i] - re[j], im[i] - im[j]
            dr, di = dr * ar - di * ai, dr * ai + di * ar
          end
        end
        local den = dr * dr + di * di
        if den == 0 then den = 1e-300 end
        local qr, qi = (vr * dr + vi * di) / den, (vi * dr - vr * di) / den
        re[i], im[i] = re[i] - qr, im[i] - qi
        moved = math.max(moved, math.abs(qr) + math.abs(qi))
      end
      if moved < 1e-14 then break end
    end
    for i = 1, deg do
      if math.abs(im[i]) <= 1e-10 * math.max(1, math.abs(re[i])) then roots[#roots + 1] = re[i] end
    end
  end
  return roots
end

function optim.polyinterp(points, xminBound, xmaxBound)
  if not torch.isTensor(points) or points:dim() ~= 2 or points:size(2) ~= 3 then
    error('optim.polyinterp: points must be an n x 3 tensor of {x, f, df} rows, got '
          .. (torch.isTensor(points) and table.concat(points:size():totable(), 'x') or torch.type(points)), 2)
  end
  local n = points:size(1)
  local P = {}
  for i = 1, n do P[i] = {points[i][1], points[i][2], points[i][3]} end

  if n == 2 and xminBound == nil and xmaxBound == nil then
    local lo = P[1][1] <= P[2][1] and 1 or 2
    local hi = 3 - lo
    local d1 = P[lo][3] + P[hi][3] - 3 * (P[lo][2] - P[hi][2]) / (P[lo][1] - P[hi][1])
    local d2sq = d1 * d1 - P[lo][3] * P[hi][3]
    if d2sq >= 0 then
      local d2 = math.sqrt(d2sq)
      local t = P[hi][1] - (P[hi][1] - P[lo][1]) * ((P[hi][3] + d2 - d1) / (P[hi][3] - P[lo][3] + 2 * d2))
      return math.min(math.max(t, P[lo][1]), P[hi][1])
    end
    return (P[1][1] + P[2][1]) / 2
  end

  local xmin, xmax = math.huge, -math.huge
  for i = 1, n do xmin, xmax = math.min(xmin, P[i][1]), math.max(xmax, P[i][1]) end
  xminBound, xmaxBound = xminBound or xmin, xmaxBound or xmax
  -- the polynomial of degree 2n-1 through every value and slope
  local order = 2 * n - 1
  local A, b = {}, {}
  for i = 1, n do
    local row, drow = {}, {}
    for j = order, 0, -1 do row[#row + 1] = P[i][1] ^ j end
    for j = order, 0, -1 do drow[#drow + 1] = j > 0 and j * P[i][1] ^ (j - 1) or 0 end
    A[i], b[i] = row, P[i][2]
    A[n + i], b[n + i] = drow, P[i][3]
  end
  local c = solve(A, b)
  local candidates = {xminBound, xmaxBound}
  for i = 1, n do candidates[#candidates + 1] = P[i][1] end
  if c then
    for i = 1, #c do if math.abs(c[i]) <= 1e-12 then c[i] = 0 end end
    local dc = {}
    for i = 1, #c - 1 do dc[i] = c[i] * (order - i + 1) end
    local ok = true
    for _, v in ipairs(dc) do if v ~= v or v == math.huge then ok = false end end
    if ok then for _, r in ipairs(realRoots(dc)) do candidates[#candidates + 1] = r end end
  end
  local best, fbest = (xminBound + xmaxBound) / 2, math.huge
  if c then
    for _, x in ipairs(candidates) do
      if x >= xminBound and x <= xmaxBound then
        local f = polyval(c, x)
        if f < fbest then best, fbest = x, f end
      end
    end
  end
  return best, fbest
end

return optim.polyinterp
