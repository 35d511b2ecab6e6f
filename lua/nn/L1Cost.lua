-- nn.L1Cost(): loss = sum |x| over the input alone (an L1 penalty; forward's
-- target is ignored), gradient sign(x) (0 at 0). No averaging, as Torch7.
-- Lua over tensor ops.

local L1Cost, parent = torch.class('nn.L1Cost', 'nn.Criterion')

function L1Cost:__init()
  parent.__init(self)
end

local function check(input, method)
  nn.utils.checkTensor(input, 'nn.L1Cost:' .. method)
end

function L1Cost:updateOutput(input)
  check(input, 'updateOutput')
  self.output = input:nElement() > 0 and input:norm(1) or 0
  return self.output
end

function L1Cost:updateGradInput(input)
  check(input, 'updateGradInput')
  self.gradInput:resizeAs(input)
  torch.sign(self.gradInput, input)
  return self.gradInput
end

function L1Cost:clearState()
  -- output_tensor: Torch7's field, cleared for its files
  if self.output_tensor then self.output_tensor:set() end
  return parent.clearState(self)
end
