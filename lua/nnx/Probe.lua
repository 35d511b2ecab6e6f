-- nn.Probe([name='unnamed' [, display]]) (nnx): the identity, printing the
-- size, mean, std, min and max of what passes forward (output) and
-- backward (gradInput) and the time since the last probe. With display,
-- image.display shows it too.
local Probe, parent = torch.class('nn.Probe', 'nn.Module')

function Probe:__init(name, display)
  parent.__init(self)
  self.name = name or 'unnamed'
  self.display = display
  nn._ProbeTimer = nn._ProbeTimer or torch.Timer()
end

local function report(legend, t)
  local now = nn._ProbeTimer:time().real
  local diff = now - (nn._ProbeLast or 0)
  nn._ProbeLast = now
  print('')
  print(legend)
  print('  + size = ' .. table.concat(t:size():totable(), 'x'))
  print('  + mean = ' .. t:mean())
  print('  + std = ' .. t:std())
  print('  + min = ' .. t:min())
  print('  + max = ' .. t:max())
  print('  + time since last probe = ' .. string.format('%0.1f', diff * 1000) .. 'ms')
end

function Probe:updateOutput(input)
  self.output = input
  local legend = '<' .. self.name .. '>.output'
  report(legend, input)
  if self.display then self.winf = image.display{image = input, win = self.winf, legend = legend} end
  return self.output
end

function Probe:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput
  local legend = 'layer<' .. self.name .. '>.gradInput'
  report(legend, gradOutput)
  if self.display then self.winb = image.display{image = gradOutput, win = self.winb, legend = legend} end
  return self.gradInput
end
