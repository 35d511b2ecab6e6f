-- nn.StochasticGradient(module, criterion): Torch7's plain SGD trainer.
-- train(dataset) makes maxIteration passes (0: forever) over a dataset
-- that answers dataset:size() and dataset[i] = {input, target}, in a
-- random order unless shuffleIndices is false (one permutation drawn per
-- call, as Torch7). Each example is one step: forward, criterion,
-- updateGradInput and accUpdateGradParameters with the current learning
-- rate, learningRate / (1 + iteration * learningRateDecay) from the second
-- pass on. hookExample(self, example) runs after each step and
-- hookIteration(self, iteration, meanError) after each pass. Prints what
-- Torch7 prints ("# current error = ..." only when verbose).

local StochasticGradient = torch.class('nn.StochasticGradient')

function StochasticGradient:__init(module, criterion)
  self.learningRate = 0.01
  self.learningRateDecay = 0
  self.maxIteration = 25
  self.shuffleIndices = true
  self.module = module
  self.criterion = criterion
  self.verbose = true
end

local function checkDataset(dataset)
  local ok, n = pcall(function() return dataset:size() end)
  if not ok or (type(n) ~= 'number' or math.tointeger(n) == nil) or n < 1 then
    error(string.format('nn.StochasticGradient:train: dataset must answer dataset:size() with a positive '
                        .. 'count and dataset[i] = {input, target}, got %s', ok and tostring(n) or torch.type(dataset)), 3)
  end
  return math.tointeger(n)
end

function StochasticGradient:train(dataset)
  local n = checkDataset(dataset)
  local iteration = 1
  local currentLearningRate = self.learningRate
  local module, criterion = self.module, self.criterion

  local order = torch.randperm(n):long()
  if not self.shuffleIndices then
    for t = 1, n do order[t] = t end
  end

  print('# StochasticGradient: training')
  while true do
    local currentError = 0
    for t = 1, n do
      local example = dataset[order[t]]
      if type(example) ~= 'table' then
        error(string.format('nn.StochasticGradient:train: dataset[%d] must be a table {input, target}, got %s',
                            order[t], torch.type(example)), 2)
      end
      local input, target = example[1], example[2]
      currentError = currentError + criterion:forward(module:forward(input), target)
      module:updateGradInput(input, criterion:updateGradInput(module.output, target))
      module:accUpdateGradParameters(input, criterion.gradInput, currentLearningRate)
      if self.hookExample then self.hookExample(self, example) end
    end
    currentError = currentError / n
    if self.hookIteration then self.hookIteration(self, iteration, currentError) end
    if self.verbose then print('# current error = ' .. currentError) end
    iteration = iteration + 1
    currentLearningRate = self.learningRate / (1 + iteration * self.learningRateDecay)
    if self.maxIteration > 0 and iteration > self.maxIteration then
      print('# StochasticGradient: you have reached the maximum number of iterations')
      print('# training error = ' .. currentError)
      break
    end
  end
end
