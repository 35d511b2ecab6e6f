-- optim's algorithms beyond sgd/adam (issue 18): each reaches a known
-- minimum (a quadratic, Rosenbrock) and takes the first step its formula
-- gives (computed here by hand from Torch7's definitions); state fields
-- carry Torch7's names; ConfusionMatrix and Logger as Torch7 print/write.
require 'torch'
require 'optim'
local H = require 'spec.support.helpers'

-- f(x) = sum (x_i - i)^2 / 2, minimum at x = (1, 2, ..., n)
local function quadratic(n)
  local target = torch.range(1, n)
  return function(x)
    local d = x - target
    return 0.5 * d:dot(d), d:clone()
  end, target
end

local function rosenbrock(x)
  local a, b = x[1], x[2]
  local f = (1 - a) ^ 2 + 100 * (b - a * a) ^ 2
  local g = torch.Tensor(2)
  g[1] = -2 * (1 - a) - 400 * a * (b - a * a)
  g[2] = 200 * (b - a * a)
  return f, g
end

local function close(a, b, tol, what)
  local d = (a - b):abs():max()
  assert(d <= tol, string.format('%s: off by %g (tolerance %g)', what, d, tol))
end

describe('optim algorithms reach the minimum', function()
  local cases = {
    {'adamax', {learningRate = 0.05}, 2000},
    {'adagrad', {learningRate = 0.5}, 3000},
    {'adadelta', {rho = 0.95, eps = 1e-6}, 20000, 2e-2},
    {'rmsprop', {learningRate = 0.01}, 3000, 2e-2},
    {'nag', {learningRate = 0.05, momentum = 0.9}, 500},
    {'asgd', {eta0 = 0.1, t0 = 1}, 3000, 2e-2},
    {'rprop', {stepsize = 0.1}, 200},
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ' on a quadratic', function()
      local f, target = quadratic(4)
      local x = torch.zeros(4)
      local config = {}
      for k, v in pairs(c[2]) do config[k] = v end
      for _ = 1, c[3] do optim[c[1]](f, x, config) end
      close(x, target, c[4] or 1e-3, c[1])
    end)
  end

  it('cg on Rosenbrock, as minimize.m', function()
    local x = torch.zeros(2)
    local _, fx, evals = optim.cg(rosenbrock, x, {maxIter = 50})
    close(x, torch.ones(2), 1e-4, 'cg')
    assert(fx[#fx] < 1e-8 and fx[1] == 1, 'cg values ' .. fx[1] .. ' .. ' .. fx[#fx])
    assert(evals >= #fx and evals <= 80, 'cg evaluations ' .. evals)
  end)

  it('lbfgs on Rosenbrock, with a fixed step and with lswolfe', function()
    local x = torch.zeros(2)
    optim.lbfgs(rosenbrock, x, {maxIter = 100, learningRate = 1e-1})
    close(x, torch.ones(2), 1e-2, 'lbfgs fixed step')
    x = torch.zeros(2)
    local _, fx = optim.lbfgs(rosenbrock, x, {maxIter = 100, lineSearch = optim.lswolfe})
    close(x, torch.ones(2), 1e-5, 'lbfgs with lswolfe')
    assert(fx[#fx] < 1e-10)
  end)

  it('lbfgs continues a run across calls (state)', function()
    local f, target = quadratic(3)
    local x, config = torch.zeros(3), {maxIter = 1, learningRate = 1}
    for _ = 1, 20 do optim.lbfgs(f, x, config) end
    close(x, target, 1e-6, 'stochastic lbfgs')
    assert(config.nIter >= 1 and config.funcEval >= config.nIter, 'nIter ' .. tostring(config.nIter))
    assert.is_table(config.old_dirs)
  end)

  it('cmaes and de on Rosenbrock (gradient-free)', function()
    torch.manualSeed(1)
    local x = torch.zeros(2)
    local best, fx = optim.cmaes(function(v) return (rosenbrock(v)) end, x, {sigma = 0.5, maxEval = 4000})
    close(best, torch.ones(2), 1e-3, 'cmaes')
    assert.are.equal(1, fx[1])
    local sol, values = optim.de(function(v) return (rosenbrock(v)) end, torch.zeros(2),
                                 {popsize = 40, scaleFactor = 0.5, crossoverRate = 0.9, maxFEs = 6000,
                                  maxRegion = 3, minRegion = -3})
    close(sol, torch.ones(2), 2e-2, 'de')
    assert.are.equal(6000, values:size(1))
  end)

  it('FistaLS solves an L1-regularised least squares problem', function()
    -- min 0.5 |x - b|^2 + lambda |x|_1: soft thresholding of b
    local b, lambda = torch.Tensor{3, -0.5, 1.5, -2}, 1
    local f = function(x, mode)
      local d = x - b
      if mode == 'dx' then return 0.5 * d:dot(d), d end
      return 0.5 * d:dot(d)
    end
    local g = function(x) return lambda * x:norm(1) end
    local pl = function(x, L)
      local t = lambda / L
      x:map(x, function(v) return v > t and v - t or v < -t and v + t or 0 end)
    end
    local x = torch.zeros(4)
    local sol, history = optim.FistaLS(f, g, pl, x, {L = 0.5, maxiter = 200, errthres = 1e-12})
    close(sol, torch.Tensor{2, 0, 0.5, -1}, 1e-5, 'fista')
    assert(#history > 1 and history[#history].F <= history[1].F)
  end)
end)

describe('optim algorithms: first steps by hand', function()
  local function gradAt(g) return function(x) return 1, g:clone() end end

  it('adamax: lr / (1 - beta1) * m / u after one step', function()
    local x, g = torch.Tensor{1, 2}, torch.Tensor{0.5, -2}
    local state = {}
    optim.adamax(gradAt(g), x, {learningRate = 0.1}, state)
    -- m = 0.1 g, u = |g| (+eps): step = 0.1 / 0.1 * 0.1 g / |g| = 0.1 sign(g)
    close(x, torch.Tensor{0.9, 2.1}, 1e-12, 'adamax')
    assert.are.equal(1, state.t)
  end)

  it('adagrad: g / sqrt(g^2) steps of lr', function()
    local x = torch.Tensor{1, 2}
    local config = {learningRate = 0.1}
    optim.adagrad(gradAt(torch.Tensor{2, -4}), x, config)
    close(x, torch.Tensor{0.9, 2.1}, 1e-9, 'adagrad')
    close(config.paramVariance, torch.Tensor{4, 16}, 0, 'paramVariance')
    assert.are.equal(1, config.evalCounter)
  end)

  it('rmsprop: lr g / (sqrt((1 - alpha) g^2) + eps)', function()
    local x = torch.Tensor{0}
    optim.rmsprop(gradAt(torch.Tensor{1}), x, {learningRate = 0.01, alpha = 0.99, epsilon = 0})
    close(x, torch.Tensor{-0.01 / math.sqrt(0.01)}, 1e-12, 'rmsprop')
  end)

  it('adadelta: g sqrt(eps) / sqrt((1 - rho) g^2 + eps)', function()
    local x = torch.Tensor{0}
    optim.adadelta(gradAt(torch.Tensor{2}), x, {rho = 0.9, eps = 1e-6})
    close(x, torch.Tensor{-2 * math.sqrt(1e-6) / math.sqrt(0.1 * 4 + 1e-6)}, 1e-15, 'adadelta')
  end)

  it('nag: the first step is plain gradient descent, the next looks ahead', function()
    local x, config = torch.Tensor{1}, {learningRate = 0.1, momentum = 0.9}
    local seen = {}
    local f = function(v) seen[#seen + 1] = v[1]; return 0, torch.Tensor{1} end
    optim.nag(f, x, config)
    close(x, torch.Tensor{0.9}, 1e-12, 'nag first step')
    optim.nag(f, x, config)
    -- evaluated at 0.9 + 0.9 * (-0.1) = 0.81, then x = 0.81 - 0.1
    close(torch.Tensor{seen[2]}, torch.Tensor{0.81}, 1e-12, 'nag look-ahead')
    close(x, torch.Tensor{0.71}, 1e-12, 'nag second step')
    assert.truthy(H.errmsg(optim.nag, f, x, {momentum = 0}):find('momentum must be positive', 1, true))
  end)

  it('asgd: x (1 - lambda eta) - eta g, and the average', function()
    local x, config = torch.Tensor{1}, {eta0 = 0.1, lambda = 0.5, t0 = 0}
    local _, _, ax = optim.asgd(gradAt(torch.Tensor{2}), x, config)
    close(x, torch.Tensor{1 * (1 - 0.05) - 0.2}, 1e-12, 'asgd')
    close(ax, x, 0, 'asgd average after one step')
    assert.are.equal(1, config.t)
  end)

  it('rprop: steps of stepsize * sign(g), grown while the sign holds', function()
    local x, config = torch.Tensor{0, 0}, {stepsize = 0.1}
    optim.rprop(gradAt(torch.Tensor{1, -1}), x, config)
    close(x, torch.Tensor{-0.1, 0.1}, 1e-12, 'rprop first')
    optim.rprop(gradAt(torch.Tensor{1, 1}), x, config)
    -- same sign: step 0.12; flipped: step 0.05 and that gradient is dropped
    close(x, torch.Tensor{-0.22, 0.1}, 1e-12, 'rprop second')
  end)

  it('polyinterp: the minimiser of the cubic through two points', function()
    -- f = (x - 1)^2 through x = 0 and 3: values 1, 4; slopes -2, 4
    local t = optim.polyinterp(torch.Tensor{{0, 1, -2}, {3, 4, 4}})
    assert(math.abs(t - 1) < 1e-12, 'closed form ' .. t)
    local t2, f2 = optim.polyinterp(torch.Tensor{{0, 1, -2}, {3, 4, 4}}, 0, 3)
    assert(math.abs(t2 - 1) < 1e-9 and math.abs(f2) < 1e-9, 'bounded ' .. t2 .. ' ' .. f2)
    local t3 = optim.polyinterp(torch.Tensor{{0, 1, -2}, {3, 4, 4}}, 2, 3)
    assert(math.abs(t3 - 2) < 1e-12, 'bound respected ' .. t3)
    -- three points: the quintic through values and slopes of (x - 1)^2 is
    -- that parabola, found through the roots of its derivative
    local t4, f4 = optim.polyinterp(torch.Tensor{{0, 1, -2}, {2, 1, 2}, {3, 4, 4}})
    assert(math.abs(t4 - 1) < 1e-6 and math.abs(f4) < 1e-9, 'three points ' .. t4 .. ' ' .. f4)
    assert.truthy(H.errmsg(optim.polyinterp, torch.zeros(2, 2)):find('n x 3', 1, true))
  end)

  it('lswolfe returns a point meeting the strong Wolfe conditions', function()
    local x = torch.zeros(2)
    local f, g = rosenbrock(x)
    local d = -g
    local fn, gn, xn, t = optim.lswolfe(rosenbrock, x, 1e-3, d, f, g, g:dot(d))
    assert(fn <= f + 1e-4 * t * g:dot(d), 'sufficient decrease')
    assert(math.abs(gn:dot(d)) <= 0.9 * math.abs(g:dot(d)), 'curvature')
    close(xn, d * t, 1e-12, 'x moved by t d')
  end)

  it('names the problem on bad calls', function()
    assert.truthy(H.errmsg(optim.adagrad, 3, torch.zeros(2)):find('optim.adagrad: opfunc must be a function', 1, true))
    assert.truthy(H.errmsg(optim.rmsprop, function() return 1, torch.zeros(3) end, torch.zeros(2))
                  :find('df/dx (a tensor of 2 elements', 1, true))
    assert.truthy(H.errmsg(optim.lbfgs, rosenbrock, torch.zeros(2), {lineSearch = 3}):find('lineSearch must be a function', 1, true))
    assert.truthy(H.errmsg(optim.cmaes, rosenbrock, torch.zeros(2), {}):find('sigma', 1, true))
    assert.truthy(H.errmsg(optim.de, rosenbrock, torch.zeros(2), {}):find('required', 1, true))
  end)
end)

describe('optim.ConfusionMatrix', function()
  it('counts, and prints as Torch7 does', function()
    local cm = optim.ConfusionMatrix({'cat', 'dog', 'bird'})
    cm:add(1, 1); cm:add(2, 1); cm:add(2, 2); cm:add(torch.Tensor{0.1, 0.2, 0.7}, 3)
    cm:add(torch.Tensor{0.9, 0, 0}, torch.Tensor{0, 0, 1})
    cm:batchAdd(torch.Tensor{{0, 1, 0}, {1, 0, 0}}, torch.Tensor{2, 0})   -- target 0 ignored
    assert.are.same({{1, 1, 0}, {0, 2, 0}, {1, 0, 1}}, cm.mat:totable())
    local text = tostring(cm)
    local want = 'ConfusionMatrix:\n'
      .. '[[       1       1       0]   50.000% \t[class: cat]\n'
      .. ' [       0       2       0]   100.000% \t[class: dog]\n'
      .. ' [       1       0       1]]  50.000% \t[class: bird]\n'
      .. ' + average row correct: 66.666666666667% \n'
    assert.are.equal(want, text:sub(1, #want))
    assert.truthy(text:find(' + global correct: 66.666666666667%', 1, true), text)
    assert(math.abs(cm.totalValid - 4 / 6) < 1e-12)
    -- IoU of class 1: 1 / (2 + 2 - 1)
    assert(math.abs(cm.unionvalids[1] - 1 / 3) < 1e-6)
    cm:zero()
    assert.are.equal(0, cm.mat:sum())
  end)

  it('gives FAR/FRR, renders, and refuses bad classes', function()
    local cm = optim.ConfusionMatrix(3)
    cm.mat = torch.eye(3):long()
    local classFrrs, classFars = cm:farFrr()
    assert.are.equal(0, classFrrs:sum() + classFars:sum())
    assert.are.same({75, 75}, cm:render():size():totable())
    assert.truthy(H.errmsg(cm.add, cm, 4, 1):find('classes are 1..3', 1, true))
    assert.truthy(H.errmsg(optim.ConfusionMatrix, 'x'):find('optim.ConfusionMatrix', 1, true))
  end)
end)

describe('optim.Logger', function()
  it('writes the log as Torch7 and an SVG plot a browser opens', function()
    local base = os.tmpname()
    local logger = optim.Logger(base)
    logger:setNames{'train', 'test'}
    for i = 1, 5 do logger:add{1 / i, 2 / i} end
    logger:style{'-', '+-'}
    local svg = logger:plot()
    local f = io.open(base)
    local text = f:read('a')
    f:close()
    local head = 'train\ttest\t\n 1.0000e+00\t 2.0000e+00\t\n'
    assert.are.equal(head, text:sub(1, #head))
    assert.are.equal(base .. '.svg', svg)
    local s = io.open(svg):read('a')
    assert.truthy(s:find('<svg', 1, true) and s:find('polyline', 1, true))
    -- the title is the log's file name
    assert.truthy(s:find('>' .. base:match('([^/]+)$') .. '</text>', 1, true), s)
    logger:setlogscale(true)
    logger:plot('train')
    local keyed = optim.Logger(base .. 'k')
    keyed:add{['b err'] = 1, ['a err'] = 2}
    keyed:add{['b err'] = 3, ['a err'] = 4}
    local kt = io.open(base .. 'k'):read('a')
    local khead = 'a err\tb err\t\n 2.0000e+00\t 1.0000e+00\t\n'
    assert.are.equal(khead, kt:sub(1, #khead))
    assert.truthy(H.errmsg(keyed.add, keyed, {['a err'] = {}}):find('can only log numbers and strings', 1, true))
    for _, p in ipairs{base, svg, base .. 'k'} do os.remove(p) end
  end)

  -- the plot's text labels: x ticks, y ticks, axis labels
  local function labels(svg)
    local xt, yt, other = {}, {}, {}
    for attrs, text in svg:gmatch('<text ([^>]*)>([^<]*)</text>') do
      if attrs:find('text-anchor="end"', 1, true) then yt[#yt + 1] = text
      elseif attrs:find('y="458"', 1, true) then xt[#xt + 1] = text
      else other[#other + 1] = text end
    end
    return xt, yt, other
  end

  it('plots whole entries on the x axis, round y ticks with room above a curve at 100, axis labels', function()
    local base = os.tmpname() .. '-accuracy.log'
    local logger = optim.Logger(base)
    logger:setNames{'% train', '% test'}
    logger:add{91.5, 90}
    logger:add{100, 96.25}
    logger:setAxisLabels('epoch', '% accuracy')
    local s = io.open(logger:plot()):read('a')
    local xt, yt, other = labels(s)
    assert.are.same({'1', '2'}, xt)
    for _, y in ipairs(yt) do assert.truthy(tonumber(y), y) end
    assert.is_true(#yt >= 4, table.concat(yt, ' '))
    -- the highest tick is 100 or above, the frame's top above the curve's
    assert.is_true(tonumber(yt[#yt]) >= 100)
    local top = tonumber(s:match('<rect x="%d+" y="(%d+)"'))
    for y in s:gmatch('points="[^"]*,([%d.]+)') do assert.is_true(tonumber(y) > top + 5, y) end
    assert.are.same({base:match('([^/]+)%.log$'), 'epoch', '% accuracy', '% train', '% test'},
                    {other[1], other[2], other[3], other[4], other[5]})
    -- longer runs: integer steps of 1, 2, 5, 10, ...
    local l2 = optim.Logger(base .. '2')
    for i = 1, 37 do l2:add{loss = 1 / i} end
    local xt2, _, other2 = labels(io.open(l2:plot()):read('a'))
    assert.are.same({'1', '10', '20', '30'}, xt2)
    assert.are.same({'entry', 'loss'}, {other2[2], other2[3]})
    H.fails('optim.Logger:setAxisLabels: label (string or nil) expected as argument 2, got number',
            function() logger:setAxisLabels('x', 3) end)
    for _, p in ipairs{base, base .. '.svg', base .. '2', base .. '2.svg'} do os.remove(p) end
  end)
end)

describe('optim methods on a net without parameters', function()
  -- getParameters of a net of activations and Dropouts gives empty tensors
  -- (the optnet fuzzer's nets); adamax indexed a number there
  for _, m in ipairs{'sgd', 'adam', 'adamax', 'adagrad', 'rmsprop', 'adadelta', 'nag', 'rprop', 'asgd'} do
    it(m .. ' leaves empty parameters empty', function()
      require 'optim'
      local p, g = torch.DoubleTensor(), torch.DoubleTensor()
      local x, fs = optim[m](function() return 0.5, g end, p, {}, {})
      assert.are.equal(p, x)
      assert.are.equal(0, x:nElement())
      assert.are.equal(0.5, fs[1])
    end)
  end
end)
