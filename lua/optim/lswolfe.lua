-- optim.lswolfe(opfunc, x, t, d, f, g, gtd [, options]): a line search
-- along d from x meeting the strong Wolfe conditions, as Torch7's
-- optim.lswolfe (from minFunc): bracket a step by cubic extrapolation,
-- then zoom into the bracket by cubic interpolation.
-- t: first step; f, g, gtd: f(x), df/dx and g.d at x.
-- options: c1 (1e-4, sufficient decrease), c2 (0.9, curvature), tolX
-- (1e-9, smallest bracket), maxIter (20).
-- Returns f and g at the new point, x (moved there, in place), the step t
-- and the number of evaluations.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim
require 'optim.polyinterp'

local function point(t, f, gtd) return {t, f, gtd} end

local function cubicMin(a, b, lo, hi)
  return optim.polyinterp(torch.DoubleTensor{a, b}, lo, hi)
end

function optim.lswolfe(opfunc, x, t, d, f, g, gtd, options)
  local who = 'optim.lswolfe'
  optim._checkCall(who, opfunc, x)
  options = options or {}
  local c1, c2 = options.c1 or 1e-4, options.c2 or 0.9
  local tolX = options.tolX or 1e-9
  local maxIter = options.maxIter or 20
  local verbose = options.verbose and function(...) print('<optim.lswolfe> ', ...) end or function() end

  local x0 = x:clone()
  local evals = 0
  local function at(step)
    x:copy(x0):add(step, d)
    local fn, gn = optim._evaluate(who, opfunc, x)
    evals = evals + 1
    return fn, gn:clone(), gn:dot(d)
  end

  local fNew, gNew, gtdNew = at(t)
  local iter, tPrev, done = 0, 0, false
  local fPrev, gPrev, gtdPrev = f, g:clone(), gtd
  -- the bracket: steps, values, gradients (one entry when the first step is good)
  local bt, bf, bg
  while iter < maxIter do
    if fNew > f + c1 * t * gtd or (iter > 1 and fNew >= fPrev) then
      bt, bf, bg = {tPrev, t}, {fPrev, fNew}, {gPrev, gNew}
      break
    elseif math.abs(gtdNew) <= -c2 * gtd then
      bt, bf, bg = {t}, {fNew}, {gNew}
      done = true
      break
    elseif gtdNew >= 0 then
      bt, bf, bg = {tPrev, t}, {fPrev, fNew}, {gPrev, gNew}
      break
    end
    -- extrapolate: the cubic's minimiser between 1.01 t and 10 t
    local before = tPrev
    tPrev = t
    t = cubicMin(point(before, fPrev, gtdPrev), point(t, fNew, gtdNew), t + 0.01 * (t - before), t * 10)
    fPrev, gPrev, gtdPrev = fNew, gNew, gtdNew
    fNew, gNew, gtdNew = at(t)
    iter = iter + 1
  end
  if iter == maxIter then
    bt, bf, bg = {0, t}, {f, fNew}, {g:clone(), gNew}
  end

  -- zoom: shrink the bracket until the point meets both conditions
  local insufficient = false
  while not done and iter < maxIter do
    local lo = bf[1] <= bf[2] and 1 or 2
    local hi = 3 - lo
    local fLo = bf[lo]
    local bmin, bmax = math.min(bt[1], bt[2]), math.max(bt[1], bt[2])
    t = cubicMin(point(bt[1], bf[1], bg[1]:dot(d)), point(bt[2], bf[2], bg[2]:dot(d)))
    -- too close to an end of the bracket: move it in, unless progress was fine
    if math.min(bmax - t, t - bmin) / (bmax - bmin) < 0.1 then
      if insufficient or t >= bmax or t <= bmin then
        if math.abs(t - bmax) < math.abs(t - bmin) then
          t = bmax - 0.1 * (bmax - bmin)
        else
          t = bmin + 0.1 * (bmax - bmin)
        end
        insufficient = false
      else
        insufficient = true
      end
    else
      insufficient = false
    end
    fNew, gNew, gtdNew = at(t)
    iter = iter + 1
    if fNew > f + c1 * t * gtd or fNew >= fLo then
      bt[hi], bf[hi], bg[hi] = t, fNew, gNew
    else
      if math.abs(gtdNew) <= -c2 * gtd then
        done = true
      elseif gtdNew * (bt[hi] - bt[lo]) >= 0 then
        bt[hi], bf[hi], bg[hi] = bt[lo], bf[lo], bg[lo]
      end
      bt[lo], bf[lo], bg[lo] = t, fNew, gNew
    end
    if not done and math.abs((bt[1] - bt[2]) * gtdNew) < tolX then break end
  end
  if iter == maxIter then verbose('reached max number of iterations') end

  local best = (#bf == 1 or bf[1] <= bf[2]) and 1 or 2
  t = bt[best]
  x:copy(x0):add(t, d)
  return bf[best], bg[best], x, t, evals
end

return optim.lswolfe
