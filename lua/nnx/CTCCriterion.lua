-- nn.CTCCriterion([batchFirst=false]) (nnx, which called Baidu's
-- warp-ctc): Connectionist Temporal Classification. forward(input,
-- target, sizes):
--   input: activations before the softmax, seqLength x batch x C (batch x
--     seqLength x C with batchFirst), or 2D (seqLength*batch) x C time
--     major (row (t-1)*batch + b); class 1 (column 1) is the blank and a
--     label l of a target is column l + 1
--   target: a table of label sequences, {{1, 2}, {3}}: one per example
--   sizes: a tensor of the examples' lengths (time steps used)
-- output: sum over examples of -log P(target | input), divided by the
-- batch size; gradInput (as warp-ctc): the gradient of the sum (not
-- divided), w.r.t. the activations, in the input's layout. A target that
-- cannot fit its length costs math.huge. Pure Lua (forward-backward in log
-- space): fine for tests and small batches.
local CTCCriterion, parent = torch.class('nn.CTCCriterion', 'nn.Criterion')

function CTCCriterion:__init(batchFirst)
  parent.__init(self)
  self.batchFirst = batchFirst or false
end

local NEG = -math.huge

local function logadd(a, b)
  if a == NEG then return b end
  if b == NEG then return a end
  if a < b then a, b = b, a end
  return a + math.log(1 + math.exp(b - a))
end

-- the activations as a 2D time-major double matrix, and the batch size
function CTCCriterion:_acts(input, sizes)
  local acts = input
  if input:dim() == 3 then
    if self.batchFirst then acts = acts:transpose(1, 2) end
    acts = acts:contiguous():view(acts:size(1) * acts:size(2), acts:size(3))
  elseif input:dim() ~= 2 then
    error(string.format('nn.CTCCriterion: 2D or 3D input expected, got %dD', input:dim()), 3)
  end
  if not torch.isTensor(sizes) then
    error('nn.CTCCriterion: you must pass the size of each sequence in the batch as a tensor', 3)
  end
  local B = sizes:nElement()
  if B < 1 or acts:size(1) % B ~= 0 then
    error(string.format('nn.CTCCriterion: %d rows of activations do not split into %d sequences', acts:size(1), B), 3)
  end
  return acts:double(), B
end

-- cost and gradient (T x C rows of 'grad') of one sequence
local function ctc(logp, T, labels, grad)
  local C = logp:size(2)
  local S = 2 * #labels + 1
  local ext = {}
  for s = 1, S do ext[s] = (s % 2 == 1) and 1 or labels[s // 2] + 1 end
  for s = 2, S, 2 do
    if ext[s] < 2 or ext[s] > C then error(string.format('nn.CTCCriterion: label %d out of range 1..%d', ext[s] - 1, C - 1), 4) end
  end
  local lp = function(t, s) return logp[t][ext[s]] end
  local alpha, beta = {}, {}
  for t = 1, T do alpha[t], beta[t] = {}, {} for s = 1, S do alpha[t][s], beta[t][s] = NEG, NEG end end
  alpha[1][1] = lp(1, 1)
  if S > 1 then alpha[1][2] = lp(1, 2) end
  for t = 2, T do
    for s = 1, S do
      local a = logadd(alpha[t - 1][s], s > 1 and alpha[t - 1][s - 1] or NEG)
      if s > 2 and ext[s] ~= 1 and ext[s] ~= ext[s - 2] then a = logadd(a, alpha[t - 1][s - 2]) end
      if a ~= NEG then alpha[t][s] = a + lp(t, s) end
    end
  end
  beta[T][S] = lp(T, S)
  if S > 1 then beta[T][S - 1] = lp(T, S - 1) end
  for t = T - 1, 1, -1 do
    for s = 1, S do
      local b = logadd(beta[t + 1][s], s < S and beta[t + 1][s + 1] or NEG)
      if s < S - 1 and ext[s] ~= 1 and ext[s] ~= ext[s + 2] then b = logadd(b, beta[t + 1][s + 2]) end
      if b ~= NEG then beta[t][s] = b + lp(t, s) end
    end
  end
  local logP = logadd(alpha[T][S], S > 1 and alpha[T][S - 1] or NEG)
  if logP == NEG then return math.huge end
  -- d cost / d activation(t, k) = y(t, k) - sum_{s: ext[s] = k} alpha beta / (y P)
  for t = 1, T do
    local occ = {}
    for s = 1, S do
      local ab = alpha[t][s] + beta[t][s]
      if ab ~= NEG then occ[ext[s]] = logadd(occ[ext[s]] or NEG, ab) end
    end
    for k = 1, C do
      local y = math.exp(logp[t][k])
      local g = y
      if occ[k] then g = y - math.exp(occ[k] - logp[t][k] - logP) end
      grad[t][k] = g
    end
  end
  return -logP
end

function CTCCriterion:updateOutput(input, target, sizes)
  local acts, B = self:_acts(input, sizes)
  if type(target) ~= 'table' or #target ~= B then
    error(string.format('nn.CTCCriterion: a table of %d label sequences expected', B), 2)
  end
  local maxT, C = acts:size(1) // B, acts:size(2)
  local grad = torch.DoubleTensor(acts:size()):zero()
  local total = 0
  for b = 1, B do
    local T = math.floor(sizes:view(-1)[b])
    if T < 1 or T > maxT then
      error(string.format('nn.CTCCriterion: length %d of sequence %d is outside 1..%d', T, b, maxT), 2)
    end
    -- the example's rows (time major), log-softmax
    local rows = acts:view(maxT, B, C):select(2, b):narrow(1, 1, T)
    local logp = nn.LogSoftMax():forward(rows):clone()
    local g = torch.DoubleTensor(T, C)
    total = total + ctc(logp, T, target[b], g)
    grad:view(maxT, B, C):select(2, b):narrow(1, 1, T):copy(g)
  end
  -- the gradient in the input's layout
  local gi = grad
  if input:dim() == 3 then
    if self.batchFirst then
      gi = grad:view(input:size(2), input:size(1), C):transpose(1, 2)
    else
      gi = grad:view(input:size(1), input:size(2), C)
    end
  end
  self.gradInput = self.gradInput:type(input:type())
  self.gradInput:resize(gi:size()):copy(gi)
  self.output = total / B
  return self.output
end

function CTCCriterion:forward(input, target, sizes)
  return self:updateOutput(input, target, sizes)
end

-- the gradient computed by the last forward
function CTCCriterion:updateGradInput(input, target)
  return self.gradInput
end

function CTCCriterion:backward(input, target)
  return self:updateGradInput(input, target)
end
