-- nn.TanhShrink(): y = x - tanh(x), any shape; dy/dx = tanh(x)^2. As in
-- Torch7 the tanh runs in an inner nn.Tanh (field 'tanh', so Torch7's files
-- load), whose output backward reads.

local TanhShrink, parent = torch.class('nn.TanhShrink', 'nn.Module')

function TanhShrink:__init()
  parent.__init(self)
  self.tanh = nn.Tanh()
end

function TanhShrink:updateOutput(input)
  local th = self.tanh:updateOutput(input)
  self.output:resizeAs(input):copy(input):add(-1, th)
  return self.output
end

function TanhShrink:updateGradInput(input, gradOutput)
  nn.utils.needForward(self, self.tanh.output, 'output')
  local dth = self.tanh:updateGradInput(input, gradOutput)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput):add(-1, dth)
  return self.gradInput
end

-- backward reads the inner Tanh's output (kept inside, not the input)
function TanhShrink:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function TanhShrink:clearState()
  self.tanh:clearState()
  return parent.clearState(self)
end
