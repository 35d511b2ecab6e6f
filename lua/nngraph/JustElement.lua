-- nngraph.JustElement(): {x} -> x (what node:split(1) runs).
local JustElement, parent = torch.class('nngraph.JustElement', 'nn.Module')

function JustElement:__init()
  parent.__init(self)
  self.gradInput = {}
end

function JustElement:updateOutput(input)
  if type(input) ~= 'table' or #input ~= 1 then
    error('nngraph.JustElement:updateOutput: expecting a table of one element, got '
          .. (type(input) == 'table' and (#input .. ' elements') or torch.type(input)), 2)
  end
  self.output = input[1]
  return self.output
end

function JustElement:updateGradInput(input, gradOutput)
  self.gradInput[1] = gradOutput
  return self.gradInput
end

function JustElement:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return JustElement
