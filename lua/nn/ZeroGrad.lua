-- nn.ZeroGrad(): y = x (the output views the input's memory; a table input
-- passes through), and the gradient is zero: gradInput is zeros shaped as
-- the input. Cuts a path out of backpropagation.

local ZeroGrad, parent = torch.class('nn.ZeroGrad', 'nn.Module')

function ZeroGrad:updateOutput(input)
  return nn.utils.alias(self, 'output', input)
end

function ZeroGrad:updateGradInput(input, gradOutput)
  if torch.isTensor(input) and torch.isTensor(self.gradInput) then
    self.gradInput:resizeAs(input):zero()
  else
    self.gradInput = nn.utils.recursiveResizeAs(self.gradInput, input)
    self.gradInput = nn.utils.recursiveFill(self.gradInput, 0)
  end
  return self.gradInput
end

-- backward reads only the input's shape
function ZeroGrad:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end
