-- examples/train_mlp.lua: trains a small MLP on a synthetic classification
-- set (three interleaved spirals in the plane, which no linear model can
-- separate) with optim.sgd, printing the falling loss and rising accuracy.
--
--   bin/th examples/train_mlp.lua            (from the repository root)
--
-- Loaded with an argument ('--lib'), it returns the module instead of
-- running, so specs can call train(opts) and look at the numbers:
--   local M = loadfile('examples/train_mlp.lua')('--lib')
--   local r = M.train{epochs = 60, verbose = false}

require 'torch'
require 'nn'
require 'optim'

local M = {}

-- K spiral arms of n points each: inputs (K*n) x 2, labels 1..K
function M.spirals(n, K, noise)
  local X = torch.DoubleTensor(n * K, 2)
  local Y = torch.LongTensor(n * K)
  for k = 1, K do
    for i = 1, n do
      local r = (i - 1) / (n - 1)
      local t = (k - 1) * 4 + 4 * r + torch.normal(0, noise)
      local row = (k - 1) * n + i
      X[row][1] = r * math.sin(t)
      X[row][2] = r * math.cos(t)
      Y[row] = k
    end
  end
  return X, Y
end

function M.model(nIn, nHidden, nOut)
  return nn.Sequential()
    :add(nn.Linear(nIn, nHidden)):add(nn.ReLU(true))
    :add(nn.Linear(nHidden, nHidden)):add(nn.ReLU(true))
    :add(nn.Linear(nHidden, nOut)):add(nn.LogSoftMax())
end

-- fraction of rows of log-probabilities whose argmax is the label
function M.accuracy(logp, Y)
  local _, pred = logp:max(2)
  local hits = 0
  for i = 1, Y:size(1) do
    if pred[i][1] == Y[i] then hits = hits + 1 end
  end
  return hits / Y:size(1)
end

-- opts: seed (1), n points per class (100), classes (3), hidden (32),
-- epochs (120), batch (30), learningRate (0.1), momentum (0.9), verbose (true)
function M.train(opts)
  opts = opts or {}
  local seed = opts.seed or 1
  local n, K, H = opts.n or 100, opts.classes or 3, opts.hidden or 32
  local epochs, bs = opts.epochs or 120, opts.batch or 30
  local verbose = opts.verbose ~= false
  torch.manualSeed(seed)

  local X, Y = M.spirals(n, K, 0.2)
  local N = X:size(1)
  local net = M.model(2, H, K)
  local crit = nn.ClassNLLCriterion()
  local params, grads = net:getParameters()
  local config = {learningRate = opts.learningRate or 0.1, momentum = opts.momentum or 0.9}

  local xb, yb = torch.DoubleTensor(bs, 2), torch.LongTensor(bs)
  local function feval()
    grads:zero()
    local out = net:forward(xb)
    local loss = crit:forward(out, yb)
    net:backward(xb, crit:backward(out, yb))
    return loss, grads
  end

  local function evaluate()
    net:evaluate()
    local out = net:forward(X)
    local loss, acc = crit:forward(out, Y), M.accuracy(out, Y)
    net:training()
    return loss, acc
  end

  local result = {losses = {}, accuracies = {}}
  result.initialLoss, result.initialAccuracy = evaluate()
  if verbose then
    print(string.format('spirals: %d points, %d classes; MLP 2-%d-%d-%d', N, K, H, H, K))
    print(string.format('epoch %4d  loss %.4f  accuracy %5.1f%%', 0, result.initialLoss,
                        100 * result.initialAccuracy))
  end
  for epoch = 1, epochs do
    local perm = torch.randperm(N)
    for b = 0, N // bs - 1 do
      for i = 1, bs do
        local row = perm[b * bs + i]
        xb[i]:copy(X[row])
        yb[i] = Y[row]
      end
      optim.sgd(feval, params, config)
    end
    local loss, acc = evaluate()
    result.losses[epoch], result.accuracies[epoch] = loss, acc
    if verbose and (epoch % 10 == 0 or epoch == 1) then
      print(string.format('epoch %4d  loss %.4f  accuracy %5.1f%%', epoch, loss, 100 * acc))
    end
  end
  result.finalLoss = result.losses[epochs]
  result.accuracy = result.accuracies[epochs]
  result.chance = 1 / K
  return result
end

if select('#', ...) > 0 and (...) == '--lib' then return M end
M.train()
