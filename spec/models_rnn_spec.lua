-- The recurrent steps of models/ (lstm, gru: char-rnn's layouts as
-- nngraph gModules): one step against the equations computed with tensor
-- ops, finite differences through every input and parameter, T clones
-- sharing parameters whose gradients add up, and optnet on a step in both
-- modes (the unoptimized numbers).
require 'torch'
require 'nn'
local Module, Criterion = torch.getmetatable('nn.Module'), torch.getmetatable('nn.Criterion')
local before = {Module.__call__, Module.__unm__, Module.__sub__, Criterion.__call__}
teardown(function()
  Module.__call__, Module.__unm__, Module.__sub__, Criterion.__call__ = table.unpack(before, 1, 4)
end)
require 'nngraph'
local optnet = require 'optnet'
local H = require 'spec.support.helpers'
local lstm, gru = require 'models.lstm', require 'models.gru'

local function linears(g)
  local list = {}
  for _, m in ipairs(g.modules) do if torch.type(m) == 'nn.Linear' then list[#list + 1] = m end end
  return list
end

local function sigmoid(t) return torch.cdiv(torch.ones(t:size()), torch.exp(-t) + 1) end

describe('models.lstm', function()
  it('computes the LSTM equations (gates i, f, o, g in that order)', function()
    torch.manualSeed(1)
    local step = lstm{inputSize = 3, rnnSize = 4}:double()
    local x, c, h = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
    local out = step:forward({x, c, h})
    local l = linears(step)
    local sums = l[1]:forward(x):clone():add(l[2]:forward(h))
    local i, f = sigmoid(sums:narrow(2, 1, 4)), sigmoid(sums:narrow(2, 5, 4))
    local o, g = sigmoid(sums:narrow(2, 9, 4)), torch.tanh(sums:narrow(2, 13, 4))
    local c2 = torch.cmul(f, c) + torch.cmul(i, g)
    local h2 = torch.cmul(o, torch.tanh(c2))
    assert((out[1] - c2):abs():max() < 1e-12)
    assert((out[2] - h2):abs():max() < 1e-12)
  end)

  it('has the right gradients through every input and parameter (2 layers, decoder)', function()
    torch.manualSeed(2)
    local step = lstm{inputSize = 3, rnnSize = 4, layers = 2, nOutput = 5}:double()
    local x = {torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4), torch.randn(2, 4)}
    assert(nn.Jacobian.testJacobian(step, x) < 1e-5)
    local p, g = step:getParameters()
    assert(nn.Jacobian.testJacobianParameters(step, x, p, g) < 1e-5)
    assert.are.equal(5, #step:forward(x))
  end)

  it('takes class numbers with oneHot (char-rnn) and unrolls over clones sharing parameters', function()
    torch.manualSeed(3)
    local step = lstm{inputSize = 6, rnnSize = 5, oneHot = true, nOutput = 6}:double()
    local params, grads = step:getParameters()
    local T, B = 4, 3
    local clones = {}
    for t = 1, T do clones[t] = step:clone('weight', 'bias', 'gradWeight', 'gradBias') end
    local xs = torch.LongTensor(T, B):random(1, 6)
    local crit = nn.ClassNLLCriterion()
    local function loss()
      grads:zero()
      local state, total, outs = {{torch.zeros(B, 5), torch.zeros(B, 5)}}, 0, {}
      for t = 1, T do
        outs[t] = clones[t]:forward({xs[t], state[t][1], state[t][2]})
        state[t + 1] = {outs[t][1], outs[t][2]}
        total = total + crit:forward(outs[t][3], xs[t % T + 1])
      end
      local dstate = {torch.zeros(B, 5), torch.zeros(B, 5)}
      for t = T, 1, -1 do
        local dlog = crit:backward(outs[t][3], xs[t % T + 1])
        local d = clones[t]:backward({xs[t], state[t][1], state[t][2]}, {dstate[1], dstate[2], dlog})
        dstate = {d[2], d[3]}
      end
      return total
    end
    loss()
    local analytic = grads:clone()
    -- finite differences on a few parameters of the shared vector
    for _, k in ipairs{1, 7, params:size(1) // 2, params:size(1)} do
      local v = params[k]
      params[k] = v + 1e-6; local fp = loss()
      params[k] = v - 1e-6; local fm = loss()
      params[k] = v
      assert(math.abs((fp - fm) / 2e-6 - analytic[k]) < 1e-5, 'parameter ' .. k)
    end
  end)

  for _, mode in ipairs{'inference', 'training'} do
    it('optimized by optnet (' .. mode .. '): the unoptimized numbers', function()
      torch.manualSeed(4)
      local a = lstm{inputSize = 3, rnnSize = 4, layers = 2, nOutput = 5}:double()
      local b = a:clone()
      local x = {torch.randn(6, 3), torch.randn(6, 4), torch.randn(6, 4), torch.randn(6, 4), torch.randn(6, 4)}
      if mode == 'inference' then a:evaluate(); b:evaluate() end
      optnet.optimizeMemory(b, x, {mode = mode, verify = true})
      H.identical(a:forward(x), b:forward(x), 'output')
      if mode == 'training' then
        local go = H.gradFor(a.output, 5)
        H.identical(a:backward(x, go), b:backward(x, go), 'gradInput')
      end
    end)
  end

  it('refuses bad options', function()
    assert.truthy(H.errmsg(lstm, {inputSize = 0, rnnSize = 3}):find('models.lstm: inputSize must be a positive integer', 1, true))
    assert.truthy(H.errmsg(lstm, {inputSize = 2, rnnSize = 3, dropout = 1}):find('dropout', 1, true))
  end)
end)

describe('models.gru', function()
  it('computes the GRU equations', function()
    torch.manualSeed(5)
    local step = gru{inputSize = 3, rnnSize = 4}:double()
    local x, h = torch.randn(2, 3), torch.randn(2, 4)
    local out = step:forward({x, h})
    local l = {}
    for _, node in ipairs(step.forwardnodes) do
      local name = node.data.annotations.name
      if name then l[name] = node.data.module end
    end
    local function lin(name, v) return l[name]:clone():forward(v) end
    local z = sigmoid(lin('update_x_1', x) + lin('update_h_1', h))
    local r = sigmoid(lin('reset_x_1', x) + lin('reset_h_1', h))
    local g = torch.tanh(lin('candidate_x_1', x) + lin('candidate_h_1', torch.cmul(r, h)))
    local h2 = torch.cmul(z, g) + torch.cmul(-z + 1, h)
    assert((out - h2):abs():max() < 1e-12)
  end)

  it('has the right gradients (2 layers, decoder)', function()
    torch.manualSeed(6)
    local step = gru{inputSize = 3, rnnSize = 4, layers = 2, nOutput = 5}:double()
    local x = {torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)}
    assert(nn.Jacobian.testJacobian(step, x) < 1e-5)
    local p, g = step:getParameters()
    assert(nn.Jacobian.testJacobianParameters(step, x, p, g) < 1e-5)
  end)
end)
