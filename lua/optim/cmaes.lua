-- optim.cmaes(opfunc, x [, config [, state]]): the covariance matrix
-- adaptation evolution strategy (Hansen's barecmaes2), as Torch7's
-- optim.cmaes: lambda candidates drawn from N(mean, sigma^2 C) per
-- iteration, the mean moved to the weighted best mu, C and sigma adapted
-- along evolution paths. Only f is used.
-- config (Torch7 reads these from state; both are looked at here): sigma
-- (initial step size, required), maxEval (1e3 N^2), ftarget (stop below),
-- popsize (4 + floor(3 log N)), verb_disp (0: quiet; k: print every k
-- iterations), min_iterations (1).
-- Returns the best point found (shaped like x), {f(x), best f of each
-- iteration..., the best f}, the number of evaluations.
-- The eigen-decomposition of C is Jacobi's method in Lua (CMA-ES problems
-- are small), so no LAPACK is needed.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

-- eigenvalues and eigenvectors (columns) of the symmetric n x n matrix A
local function symeig(A)
  local n = A:size(1)
  local a = A:double():clone()
  local V = torch.eye(n):double()
  for _ = 1, 100 do
    local off = 0
    for p = 1, n do for q = p + 1, n do off = off + a[p][q] * a[p][q] end end
    if off < 1e-30 then break end
    for p = 1, n - 1 do
      for q = p + 1, n do
        local apq = a[p][q]
        if apq ~= 0 then
          local theta = (a[q][q] - a[p][p]) / (2 * apq)
          local t = (theta >= 0 and 1 or -1) / (math.abs(theta) + math.sqrt(theta * theta + 1))
          local c = 1 / math.sqrt(t * t + 1)
          local s = t * c
          for k = 1, n do  -- rotate columns p, q
            local akp, akq = a[k][p], a[k][q]
            a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
          end
          for k = 1, n do  -- and rows p, q
            local apk, aqk = a[p][k], a[q][k]
            a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
          end
          for k = 1, n do
            local vkp, vkq = V[k][p], V[k][q]
            V[k][p], V[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
          end
        end
      end
    end
  end
  local e = torch.DoubleTensor(n)
  for i = 1, n do e[i] = a[i][i] end
  local sorted, order = e:sort()   -- ascending, as LAPACK's syev
  return sorted:typeAs(A), V:index(2, order):typeAs(A)
end

function optim.cmaes(opfunc, x, config, state)
  local who = 'optim.cmaes'
  optim._checkCall(who, opfunc, x)
  if x:type() ~= 'torch.DoubleTensor' and x:type() ~= 'torch.FloatTensor' then
    error(string.format('%s: x must be a Float- or DoubleTensor, got %s', who, x:type()), 2)
  end
  config = config or {}
  state = state or config
  local function opt(k) if state[k] ~= nil then return state[k] end return config[k] end
  local xmean = x:clone():view(-1)
  local N = xmean:size(1)
  local sigma = opt('sigma')
  if type(sigma) ~= 'number' or sigma <= 0 then
    error(string.format('%s: sigma (the initial step size, a positive number) is required, got %s', who, tostring(sigma)), 2)
  end
  local ftarget = opt('ftarget')
  local maxEval = tonumber(opt('maxEval')) or 1e3 * N ^ 2
  local verbDisp = opt('verb_disp') or 0
  local minIterations = opt('min_iterations') or 1
  local lambda = opt('popsize') or 4 + math.floor(3 * math.log(N))
  local mu = lambda / 2

  -- recombination weights log(mu + 1/2) - log(i), i = 1..floor(mu), normalised
  local weights = torch.range(0, mu - 1):apply(function(i) return math.log(mu + 0.5) - math.log(i + 1) end)
  weights:div(weights:sum())
  local mueff = weights:sum() ^ 2 / torch.pow(weights, 2):sum()
  weights = weights:typeAs(x)
  local nmu = weights:size(1)
  local cc = (4 + mueff / N) / (N + 4 + 2 * mueff / N)
  local cs = (mueff + 2) / (N + mueff + 5)
  local c1 = 2 / ((N + 1.3) ^ 2 + mueff)
  local cmu = math.min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((N + 2) ^ 2 + mueff))
  local damps = 2 * mueff / lambda + 0.3 + cs

  local pc, ps = x.new(N):zero(), x.new(N):zero()
  local B, D, C = torch.eye(N):typeAs(x), x.new(N):fill(1), torch.eye(N):typeAs(x)
  local invsqrtC = torch.eye(N):typeAs(x)
  local candidates = x.new(lambda, N)
  local fitvals = torch.DoubleTensor(lambda)
  local eigeneval, counteval, iteration = 0, 0, 0
  local fHist = {(opfunc(x))}
  local bestX, bestF, bestAt

  local function ask()
    if counteval - eigeneval > lambda / (c1 + cmu) / N / 10 then
      eigeneval = counteval
      C = torch.triu(C) + torch.triu(C, 1):t()
      D, B = symeig(C)
      D = torch.sqrt(D:clamp(0, math.huge))
      invsqrtC = B * torch.diag(torch.pow(D, -1)) * B:t()
    end
    for k = 1, lambda do
      local z = D:clone():normal(0, 1):cmul(D)
      candidates[k]:copy(torch.add(xmean, B * z * sigma))
    end
    return candidates
  end

  local function tell(arx)
    counteval = counteval + lambda
    local xold = xmean:clone()
    local sortedF, order = torch.sort(fitvals)
    fitvals = sortedF
    local best = arx:index(1, order[{{1, nmu}}])
    fHist[#fHist + 1] = fitvals[1]
    if bestF == nil or fitvals[1] < bestF then bestX, bestF, bestAt = best[1]:clone(), fitvals[1], counteval end
    xmean:zero():addmv(best:t(), weights)
    local y = xmean - xold
    local z = invsqrtC * y
    ps = ps - ps * cs + z * ((cs * (2 - cs) * mueff) ^ 0.5 / sigma)
    local hsig = (torch.pow(ps, 2):sum() / (1 - (1 - cs) ^ (2 * counteval / lambda)) / N < 2 + 4 / (N + 1)) and 1 or 0
    pc = pc - pc * cc + y * ((cc * (2 - cc) * mueff) ^ 0.5 / sigma * hsig)
    local c1a = c1 - (1 - hsig ^ 2) * c1 * cc * (2 - cc)
    -- rank-one and rank-mu updates of C
    local dev = best - xold:view(1, N):expand(nmu, N)
    local Cmu = dev:t() * torch.diag(weights) * dev / sigma ^ 2
    C:mul(1 - c1a - cmu):addr(c1, pc, pc):add(cmu, Cmu)
    sigma = sigma * math.exp(math.min(0.6, (cs / damps) * (torch.pow(ps, 2):sum() / N - 1) / 2))
  end

  local function stopReasons()
    local r = {}
    if counteval > 0 then
      if counteval >= maxEval then r.evals = maxEval end
      if ftarget ~= nil and fitvals[1] <= ftarget then r.ftarget = ftarget end
      if D:max() > 1e7 * D:min() then r.condition = 1e7 end
      if lambda > 1 and fitvals[lambda] - fitvals[1] < 1e-12 then r.tolfun = 1e-12 end
      if sigma * D:max() < 1e-11 then r.tolx = 1e-11 end
    end
    return r
  end

  local function display()
    if verbDisp == 0 then return end
    local it = counteval / lambda
    if it == 1 or it % (10 * verbDisp) == 0 then print('evals:\t ax-ratio max(std)   f-value') end
    if it <= 2 or it % verbDisp == 0 then
      print(tostring(counteval) .. ': ' .. string.format(' %6.1f %8.1e ', D:max() / D:min(),
            sigma * math.sqrt(torch.diag(C):max())) .. tostring(fitvals[1]))
    end
  end

  while next(stopReasons()) == nil or iteration < minIterations do
    iteration = iteration + 1
    local X = ask()
    for i = 1, lambda do fitvals[i] = opfunc(X[i]:viewAs(x)) end
    tell(X)
    display()
  end
  if verbDisp > 0 then
    for k, v in pairs(stopReasons()) do print('termination by', k, '=', v) end
    print('best f-value =', bestF)
    print('best found at iteration: ', bestAt / lambda, ' , total iterations: ', iteration)
  end
  fHist[#fHist + 1] = bestF
  return bestX:viewAs(x), fHist, counteval
end

return optim.cmaes
