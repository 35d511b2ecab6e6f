-- optim.cg(opfunc, x [, config [, state]]): nonlinear conjugate gradient
-- (Polak-Ribiere directions) with Rasmussen's line search of minimize.m
-- (cubic/quadratic interpolation and extrapolation under the Wolfe-Powell
-- conditions), as Torch7's optim.cg, which gives minimize.m's iterates.
-- config: rho (0.01), sig (0.5), int (0.1), ext (3.0), maxIter (20: line
-- searches), ratio (100: most a step may grow), maxEval (1.25 maxIter).
-- state: df0..df3, s, x0 (buffers, reused when given).
-- Returns x, {f at the start and after each successful line search},
-- the number of evaluations.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

function optim.cg(opfunc, x, config, state)
  local who = 'optim.cg'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local rho, sig = config.rho or 0.01, config.sig or 0.5
  local int, ext = config.int or 0.1, config.ext or 3.0
  local maxIter = config.maxIter or 20
  local ratio = config.ratio or 100
  local maxEval = config.maxEval or maxIter * 1.25

  local function buffer(name)
    state[name] = state[name] or x.new()
    return state[name]:resizeAs(x)
  end
  local df0, df1, df2, df3 = buffer('df0'), buffer('df1'), buffer('df2'), buffer('df3')
  local s, x0 = buffer('s'), buffer('x0')

  local evals, fxs = 0, {}
  local function eval(into)
    local f, g = optim._evaluate(who, opfunc, x)
    into:copy(g)
    evals = evals + 1
    return f
  end

  local f1 = eval(df1)
  fxs[1] = f1
  s:copy(df1):mul(-1)
  local d1 = -s:dot(s)          -- slope along s
  local z1 = 1 / (1 - d1)       -- first step (red = 1)
  while evals < math.abs(maxEval) do
    x0:copy(x)
    df0:copy(df1)
    x:add(z1, s)
    local f2 = eval(df2)
    local d2 = df2:dot(s)
    local f3, d3, z3 = f1, d1, -z1   -- point 3 starts as point 1
    local budget = math.min(maxIter, maxEval - evals)
    local success, limit = false, -1
    while true do
      -- interpolate back while the point is too far (not Wolfe-Powell)
      while (f2 > f1 + z1 * rho * d1 or d2 > -sig * d1) and budget > 0 do
        limit = z1
        local z2
        if f2 > f1 then
          z2 = z3 - (0.5 * d3 * z3 * z3) / (d3 * z3 + f2 - f3)   -- quadratic
        else
          local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)             -- cubic
          local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
          z2 = (math.sqrt(B * B - A * d2 * z3 * z3) - B) / A
        end
        if not finite(z2) then z2 = z3 / 2 end
        z2 = math.max(math.min(z2, int * z3), (1 - int) * z3)
        z1 = z1 + z2
        x:add(z2, s)
        f2 = eval(df2)
        budget = budget - 1
        d2 = df2:dot(s)
        z3 = z3 - z2
      end
      if f2 > f1 + z1 * rho * d1 or d2 > -sig * d1 then break end
      if d2 > sig * d1 then success = true; break end
      if budget == 0 then break end
      -- extrapolate by a cubic, kept within limits
      local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
      local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
      local z2 = -d2 * z3 * z3 / (B + math.sqrt(B * B - A * d2 * z3 * z3))
      if not finite(z2) or z2 < 0 then
        z2 = limit < -0.5 and z1 * (ext - 1) or (limit - z1) / 2
      elseif limit > -0.5 and z2 + z1 > limit then
        z2 = (limit - z1) / 2
      elseif limit < -0.5 and z2 + z1 > z1 * ext then
        z2 = z1 * (ext - 1)
      elseif z2 < -z3 * int then
        z2 = -z3 * int
      elseif limit > -0.5 and z2 < (limit - z1) * (1 - int) then
        z2 = (limit - z1) * (1 - int)
      end
      f3, d3, z3 = f2, d2, -z2
      z1 = z1 + z2
      x:add(z2, s)
      f2 = eval(df2)
      budget = budget - 1
      d2 = df2:dot(s)
    end
    if success then
      f1 = f2
      fxs[#fxs + 1] = f1
      -- Polak-Ribiere: s = beta s - g
      local beta = (df2:dot(df2) - df2:dot(df1)) / df1:dot(df1)
      s:mul(beta):add(-1, df2)
      local old = df1:clone()
      df1:copy(df2)
      df2:copy(old)
      d2 = df1:dot(s)
      if d2 > 0 then   -- not a descent direction: steepest descent
        s:copy(df1):mul(-1)
        d2 = -s:dot(s)
      end
      z1 = z1 * math.min(ratio, d1 / (d2 - 1e-320))
      d1 = d2
    else
      -- the search failed: back to where it started, and stop. (minimize.m
      -- tries steepest descent once more first; Torch7's test of its flag
      -- saw the number 0 as true and always stopped: kept, for its iterates)
      x:copy(x0)
      df1:copy(df0)
      break
    end
  end
  optim._keepState(state)
  return x, fxs, evals
end

return optim.cg
