-- optim.lbfgs(opfunc, x [, config [, state]]): limited-memory BFGS, as
-- Torch7's optim.lbfgs: the direction comes from the two-loop recursion
-- over the last nCorrection steps and gradient changes; the step is a
-- fixed learningRate, or what config.lineSearch (e.g. optim.lswolfe)
-- finds. The first step is scaled by min(1, 1/|g|_1).
-- config: maxIter (20), maxEval (1.25 maxIter), tolFun (1e-5: stop when
-- |g|_1 falls below), tolX (1e-9: stop on small steps or changes),
-- nCorrection (100), lineSearch, lineSearchOptions, learningRate (1),
-- verbose (false).
-- state: funcEval, nIter, d (direction), t (step), old_dirs (steps s),
-- old_stps (gradient changes y) (Torch7's names), Hdiag, g_old, f_old, and
-- buffers. Successive calls continue the same run.
-- Returns x, {f at the start and after each step}, evaluations this call.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.lbfgs(opfunc, x, config, state)
  local who = 'optim.lbfgs'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  state = state or config
  local maxIter = tonumber(config.maxIter) or 20
  local maxEval = tonumber(config.maxEval) or maxIter * 1.25
  local tolFun, tolX = config.tolFun or 1e-5, config.tolX or 1e-9
  local nCorrection = config.nCorrection or 100
  local lineSearch, lineSearchOpts = config.lineSearch, config.lineSearchOptions
  local lr = config.learningRate or 1
  local verbose = config.verbose and function(...) print('<optim.lbfgs> ', ...) end or function() end
  if lineSearch ~= nil and type(lineSearch) ~= 'function' then
    error(string.format('%s: config.lineSearch must be a function (optim.lswolfe), got %s', who,
                        torch.type(lineSearch)), 2)
  end

  state.funcEval = state.funcEval or 0
  state.nIter = state.nIter or 0
  local f, g = optim._evaluate(who, opfunc, x)
  local fHist = {f}
  local evals = 1
  state.funcEval = state.funcEval + 1
  state.tmp1 = state.tmp1 or g.new(g:size()):zero()
  local tmp = state.tmp1
  if tmp:copy(g):abs():sum() <= tolFun then
    verbose('optimality condition below tolFun')
    return x, fHist
  end

  local d, t = state.d, state.t
  local S, Y = state.old_dirs, state.old_stps
  local Hdiag, gOld, fOld = state.Hdiag, state.g_old, state.f_old
  state.ro = state.ro or torch.DoubleTensor(nCorrection)
  state.al = state.al or torch.DoubleTensor(nCorrection):zero()
  local ro, al = state.ro, state.al

  local iter = 0
  while iter < maxIter do
    iter = iter + 1
    state.nIter = state.nIter + 1
    if state.nIter == 1 then
      d = g:clone():mul(-1)
      S, Y, Hdiag = {}, {}, 1
    else
      -- the latest curvature pair, kept when it is positive
      local y = g.new():resizeAs(g):add(g, -1, gOld)
      local s = g.new():resizeAs(d):mul(d, t)
      local ys = y:dot(s)
      if ys > 1e-10 then
        if #S == nCorrection then
          table.remove(S, 1)
          table.remove(Y, 1)
        end
        S[#S + 1], Y[#Y + 1] = s, y
        Hdiag = ys / y:dot(y)
      end
      -- two-loop recursion: d = -H g
      local k = #S
      for i = 1, k do ro[i] = 1 / Y[i]:dot(S[i]) end
      local q = tmp:mul(g, -1)
      for i = k, 1, -1 do
        al[i] = S[i]:dot(q) * ro[i]
        q:add(-al[i], Y[i])
      end
      d:mul(q, Hdiag)
      for i = 1, k do
        local be = Y[i]:dot(d) * ro[i]
        d:add(al[i] - be, S[i])
      end
    end
    gOld = gOld or g:clone()
    gOld:copy(g)
    fOld = f
    local gtd = g:dot(d)
    if gtd > -tolX then break end   -- not a descent direction

    if state.nIter == 1 then
      t = math.min(1, 1 / tmp:copy(g):abs():sum()) * lr
    else
      t = lr
    end
    local lsEvals = 0
    if lineSearch then
      f, g, x, t, lsEvals = lineSearch(opfunc, x, t, d, f, g, gtd, lineSearchOpts)
      fHist[#fHist + 1] = f
    else
      x:add(t, d)
      if iter ~= maxIter then
        -- the next gradient (not needed after the last step)
        f, g = optim._evaluate(who, opfunc, x)
        lsEvals = 1
        fHist[#fHist + 1] = f
      end
    end
    evals = evals + lsEvals
    state.funcEval = state.funcEval + lsEvals

    if iter == maxIter then verbose('reached max number of iterations'); break end
    if evals >= maxEval then verbose('max nb of function evals'); break end
    if tmp:copy(g):abs():sum() <= tolFun then verbose('optimality condition below tolFun'); break end
    if tmp:copy(d):mul(t):abs():sum() <= tolX then verbose('step size below tolX'); break end
    if math.abs(f - fOld) < tolX then verbose('function value changing less than tolX'); break end
  end

  state.old_dirs, state.old_stps, state.Hdiag = S, Y, Hdiag
  state.g_old, state.f_old, state.t, state.d = gOld, fOld, t, d
  optim._keepState(state)
  return x, fHist, evals
end

return optim.lbfgs
