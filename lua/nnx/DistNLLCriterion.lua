-- nn.DistNLLCriterion([opts]) (nnx): negative log-likelihood of a
-- distribution target: output = -sum_i p_target[i] * log p_input[i] for
-- a 1D input. opts: inputIsProbability (take log of the input),
-- inputIsLogProbability (use as is), neither: log-softmax of the input;
-- inputIsADistance (negate the input first); targetIsProbability (default
-- true; false: softmax of the target).
local DistNLLCriterion, parent = torch.class('nn.DistNLLCriterion', 'nn.Criterion')

function DistNLLCriterion:__init(opts)
  parent.__init(self)
  opts = opts or {}
  self.inputIsADistance = opts.inputIsADistance or false
  self.inputIsProbability = opts.inputIsProbability or false
  self.inputIsLogProbability = opts.inputIsLogProbability or false
  self.targetIsProbability = opts.targetIsProbability
  if self.targetIsProbability == nil then self.targetIsProbability = true end
  self.targetSoftMax = nn.SoftMax()
  self.inputLogSoftMax = nn.LogSoftMax()
  self.inputLog = nn.Log()
  self.gradLogInput = torch.Tensor()
  self.input = torch.Tensor()
end

function DistNLLCriterion:normalize(input, target)
  if input:dim() ~= 1 or not target.nElement or target:nElement() ~= input:nElement() then
    error('nn.DistNLLCriterion: a 1D input and a target of as many elements expected', 3)
  end
  self.probTarget = self.targetIsProbability and target or self.targetSoftMax:updateOutput(target)
  if self.inputIsADistance then
    self.input = self.input:typeAs(input)
    self.input:resizeAs(input):copy(input):mul(-1)
  else
    self.input = input
  end
  if self.inputIsLogProbability then
    self.logProbInput = self.input
  elseif self.inputIsProbability then
    self.logProbInput = self.inputLog:updateOutput(self.input)
  else
    self.logProbInput = self.inputLogSoftMax:updateOutput(self.input)
  end
end

function DistNLLCriterion:updateOutput(input, target)
  self:normalize(input, target)
  self.output = -self.logProbInput:dot(self.probTarget:typeAs(self.logProbInput))
  return self.output
end

function DistNLLCriterion:updateGradInput(input, target)
  self:normalize(input, target)
  self.gradLogInput = self.gradLogInput:typeAs(input)
  self.gradLogInput:resizeAs(input):copy(self.probTarget):mul(-1)
  local g
  if self.inputIsLogProbability then
    g = self.gradLogInput
  elseif self.inputIsProbability then
    g = self.inputLog:updateGradInput(self.input, self.gradLogInput)
  else
    g = self.inputLogSoftMax:updateGradInput(self.input, self.gradLogInput)
  end
  self.gradInput = self.gradInput:typeAs(g)
  self.gradInput:resizeAs(g):copy(g)
  if self.inputIsADistance then self.gradInput:mul(-1) end
  return self.gradInput
end
