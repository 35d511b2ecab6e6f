-- optim.de(opfunc, x [, config [, state]]): differential evolution
-- (DE/best/1/bin), as Torch7's optim.de: a population drawn uniformly in
-- [minRegion, maxRegion] from its own generator seeded with 1; each
-- generation every member proposes best + F (r1 - r2) crossed with itself
-- at rate CR, and a proposal replaces its parent when no worse.
-- Only f is used (opfunc's gradient is ignored).
-- config: popsize (10 * #x), scaleFactor (F), crossoverRate (CR), maxFEs
-- (evaluations), maxRegion (30), minRegion (-30).
-- Returns the best member, the values of every evaluation (a tensor of maxFEs).

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.de(opfunc, x, config)
  local who = 'optim.de'
  optim._checkCall(who, opfunc, x)
  config = config or {}
  local D = x:nElement()
  local popsize = config.popsize or 10 * D
  local F, CR = config.scaleFactor, config.crossoverRate
  local maxFEs = tonumber(config.maxFEs)
  local maxRegion, minRegion = config.maxRegion or 30, config.minRegion or -30
  if type(F) ~= 'number' or type(CR) ~= 'number' or not maxFEs then
    error(string.format('%s: config.scaleFactor, config.crossoverRate and config.maxFEs (numbers) are required, got %s, %s, %s',
                        who, torch.type(F), torch.type(CR), torch.type(config.maxFEs)), 2)
  end
  if popsize < 3 then error(string.format('%s: popsize must be at least 3, got %d', who, popsize), 2) end

  local fx = x.new(maxFEs)
  local pop, children = x.new(popsize, D), x.new(popsize, D)
  local fitness, childFitness = x.new(popsize), x.new(popsize)
  local gen = torch.Generator()
  torch.manualSeed(gen, 1)
  pop:uniform(gen, minRegion, maxRegion)
  local fes = 1
  local function eval(v)
    local f = opfunc(v)
    if fes <= maxFEs then fx[fes] = f end
    fes = fes + 1
    return f
  end
  for i = 1, popsize do fitness[i] = eval(pop[i]) end
  -- Torch7 starts from the member with the largest value (kept: same iterates)
  local bestFitness, at = fitness:max(1)
  bestFitness = bestFitness[1]
  local best = pop[at[1]]:clone()

  while fes < maxFEs do
    for i = 1, popsize do
      local r1, r2
      repeat r1 = torch.random(gen, 1, popsize) until r1 ~= i
      repeat r2 = torch.random(gen, 1, popsize) until r2 ~= r1 and r2 ~= i
      local jrand = torch.random(gen, 1, D)
      local child, parent, p1, p2 = children[i], pop[i], pop[r1], pop[r2]
      for j = 1, D do
        if torch.uniform(gen, 0, 1) < CR or i == jrand then
          child[j] = best[j] + F * (p1[j] - p2[j])
        else
          child[j] = parent[j]
        end
      end
      childFitness[i] = eval(child)
    end
    for i = 1, popsize do
      if childFitness[i] <= fitness[i] then
        pop[i]:copy(children[i])
        fitness[i] = childFitness[i]
        if fitness[i] < bestFitness then
          bestFitness = fitness[i]
          best:copy(children[i])
        end
      end
    end
  end
  return best, fx
end

return optim.de
