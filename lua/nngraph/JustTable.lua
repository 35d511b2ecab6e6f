-- nngraph.JustTable(): x -> {x}.
local JustTable, parent = torch.class('nngraph.JustTable', 'nn.Module')

function JustTable:__init()
  parent.__init(self)
  self.output = {}
end

function JustTable:updateOutput(input)
  self.output[1] = input
  return self.output
end

function JustTable:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput[1]
  return self.gradInput
end

function JustTable:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return JustTable
