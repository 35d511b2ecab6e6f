-- nn.Balance([nBatch=10]) (nnx): rebalances a batch of distributions
-- (N x C, rows summing to 1) so that classes are used evenly: each column
-- is divided by that class's share over the last nBatch batches (a
-- rolling cache of inputs), then each row is renormalised to sum to 1.
-- In evaluation (module:evaluate()) the input passes unchanged. The
-- gradient treats the class shares and row sums as constants (nnx's).
local Balance, parent = torch.class('nn.Balance', 'nn.Module')

function Balance:__init(nBatch)
  parent.__init(self)
  self.nBatch = nBatch or 10
  self.inputCache = torch.Tensor()
  self.prob = torch.Tensor()
  self.sum = torch.Tensor()
  self.batchSize = 0
  self.startIdx = 1
  self.train = true
end

function Balance:updateOutput(input)
  if input:dim() ~= 2 then
    error(string.format('nn.Balance: 2D input (batch x classes) expected, got %dD', input:dim()), 2)
  end
  local N, C = input:size(1), input:size(2)
  if self.batchSize ~= N or self.inputCache:size(2) ~= C then
    self.inputCache:resize(N * self.nBatch, C):zero()
    self.batchSize = N
    self.startIdx = 1
  end
  self.output:resizeAs(input):copy(input)
  if not self.train then return self.output end
  self.inputCache:narrow(1, self.startIdx, N):copy(input)
  self.prob:sum(self.inputCache, 1)
  self.prob:div(self.prob:sum())
  self.output:cdiv(self.prob:view(1, C):expandAs(input))
  self.sum:sum(self.output, 2)
  self.output:cdiv(self.sum:view(N, 1):expandAs(input))
  self.startIdx = self.startIdx + N
  if self.startIdx > self.inputCache:size(1) then self.startIdx = 1 end
  return self.output
end

function Balance:updateGradInput(input, gradOutput)
  if self.train then nn.utils.needForward(self, self.sum, 'row sums') end
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  if not self.train then return self.gradInput end
  local N, C = input:size(1), input:size(2)
  self.gradInput:cdiv(self.sum:view(N, 1):expandAs(input))
  self.gradInput:cdiv(self.prob:view(1, C):expandAs(input))
  return self.gradInput
end
