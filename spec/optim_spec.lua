-- optim.sgd and optim.adam: single steps against hand-computed updates
-- (momentum, dampening, nesterov, weight decay, learning-rate decay,
-- per-parameter rates and decays), convergence on a quadratic, Torch7's
-- return values and state handling, error messages.
require 'torch'
require 'nn'
require 'optim'

local function tbl(t) return t:totable() end

local function close(a, b, tol)
  tol = tol or 1e-12
  assert.are.equal(#a, #b)
  for i = 1, #a do
    assert.is_true(math.abs(a[i] - b[i]) <= tol, string.format('element %d: %.17g vs %.17g', i, a[i], b[i]))
  end
end

-- f(x) = 0.5 sum a_i (x_i - c_i)^2 with a fresh gradient tensor per call
local a = {1, 2, 0.5, 4}
local c = {3, -1, 2, 0.5}
local function quad(x)
  local f, g = 0, x.new(x:size())
  for i = 1, x:nElement() do
    local d = x[i] - c[i]
    f = f + 0.5 * a[i] * d * d
    g[i] = a[i] * d
  end
  return f, g
end
local function grad(xs)
  local g = {}
  for i = 1, #xs do g[i] = a[i] * (xs[i] - c[i]) end
  return g
end

describe('optim.sgd', function()
  it('takes a plain step and returns x and {f(x) before the step}', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    local x0 = tbl(x)
    local f0 = quad(x)
    local r, fs = optim.sgd(quad, x, {learningRate = 0.1})
    assert.are.equal(x, r)
    assert.are.equal(1, #fs)
    assert.are.equal(f0, fs[1])
    local g = grad(x0)
    local expect = {}
    for i = 1, 4 do expect[i] = x0[i] - 0.1 * g[i] end
    close(tbl(x), expect)
  end)

  it('defaults to learningRate 1e-3 and counts evaluations in state', function()
    local x = torch.DoubleTensor{1, 1, 1, 1}
    local g = grad(tbl(x))
    local state = {}
    optim.sgd(quad, x, {}, state)
    close(tbl(x), {1 - 1e-3 * g[1], 1 - 1e-3 * g[2], 1 - 1e-3 * g[3], 1 - 1e-3 * g[4]})
    assert.are.equal(1, state.evalCounter)
    local config = {}
    optim.sgd(quad, x, config)  -- state defaults to config
    assert.are.equal(1, config.evalCounter)
  end)

  it('applies momentum with dampening as Torch7', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    local cfg = {learningRate = 0.1, momentum = 0.9, dampening = 0.2}
    local xs = tbl(x)
    -- step 1: buffer = g1; step 2: buffer = 0.9 buffer + 0.8 g2
    local g1 = grad(xs)
    local buf, x1 = {}, {}
    for i = 1, 4 do buf[i] = g1[i]; x1[i] = xs[i] - 0.1 * buf[i] end
    optim.sgd(quad, x, cfg)
    close(tbl(x), x1)
    local g2 = grad(x1)
    local x2 = {}
    for i = 1, 4 do buf[i] = 0.9 * buf[i] + 0.8 * g2[i]; x2[i] = x1[i] - 0.1 * buf[i] end
    optim.sgd(quad, x, cfg)
    close(tbl(x), x2)
    close(tbl(cfg.dfdx), buf)
  end)

  it('applies nesterov momentum', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    local cfg = {learningRate = 0.05, momentum = 0.5, dampening = 0, nesterov = true}
    local xs, buf = tbl(x), nil
    for _ = 1, 3 do
      local g = grad(xs)
      if not buf then
        buf = {table.unpack(g)}
      else
        for i = 1, 4 do buf[i] = 0.5 * buf[i] + g[i] end
      end
      for i = 1, 4 do xs[i] = xs[i] - 0.05 * (g[i] + 0.5 * buf[i]) end
      optim.sgd(quad, x, cfg)
      close(tbl(x), xs)
    end
  end)

  it('applies weight decay, learning-rate decay and per-parameter rates', function()
    local x = torch.DoubleTensor{1, 2, 3, 4}
    local xs = tbl(x)
    local cfg = {learningRate = 0.1, weightDecay = 0.01, learningRateDecay = 0.5}
    for n = 0, 2 do
      local g = grad(xs)
      local clr = 0.1 / (1 + n * 0.5)
      for i = 1, 4 do xs[i] = xs[i] - clr * (g[i] + 0.01 * xs[i]) end
      optim.sgd(quad, x, cfg)
      close(tbl(x), xs)
    end
    local y = torch.DoubleTensor{1, 2, 3, 4}
    local ys = tbl(y)
    local lrs = torch.DoubleTensor{1, 0, 2, 0.5}
    local wds = torch.DoubleTensor{0, 0.1, 0.2, 0}
    local g = grad(ys)
    for i = 1, 4 do ys[i] = ys[i] - 0.1 * lrs[i] * (g[i] + wds[i] * ys[i]) end
    optim.sgd(quad, y, {learningRate = 0.1, learningRates = lrs, weightDecays = wds})
    close(tbl(y), ys)
  end)

  it('converges on a quadratic (with and without momentum)', function()
    for _, cfg in ipairs{{learningRate = 0.2}, {learningRate = 0.05, momentum = 0.9},
                         {learningRate = 0.05, momentum = 0.9, dampening = 0, nesterov = true}} do
      local x = torch.DoubleTensor{10, -10, 5, 7}
      local f
      for _ = 1, 300 do f = select(2, optim.sgd(quad, x, cfg))[1] end
      assert.is_true(f < 1e-8, 'final loss ' .. f)
      close(tbl(x), c, 1e-4)
    end
  end)

  it('works on float parameters', function()
    local x = torch.FloatTensor{10, -10, 5, 7}
    for _ = 1, 200 do optim.sgd(quad, x, {learningRate = 0.2}) end
    close(tbl(x), c, 1e-4)
  end)

  it('reports misuse', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    local ok, err = pcall(optim.sgd, 'f', x)
    assert.is_false(ok)
    assert.truthy(err:find('optim.sgd: opfunc must be a function, got string', 1, true))
    ok, err = pcall(optim.sgd, quad, {1, 2})
    assert.truthy(err:find('optim.sgd: x must be a tensor, got table', 1, true))
    ok, err = pcall(optim.sgd, function() return 1 end, x)
    assert.truthy(err:find('optim.sgd: opfunc must return f(x) (a number) and df/dx (a tensor of 4 elements like x), got number and nil', 1, true))
    ok, err = pcall(optim.sgd, function() return 1, torch.DoubleTensor(3) end, x)
    assert.truthy(err:find('got number and 3 elements', 1, true))
    ok, err = pcall(optim.sgd, quad, x, {momentum = 0.9, nesterov = true})
    assert.truthy(err:find('optim.sgd: Nesterov momentum requires a momentum and zero dampening (momentum 0.9, dampening 0.9)', 1, true))
    ok, err = pcall(optim.sgd, quad, x, {learningRates = torch.DoubleTensor(2)})
    assert.truthy(err:find('optim.sgd: config.learningRates must be a tensor of 4 elements like x, got 2 elements', 1, true))
  end)
end)

describe('optim.adam', function()
  it('takes Torch7 steps', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    local cfg = {learningRate = 0.01, beta1 = 0.8, beta2 = 0.9, epsilon = 1e-6}
    local xs, m, v = tbl(x), {0, 0, 0, 0}, {0, 0, 0, 0}
    for t = 1, 3 do
      local g = grad(xs)
      local step = 0.01 * math.sqrt(1 - 0.9 ^ t) / (1 - 0.8 ^ t)
      for i = 1, 4 do
        m[i] = 0.8 * m[i] + 0.2 * g[i]
        v[i] = 0.9 * v[i] + 0.1 * g[i] * g[i]
        xs[i] = xs[i] - step * m[i] / (math.sqrt(v[i]) + 1e-6)
      end
      local _, fs = optim.adam(quad, x, cfg)
      assert.are.equal('number', type(fs[1]))
      close(tbl(x), xs, 1e-12)
    end
    assert.are.equal(3, cfg.t)
    close(tbl(cfg.m), m)
  end)

  it('first step moves every coordinate by about the learning rate', function()
    local x = torch.DoubleTensor{0, 0, 0, 0}
    optim.adam(quad, x, {learningRate = 0.1})
    local g = grad({0, 0, 0, 0})
    for i = 1, 4 do
      assert.is_true(math.abs(x[i] + 0.1 * (g[i] > 0 and 1 or -1)) < 1e-6)
    end
  end)

  it('converges on a quadratic, with weight decay pulling towards zero', function()
    local x = torch.DoubleTensor{10, -10, 5, 7}
    local cfg = {learningRate = 0.1}
    for _ = 1, 2000 do optim.adam(quad, x, cfg) end
    close(tbl(x), c, 1e-3)
    local y = torch.DoubleTensor{10, -10, 5, 7}
    local cw = {learningRate = 0.1, weightDecay = 1}
    for _ = 1, 2000 do optim.adam(quad, y, cw) end
    -- minimum of f + 0.5 |x|^2: a c / (a + 1)
    local expect = {}
    for i = 1, 4 do expect[i] = a[i] * c[i] / (a[i] + 1) end
    close(tbl(y), expect, 1e-3)
  end)

  it('reports misuse', function()
    local ok, err = pcall(optim.adam, quad, 3)
    assert.is_false(ok)
    assert.truthy(err:find('optim.adam: x must be a tensor, got number', 1, true))
  end)
end)
