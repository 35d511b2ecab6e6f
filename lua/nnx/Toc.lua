-- nn.Toc([name='default' [, comment='']]) (nnx): the identity; its forward
-- prints the seconds since the forward of nn.Tic(name).
local Toc, parent = torch.class('nn.Toc', 'nn.Module')

function Toc:__init(name, comment)
  parent.__init(self)
  self.name = name or 'default'
  self.comment = comment or ''
end

function Toc:updateOutput(input)
  local timer = tic_modules and tic_modules[self.name]
  if not timer then error(string.format("nn.Toc: no nn.Tic named '%s'", self.name), 2) end
  print("Toc '" .. self.name .. "' (" .. self.comment .. ") : " .. timer:time().real)
  self.output = input
  return self.output
end

function Toc:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput
  return self.gradInput
end
